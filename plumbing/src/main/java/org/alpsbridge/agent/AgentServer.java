package org.alpsbridge.agent;

import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ClosedChannelException;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import jdk.net.ExtendedSocketOptions;
import jdk.net.UnixDomainPrincipal;

/**
 * The serving half of a resident agent on a unix socket: binds the socket (mode 0600, in a directory made 0700
 * when absent; a socket left by a killed agent is replaced, one that answers is not), accepts calls, serves only
 * callers of the agent's own user and root (the socket's {@code SO_PEERCRED}), reads one request {@link Frames frame}
 * under a deadline and writes what the agent's {@link Calls} answer. The agent's own codec says what the items mean.
 */
public final class AgentServer implements AutoCloseable {

    /**
     * What an agent reads and answers; each reply is a whole frame.
     *
     * @param <R> a request as the agent's codec reads it
     */
    public interface Calls<R> {

        /** A request from its frame's payload; {@link IllegalArgumentException} names what is wrong with it. */
        R request(byte[] payload);

        /** The answer to a request from user {@code who}; null sends none (the caller did not wait). */
        byte[] answer(R request, String who);

        /** The reply to a caller of user {@code who}, who may not use an agent serving {@code self} and root. */
        byte[] refused(String who, String self);

        /** The reply to a request that could not be read ({@link IllegalArgumentException}'s message). */
        byte[] badRequest(String reason);

        /** The reply to a call no thread can take (all busy, the queue full); null hangs up without one. */
        default byte[] busy(String reason) {
            return null;
        }

        /** A call failed inside the agent (already logged). */
        default void failed(RuntimeException e) {
        }

        /**
         * Whether the answer to {@code request} reached its caller: false when writing it failed (the caller had
         * gone: killed while it waited, or it gave up). Only then does an agent learn that its decision was never
         * heard; what that means is the agent's to say.
         */
        default void answered(R request, boolean reached) {
        }
    }

    /**
     * How calls are served.
     *
     * @param name the agent's name in its log ({@code affinity agent}, {@code ledger hook-agent})
     * @param kind what answers on the socket, in errors ({@code affinity agent}, {@code hook agent})
     * @param maxRequest the longest request frame, refused before it is read
     * @param threads calls answered at once
     * @param queue calls that may wait for a thread; 0 for no limit
     * @param requestMillis how long a caller may take to send its request; 0 for no limit of its own
     * @param callMillis how long a whole call may take, request to answer, before it is hung up on; 0 for no limit
     */
    public record Limits(String name, String kind, int maxRequest, int threads, int queue, long requestMillis, long callMillis) {
    }

    private final Path socket;
    private final Limits limits;
    private final Calls<?> agent;
    private final PrintStream log;
    private final ServerSocketChannel server;
    private final ThreadPoolExecutor calls;
    private final ScheduledExecutorService timer;
    private final String self = System.getProperty("user.name");

    private AgentServer(Path socket, Limits limits, Calls<?> agent, PrintStream log) throws IOException {
        this.socket = socket;
        this.limits = limits;
        this.agent = agent;
        this.log = log;
        this.server = bind(socket, limits.kind());
        BlockingQueue<Runnable> waiting = limits.queue() > 0 ? new ArrayBlockingQueue<>(limits.queue()) : new LinkedBlockingQueue<>();
        String thread = limits.name().replace(' ', '-');
        this.calls = new ThreadPoolExecutor(limits.threads(), limits.threads(), 60, TimeUnit.SECONDS, waiting,
                r -> daemon(r, thread + "-call"));
        calls.allowCoreThreadTimeOut(true);
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, thread + "-timer"));
        daemon(this::accept, thread + "-accept").start();
    }

    /**
     * Binds {@code socket} and serves calls with {@code agent} until {@link #close()}.
     *
     * @param log where the agent says what it does (its journal)
     * @throws IOException when the socket cannot be bound (another agent answers on it, or no permission)
     */
    public static AgentServer start(Path socket, Limits limits, Calls<?> agent, PrintStream log) throws IOException {
        return new AgentServer(socket, limits, agent, log);
    }

    /** A scheduler for the agent's own periodic work (its daemon thread also keeps the deadlines). */
    public ScheduledExecutorService timer() {
        return timer;
    }

    /** Calls being answered now. */
    public int active() {
        return calls.getActiveCount();
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private static ServerSocketChannel bind(Path socket, String kind) throws IOException {
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
                throw new IOException("another " + kind + " answers on " + socket);
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
                log.println(limits.name() + ": accept failed: " + e);
                continue;
            }
            try {
                calls.execute(() -> serve(c, agent));
            } catch (RejectedExecutionException e) {
                busy(c);
            }
        }
    }

    /** No thread for the call: the agent's busy reply, a short frame into an empty socket buffer that never blocks. */
    private void busy(SocketChannel c) {
        byte[] reply = calls.isShutdown() ? null
                : agent.busy("busy: " + (calls.getActiveCount() + limits.queue()) + " calls are being answered or wait");
        try (c) {
            if (reply != null) {
                c.configureBlocking(false);
                c.write(ByteBuffer.wrap(reply));
            }
        } catch (IOException e) {
            // the caller does without the agent
        }
    }

    /** One call: who it is, what it asks, the answer. */
    private <R> void serve(SocketChannel c, Calls<R> agent) {
        ScheduledFuture<?> hangUp = deadline(c, limits.callMillis());
        try (c) {
            UnixDomainPrincipal peer = c.getOption(ExtendedSocketOptions.SO_PEERCRED);
            String who = peer.user().getName();
            if (!who.equals(self) && !who.equals("root")) {
                log.println(limits.name() + ": refused a caller of user " + who + " (only " + self + " and root are served)");
                write(c, agent.refused(who, self));
                return;
            }
            R request;
            ScheduledFuture<?> slowRequest = deadline(c, limits.requestMillis());
            try {
                request = agent.request(Frames.read(Channels.newInputStream(c), limits.maxRequest()));
            } catch (IllegalArgumentException e) {
                log.println(limits.name() + ": bad request from " + who + ": " + e.getMessage());
                write(c, agent.badRequest(e.getMessage()));
                return;
            } finally {
                if (slowRequest != null) {
                    slowRequest.cancel(false);
                }
            }
            byte[] reply = agent.answer(request, who);
            if (reply != null) {
                try {
                    write(c, reply);
                } catch (IOException e) {
                    agent.answered(request, false);
                    throw e;
                }
                agent.answered(request, true);
            }
        } catch (IOException e) {
            // hung up on (too slow) or the caller went away: it does without the agent
            log.println(limits.name() + ": a call ended early: " + e);
        } catch (RuntimeException e) {
            log.println(limits.name() + ": a call failed: " + e);
            agent.failed(e);
        } finally {
            if (hangUp != null) {
                hangUp.cancel(false);
            }
        }
    }

    private ScheduledFuture<?> deadline(SocketChannel c, long millis) {
        return millis <= 0 ? null : timer.schedule(() -> closeQuietly(c), millis, TimeUnit.MILLISECONDS);
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

    /** Stops accepting, answers the calls in flight (waiting at most {@code millis}), removes the socket. */
    public void close(long millis) {
        try {
            server.close();
        } catch (IOException e) {
            // closing
        }
        calls.shutdown();
        try {
            calls.awaitTermination(millis, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        timer.shutdownNow();
        try {
            Files.deleteIfExists(socket);
        } catch (IOException e) {
            // the next start deletes it
        }
    }

    @Override
    public void close() {
        close(limits.callMillis() > 0 ? limits.callMillis() + 1000 : 30_000);
    }
}
