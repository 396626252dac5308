package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * pbs_mom makes its vnodes from what ALPS reports of each machine, on a fresh PBS_HOME each (vnodes keep stale
 * resources across a change of machine): on a KNL it reads QUERY SYSTEM 1.7 (ncpus from compute units, mem,
 * hbmem, the NUMA and MCDRAM mode as {@code current_aoe}); on an XC50 with GPUs the accelerators of INVENTORY
 * ({@code accelerator}, {@code naccelerators}, {@code accelerator_model}, {@code accelerator_memory}). The values
 * expected are read from the emulator's own answers, and a job asking for them runs.
 */
@Order(6) // the class order: src/test/resources/junit-platform.properties
class PbsMachinesTest {

    @Test
    void onAKnlEveryVnodeCarriesWhatQuerySystemReports() throws Exception {
        Path prefix = Clients.openpbs();
        try (Bridge bridge = new Bridge("pbs-knl", "knl:4", List.of()); PbsComplex pbs = PbsComplex.start(prefix, bridge)) {
            String system = bridge.basil("<?xml version=\"1.0\"?>\n"
                    + "<BasilRequest protocol=\"1.7\" method=\"QUERY\" type=\"SYSTEM\"/>\n");
            Map<String, String> nodes = attributes(system, "Nodes");
            Map<String, String> vnodes = pbs.vnodes();
            assertEquals(4, vnodes.size(), vnodes.keySet().toString());
            long kb = Long.parseLong(nodes.get("page_size_kb")) * Long.parseLong(nodes.get("page_count"));
            for (String vnode : vnodes.values()) {
                assertTrue(vnode.contains("resources_available.ncpus = " + nodes.get("compute_units") + "\n"), vnode);
                assertTrue(vnode.contains("resources_available.hbmem = " + nodes.get("hbm_size_mb") + "mb\n"), vnode);
                assertTrue(vnode.contains("resources_available.mem = " + kb + "kb\n"), vnode);
                assertTrue(vnode.contains("current_aoe = " + nodes.get("numa_cfg") + "_" + nodes.get("hbm_cache_pct") + "\n"), vnode);
            }
            String job = pbs.submit("daemon",
                    "2:ncpus=" + nodes.get("compute_units") + ":arch=XT:hbmem=" + nodes.get("hbm_size_mb") + "mb", 1);
            assertTrue(Host.await(Duration.ofMinutes(2), () -> pbs.state(job).equals("F")), pbs.job(job));
            assertEquals("0", pbs.attribute(job, "Exit_status"), pbs.job(job));
            assertEquals(List.of(), PbsInteropTest.errors(pbs), "BASIL errors in pbs_mom's log");
        }
    }

    @Test
    void onAGpuMachineEveryVnodeCarriesItsAccelerator() throws Exception {
        Path prefix = Clients.openpbs();
        try (Bridge bridge = new Bridge("pbs-gpu", "xc50-gpu:4", List.of()); PbsComplex pbs = PbsComplex.start(prefix, bridge)) {
            Map<String, String> gpu = attributes(bridge.inventory(), "Accelerator");
            Map<String, String> vnodes = pbs.vnodes();
            assertEquals(4, vnodes.size(), vnodes.keySet().toString());
            for (String vnode : vnodes.values()) {
                assertTrue(vnode.contains("resources_available.accelerator = True\n"), vnode);
                assertTrue(vnode.contains("resources_available.naccelerators = 1\n"), vnode);
                assertTrue(vnode.contains("resources_available.accelerator_model = " + gpu.get("family") + "\n"), vnode);
                assertTrue(vnode.contains("resources_available.accelerator_memory = " + gpu.get("memory_mb") + "mb\n"), vnode);
            }
            long reserves = bridge.requests("RESERVE");
            String job = pbs.submit("www-data",
                    "2:ncpus=1:arch=XT:naccelerators=1:accelerator_model=" + gpu.get("family"), 1);
            assertTrue(Host.await(Duration.ofMinutes(2), () -> pbs.state(job).equals("F")), pbs.job(job));
            assertEquals("0", pbs.attribute(job, "Exit_status"), pbs.job(job));
            assertEquals(reserves + 1, bridge.requests("RESERVE"));
            assertEquals(List.of(), PbsInteropTest.errors(pbs), "BASIL errors in pbs_mom's log");
        }
    }

    /** The attributes of the first {@code element} of a BASIL document. */
    private static Map<String, String> attributes(String xml, String element) {
        Matcher e = Pattern.compile("<" + element + " ([^>]*)>").matcher(xml);
        assertTrue(e.find(), "no " + element + " in " + xml);
        Map<String, String> out = new java.util.HashMap<>();
        Matcher a = Pattern.compile("([a-z_]+)=\"([^\"]*)\"").matcher(e.group(1));
        while (a.find()) {
            out.put(a.group(1), a.group(2));
        }
        return out;
    }
}
