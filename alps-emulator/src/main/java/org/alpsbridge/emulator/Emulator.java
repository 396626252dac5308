package org.alpsbridge.emulator;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.ReadWriteLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;
import java.util.function.LongSupplier;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.codec.Failures;
import org.alpsbridge.basil.codec.Probe;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Confirmed;
import org.alpsbridge.basil.model.Engine;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.ReservationStates;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;

/**
 * An in-memory Cray ALPS that answers BASIL request documents with response documents, as {@code apbasil}
 * would: every method in the protocol version of the request, ENGINE version negotiation, RESERVE
 * placement, CONFIRM, RELEASE, SWITCH, QUERY INVENTORY/SUMMARY/SYSTEM/STATUS, plus the faults and
 * scenarios of {@link #control()}.
 *
 * <p>Thread-safe: queries run concurrently, state changes one at a time. {@link #handle(byte[])} never
 * throws; a bad request gets the FAILURE document a real ALPS would send.
 *
 * <p>Machine specs: {@code [mixed:]KIND:N(+KIND:N)*[,service=S][,interactive=I][,engine=VERSION]} with
 * kinds {@code xc30} (2 × 8 cores × 2 threads, 64 GiB; {@code xc30-32g} for 32 GiB, and {@code -NNg} on any
 * kind), {@code xe6} (2 × Interlagos, 16 compute units of 2 integer cores), {@code knl} (68 × 4, 96 GiB +
 * 16 GiB MCDRAM), {@code xk7} and {@code xc50-gpu} (one GPU per node); or {@code inventory:FILE} to replay
 * a captured QUERY INVENTORY response.
 */
public final class Emulator {

    private final Apsched apsched;
    private final Faults faults;
    private final ReadWriteLock lock = new ReentrantReadWriteLock();
    private final BasilCodec codec = BasilCodec.standard();
    private final Control control;
    private final List<String> supported;
    private final Queries queries;
    /** The latency profile switched on through {@link Control#latencyProfile}, or null (answer at once). */
    private volatile ModelledLatency latency;

    Emulator(Apsched apsched, Faults faults) {
        this.apsched = apsched;
        this.faults = faults;
        this.control = new Control(this);
        this.supported = supportedProtocols(apsched.machine().engineVersion());
        this.queries = new Queries(apsched);
    }

    /** An emulator of the machine {@code spec} on the wall clock. */
    public static Emulator create(String spec) {
        return create(spec, () -> System.currentTimeMillis() / 1000);
    }

    /**
     * An emulator of the machine {@code spec} whose time stamps come from {@code clockSeconds} (epoch
     * seconds), so tests control time.
     *
     * @throws IllegalArgumentException naming what is wrong with the spec
     */
    public static Emulator create(String spec, LongSupplier clockSeconds) {
        return new Emulator(new Apsched(Machine.parse(spec), clockSeconds), new Faults());
    }

    /** Scenario and fault controls for tests and operators. */
    public Control control() {
        return control;
    }

    /**
     * The uid and gid this ALPS writes in a user's reservations: what the real ALPS takes from the password
     * database. By default derived from the name (the gid equals the uid); {@link Control#userIds} changes that.
     *
     * @return {uid, gid}
     */
    public long[] userIds(String user) {
        return apsched.userIds(user);
    }

    /** Compute nodes (batch and interactive) of the machine; service nodes are not counted. */
    public int computeNodes() {
        return apsched.machine().size();
    }

    /**
     * Answers one BASIL request document. Never throws. An inventory larger than {@value #SPILL_LIMIT}
     * bytes is written twice (once counted, once into an exact array) so it is never held twice in memory;
     * {@link #handle(byte[], OutputStream)} streams it instead.
     */
    public byte[] handle(byte[] request) {
        Spill out = new Spill(spillLimit);
        try {
            handle(request, out);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // a Spill does not fail
        }
        return out.toByteArray();
    }

    /** Bytes of a response {@link #handle(byte[])} buffers before it counts and writes again. */
    static final int SPILL_LIMIT = 32 << 20;

    /** {@link #SPILL_LIMIT}, lowered by tests to exercise the two passes on small machines. */
    int spillLimit = SPILL_LIMIT;

    /**
     * Answers one request onto {@code out}, streaming large inventories instead of holding them.
     *
     * @throws IOException only when {@code out} fails
     */
    public void handle(byte[] request, OutputStream out) throws IOException {
        handle(request, out, true);
    }

