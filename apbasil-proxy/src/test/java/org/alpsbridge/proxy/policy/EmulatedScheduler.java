package org.alpsbridge.proxy.policy;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.function.UnaryOperator;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.stats.Stats;

/**
 * A scheduler's calls through the policy to an emulated XC30 (16 nodes unless told) on a hand-moved clock, for scripted
 * policy scenarios: inventories, whole-node reservations, and what ALPS itself would answer at the same moment.
 */
final class EmulatedScheduler implements AutoCloseable {

    private static final BasilCodec CODEC = BasilCodec.standard();

    final InventoryPolicyTest.ManualClock clock = new InventoryPolicyTest.ManualClock();
    final Emulator emulator;
    final Stats stats = new Stats();
    final InventoryPolicy policy;
    private final Backend chain;
    private final byte[] inventoryRequest;

    /** @param userIds the policy's user id lookup, given the emulated ALPS */
    EmulatedScheduler(Function<Emulator, UserIds> userIds) throws Exception {
        this(userIds, Duration.ZERO);
    }

    /**
     * @param beforeAlps how long each backend call takes before ALPS handles it (and stamps its time): an exec:
     *     backend's process start, the drop-in emulator's JVM and modelled latency
     */
    EmulatedScheduler(Function<Emulator, UserIds> userIds, Duration beforeAlps) throws Exception {
        this("xc30:16", userIds, beforeAlps);
    }

    /** @param machine the emulated machine, e.g. {@code xc30:256} */
    EmulatedScheduler(String machine, Function<Emulator, UserIds> userIds, Duration beforeAlps) throws Exception {
        this(machine, userIds, beforeAlps, UnaryOperator.identity());
    }

    /** @param around wraps the emulated ALPS below the policy, e.g. to hold a call at ALPS */
    EmulatedScheduler(String machine, Function<Emulator, UserIds> userIds, Duration beforeAlps, UnaryOperator<Backend> around)
            throws Exception {
        emulator = Emulator.create(machine, () -> clock.millis() / 1000);
        policy = new InventoryPolicy(PolicySettings.DEFAULTS, userIds.apply(emulator), clock, stats, Runnable::run);
        chain = policy.decorate(around.apply(new Backend() {
            @Override
            public byte[] call(Call call) {
                clock.advance(beforeAlps);
                return emulator.handle(call.request());
            }

            @Override
            public String describe() {
                return "emulator";
            }
        }));
        inventoryRequest = CODEC.write(BasilRequest.query("1.3", "INVENTORY"));
    }

    /** The scheduler's QUERY(INVENTORY), as the policy answers it. */
    byte[] inventory() throws Exception {
        return chain.call(new Call(inventoryRequest, "1.3", "QUERY", "INVENTORY", Caller.UNAUTHENTICATED, null));
    }

    /** What ALPS itself answers to the same request now. */
    byte[] alpsInventory() {
        return emulator.handle(inventoryRequest);
    }

    /** Reserves node {@code nid} whole for {@code user}; returns the reservation id. */
    long reserve(String user, long nid) throws Exception {
        BasilRequest r = BasilRequest.reserve("1.3", user, Long.toString(100 + nid), null, List.of(ReserveParam.builder()
                .architecture("XT").width(32L).nppn(32).depth(1).nodes(Long.toString(nid)).build()));
        return CODEC.readResponse(chain.call(new Call(CODEC.write(r), "1.3", "RESERVE", null, Caller.UNAUTHENTICATED, null)))
                .responseData().content(Reserved.class).orElseThrow().reservationId();
    }

    /** A RESERVE of node {@code nid} through the policy that ALPS refuses; returns its message. */
    String reserveRefused(String user, long nid) throws Exception {
        BasilRequest r = BasilRequest.reserve("1.3", user, Long.toString(100 + nid), null, List.of(ReserveParam.builder()
                .architecture("XT").width(32L).nppn(32).depth(1).nodes(Long.toString(nid)).build()));
        var answer = CODEC.readResponse(chain.call(new Call(CODEC.write(r), "1.3", "RESERVE", null, Caller.UNAUTHENTICATED, null)))
                .responseData();
        if (answer.isSuccess()) {
            throw new AssertionError("ALPS reserved node " + nid);
        }
        return answer.messageText();
    }

    /** Switches a reservation OUT (suspends it) or IN through the policy; returns ALPS's answer. */
    byte[] switchReservation(long id, String action) throws Exception {
        return chain.call(new Call(CODEC.write(BasilRequest.switchReservation("1.3", id, action)), "1.3", "SWITCH", null,
                Caller.UNAUTHENTICATED, null));
    }

    /** Releases a reservation through the policy. */
    void release(long id) throws Exception {
        chain.call(new Call(CODEC.write(BasilRequest.release("1.3", id)), "1.3", "RELEASE", null, Caller.UNAUTHENTICATED, null));
    }

    void advance(Duration d) {
        clock.advance(d);
    }

    /** Full inventories fetched so far, by reason. */
    Map<String, Long> refreshes() {
        var c = stats.snapshot().counters().get("policy_refreshes");
        return c == null ? Map.of() : c.counted();
    }

    long patchMismatches() {
        var c = stats.snapshot().counters().get("policy_patch_mismatches");
        return c == null ? 0 : c.values().getOrDefault("", 0L);
    }

    /** Fails showing both reservation sections when the served inventory is not ALPS's, byte for byte. */
    void assertServedIsAlps(String when) throws Exception {
        byte[] served = inventory();
        byte[] alps = alpsInventory();
        assertArrayEquals(alps, served, () -> when + ": served\n" + reservations(served) + "\nALPS\n" + reservations(alps));
    }

    private static String reservations(byte[] inventory) {
        return new String(inventory, StandardCharsets.UTF_8).replaceAll("(?s).*<ReservationArray", "<ReservationArray");
    }

    @Override
    public void close() {
        policy.close();
    }
}
