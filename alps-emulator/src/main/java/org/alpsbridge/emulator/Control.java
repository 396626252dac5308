package org.alpsbridge.emulator;

import java.util.Objects;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;

/**
 * Fault and scenario controls of an {@link Emulator}, for tests and operators: node states and roles,
 * method faults, reservations made behind the scheduler's back, lost releases. Thread-safe.
 *
 * <p>Method faults stay until {@link #clearFaults()} or until another fault is set for the same method.
 * Node and reservation changes take effect at once and move the change counters as a real ALPS would.
 *
 * @throws IllegalArgumentException from every method given a NID the machine does not have, an unknown
 *         state or role, or a reservation that does not exist
 */
public final class Control {

    private final Emulator emulator;

    Control(Emulator emulator) {
        this.emulator = emulator;
    }

    /** Sets nodes' state: {@code UP}, {@code DOWN}, {@code UNAVAILABLE}, {@code ROUTING}, {@code SUSPECT}, {@code ADMIN}, {@code UNKNOWN}. */
    public void setState(int[] nids, String state) {
        NodeState s = NodeState.parse(state);
        emulator.changing(() -> {
            emulator.apsched().setState(nids, s);
            return null;
        });
    }

    /** Sets nodes' role: {@code BATCH} or {@code INTERACTIVE}. */
    public void setRole(int[] nids, String role) {
        Role r = Role.parse(role);
        emulator.changing(() -> {
            emulator.apsched().setRole(nids, r);
            return null;
        });
    }

    /** Replaces nodes' labels (what LabelParam matches); an empty list removes them. */
    public void setLabels(int[] nids, String... labels) {
        emulator.changing(() -> {
            emulator.apsched().setLabels(nids, labels);
            return null;
        });
    }

    /** Makes every call of {@code method} fail with this class and message (error_source BACKEND). */
    public void fail(Method method, ErrorClass errorClass, String message) {
        fail(method, errorClass, "BACKEND", message);
    }

    /**
     * Makes every call of {@code method} fail with this class, error_source and message. The source matters to
     * OpenPBS: pbs_mom takes a RESERVE failure from BACKEND as TRANSIENT whatever its class (the job is requeued);
     * PERMANENT from {@code SYSTEM}, {@code SYNTAX}, {@code PARSER} or {@code INTERNAL} fails the job.
     */
    public void fail(Method method, ErrorClass errorClass, String source, String message) {
        if (!java.util.Set.of("BACKEND", "SYSTEM", "SYNTAX", "PARSER", "INTERNAL").contains(source)) {
            throw new IllegalArgumentException("error_source is BACKEND, SYSTEM, SYNTAX, PARSER or INTERNAL, not '"
                    + source + "'");
        }
        set(method, new Faults.Fault(Faults.Kind.FAIL, Objects.requireNonNull(errorClass, "errorClass"),
                Objects.requireNonNull(message, "message"), 0, 0, source));
    }

    /**
     * Counts a confirmed reservation's process aggregate as a claim while {@code alive} says it exists, as ALPS
     * did through the kernel's job module: a RELEASE then leaves the reservation (claims 1) until the pagg ends.
     * Off by default: the emulator cannot know a pagg on another host. {@link #HOST_PAGGS} looks on this one.
     */
    public void watchPaggs(java.util.function.LongPredicate alive) {
        emulator.changing(() -> {
            emulator.apsched().watchPaggs(Objects.requireNonNull(alive, "alive"));
            return null;
        });
    }

    /**
     * A pagg is alive while a process on this host has it as its process group or session id: what the
     * schedulers confirm with when there is no Cray job module (Slurm's proctrack/pgid, OpenPBS's session id).
     */
    public static final java.util.function.LongPredicate HOST_PAGGS = Control::hostHasProcessGroupOrSession;

    private static boolean hostHasProcessGroupOrSession(long pagg) {
        if (pagg <= 1) {
            return false;
        }
        try (var dirs = java.nio.file.Files.newDirectoryStream(java.nio.file.Path.of("/proc"), "[0-9]*")) {
            for (java.nio.file.Path d : dirs) {
                String stat;
                try {
                    stat = java.nio.file.Files.readString(d.resolve("stat"));
                } catch (java.io.IOException gone) {
                    continue; // the process ended while we looked
                }
                // pid (comm) state ppid pgrp session ...; comm may hold spaces and parentheses. A zombie (Z) has
                // ended and holds nothing, as ALPS's container ended with its last process's exit; where nobody
                // reaps (a PID namespace whose first process is a JVM) it would keep the claim for ever
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                if (f.length > 3 && !f[0].equals("Z") && (Long.parseLong(f[2]) == pagg || Long.parseLong(f[3]) == pagg)) {
                    return true;
                }
            }
        } catch (java.io.IOException e) {
            return false;
        }
        return false;
    }

    /**
     * Takes the uid and gid written in users' reservations from {@code ids} ({user → {uid, gid}}) instead of
     * deriving them from the name. {@link #hostUserIds()} asks this host's password database, as ALPS asks its own.
     */
    public void userIds(java.util.function.Function<String, long[]> ids) {
        Objects.requireNonNull(ids, "ids");
        emulator.changing(() -> {
            emulator.apsched().userIds(ids);
            return null;
        });
    }

    /**
     * This host's password database (getent passwd), each name looked up once; a name it does not know gets the
     * ids derived from the name, as by default. Beside an apbasil proxy on this host that looks users up too
     * ({@code --user-ids nss}), both write the same ids, as ALPS and a daemon on the Cray's service node do.
     */
    public static java.util.function.Function<String, long[]> hostUserIds() {
        java.util.Map<String, long[]> known = new java.util.concurrent.ConcurrentHashMap<>();
        return user -> known.computeIfAbsent(user, u -> {
            long[] ids = org.alpsbridge.passwd.PasswordDatabase.lookup(u);
            return ids != null ? ids : Views.idsOfName(u);
        }).clone();
    }