    /** As {@link #handle(byte[], OutputStream)}; {@code delays} false when the caller applied SLOW and HANG already. */
    void handle(byte[] request, OutputStream out, boolean delays) throws IOException {
        BasilRequest req;
        try {
            req = codec.readRequest(request);
        } catch (BasilException e) {
            out.write(unreadable(request, e));
            return;
        }
        String protocol = req.protocol();
        Method method = req.method();
        if (method == null || method == Method.UNDEFINED) {
            out.write(Failures.failure(protocol, Method.UNDEFINED, ErrorClass.PERMANENT, "SYNTAX",
                    "ALPS error: unknown BASIL method '" + req.methodText() + "'"));
            return;
        }
        if (protocol == null || !supported.contains(protocol)) {
            out.write(Failures.failure(protocol, method, ErrorClass.PERMANENT, "SYNTAX", "ALPS error: BASIL protocol version '"
                    + protocol + "' is not supported by ALPS " + apsched.machine().engineVersion() + " (basil_support "
                    + String.join(",", supported) + ")"));
            return;
        }
        Faults.Fault fault = faults.get(method);
        if (fault != null && !beforeAnswer(fault, req, out, delays)) {
            return;
        }
        if (fault == null && delays && !modelLatency(req, out)) {
            return;
        }
        if (fault != null && fault.kind() == Faults.Kind.TRUNCATE) {
            ByteArrayOutputStream whole = new ByteArrayOutputStream();
            answer(req, whole);
            byte[] bytes = whole.toByteArray();
            out.write(bytes, 0, bytes.length / 2);
            return;
        }
        answer(req, out);
    }

