package org.alpsbridge.affinity.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;
import org.alpsbridge.affinity.exec.MaskGenerator;

/**
 * {@code alpsbridge affinity agent}: the resident mask generator of a compute node. The reduced-auto-affinity
 * SPANK plugin asks it over a unix socket what it would otherwise start {@code raa-exec affinity ARGS} for, once
 * per node and step, and gets back exactly what that program would exit with and print: the agent runs the same
 * {@link MaskGenerator} on the same arguments, from a topology it keeps ({@link SysfsCache}), so no JVM starts on
 * a step's launch path. Wire format: {@link AgentCodec}.
 *
 * <p>Only callers of the agent's own user and root (slurmstepd) are served (the socket's {@code SO_PEERCRED});
 * the socket is made mode 0600 in a directory made 0700 when absent. A call has {@link #CALL_MILLIS} in all to
 * send its request and take the answer, then it is hung up on; at most {@code threads} calls are answered at once
 * and {@link #QUEUE} more wait; beyond that a call is told {@code unserved} at once (the plugin then starts the
 * generator itself).
 */
public final class AffinityAgent implements AutoCloseable {

    /** Where the plugin looks for the agent unless plugstack.conf says {@code agent=PATH}. */
    public static final String DEFAULT_SOCKET = "/run/alpsbridge-affinity/agent.sock";
    /** A call's whole exchange, request to answer; the plugin itself waits at most 10 s. */
    static final long CALL_MILLIS = 5_000;
    /** Calls waiting for a thread before further ones are told unserved. */
    static final int QUEUE = 256;

    private final Path socket;
    private final ServerSocketChannel server;
    private final ThreadPoolExecutor calls;
    private final ScheduledExecutorService timer;
    private final MaskGenerator.Source node;
    private final PrintStream log;
    private final String self = System.getProperty("user.name");
    private final Thread acceptor;
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong unserved = new AtomicLong();
    private final long callMillis;

