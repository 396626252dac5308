package org.alpsbridge.affinity.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.alpsbridge.affinity.topology.Topology;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Hand-worked placements: layout, numbering, ntasks, cpus-per-task, allowed CPUs, expected masks ('|' between tasks). */
class ReducedPolicyTest {

    static List<String> place(String layout, String numbering, int n, int c, String allowed) throws Rejection {
        return Placements.place("reduced", layout, n, c,
                "numbering=" + numbering + (allowed == null || allowed.isEmpty() ? "" : " allowed=" + allowed));
    }

    @ParameterizedTest(name = "{0} {1} -n{2} -c{3} allowed={4} -> {5}")
    @CsvSource(delimiter = ';', value = {
        // The CSCS talk example: XC30, Intel numbering.
        "2x8x2; intel; 4; 4; ; 0-3|4-7|8-11|12-15",
        // Same job, other numberings: one thread per core, socket-confined, in the numbering's own CPU ids.
        "2x8x2; interleaved; 4; 4; ; 0,2,4,6|8,10,12,14|16,18,20,22|24,26,28,30",
        "2x8x2; round-robin; 4; 4; ; 0,2,4,6|8,10,12,14|1,3,5,7|9,11,13,15",
        // Packed socket by socket; remainders idle.
        "2x8x2; intel; 2; 4; ; 0-3|4-7",
        "2x8x2; intel; 2; 5; ; 0-4|8-12",
        "2x8x2; intel; 2; 8; ; 0-7|8-15",
        "2x8x2; intel; 16; 1; ; 0|1|2|3|4|5|6|7|8|9|10|11|12|13|14|15",
        // Haswell 2x12x2 and 1x12x2 (Piz Daint): -n4 -c3 like the dbcsr report with --hint=nomultithread.
        "2x12x2; intel; 4; 3; ; 0-2|3-5|6-8|9-11",
        "1x12x2; intel; 4; 3; ; 0-2|3-5|6-8|9-11",
        "2x12x2; intel; 6; 4; ; 0-3|4-7|8-11|12-15|16-19|20-23",
        // XE6 Interlagos as 2x16x1 integer cores, and as compute units of two integer cores (2x8x2 interleaved).
        "2x2x8x1; intel; 4; 8; ; 0-7|8-15|16-23|24-31",
        "2x2x4x2; interleaved; 4; 4; ; 0,2,4,6|8,10,12,14|16,18,20,22|24,26,28,30",
        // KNL 1x68x4: 4 tasks of 17 cores.
        "1x68x4; intel; 4; 17; ; 0-16|17-33|34-50|51-67",
        // Rome 2x64x2 NPS4: 8 tasks of 16 cores.
        "2x4x16x2; intel; 8; 16; ; 0-15|16-31|32-47|48-63|64-79|80-95|96-111|112-127",
        // Partial allocation: the job owns cores 2-7 of socket 0 (both threads) -> computed inside.
        "2x8x2; intel; 2; 3; 2-7,18-23; 2-4|5-7",
        // Only the siblings allowed: the core's lowest allowed thread is used.
        "2x8x2; intel; 2; 2; 16-19; 16-17|18-19",
        // A hole in the allowed cores splits a socket into two blocks; tasks never bridge it.
        "2x8x2; intel; 2; 3; 0-2,4-7; 0-2|4-6",
    })
    void placesTasks(String layout, String numbering, int n, int c, String allowed, String expected) throws Rejection {
        assertEquals(List.of(expected.split("\\|")), place(layout, numbering, n, c, allowed));
    }

    @ParameterizedTest(name = "{0} -n{1} -c{2} allowed={3} rejected: {4}")
    @CsvSource(delimiter = '#', value = {
        "2x8x2#1#9##cpus-per-task 9 exceeds the 8 cores of a socket (one CPU per core: cpus-per-task counts cores here, and a core's 2 hardware threads count once)",
        "2x8x1#1#17##cpus-per-task 17 exceeds the 8 cores of a socket",
        "2x8x2#3#5##3 tasks of 5 cores do not fit whole in the sockets: socket 0 holds 1 (8 cores), socket 1 holds 1 (8 cores); 2 in all",
        "2x8x2#5#4##5 tasks of 4 cores do not fit whole in the sockets: socket 0 holds 2 (8 cores), socket 1 holds 2 (8 cores); 4 in all",
        "2x8x2#2#4#0-2,4-6#cpus-per-task 4 exceeds the 3 adjacent allowed cores in any one socket (allowed CPUs 0-2,4-6)",
        "2x8x2#3#3#0-2,4-7#3 tasks of 3 cores do not fit whole in the sockets: socket 0 holds 2 (8 cores, 7 allowed), socket 1 holds 0 (8 cores, 0 allowed); 2 in all",
        "2x8x2#1#1#40-47#none of the allowed CPUs 40-47 is a CPU of this node (0-31)",
        "2x8x2#0#1##ntasks must be at least 1 (got 0)",
        "2x8x2#1#0##cpus-per-task must be at least 1 (got 0)",
    })
    void rejectsNamingTheRule(String layout, int n, int c, String allowed, String reason) {
        Rejection r = assertThrows(Rejection.class, () -> place(layout, "intel", n, c, allowed));
        assertEquals(reason, r.getMessage());
    }

    /** Broadwell E5-2680v4, sockets round-robin, core ids 0-6,8-14 in each socket (hwloc export). */
    @ParameterizedTest(name = "broadwell -n{0} -c{1} -> {2}")
    @CsvSource(delimiter = ';', value = {
        "2; 7; 0,2,4,6,8,10,12|14,16,18,20,22,24,26",
        // Core 6 and core 8 are neighbours: only the order of the ids counts.
        "1; 8; 0,2,4,6,8,10,12,14",
        "3; 7; 0,2,4,6,8,10,12|14,16,18,20,22,24,26|1,3,5,7,9,11,13",
        "2; 14; 0,2,4,6,8,10,12,14,16,18,20,22,24,26|1,3,5,7,9,11,13,15,17,19,21,23,25,27",
    })
    void nonContiguousCoreIds(int n, int c, String expected) throws Exception {
        Topology node = Topology.hwlocXml(java.nio.file.Paths.get(
                getClass().getResource("/hwloc/broadwell-2x14x1-noncontiguous.xml").toURI()));
        List<String> lists = new java.util.ArrayList<>();
        for (var m : Policy.REDUCED.place(node, Request.of(n, c)).masks()) {
            lists.add(org.alpsbridge.affinity.format.CpuLists.expanded(m));
        }
        assertEquals(List.of(expected.split("\\|")), lists);
    }
}
