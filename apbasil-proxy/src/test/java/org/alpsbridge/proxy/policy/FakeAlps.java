package org.alpsbridge.proxy.policy;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.codec.Failures;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.InventoryWriter;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.ReservationStates;
import org.alpsbridge.basil.model.Summary;
import org.alpsbridge.basil.nodes.NidSet;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;

/**
 * A scripted ALPS for the policy's state machine: nodes without allocations, reservations as plain records,
 * a schedchangecount the test moves, and answers for RESERVE the test chooses. Counts calls per method key.
 */
final class FakeAlps implements Backend {

    static final BasilCodec CODEC = BasilCodec.standard();
    /** What {@link #calls} counts a QUERY(INVENTORY) of the reservations alone under. */
    static final String RESERVATIONS_ONLY = "QUERY/INVENTORY reservations";

    final LongSupplier clockSeconds;
    final List<NodeView> nodes = new ArrayList<>();
    final List<ReservationView> reservations = new ArrayList<>();
    final Map<String, Integer> calls = new HashMap<>();
    long schedchangecount = 1;
    byte[] reserveAnswer;
    /** The answer to every RELEASE when set; else SUCCESS (claims 0) for a known reservation, "No entry" for others. */
    byte[] releaseAnswer;
    BackendException reserveThrows;
    /** The answer to every QUERY(STATUS) when set; else each named reservation EMPTY while listed, INVALID once gone. */
    byte[] statusAnswer;
    /** What a reservations-only INVENTORY is answered, when scripted. */
    byte[] reservationsOnlyAnswer;
    boolean summaryRefused;
    byte[] engineAnswer;
    BackendException engineThrows;

    FakeAlps(LongSupplier clockSeconds, int nodeCount) {
        this.clockSeconds = clockSeconds;
        for (int nid = 0; nid < nodeCount; nid++) {
            nodes.add(node(nid, "UP"));
        }
    }

    static NodeView node(long nid, String state) {
        NodeView.Memory memory = new NodeView.Memory("OS", 4, 1024, List.of());
        List<NodeView.Core> cores = List.of(new NodeView.Core(0, List.of(new NodeView.Thread(0, List.of()), new NodeView.Thread(1, List.of()))));
        NodeView.Segment seg = new NodeView.Segment(0, cores, List.of(memory), List.of());
        return new NodeView(nid, "c0-0c0s0n" + nid, "XT", "BATCH", state, null,
                List.of(new NodeView.Socket(0, "x86_64", 2600, List.of(seg))), List.of(), List.of(), List.of());
    }

    int calls(String key) {
        return calls.getOrDefault(key, 0);
    }

    byte[] inventory(String protocol) throws BasilException {
        return InventoryWriter.write(InventoryHeader.success(protocol, "sdb", clockSeconds.getAsLong(), schedchangecount,
                schedchangecount), nodes, reservations);
    }

    @Override
    public byte[] call(Call call) throws BackendException {
        try {
            BasilRequest r = CODEC.readRequest(call.request());
            // the reservations-only INVENTORY counted apart, so "QUERY/INVENTORY" counts full inventories
            boolean reservationsOnly = r.selectiveInventory() && !r.inventoryNodesWanted();
            String key = reservationsOnly ? RESERVATIONS_ONLY : call.methodKey();
            calls.merge(key, 1, Integer::sum);
            return switch (key) {
                case "QUERY/INVENTORY" -> inventory(r.protocol());
                case RESERVATIONS_ONLY -> reservationsOnlyAnswer != null ? reservationsOnlyAnswer : InventoryWriter.write(InventoryHeader.success(r.protocol(), "sdb",
                        clockSeconds.getAsLong(), schedchangecount, schedchangecount), List.of(), reservations);
                case "QUERY/ENGINE" -> {
                    if (engineThrows != null) {
                        throw engineThrows;
                    }
                    yield engineAnswer;
                }
                case "QUERY/SUMMARY" -> summaryRefused
                        ? Failures.failure(r.protocol(), Method.QUERY, ErrorClass.PERMANENT, "SYNTAX", "unknown QUERY type SUMMARY")
                        : CODEC.write(BasilResponse.success(r.protocol(), Method.QUERY, Summary.of(schedchangecount,
                        NidSet.copyOf(nodes.stream().filter(n -> n.state().equals("UP")).mapToLong(NodeView::nodeId)),
                        NidSet.copyOf(nodes.stream().filter(n -> !n.state().equals("UP")).mapToLong(NodeView::nodeId)), null, null)));
                case "QUERY/STATUS" -> {
                    if (statusAnswer != null) {
                        yield statusAnswer;
                    }
                    List<ReservationStates.State> states = new ArrayList<>();
                    for (BasilRequest.ReservationAction a : r.reservations()) {
                        boolean held = reservations.stream().anyMatch(v -> v.reservationId() == a.reservationId());
                        states.add(new ReservationStates.State(a.reservationId(), held ? "EMPTY" : "INVALID"));
                    }
                    yield CODEC.write(BasilResponse.success(r.protocol(), Method.QUERY, ReservationStates.of(states)));
                }
                case "RESERVE" -> {
                    if (reserveThrows != null) {
                        throw reserveThrows;
                    }
                    yield reserveAnswer;
                }
                case "RELEASE" -> {
                    if (releaseAnswer != null) {
                        yield releaseAnswer;
                    }
                    boolean gone = reservations.removeIf(v -> v.reservationId() == r.reservationId());
                    yield gone ? CODEC.write(BasilResponse.success(r.protocol(), Method.RELEASE, Released.of(r.protocol(), r.reservationId(), 0)))
                            : Failures.failure(r.protocol(), Method.RELEASE, ErrorClass.PERMANENT, "BACKEND",
                            "ALPS error: apsched: No entry for resId " + r.reservationId());
                }
                default -> Failures.failure(r.protocol(), Method.QUERY, ErrorClass.PERMANENT, "SYNTAX", "not scripted");
            };
        } catch (BasilException e) {
            throw new BackendException(e.getMessage(), false, e);
        }
    }

    @Override
    public String describe() {
        return "fake ALPS";
    }
}
