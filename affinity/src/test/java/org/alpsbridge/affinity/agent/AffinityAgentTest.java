package org.alpsbridge.affinity.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Random;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.alpsbridge.affinity.cli.AffinityCommandTest;
import org.alpsbridge.affinity.exec.MaskGenerator;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.policy.RandomNodes;
import org.alpsbridge.affinity.topology.Numbering;
import org.alpsbridge.affinity.topology.SysfsTree;
import org.alpsbridge.affinity.topology.Topology;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code alpsbridge affinity agent} answers every request exactly as {@code raa-exec affinity} (and so
 * {@code alpsbridge affinity}) would on the same node: the same exit code, the same output, the same rejection
 * line, over every topology the placement tests use, written as the sysfs tree the agent reads. Bad requests,
 * callers that hang and many callers at once get an answer or a reason, never a hung agent.
 */
class AffinityAgentTest {

    private static final String[] POLICIES = {"reduced", "llnl", "alps-cpu", "alps-depth", "alps-numa"};
    private static final String[] FORMATS = {"tasks", "list", "verbose", "hex", "slurm", "aprun", "omp"};
    /** The placement tests' nodes: SOCKETSxCORESxTHREADS (or with NUMA) and OS numbering. */
    private static final String[][] LAYOUTS = {
        {"2x8x2", "intel"}, {"2x8x2", "interleaved"}, {"2x8x2", "round-robin"}, {"2x12x2", "intel"},
        {"1x12x2", "intel"}, {"2x2x8x1", "intel"}, {"2x2x4x2", "interleaved"}, {"1x68x4", "intel"},
        {"2x4x16x2", "intel"}, {"2x8x1", "intel"}, {"1x2x1", "intel"}};
    private static final String[] HWLOC = {"xc30-2x8x2-intel.xml", "broadwell-2x14x1-noncontiguous.xml",
        "interlagos-2x2x8x1-hwloc1.xml", "kvm-epyc-1x2x1.xml"};

    @TempDir
    Path dir;

    private final ByteArrayOutputStream journal = new ByteArrayOutputStream();
    private final PrintStream log = new PrintStream(journal, true, StandardCharsets.UTF_8);

    private static long seed() {
        long seed = Long.getLong("affinity.seed", System.nanoTime());
        System.out.println("AffinityAgentTest seed " + seed + " (replay with -Daffinity.seed=" + seed + ")");
        return seed;
    }

