package org.alpsbridge.affinity.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Hand-worked LLNL auto-affinity and ALPS aprun placements ('|' between tasks, Linux lists). */
class OtherPoliciesTest {

    static List<String> place(String policy, String layout, int n, int c, String knobs) throws Rejection {
        return Placements.place(policy, layout, n, c, knobs);
    }

    @ParameterizedTest(name = "{0} {1} -n{2} -c{3} {4} -> {5}")
    @CsvSource(delimiter = ';', value = {
        // LLNL position map on Intel numbering: a core's higher OS id first, so -c4 takes two whole cores
        // (0,1,16,17), the sets Slurm 2.6 also produced.
        "llnl; 2x8x2; 4; 4; ; 0-1,16-17|2-3,18-19|4-5,20-21|6-7,22-23",
        // ... and with one CPU per task tasks 0 and 1 share core 0, sibling first.
        "llnl; 2x8x2; 4; 1; ; 16|0|17|1",
        // LLNL documentation example: 16 CPUs, 8 tasks of 2.
        "llnl; 2x8x1; 8; 2; ; 0-1|2-3|4-5|6-7|8-9|10-11|12-13|14-15",
        "llnl; 2x8x1; 2; 2; start=2; 2-3|4-5",
        "llnl; 2x8x1; 2; 2; reverse; 14-15|12-13",
        // Positions wrap modulo the CPUs: the third task overlaps the first.
        "llnl; 2x4x1; 3; 3; ; 0-2|3-5|0,6-7",
        // More tasks than CPUs: LLNL binds nothing.
        "llnl; 1x2x1; 3; 1; ; 0-1|0-1|0-1",
        // aprun -cc depth: -j1 = first threads only, PE i at CPU i*d.
        "alps-depth; 2x8x2; 4; 4; j=1; 0-3|4-7|8-11|12-15",
        // -j2 (or no -j): a core's threads before the next core.
        "alps-depth; 2x8x2; 4; 4; j=2; 0-1,16-17|2-3,18-19|4-5,20-21|6-7,22-23",
        "alps-depth; 2x8x2; 2; 3; ; 0-1,16|2,17-18",
        // Blue Waters "aprun -n8 -d2": ranks start at 0,2,4,...,14.
        "alps-cpu; 2x8x2; 8; 2; j=1; 0|2|4|6|8|10|12|14",
        // Packed without -S: a depth-6 PE straddles the sockets.
        "alps-depth; 2x8x1; 3; 5; ; 0-4|5-9|10-14",
        // -S1 on Interlagos (two NUMA dies per socket): one PE per die.
        "alps-depth; 2x2x8x1; 4; 4; S=1; 0-3|8-11|16-19|24-27",
        // -cc numa_node: the PE floats over its NUMA domain (Rome NPS4, first threads).
        "alps-numa; 2x4x16x2; 2; 16; j=1; 0-15|16-31",
        "alps-numa; 2x8x1; 2; 6; ; 0-7|0-15",
        // Inside a partial allocation.
        "alps-depth; 2x8x2; 2; 2; j=1 allowed=4-7; 4-5|6-7",
    })
    void placesTasks(String policy, String layout, int n, int c, String knobs, String expected) throws Rejection {
        assertEquals(List.of(expected.split("\\|")), place(policy, layout, n, c, knobs));
    }

    @ParameterizedTest(name = "{0} {1} -n{2} -c{3} {4} rejected: {5}")
    @CsvSource(delimiter = '#', value = {
        "alps-depth#2x8x2#9#4#j=1#9 PEs x depth 4 = 36 CPUs exceeds the 16 usable CPUs of the node with -j 1",
        "alps-cpu#2x8x1#2#9#S=1#-S 1 x depth 9 = 9 CPUs exceeds the 8 usable CPUs of NUMA domain 0",
        "alps-depth#2x8x1#2#5#S=2#-S 2 x depth 5 = 10 CPUs exceeds the 8 usable CPUs of NUMA domain 0",
        "alps-depth#2x8x1#5#1#S=2#5 PEs do not fit at -S 2 on the node's 2 NUMA domains (4 PEs at most)",
        "alps-depth#2x8x2#1#1#j=3#-j 3 is outside 0..2 (hardware threads per core of this node)",
        "llnl#2x8x2#1#1#start=-1#start must not be negative (got -1)",
    })
    void rejectsNamingTheRule(String policy, String layout, int n, int c, String knobs, String reason) {
        assertEquals(reason, assertThrows(Rejection.class, () -> place(policy, layout, n, c, knobs)).getMessage());
    }
}
