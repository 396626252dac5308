package org.alpsbridge.proxy.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.LongStream;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.InventoryWriter;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.junit.jupiter.api.Test;

/**
 * A RESERVE patch's {@code time_stamp} is ALPS's clock as the cache judges it, and that judgement is only good to a
 * second: a patch a second off what ALPS wrote is no patch mismatch (the alert would page for the clock's rounding),
 * two seconds off still is; and an answer that took more than a second does not replace an offset judged from a
 * quicker one.
 */
class CachedInventoryClockTest {

    private static final String PROTOCOL = "1.3";
    /** ALPS's clock at the fetch, the proxy's the same: an offset of 0, judged from a 200 ms answer. */
    private static final long T = 1_796_182_100L;

    @Test
    void aPatchASecondOffWhatAlpsWroteIsNoMismatchTwoSecondsIs() throws Exception {
        for (long off : new long[] {-1, 1}) {
            CachedInventory cache = patched();
            ReservationView mine = cache.reservations().get(1);
            assertEquals(List.of(), cache.patchMismatches(full(cache, stamped(mine, mine.timeStamp() + off))), "off " + off);
            assertEquals(List.of(), cache.takeReservations(reservationsOnly(stamped(mine, mine.timeStamp() + off))),
                    "off " + off);
        }
        CachedInventory cache = patched();
        ReservationView mine = cache.reservations().get(1);
        assertEquals(1, cache.patchMismatches(full(cache, stamped(mine, mine.timeStamp() - 2))).size());
        assertEquals(1, cache.takeReservations(reservationsOnly(stamped(mine, mine.timeStamp() - 2))).size());
    }

    @Test
    void anOffsetIsNotTakenFromAnAnswerSlowerThanASecondAndTheOneHeld() throws Exception {
        CachedInventory cache = read(InventoryWriter.write(header(T), nodes(), List.of()), T * 1000, T * 1000 + 200);
        long before = cache.alpsSeconds((T + 60) * 1000);
        // stamped T+50, arrived 1.6 s later: judged from its arrival, ALPS would seem a second behind
        CachedInventory slow = read(InventoryWriter.write(header(T + 50), List.of(), List.of()), (T + 50) * 1000,
                (T + 51) * 1000 + 600);
        cache.takeClock(slow);
        assertEquals(before, cache.alpsSeconds((T + 60) * 1000));
        // a quick one is taken: ALPS's clock did move a second ahead
        CachedInventory quick = read(InventoryWriter.write(header(T + 71), List.of(), List.of()), (T + 70) * 1000 + 100,
                (T + 70) * 1000 + 400);
        cache.takeClock(quick);
        assertEquals(before + 1, cache.alpsSeconds((T + 60) * 1000));
    }

    /**
     * A cache of four idle nodes (and bob's earlier reservation, which tells the application ids handed out) that
     * patched a RESERVE of two PEs on one, answered 94.9 s after its fetch.
     */
    private static CachedInventory patched() throws Exception {
        ReservationView bobs = new ReservationView(1, "bob", "DEFAULT", T - 10, "6", "EXCLUSIVE", "NONE",
                List.of(new ReservationView.Application(40, 1002, 1002, 0,
                        List.of(new ReservationView.Command(1, 1, 0, 1024, "XT", "BASIL")))));
        CachedInventory cache = read(InventoryWriter.write(header(T), nodes(), List.of(bobs)), T * 1000, T * 1000 + 200);
        BasilRequest reserve = BasilRequest.reserve(PROTOCOL, "alice", "7", "chem",
                List.of(ReserveParam.builder().architecture("XT").width(2).nppn(2).build()));
        assertTrue(cache.applyReserve(reserve, 2, List.of(0L), (T + 94) * 1000 + 900, new long[] {1001, 1001}));
        return cache;
    }

    private static CachedInventory full(CachedInventory cache, ReservationView theirs) throws Exception {
        return read(InventoryWriter.write(header(T + 100), cache.nodes(), List.of(theirs)), (T + 100) * 1000,
                (T + 100) * 1000 + 200);
    }

    private static CachedInventory reservationsOnly(ReservationView theirs) throws Exception {
        return read(InventoryWriter.write(header(T + 100), List.of(), List.of(theirs)), (T + 100) * 1000,
                (T + 100) * 1000 + 200);
    }

    private static ReservationView stamped(ReservationView v, long timeStamp) {
        return new ReservationView(v.reservationId(), v.userName(), v.accountName(), timeStamp, v.batchId(),
                v.reservationMode(), v.gpcMode(), v.applications());
    }

    private static CachedInventory read(byte[] document, long fetchedAtMillis, long answeredAtMillis) throws Exception {
        return CachedInventory.read(document, PROTOCOL, fetchedAtMillis, answeredAtMillis, 0, null);
    }

    private static InventoryHeader header(long alpsSeconds) {
        return InventoryHeader.success(PROTOCOL, "sdb", alpsSeconds, 1L, 1L);
    }

    private static List<NodeView> nodes() {
        return LongStream.range(0, 4).mapToObj(nid -> FakeAlps.node(nid, "UP")).toList();
    }
}