    /** What raa-exec affinity answers with "sysfs" being this topology. */
    private static AgentCodec.Answer raaExec(Topology node, List<String> args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = MaskGenerator.run(args.toArray(String[]::new), () -> node, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new AgentCodec.Answer(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    /** A request as the plugin sends it (sometimes with the other forms raa-exec accepts). */
    private static List<String> request(Random r, Topology node) {
        List<String> args = new ArrayList<>(List.of("--topology", "sysfs"));
        int cores = node.coreCount();
        args.addAll(List.of("--ntasks", String.valueOf(1 + r.nextInt(Math.min(cores, 40) + 1))));
        args.addAll(List.of("--cpus-per-task", String.valueOf(1 + r.nextInt(r.nextBoolean() ? 3 : Math.max(1, cores / 2)))));
        BitSet allowed = RandomNodes.allowed(r, node);
        if (allowed != null && !allowed.isEmpty()) {
            args.addAll(List.of("--allowed", CpuLists.linux(allowed)));
        }
        args.addAll(List.of("--policy", POLICIES[r.nextInt(POLICIES.length)]));
        if (r.nextInt(6) > 0) {
            args.addAll(List.of("--format", FORMATS[r.nextInt(FORMATS.length)]));
        }
        if (r.nextInt(6) == 0) {
            args.add("--verbose");
        }
        return args;
    }

    private AffinityAgent agentOn(Topology node, String name) throws IOException {
        Path tree = SysfsTree.write(Files.createDirectories(dir.resolve(name)), node, new BitSet());
        return AffinityAgent.start(dir.resolve(name + ".sock"), tree, 2, log);
    }

    private static AgentCodec.Answer answer(AffinityAgent agent, List<String> args) throws IOException {
        AgentClient.Reply reply = AgentClient.ask(agent.socket(), args);
        assertNull(reply.unserved(), String.join(" ", args));
        return reply.answer();
    }

    @Test
    void answersAsTheCommandAndRaaExecDoOnEveryTopologyOfThePlacementTests() throws Exception {
        long seed = seed();
        Random r = new Random(seed);
        List<List<String>> sources = new ArrayList<>();
        for (String[] layout : LAYOUTS) {
            sources.add(List.of("--layout", layout[0], "--numbering", layout[1]));
        }
        for (String xml : HWLOC) {
            sources.add(List.of("--topology", Path.of("src/test/resources/hwloc", xml).toAbsolutePath().toString()));
        }
        int i = 0;
        for (List<String> source : sources) {
            Topology node = source.get(0).equals("--layout") ? Topology.synthetic(source.get(1), Numbering.of(source.get(3)))
                    : Topology.hwlocXml(Path.of(source.get(1)));
            try (AffinityAgent agent = agentOn(node, "node" + i++)) {
                for (int trial = 0; trial < 12; trial++) {
                    List<String> args = request(r, node);
                    String what = "seed " + seed + ", " + source + ": " + String.join(" ", args);
                    AgentCodec.Answer got = answer(agent, args);
                    assertEquals(raaExec(node, args), got, what);
                    // alpsbridge affinity on the topology's own source, not a sysfs tree
                    List<String> command = new ArrayList<>(source);
                    command.addAll(args.subList(2, args.size()));
                    AffinityCommandTest.Run want = AffinityCommandTest.run(command.toArray(String[]::new));
                    assertEquals(want.exit(), got.exit(), what + "\n" + want.err() + got.err());
                    assertEquals(want.out(), got.out(), what);
                    if (want.exit() == 1) {
                        assertEquals(want.err(), got.err(), what);
                    }
                }
            }
        }
    }

    @Test
    void answersAsRaaExecDoesOnRandomNodes() throws Exception {
        long seed = seed();
        Random r = new Random(seed);
        for (int n = 0; n < 20; n++) {
            Topology node = RandomNodes.node(r);
            try (AffinityAgent agent = agentOn(node, "random" + n)) {
                assertEquals(node, Topology.sysfs(dir.resolve("random" + n)), "the tree holds the node");
                for (int trial = 0; trial < 8; trial++) {
                    List<String> args = request(r, node);
                    assertEquals(raaExec(node, args), answer(agent, args), "seed " + seed + ", " + node.describe() + String.join(" ", args));
                }
            }
        }
    }

    @Test
    void usageErrorsAndAnUnreadableTopologyAreAnsweredAsRaaExecAnswersThem() throws Exception {
        Topology node = Topology.synthetic("2x8x2", Numbering.of("intel"));
        try (AffinityAgent agent = agentOn(node, "n")) {
            for (List<String> args : List.of(List.of("-n", "x"), List.of("--format", "tasks"), List.of("-n", "1", "--policy", "nope"),
                    List.of("--topology", "node.xml", "-n", "1"), List.of("--bogus"), List.of("-n", "1", "--allowed", "3-1"), List.of("-h"))) {
                AgentCodec.Answer got = answer(agent, args);
                assertEquals(raaExec(node, args), got, String.join(" ", args));
                assertEquals(args.contains("-h") ? 0 : 2, got.exit(), got.err());
            }
        }
        Path empty = Files.createDirectories(dir.resolve("empty"));
        try (AffinityAgent agent = AffinityAgent.start(dir.resolve("empty.sock"), empty, 1, log)) {
            List<String> args = List.of("-n", "1", "--format", "tasks");
            AgentCodec.Answer got = answer(agent, args);
            assertEquals(1, got.exit());
            ByteArrayOutputStream err = new ByteArrayOutputStream();
            MaskGenerator.run(args.toArray(String[]::new), () -> Topology.sysfs(empty), new PrintStream(new ByteArrayOutputStream()),
                    new PrintStream(err, true, StandardCharsets.UTF_8));
            assertEquals(err.toString(StandardCharsets.UTF_8), got.err());
        }
    }

    @Test
    void theTopologyIsReadAgainWhenItsOnlineCpusChange() throws Exception {
        Topology whole = Topology.synthetic("2x8x2", Numbering.of("intel"));
        List<String> args = List.of("--topology", "sysfs", "-n", "16", "-c", "1", "--format", "tasks");
        try (AffinityAgent agent = agentOn(whole, "hotplug")) {
            assertEquals(0, answer(agent, args).exit());
            // CPU 3 and its sibling 19 go offline: 15 cores are left, 16 tasks of one core no longer fit
            Path cpu = dir.resolve("hotplug/cpu");
            Files.writeString(cpu.resolve("online"), "0-2,4-18,20-31\n");
            Topology fewer = Topology.sysfs(dir.resolve("hotplug"));
            assertEquals(15, fewer.coreCount());
            AgentCodec.Answer after = answer(agent, args);
            assertEquals(raaExec(fewer, args), after);
            assertEquals(1, after.exit(), after.out());
            assertTrue(journal.toString(StandardCharsets.UTF_8).contains("changed (0-31 -> 0-2,4-18,20-31): topology read again"), journal.toString());
        }
    }

    @Test
    void badRequestsAreNotServedAndSayWhy() throws Exception {
        try (AffinityAgent agent = agentOn(Topology.synthetic("1x2x1", Numbering.of("intel")), "bad")) {
            assertTrue(AgentClient.send(agent.socket(), new byte[] {0, 1, 0, 1}).unserved()
                    .contains("bad request: a frame of 65537 bytes is over the limit of 65536"));
            assertTrue(AgentClient.send(agent.socket(), frame("v=2\0arg=-n\0")).unserved()
                    .contains("does not start with v=1"));
            assertTrue(AgentClient.send(agent.socket(), frame("v=1\0env=X\0")).unserved().contains("unknown request item 'env=X'"));
            assertTrue(AgentClient.send(agent.socket(), frame("v=1\0arg=-n")).unserved().contains("not ended by a NUL byte"));
            assertTrue(AgentClient.send(agent.socket(), new byte[] {0, 0, 0, 2, (byte) 0xff, 0}).unserved().contains("not UTF-8"));
            assertEquals(5, agent.unserved());
            assertEquals(0, answer(agent, List.of("-n", "1")).exit(), "and it still answers");
        }
    }

    private static byte[] frame(String items) {
        byte[] body = items.getBytes(StandardCharsets.UTF_8);
        return ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).array();
    }

    @Test
    void aCallerThatSendsNothingIsHungUpOnAndTheNextIsAnswered() throws Exception {
        Path tree = SysfsTree.write(Files.createDirectories(dir.resolve("slow")), Topology.synthetic("1x2x1", Numbering.of("intel")), new BitSet());
        try (AffinityAgent agent = AffinityAgent.start(dir.resolve("slow.sock"), tree, 1, 300, log);
                SocketChannel silent = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            silent.connect(UnixDomainSocketAddress.of(agent.socket()));
            silent.write(ByteBuffer.wrap(new byte[] {0, 0, 0, 10, 'v'})); // a frame begun, never finished
            long start = System.nanoTime();
            // the only thread is held by the silent caller until it is hung up on
            assertEquals(0, answer(agent, List.of("-n", "1")).exit());
            assertTrue(System.nanoTime() - start < 20_000_000_000L, "answered after the hang-up, not never");
            assertEquals(-1, silent.read(ByteBuffer.allocate(16)), "the silent caller was hung up on");
        }
    }

    @Test
    void manyCallersAtOnceEachGetTheirOwnAnswer() throws Exception {
        long seed = seed();
        Topology node = Topology.synthetic("2x12x2", Numbering.of("intel"));
        ExecutorService callers = Executors.newFixedThreadPool(16);
        try (AffinityAgent agent = agentOn(node, "busy")) {
            List<Future<?>> calls = new ArrayList<>();
            for (int c = 0; c < 16; c++) {
                Random r = new Random(seed + c);
                calls.add(callers.submit(() -> {
                    for (int i = 0; i < 25; i++) {
                        List<String> args = request(r, node);
                        assertEquals(raaExec(node, args), answer(agent, args), "seed " + seed + ": " + String.join(" ", args));
                    }
                    return null;
                }));
            }
            for (Future<?> f : calls) {
                f.get();
            }
            assertEquals(16 * 25, agent.answered());
        } finally {
            callers.shutdownNow();
        }
    }

    @Test
    void aSecondAgentOnTheSameSocketIsRefusedAndAStaleSocketIsReplaced() throws Exception {
        Topology node = Topology.synthetic("1x2x1", Numbering.of("intel"));
        Path tree = SysfsTree.write(Files.createDirectories(dir.resolve("one")), node, new BitSet());
        Path socket = dir.resolve("sub/dir/agent.sock");
        try (AffinityAgent first = AffinityAgent.start(socket, tree, 1, log)) {
            assertEquals("rw-------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
            assertEquals("rwx------", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())));
            IOException e = assertThrows(IOException.class, () -> AffinityAgent.start(socket, tree, 1, log));
            assertTrue(e.getMessage().contains("another affinity agent answers on " + socket), e.getMessage());
        }
        // a socket file nobody listens on (an agent killed with SIGKILL leaves one)
        try (var s = java.nio.channels.ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            s.bind(UnixDomainSocketAddress.of(socket));
        }
        assertTrue(Files.exists(socket));
        try (AffinityAgent again = AffinityAgent.start(socket, tree, 1, log)) {
            assertEquals(0, answer(again, List.of("-n", "1")).exit());
        }
        assertNotEquals(true, Files.exists(socket), "close removes the socket");
    }
}
