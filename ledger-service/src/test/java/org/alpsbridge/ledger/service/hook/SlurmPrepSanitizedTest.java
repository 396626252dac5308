package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.State;
import org.junit.jupiter.api.Test;

/**
 * The PrEp plugin built with ASan and UBSan inside the real slurmctld (Slurm 22.05 and 26.05; the runtime preloaded, see
 * {@link SlurmLab#startSanitized}): jobs of two projects as the unprivileged job user, one denied, one past its
 * time limit, slurmctld restarted with jobs running (the plugin's fini and init with its threads busy). Every job
 * is charged as Slurm says, and the sanitizers wrote no report. A short scenario of its own rather than the whole
 * of {@link SlurmHookSlurmTest} again, to keep the default run lean.
 */
class SlurmPrepSanitizedTest {

    @Test
    void thePrepPluginUnderAsanAndUbsanInsideSlurmctldChargesAndReportsNothing() throws Exception {
        long started = System.nanoTime();
        try (SlurmLab lab = SlurmLab.startSanitized(null, 8, "superuser_uids=4242\ncharger_uids=0", "prolog_retry_for=40")) {
            String maps = Files.readString(Path.of("/proc", pid(lab), "maps"));
            assertTrue(maps.contains("libasan") && maps.contains("prep_ledger.so"),
                    "slurmctld runs the ASan runtime and the plugin: " + lab.tail("slurmctld.log"));
            Map<String, Integer> cpus = new HashMap<>();
            SlurmHookSlurmTest.grantChemAndBio(lab, 10); // bio: one 2-CPU job of 5 minutes
            String a1 = SlurmHookSlurmTest.submit(lab, cpus, 2, "-A", "chem", "-t", "2", "--wrap", "sleep 2");
            String a2 = SlurmHookSlurmTest.submit(lab, cpus, 1, "-A", "chem", "-p", "big", "-t", "0:10", "--wrap", "sleep 300");
            String b1 = SlurmHookSlurmTest.submit(lab, cpus, 2, "-A", "bio", "-t", "4", "--wrap", "sleep 3");
            lab.awaitState(b1, "RUNNING", Duration.ofSeconds(60));
            String b2 = SlurmHookSlurmTest.submit(lab, cpus, 2, "-A", "bio", "-t", "4", "--wrap", "sleep 1");
            lab.awaitState(b2, "CANCELLED", Duration.ofSeconds(60));
            String r1 = SlurmHookSlurmTest.submit(lab, cpus, 2, "-A", "chem", "-t", "2", "--wrap", "sleep 8");
            lab.awaitState(r1, "RUNNING", Duration.ofSeconds(60));
            lab.restartSlurmctld();
            List<String> more = new ArrayList<>();
            for (int i = 0; i < 6; i++) { // prologs and epilogs side by side on the plugin's threads
                more.add(SlurmHookSlurmTest.submit(lab, cpus, 1, "-A", "chem", "-t", "1", "--wrap", "sleep 1"));
            }
            lab.awaitQuietAndSettled(Duration.ofSeconds(120));
            assertEquals("TIMEOUT", lab.job(a2).get("JobState"));

            List<String> settled = new ArrayList<>(List.of(a1, a2, b1, r1));
            settled.addAll(more);
            try (Ledger ledger = Ledger.open(lab.db)) {
                assertEquals(List.of(), ledger.check(), "ledger check");
                assertEquals(List.of(), ledger.holds(null), "nothing left held");
                SlurmHookSlurmTest.assertSettledAsSlurmSays(lab, ledger, settled, cpus);
                List<Reservation> denied = ledger.reservations("lab", b2);
                assertEquals(1, denied.size());
                assertEquals(State.DENIED, denied.get(0).state());
            }
            Map<String, String> reports = lab.sanitizerReports();
            assertEquals(Map.of(), reports, "ASan/UBSan reports from slurmctld");
            assertTrue(maps.contains("libubsan") || Files.readString(Path.of("/proc", pid(lab), "maps")).contains("libubsan"),
                    "the plugin's UBSan runtime is loaded too");
        } finally {
            System.out.printf("SlurmPrepSanitizedTest: %.1f s%n", (System.nanoTime() - started) / 1e9);
        }
    }

    private static String pid(SlurmLab lab) throws Exception {
        return Files.readString(lab.dir.resolve("slurmctld.pid")).strip();
    }
}
