package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Map;
import org.alpsbridge.ledger.Ledger;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The long-lived ledger (what {@code proxy serve --ledger} and the ledger service hold) on a primary and a
 * synchronous standby, behind a multi-host URL, in a charge storm: the primary is killed (-9) and the
 * standby promoted, or the primary restarted. Every acknowledged event is on the new primary once; events
 * in flight complete once, or are refused TRANSIENT and succeed once on a retry; check and replay are
 * clean; the same ledger object goes on working (it reconnects by itself).
 */
class FailoverTest {

    @TempDir
    Path dir;

    @Test
    void killedPrimaryAndPromotedStandbyLoseNothing() throws Exception {
        try (ReplicatedPostgres pair = ReplicatedPostgres.start()) {
            FailoverStorm.prepare(pair.url(), "hot");
            FailoverStorm.Result r;
            try (Ledger ledger = Ledger.open(pair.url())) {
                r = FailoverStorm.run(ledger, "alps", "hot", 16, 1_500, () -> {
                    try {
                        pair.killPrimary();
                        Thread.sleep(500);
                        pair.promoteStandby();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, 2_000);
            }
            System.out.println("FailoverTest promote: " + r);
            assertTrue(r.beforeBreak.get() > 0 && r.acknowledged.get() > r.beforeBreak.get(), r.toString());
            r.verify(pair.primaryUrl(), "hot", dir);
        }
    }

    @Test
    void killedAndRestartedPrimaryLosesNothingAndRefusesTransientlyMeanwhile() throws Exception {
        try (ReplicatedPostgres pair = ReplicatedPostgres.start()) {
            FailoverStorm.prepare(pair.url(), "hot");
            FailoverStorm.Result r;
            Ledger opened = Ledger.open(pair.url(), true,
                    Map.of(StoreSettings.PG_RECONNECT_SECONDS.name(), "1")); // shorter than the outage
            try (Ledger ledger = opened) {
                r = FailoverStorm.run(ledger, "alps", "hot", 16, 1_500, () -> {
                    try {
                        pair.killPrimary();
                        Thread.sleep(2_500);
                        pair.restartPrimary();
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, 2_000);
            }
            System.out.println("FailoverTest restart: " + r);
            assertTrue(r.refusedTransient.get() > 0 && r.retriedOk.get() > 0, "an outage longer than the reconnect"
                    + " window is answered TRANSIENT, and the retries succeed: " + r);
            r.verify(pair.primaryUrl(), "hot", dir);
        }
    }

    @Test
    @Tag("long")
    void aHundredRestartsLoseNothing() throws Exception {
        try (ReplicatedPostgres pair = ReplicatedPostgres.start()) {
            FailoverStorm.prepare(pair.url(), "hot");
            FailoverStorm.Result total;
            try (Ledger ledger = Ledger.open(pair.url())) {
                total = FailoverStorm.run(ledger, "alps", "hot", 64, 1_000, () -> {
                    try {
                        for (int i = 0; i < 100; i++) {
                            pair.killPrimary();
                            pair.restartPrimary();
                            Thread.sleep(300);
                        }
                    } catch (Exception e) {
                        throw new IllegalStateException(e);
                    }
                }, 1_000);
            }
            System.out.println("FailoverTest 100 restarts, 64 clients: " + total);
            total.verify(pair.primaryUrl(), "hot", dir);
        }
    }
}