    private AffinityAgent(Path socket, Path sysfs, int threads, long callMillis, PrintStream log) throws IOException {
        this.socket = socket;
        this.callMillis = callMillis;
        this.log = log;
        this.node = new SysfsCache(sysfs, log);
        warmUp();
        this.server = bind(socket);
        this.calls = new ThreadPoolExecutor(threads, threads, 60, TimeUnit.SECONDS, new ArrayBlockingQueue<>(QUEUE),
                r -> daemon(r, "affinity-agent-call"));
        calls.allowCoreThreadTimeOut(true);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "affinity-agent-timer"));
        this.acceptor = daemon(this::accept, "affinity-agent-accept");
        acceptor.start();
    }

    /**
     * Binds {@code socket} and answers calls from the topology under {@code sysfs} (a sysfs-shaped tree;
     * {@code /sys/devices/system} on a node) until {@link #close()}.
     *
     * @param threads calls answered at once (1 or more)
     * @param log where the agent says what it does (its journal)
     * @throws IOException when the socket cannot be bound (another agent answers on it, or no permission)
     */
    public static AffinityAgent start(Path socket, Path sysfs, int threads, PrintStream log) throws IOException {
        return start(socket, sysfs, threads, CALL_MILLIS, log);
    }

    /** {@link #start(Path, Path, int, PrintStream)} with another limit of a call's exchange (tests). */
    static AffinityAgent start(Path socket, Path sysfs, int threads, long callMillis, PrintStream log) throws IOException {
        if (threads < 1) {
            throw new IllegalArgumentException("threads must be 1 or more, not " + threads);
        }
        return new AffinityAgent(socket, sysfs, threads, callMillis, log);
    }

    /** The socket it listens on. */
    public Path socket() {
        return socket;
    }

    /** Calls answered (masks, rejections and usage errors alike) since the start. */
    public long answered() {
        return answered.get();
    }

    /** Calls told unserved (bad requests, callers not allowed, too many at once) since the start. */
    public long unserved() {
        return unserved.get();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private static ServerSocketChannel bind(Path socket) throws IOException {
        Path dir = socket.toAbsolutePath().getParent();
        if (!Files.isDirectory(dir)) {
            // only this user (and root) may reach the socket; a directory the unit made keeps its own mode
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        if (Files.exists(socket)) {
            if (Files.isRegularFile(socket) || Files.isDirectory(socket)) {
                throw new IOException(socket + " exists and is not a socket; remove it or choose another --socket");
            }
            boolean answers;
            try (SocketChannel probe = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
                answers = true;
            } catch (IOException e) {
                answers = false;
            }
            if (answers) {
                throw new IOException("another affinity agent answers on " + socket);
            }
            Files.delete(socket); // left by an agent that was killed
        }
        ServerSocketChannel s = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
        s.bind(UnixDomainSocketAddress.of(socket), 256);
        Files.setPosixFilePermissions(socket, PosixFilePermissions.fromString("rw-------"));
        return s;
    }

    private void accept() {
        while (server.isOpen()) {
            SocketChannel c;
            try {
                c = server.accept();
            } catch (ClosedChannelException e) {
                return;
            } catch (IOException e) {
                log.println("affinity agent: accept failed: " + e);
                continue;
            }
            try {
                calls.execute(() -> serve(c));
            } catch (RejectedExecutionException e) {
                // A short frame into an empty socket buffer: written at once, never blocks the acceptor.
                refuse(c, "busy: " + (calls.getActiveCount() + QUEUE) + " calls are being answered or wait");
            }
        }
    }

    /** One call: who it is, what it asks, the answer. */
    private void serve(SocketChannel c) {
        ScheduledFuture<?> hangUp = timer.schedule(() -> closeQuietly(c), callMillis, TimeUnit.MILLISECONDS);
        try (c) {
            UnixDomainPrincipal peer = c.getOption(ExtendedSocketOptions.SO_PEERCRED);
            String who = peer.user().getName();
            if (!who.equals(self) && !who.equals("root")) {
                log.println("affinity agent: refused a caller of user " + who + " (only " + self + " and root are served)");
                unserved.incrementAndGet();
                write(c, AgentCodec.unserved("user " + who + " may not use this agent (it serves " + self + " and root)"));
                return;
            }
            String[] args;
            try {
                args = AgentCodec.request(AgentCodec.readFrame(Channels.newInputStream(c), AgentCodec.MAX_REQUEST));
            } catch (IllegalArgumentException e) {
                log.println("affinity agent: bad request from " + who + ": " + e.getMessage());
                unserved.incrementAndGet();
                write(c, AgentCodec.unserved("bad request: " + e.getMessage()));
                return;
            }
            byte[] reply = AgentCodec.reply(answer(args));
            answered.incrementAndGet();
            write(c, reply);
        } catch (IOException e) {
            // hung up on (too slow) or the caller went away: it starts the generator itself
            log.println("affinity agent: a call ended early: " + e);
        } catch (RuntimeException e) {
            log.println("affinity agent: a call failed: " + e);
            unserved.incrementAndGet();
        } finally {
            hangUp.cancel(false);
        }
    }

    /**
     * One answer of every policy before the first caller's: the classes they need are loaded and the topology read
     * (the first answer of a fresh JVM took 54 ms, the next ones 2 ms, warm ones 0.25 ms: C client, loaded 2-CPU VM).
     */
    private void warmUp() {
        for (String policy : new String[] {"reduced", "llnl", "alps-cpu", "alps-depth", "alps-numa"}) {
            answer(new String[] {"--topology", "sysfs", "-n", "1", "--policy", policy, "--format", "tasks"});
        }
    }

    /** What {@code raa-exec affinity ARGS} would exit with and print, from the topology kept. */
    AgentCodec.Answer answer(String[] args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = MaskGenerator.run(args, node, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new AgentCodec.Answer(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private void refuse(SocketChannel c, String reason) {
        unserved.incrementAndGet();
        try (c) {
            c.configureBlocking(false);
            c.write(ByteBuffer.wrap(AgentCodec.unserved(reason)));
        } catch (IOException e) {
            // it starts the generator itself
        }
    }

    private static void write(SocketChannel c, byte[] frame) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(frame);
        while (b.hasRemaining()) {
            c.write(b);
        }
    }

    private static void closeQuietly(SocketChannel c) {
        try {
            c.close();
        } catch (IOException e) {
            // already gone
        }
    }

    /** Stops accepting, answers the calls in flight, removes the socket. */
    @Override
    public void close() {
        try {
            server.close();
        } catch (IOException e) {
            // closing
        }
        calls.shutdown();
        try {
            calls.awaitTermination(callMillis + 1000, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        timer.shutdownNow();
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            // the next start deletes it
        }
        log.println("affinity agent: stopped after " + answered.get() + " answers, " + unserved.get() + " calls unserved");
    }
}