    /** Applies a fault's effect ahead of the answer; false if the fault replaced the answer. */
    private boolean beforeAnswer(Faults.Fault fault, BasilRequest req, OutputStream out, boolean delays) throws IOException {
        try {
            switch (fault.kind()) {
                case SLOW -> Thread.sleep(delays ? faults.delayMillis(fault) : 0);
                case HANG -> {
                    if (delays) {
                        faults.hang(req.method());
                    }
                }
                case FAIL -> {
                    out.write(Failures.failure(req.protocol(), req.method(), fault.errorClass(), fault.source(), fault.message()));
                    return false;
                }
                case GARBAGE -> {
                    out.write(garbage(req));
                    return false;
                }
                case TRUNCATE -> {
                    // cut after the answer is built
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.write(Failures.failure(req.protocol(), req.method(), ErrorClass.TRANSIENT, "SYSTEM", "ALPS error: interrupted"));
            return false;
        }
        return true;
    }

    /** Waits out (or books) the latency profile's time for this call; false if interrupted (answered TRANSIENT). */
    private boolean modelLatency(BasilRequest req, OutputStream out) throws IOException {
        ModelledLatency l = latency;
        if (l == null) {
            return true;
        }
        try {
            l.apply(req.methodKey(), reading(() -> load(req)));
            return true;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            out.write(Failures.failure(req.protocol(), req.method(), ErrorClass.TRANSIENT, "SYSTEM", "ALPS error: interrupted"));
            return false;
        }
    }

    /** What the latency profile's terms depend on: the machine, the reservations, the reservation concerned. */
    LatencyProfile.Load load(BasilRequest req) {
        int reservedNodes = 0;
        if (req.method() == Method.RESERVE) {
            for (ReserveParam p : req.reserveParams()) {
                long width = p.width() == null ? 1 : p.width();
                long perNode = p.nppn() == null || p.nppn() < 1 ? 1 : p.nppn();
                reservedNodes += (int) Math.min(Integer.MAX_VALUE, (width + perNode - 1) / perNode);
            }
        } else if (req.reservationId() != null) {
            Reservation r = apsched.reservation(req.reservationId());
            reservedNodes = r == null ? 0 : r.nodes().length;
        }
        // an INVENTORY that asks for no NodeArray (the reservations alone) walks no node: no per-node work
        boolean nodesWalked = req.method() != Method.QUERY || !"INVENTORY".equals(req.type()) || req.inventoryNodesWanted();
        return new LatencyProfile.Load(nodesWalked ? apsched.machine().size() : 0, apsched.reservationIds().length,
                reservedNodes);
    }

    void latency(ModelledLatency latency) {
        this.latency = latency;
    }

    ModelledLatency latency() {
        return latency;
    }

    /** What a broken apbasil might print instead of XML: a stray diagnostic and bytes no XML parser takes. */
    private static byte[] garbage(BasilRequest req) {
        String text = "apbasil: " + req.methodKey() + ": internal error\n<BasilResponse protocol=\u0001\u0002>\n";
        return text.getBytes(StandardCharsets.ISO_8859_1);
    }

    private byte[] unreadable(byte[] request, BasilException e) {
        String protocol = null;
        String method = null;
        try {
            Probe p = Probe.of(request);
            protocol = p.protocol();
            method = p.method();
        } catch (BasilException notEvenThat) {
            // the FAILURE then carries an empty protocol and method UNDEFINED, as ALPS does
        }
        return Failures.failure(protocol, method, ErrorClass.PERMANENT, "PARSER", "ALPS error: " + e.getMessage());
    }

    private void answer(BasilRequest req, OutputStream out) throws IOException {
        // Watching paggs, every call first removes the released reservations whose job container has ended, as
        // ALPS did when the container's end was reported to it: a query too may change the state then.
        boolean sweep = apsched.watchingPaggs();
        boolean write = req.method() != Method.QUERY || sweep;
        var l = write ? lock.writeLock() : lock.readLock();
        l.lock();
        try {
            if (sweep) {
                apsched.sweepReleased();
            }
            Object content = switch (req.method()) {
                case QUERY -> query(req, out);
                case RESERVE -> reserve(req);
                case CONFIRM -> confirm(req);
                case RELEASE -> release(req);
                case SWITCH -> switchReservations(req);
                default -> throw Rejection.syntax("ALPS error: unknown BASIL method '" + req.methodText() + "'");
            };
            if (content != null) {
                ResponseData data = ResponseData.success(req.method(), content);
                if (req.method() == Method.QUERY && Protocols.atLeast(req.protocol(), "1.7")) {
                    data = data.withType(req.type());
                }
                codec.write(new BasilResponse(req.protocol(), data), out);
            }
        } catch (Rejection r) {
            out.write(Failures.failure(req.protocol(), req.method(), r.permanent() ? ErrorClass.PERMANENT : ErrorClass.TRANSIENT,
                    r.source().name(), r.getMessage()));
        } catch (BasilException e) {
            out.write(Failures.failure(req.protocol(), req.method(), ErrorClass.TRANSIENT, "INTERNAL", "ALPS error: " + e.getMessage()));
        } finally {
            l.unlock();
        }
    }

    /** The content of a QUERY answer, or {@code null} when the answer was streamed onto {@code out} already. */
    private Object query(BasilRequest req, OutputStream out) throws Rejection, BasilException {
        String type = req.type() == null ? "" : req.type();
        return switch (type) {
            case "ENGINE" -> Engine.of(req.protocol(), apsched.machine().engineVersion(), supported);
            case "STATUS" -> status(req);
            case "INVENTORY" -> {
                long now = apsched.now();
                queries.inventory(req, now, out);
                if (out instanceof Spill spill && spill.overflowed()) {
                    if (spill.count() > Spill.MAX_ARRAY) {
                        spill.reset();
                        throw Rejection.permanent("ALPS error: the inventory (" + spill.count()
                                + " bytes) does not fit one byte array; read it as a stream");
                    }
                    spill.exactPass();
                    queries.inventory(req, now, out);
                }
                yield null;
            }
            case "SUMMARY" -> queries.summary();
            case "SYSTEM" -> {
                if (!Protocols.atLeast(req.protocol(), "1.7")) {
                    throw Rejection.syntax("ALPS error: QUERY type 'SYSTEM' needs BASIL 1.7");
                }
                yield queries.system();
            }
            case "TOPOLOGY" -> queries.topology(req);
            default -> throw Rejection.permanent("ALPS error: QUERY type '" + type + "' is not supported by this ALPS");
        };
    }

    private ReservationStates status(BasilRequest req) throws Rejection {
        if (req.reservations().isEmpty()) {
            throw Rejection.syntax("ALPS error: QUERY(STATUS) needs a ReservationArray naming the reservations");
        }
        List<ReservationStates.State> states = new ArrayList<>();
        for (BasilRequest.ReservationAction a : req.reservations()) {
            Reservation r = a.reservationId() == null ? null : apsched.reservation(a.reservationId());
            String status = r == null ? "INVALID" : r.suspended ? "SUSPEND" : r.applications.isEmpty() ? "EMPTY" : "RUN";
            states.add(new ReservationStates.State(a.reservationId() == null ? 0 : a.reservationId(), status));
        }
        return ReservationStates.of(states);
    }

    private Reserved reserve(BasilRequest req) throws Rejection {
        List<Demand> demands = new ArrayList<>();
        for (ReserveParam p : req.reserveParams()) {
            demands.add(Demand.of(p));
        }
        String batchId = req.batchId() == null ? "UNKNOWN" : req.batchId();
        Reservation r = apsched.reserve(req.user(), req.account(), batchId, demands);
        List<Long> nids = new ArrayList<>();
        for (int node : r.nodes()) {
            nids.add((long) apsched.machine().nid(node));
        }
        return Reserved.of(req.protocol(), r.id, nids);
    }

    private Confirmed confirm(BasilRequest req) throws Rejection {
        long id = reservationId(req);
        Long pagg = req.paggId() != null ? req.paggId() : req.adminCookie();
        if (pagg == null) {
            throw Rejection.syntax("ALPS error: CONFIRM needs a pagg_id (admin_cookie in BASIL 1.0)");
        }
        apsched.confirm(id, pagg);
        return Confirmed.of(req.protocol(), id, pagg);
    }

    private Released release(BasilRequest req) throws Rejection {
        long id = reservationId(req);
        if (apsched.reservation(id) != null && faults.takeLostRelease()) {
            return Released.of(req.protocol(), id, 0);
        }
        return Released.of(req.protocol(), id, apsched.release(id));
    }

    private ReservationStates switchReservations(BasilRequest req) throws Rejection {
        if (!Protocols.atLeast(req.protocol(), "1.2")) {
            throw Rejection.syntax("ALPS error: SWITCH needs BASIL 1.2 or later");
        }
        if (req.reservations().isEmpty()) {
            throw Rejection.syntax("ALPS error: SWITCH needs a ReservationArray of reservations to switch");
        }
        List<ReservationStates.State> states = new ArrayList<>();
        for (BasilRequest.ReservationAction a : req.reservations()) {
            if (a.reservationId() == null || !("IN".equals(a.action()) || "OUT".equals(a.action()))) {
                throw Rejection.syntax("ALPS error: SWITCH needs reservation_id and action IN or OUT on every Reservation");
            }
            boolean ok = apsched.switchReservation(a.reservationId(), "OUT".equals(a.action()));
            states.add(new ReservationStates.State(a.reservationId(), ok ? "SUCCESS" : "FAILURE"));
        }
        return ReservationStates.of(states);
    }

    private static long reservationId(BasilRequest req) throws Rejection {
        if (req.reservationId() == null) {
            throw Rejection.syntax("ALPS error: " + req.method() + " needs a reservation_id");
        }
        return req.reservationId();
    }

    /**
     * The protocol versions an ALPS engine speaks, newest first as {@code basil_support} lists them:
     * CLE 6 (engine 6.x) speaks everything through 1.7, 5.2 through 1.4, 5.1 through 1.3, 4.x/5.0 through 1.2,
     * 3.1 through 1.1.
     */
    static List<String> supportedProtocols(String engineVersion) {
        String[] parts = engineVersion.split("\\.");
        int major = Integer.parseInt(parts[0]);
        int minor = parts.length > 1 && parts[1].matches("[0-9]+") ? Integer.parseInt(parts[1]) : 0;
        String newest = major >= 6 ? "1.7" : major == 5 && minor >= 2 ? "1.4" : major == 5 && minor == 1 ? "1.3"
                : major >= 4 ? "1.2" : major == 3 ? "1.1" : "1.0";
        List<String> list = new ArrayList<>(Arrays.asList("1.7", "1.4", "1.3", "1.2", "1.1", "1.0"));
        list.removeIf(v -> Protocols.compare(v, newest) > 0);
        return List.copyOf(list);
    }

    // ---- for Control and the state directory --------------------------------------------------------

    Apsched apsched() {
        return apsched;
    }

    Faults faults() {
        return faults;
    }

    /** Runs a state change under the write lock. */
    <T> T changing(java.util.function.Supplier<T> change) {
        lock.writeLock().lock();
        try {
            return change.get();
        } finally {
            lock.writeLock().unlock();
        }
    }

    /** Reads state under the read lock. */
    <T> T reading(java.util.function.Supplier<T> read) {
        lock.readLock().lock();
        try {
            return read.get();
        } finally {
            lock.readLock().unlock();
        }
    }
}