    /** Makes every call of {@code method} answer bytes that are not XML. */
    public void garbage(Method method) {
        set(method, new Faults.Fault(Faults.Kind.GARBAGE, null, null, 0, 0));
    }

    /** Makes every call of {@code method} answer the first half of its real response. */
    public void truncate(Method method) {
        set(method, new Faults.Fault(Faults.Kind.TRUNCATE, null, null, 0, 0));
    }

    /** Delays every call of {@code method} by {@code millis} before answering it normally. */
    public void slow(Method method, long millis) {
        latency(method, millis, 0);
    }

    /**
     * The optional latency model: delays every call of {@code method} by {@code millis} plus a uniform
     * random extra of up to {@code jitterMillis} (seeded, so runs repeat). Off unless set; it stands in for
     * a real ALPS's round trips to compute nodes in proxy-policy tests and is never on in a benchmark.
     */
    public void latency(Method method, long millis, long jitterMillis) {
        if (millis < 0 || jitterMillis < 0) {
            throw new IllegalArgumentException("delays must not be negative");
        }
        set(method, new Faults.Fault(Faults.Kind.SLOW, null, null, millis, jitterMillis));
    }

    /**
     * Switches a named latency profile on (or off, with {@link LatencyProfile#named(String) none}): every call
     * of a method the profile models, and that has no fault set, takes the profile's drawn latency. The draws
     * come from {@code seed}, so a run repeats. {@code sleepShare} (0 to 1) is the part of each latency the
     * call really waits; the rest is booked as modelled time for {@link #takeModelledNanos()}, so a long
     * replay can show a real machine's latencies without taking a real machine's time.
     *
     * @throws IllegalArgumentException if {@code sleepShare} is not within 0 and 1
     */
    public void latencyProfile(LatencyProfile profile, long seed, double sleepShare) {
        Objects.requireNonNull(profile, "profile");
        if (!(sleepShare >= 0 && sleepShare <= 1)) {
            throw new IllegalArgumentException("the slept share of modelled latency must be within 0 and 1, not " + sleepShare);
        }
        emulator.latency(profile.isNone() ? null : new ModelledLatency(profile, seed, sleepShare));
    }

    /** The latency profile switched on, {@code none} if there is none. */
    public LatencyProfile latencyProfile() {
        ModelledLatency l = emulator.latency();
        return l == null ? LatencyProfile.named("none") : l.profile();
    }

    /**
     * The modelled latency the calls since the last take did not sleep, in nanoseconds; 0 without a profile.
     * A caller that times one call at a time adds it to what it measured for that call.
     */
    public long takeModelledNanos() {
        ModelledLatency l = emulator.latency();
        return l == null ? 0 : l.takeUnslept();
    }

    /** Makes every call of {@code method} block until the fault is cleared (or the calling thread is interrupted). */
    public void hang(Method method) {
        set(method, new Faults.Fault(Faults.Kind.HANG, null, null, 0, 0));
    }

    /** Removes every method fault and a pending lost release, and wakes hung calls. */
    public void clearFaults() {
        emulator.faults().clear();
    }

    /** The next RELEASE of an existing reservation answers SUCCESS but leaves the reservation in place. */
    public void loseNextRelease() {
        emulator.faults().loseNextRelease(true);
    }

    /**
     * Creates a confirmed reservation on whole nodes behind the scheduler's back, with one running aprun
     * application: an orphan for Slurm's inventory scan. Use batch id {@code "UNKNOWN"} for what aprun on an
     * interactive node creates (never an orphan). Ignores node state and role, not other reservations.
     *
     * @return the new reservation id
     */
    public long plantReservation(String user, String batchId, int... nids) {
        if (nids.length == 0) {
            throw new IllegalArgumentException("a planted reservation needs at least one NID");
        }
        return emulator.changing(() -> emulator.apsched().plant(user, batchId, nids).id);
    }

    /** Starts an aprun application in a reservation; returns its APID. */
    public long launch(long reservationId, String cmd) {
        return emulator.changing(() -> emulator.apsched().launch(reservationId, cmd));
    }

    /** Ends an application as apkill would; false if no reservation runs it. */
    public boolean kill(long apid) {
        return emulator.changing(() -> emulator.apsched().kill(apid));
    }

    /** Ids of the reservations ALPS holds, ascending. */
    public long[] reservationIds() {
        return emulator.reading(() -> emulator.apsched().reservationIds());
    }

    /** The NodeArray {@code changecount}: moves with any change of node data other than allocations. */
    public long changeCount() {
        return emulator.reading(() -> emulator.apsched().changeCount());
    }

    /** The {@code schedchangecount} of NodeArray and SUMMARY: moves when a node's state or role changes. */
    public long schedChangeCount() {
        return emulator.reading(() -> emulator.apsched().schedChangeCount());
    }

    /** The NIDs of a reservation's nodes, in placement order. */
    public int[] reservationNodes(long reservationId) {
        return emulator.reading(() -> {
            Reservation r = emulator.apsched().reservation(reservationId);
            if (r == null) {
                throw new IllegalArgumentException("no reservation " + reservationId);
            }
            int[] nodes = r.nodes();
            int[] nids = new int[nodes.length];
            for (int i = 0; i < nodes.length; i++) {
                nids[i] = emulator.apsched().machine().nid(nodes[i]);
            }
            return nids;
        });
    }

    private void set(Method method, Faults.Fault fault) {
        emulator.faults().set(Objects.requireNonNull(method, "method"), fault);
    }
}
