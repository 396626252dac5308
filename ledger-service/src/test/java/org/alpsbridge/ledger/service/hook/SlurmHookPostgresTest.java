package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.store.PostgresServer;
import org.junit.jupiter.api.Test;

/**
 * The hooks against a service on PostgreSQL (the ledger module's test server: initdb in a temp dir, a free
 * port on 127.0.0.1): jobs in both partitions settled on Slurm's elapsed time, a denial, and the service
 * killed -9 with a job in flight and started again, then a clean {@code ledger check}. No agent runs: the
 * C client falls back to the JVM hook for every call and says so in slurmctld's log.
 */
class SlurmHookPostgresTest {

    @Test
    void slurmChargesThroughAServiceOnPostgresql() throws Exception {
        long started = System.nanoTime();
        String db = PostgresServer.get().newDatabase();
        try (SlurmLab lab = SlurmLab.start(db, 8, SlurmLab.Hooks.CLIENT_ONLY, "superuser_uids=4242\ncharger_uids=0", "prolog_retry_for=40")) {
            Map<String, Integer> cpus = new HashMap<>();
            SlurmHookSlurmTest.grantChemAndBio(lab, 10); // bio: one 2-CPU job of 5 minutes
            String p1 = SlurmHookSlurmTest.submit(lab, cpus, 2, "-A", "chem", "-t", "2", "--wrap", "sleep 2");
            String p2 = SlurmHookSlurmTest.submit(lab, cpus, 3, "-A", "chem", "-p", "big", "-t", "2", "--wrap", "sleep 8");
            String denied = SlurmHookSlurmTest.submit(lab, cpus, 2, "-A", "bio", "-t", "10", "--wrap", "sleep 1");
            lab.awaitState(p2, "RUNNING", Duration.ofSeconds(60));
            lab.stopService(true);
            Thread.sleep(4_000);
            lab.startService();
            lab.awaitQuiet(Duration.ofSeconds(120));
            assertTrue(lab.job(denied).get("_raw").contains("AdminComment=ledger denied: "), lab.job(denied).get("_raw"));
            String log = java.nio.file.Files.readString(lab.dir.resolve("slurmctld.log"));
            assertTrue(log.contains("ledger prolog: job " + p1 + ": no hook agent answers on "), "the fallback in slurmctld's log");
            assertTrue(log.contains("ledger epilog: job " + p1 + ": no hook agent answers on "), "the fallback in slurmctld's log");
            try (Ledger ledger = Ledger.open(lab.db)) {
                assertEquals(List.of(), ledger.check(), "ledger check");
                assertEquals(List.of(), ledger.holds(null), "nothing left held");
                SlurmHookSlurmTest.assertSettledAsSlurmSays(lab, ledger, List.of(p1, p2), cpus);
                assertEquals(State.DENIED, ledger.reservations("lab", denied).get(0).state());
            }
        } finally {
            System.out.printf("SlurmHookPostgresTest: %.1f s%n", (System.nanoTime() - started) / 1e9);
        }
    }
}
