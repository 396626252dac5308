package org.alpsbridge.proxy.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ledger's orphans resolved from the inventories the policy fetches. */
class LedgerSweeperTest {

    static final Instant T = Instant.parse("2026-03-01T12:00:00Z");

    @TempDir
    Path dir;
    Ledger ledger;
    final LedgerBackendTest.MutableClock clock = new LedgerBackendTest.MutableClock();
    LedgerSweeper sweeper;

    @BeforeEach
    void open() {
        ledger = Ledger.open("sqlite:" + dir.resolve("ledger.db"));
        ledger.addProject("chem", 5001, null);
        ledger.grant("chem", Resource.CPU, 100_000, T.minus(Duration.ofDays(30)), T.plus(Duration.ofDays(30)), "r", null);
        sweeper = new LedgerSweeper(ledger, "xc", Duration.ofHours(1), Duration.ofMinutes(10), Duration.ofMinutes(5),
                clock);
    }

    @AfterEach
    void close() {
        ledger.close();
    }

    void reserve(String cluster, long resId) {
        ledger.reserve(new ReserveRequest(cluster, "job" + resId, resId, null, "chem", "alice", null, Resource.CPU, 1,
                NodeShape.cores(32), 3_600, T));
    }

    void inventoryLists(long... resIds) {
        List<ReservationView> listed = new java.util.ArrayList<>();
        for (long id : resIds) {
            listed.add(new ReservationView(id, "alice", "chem", null, "job" + id, null, null, List.of()));
        }
        sweeper.fullInventory(null, List.of(), listed, System.nanoTime());
    }

    State state(String cluster, long resId) {
        return ledger.reservation(new Lookup(cluster, resId, null)).map(Reservation::state).orElseThrow();
    }

    @Test
    void holdsGoneFromAlpsAreResolvedAndListedOnesAndOtherClustersAreLeftAlone() {
        reserve("xc", 5); // never confirmed, gone from ALPS
        reserve("xc", 6); // never confirmed, still listed
        reserve("xc", 7); // running, gone, never released
        ledger.confirm(new Lookup("xc", 7, null), T.plusSeconds(60), null);
        reserve("other", 8); // another cluster's proxy judges this one
        clock.now = T.plus(Duration.ofHours(1)).plus(Duration.ofMinutes(12)); // past 1 h limit + 10 min grace
        inventoryLists(6);
        assertEquals(State.VOIDED, state("xc", 5));
        assertEquals(State.HELD, state("xc", 6));
        assertEquals(State.ORPHAN_SETTLED, state("xc", 7));
        assertEquals(1_920, ledger.reservation(new Lookup("xc", 7, null)).orElseThrow().charge()); // 32 cores x 60 min
        assertEquals(State.HELD, state("other", 8));
        assertEquals(List.of(), ledger.check());
    }

    @Test
    void inventoriesInsideTheIntervalDoNotSweepAgain() {
        clock.now = T.plus(Duration.ofHours(2));
        inventoryLists();
        reserve("xc", 9); // reserved at T: already old enough, and gone
        inventoryLists();
        assertEquals(State.HELD, state("xc", 9));
        clock.now = clock.now.plus(Duration.ofMinutes(5));
        inventoryLists();
        assertEquals(State.VOIDED, state("xc", 9));
    }

    @Test
    void aYoungHoldIsNeverVoidedEvenWhenTheInventoryMissesIt() {
        reserve("xc", 10); // the inventory may have been fetched before ALPS made it
        clock.now = T.plus(Duration.ofMinutes(59));
        inventoryLists();
        assertEquals(State.HELD, state("xc", 10));
    }
}
