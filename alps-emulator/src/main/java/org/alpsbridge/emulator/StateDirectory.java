package org.alpsbridge.emulator;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.locks.Lock;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.codec.Probe;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.Method;

/**
 * An emulator kept in a directory between processes, for the drop-in {@code apbasil}: each invocation
 * loads the state, answers one request and, if the request changed anything, stores the state again.
 *
 * <p>Concurrent invocations are serialised by a lock on {@code DIR/lock} (shared for QUERY, exclusive for
 * everything else; threads of one JVM take turns). The state ({@code DIR/state}) is replaced atomically:
 * written to a temporary file, forced to disk, renamed over the old one and the directory forced, so a
 * crash at any point leaves either the old or the new state, never a mix. A changing request's answer is
 * written only after its state is stored, so no caller learns of a reservation the state does not hold.
 * The next writer removes the temporary file a killed writer left behind.
 */
public final class StateDirectory {

    private static final ConcurrentHashMap<Path, Lock> IN_PROCESS = new ConcurrentHashMap<>();

    private final Path dir;
    private final Path state;
    private final LongSupplier clock;

    private java.util.function.LongPredicate paggs;
    private java.util.function.Function<String, long[]> userIds;

    public StateDirectory(Path dir) {
        this(dir, () -> System.currentTimeMillis() / 1000);
    }

    StateDirectory(Path dir, LongSupplier clock) {
        this.dir = dir.toAbsolutePath().normalize();
        this.state = this.dir.resolve("state");
        this.clock = clock;
    }

    /**
     * Answers one request as {@code apbasil} would, onto {@code out}. SLOW and HANG faults are served
     * before taking the lock, so a hung call never blocks the others.
     *
     * @param spec the machine; must match the directory's if it has one
     * @throws IllegalArgumentException when the directory holds another machine or a damaged state
     */
    public void apbasil(String spec, byte[] request, OutputStream out) throws IOException {
        Method method = null;
        try {
            method = Method.parse(Probe.of(request).method());
        } catch (BasilException e) {
            // unreadable: the emulator answers it with a FAILURE, under the shared lock
        }
        Method m = method;
        Faults.Fault fault = m == null ? null : locked(false, () -> load(spec).faults().get(m));
        delay(fault);
        // watching paggs, a query may remove a released reservation whose container ended (Emulator#answer)
        boolean changes = m != null && (paggs != null || m != Method.QUERY) && m != Method.UNDEFINED;
        if (!changes) {
            locked(false, () -> {
                load(spec).handle(request, out, false);
                return null;
            });
            return;
        }
        ByteArrayOutputStream answer = new ByteArrayOutputStream(512);
        locked(true, () -> {
            Emulator e = load(spec);
            e.handle(request, answer, false);
            store(e);
            return null;
        });
        answer.writeTo(out);
    }

