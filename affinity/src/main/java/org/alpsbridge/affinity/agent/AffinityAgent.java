package org.alpsbridge.affinity.agent;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;
import org.alpsbridge.affinity.exec.MaskGenerator;
import org.alpsbridge.agent.AgentServer;

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
    private final AgentServer server;
    private final MaskGenerator.Source node;
    private final PrintStream log;
    private final AtomicLong answered = new AtomicLong();
    private final AtomicLong unserved = new AtomicLong();

    private AffinityAgent(Path socket, Path sysfs, int threads, long callMillis, PrintStream log) throws IOException {
        this.socket = socket;
        this.log = log;
        this.node = new SysfsCache(sysfs, log);
        warmUp();
        this.server = AgentServer.start(socket, new AgentServer.Limits("affinity agent", "affinity agent",
                AgentCodec.MAX_REQUEST, threads, QUEUE, 0, callMillis), new Calls(), log);
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

    /** The agent's side of a call ({@link AgentServer} does the socket, the callers' check and the deadline). */
    private final class Calls implements AgentServer.Calls<String[]> {

        @Override
        public String[] request(byte[] payload) {
            return AgentCodec.request(payload);
        }

        @Override
        public byte[] answer(String[] args, String who) {
            byte[] reply = AgentCodec.reply(AffinityAgent.this.answer(args));
            answered.incrementAndGet();
            return reply;
        }

        @Override
        public byte[] refused(String who, String self) {
            unserved.incrementAndGet();
            return AgentCodec.unserved("user " + who + " may not use this agent (it serves " + self + " and root)");
        }

        @Override
        public byte[] badRequest(String reason) {
            unserved.incrementAndGet();
            return AgentCodec.unserved("bad request: " + reason);
        }

        @Override
        public byte[] busy(String reason) {
            unserved.incrementAndGet();
            return AgentCodec.unserved(reason);
        }

        @Override
        public void failed(RuntimeException e) {
            unserved.incrementAndGet();
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

    /** Stops accepting, answers the calls in flight, removes the socket. */
    @Override
    public void close() {
        server.close();
        log.println("affinity agent: stopped after " + answered.get() + " answers, " + unserved.get() + " calls unserved");
    }
}