    /**
     * As {@link #apbasil(String, byte[], OutputStream)}, first waiting the latency {@code profile} models for
     * this call (unless a fault is set for its method). Each invocation is a new process, so the draw comes
     * from {@code seed} mixed with the request's bytes and the machine's reservations and change counter:
     * the same request on the same state waits the same time, and successive calls differ.
     */
    public void apbasil(String spec, byte[] request, OutputStream out, LatencyProfile profile, long seed) throws IOException {
        if (!profile.isNone()) {
            long nanos = modelledNanos(spec, request, profile, seed);
            try {
                Thread.sleep(nanos / 1_000_000, (int) (nanos % 1_000_000));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        apbasil(spec, request, out);
    }

    private long modelledNanos(String spec, byte[] request, LatencyProfile profile, long seed) throws IOException {
        BasilRequest req;
        try {
            req = BasilCodec.standard().readRequest(request);
        } catch (BasilException e) {
            return 0; // answered at once with a FAILURE, as apbasil refuses what it cannot read
        }
        if (req.method() == null || req.method() == Method.UNDEFINED) {
            return 0;
        }
        return locked(false, () -> {
            Emulator e = load(spec);
            if (e.faults().get(req.method()) != null) {
                return 0L;
            }
            LatencyProfile.Load l = e.load(req);
            long mix = seed ^ 31L * Arrays.hashCode(request) ^ 0x9E3779B97F4A7C15L * (l.reservations() + 1)
                    ^ 0xC2B2AE3D27D4EB4FL * (e.apsched().changeCount() + 1);
            return profile.drawNanos(req.methodKey(), l, new Random(mix));
        });
    }

    /** Runs {@code change} on the stored emulator (a new one of {@code spec} if there is none) and stores the result. */
    public <T> T update(String spec, Function<Emulator, T> change) throws IOException {
        return locked(true, () -> {
            Emulator e = load(spec);
            T result = change.apply(e);
            store(e);
            return result;
        });
    }

    /** Runs {@code read} on the stored emulator without changing it. */
    public <T> T read(String spec, Function<Emulator, T> read) throws IOException {
        return locked(false, () -> read.apply(load(spec)));
    }

    private static void delay(Faults.Fault fault) {
        if (fault == null) {
            return;
        }
        try {
            if (fault.kind() == Faults.Kind.HANG) {
                // A hung apbasil: it never answers; the caller's timeout (or kill) ends it.
                Thread.sleep(Long.MAX_VALUE);
            } else if (fault.kind() == Faults.Kind.SLOW) {
                // Each drop-in is a new process: a fixed seed would give every call the same "random" extra.
                Thread.sleep(Faults.delayMillis(fault, ThreadLocalRandom.current()));
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private interface Locked<T> {
        T run() throws IOException;
    }

    private <T> T locked(boolean exclusive, Locked<T> body) throws IOException {
        Files.createDirectories(dir);
        // A JVM may hold only one lock on a file region, shared or not, so threads of one process take turns;
        // the file lock then orders processes (shared for queries).
        Lock inProcess = IN_PROCESS.computeIfAbsent(dir, d -> new ReentrantLock());
        inProcess.lock();
        try (FileChannel lockFile = FileChannel.open(dir.resolve("lock"), StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
             FileLock ignored = lockFile.lock(0, Long.MAX_VALUE, !exclusive)) {
            return body.run();
        } finally {
            inProcess.unlock();
        }
    }

    private Emulator load(String spec) throws IOException {
        Emulator e;
        try (BufferedReader in = Files.newBufferedReader(state, StandardCharsets.UTF_8)) {
            e = Snapshot.read(in, spec, clock);
        } catch (NoSuchFileException missing) {
            if (spec == null) {
                throw new IllegalArgumentException("state directory " + dir + " holds no emulator yet; name the machine (--machine)");
            }
            e = new Emulator(new Apsched(Machine.parse(spec), clock), new Faults());
        }
        if (paggs != null) {
            e.control().watchPaggs(paggs);
        }
        if (userIds != null) {
            e.control().userIds(userIds);
        }
        return e;
    }

    /** Counts confirmed reservations' process aggregates as claims ({@link Control#watchPaggs}). */
    public StateDirectory watchingPaggs(java.util.function.LongPredicate alive) {
        this.paggs = alive;
        return this;
    }

    /** Takes users' uid and gid from {@code ids} ({@link Control#userIds}). */
    public StateDirectory userIds(java.util.function.Function<String, long[]> ids) {
        this.userIds = ids;
        return this;
    }

    /** Writes the state anew; the caller holds the exclusive lock, so any other temporary file is a dead writer's. */
    private void store(Emulator e) throws IOException {
        try (DirectoryStream<Path> leftovers = Files.newDirectoryStream(dir, "state.*.tmp")) {
            for (Path p : leftovers) {
                Files.deleteIfExists(p);
            }
        }
        Path tmp = Files.createTempFile(dir, "state.", ".tmp");
        try {
            try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
                Writer w = new OutputStreamWriter(Channels.newOutputStream(ch), StandardCharsets.UTF_8);
                Snapshot.write(e, w);
                w.flush();
                ch.force(true);
            }
            Files.move(tmp, state, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
                d.force(true);
            } catch (IOException notSupported) {
                // some file systems cannot force a directory; the rename is still atomic
            }
        } finally {
            Files.deleteIfExists(tmp);
        }
    }
}
