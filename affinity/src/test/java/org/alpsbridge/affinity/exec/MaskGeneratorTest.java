package org.alpsbridge.affinity.exec;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.alpsbridge.affinity.cli.AffinityCommand;
import org.alpsbridge.affinity.cli.AffinityCommandTest;
import org.alpsbridge.affinity.cli.AffinityCommandTest.Run;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.topology.Topology;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * {@code raa-exec affinity} is a drop-in mask generator for the SPANK plugin: for the options the plugin sends it
 * answers on this machine exactly as {@code alpsbridge affinity} does (same exit code, same stdout, and for a
 * rejection the same stderr line).
 */
class MaskGeneratorTest {

    static Run generator(String... args) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = MaskGenerator.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        return new Run(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
    }

    private static void assertSameAnswer(String... args) {
        Run want = AffinityCommandTest.run(args);
        Run got = generator(args);
        String what = String.join(" ", args);
        assertEquals(want.exit(), got.exit(), what + "\n" + want.err() + "\n" + got.err());
        assertEquals(want.out(), got.out(), what);
        if (want.exit() == 1) {
            assertEquals(want.err(), got.err(), what);
        }
    }

    @Test
    void answersThePluginsRequestsAsTheCommandDoes() throws Exception {
        Topology node = Topology.sysfs();
        String all = CpuLists.linux(node.cpus());
        int cpus = node.cpuCount();
        assertSameAnswer("--topology", "sysfs", "--ntasks", "1", "--cpus-per-task", "1", "--allowed", all, "--policy",
                "reduced", "--format", "tasks");
        assertSameAnswer("--topology=sysfs", "--ntasks=1", "--cpus-per-task=1", "--policy=llnl", "--format=hex");
        assertSameAnswer("-n", "1", "--verbose");
        assertSameAnswer("-n", "1", "--verbose", "--format", "verbose");
        assertSameAnswer("-n", "1", "-v", "--format", "tasks");
        assertSameAnswer("-n", "1");
        assertSameAnswer("-n1", "-c1", "--format", "tasks");
        assertSameAnswer("-n=1", "-c=1", "--format", "tasks");
        assertSameAnswer("-n", "1", "--policy", "alps-depth", "--format", "aprun");
        // Rejections: exit 1 and the same one line.
        assertSameAnswer("-n", String.valueOf(cpus + 1), "-c", "1", "--format", "tasks");
        assertSameAnswer("-n", "1", "-c", String.valueOf(cpus + 1), "--format", "tasks");
        assertSameAnswer("-n", "1", "--allowed", "100000", "--format", "tasks");
        assertSameAnswer("-n", "0", "--format", "tasks");
        assertSameAnswer("-n", "1", "-c", "0", "--format", "tasks");
        // Usage errors: exit 2.
        assertSameAnswer("--bogus", "-n", "1");
        assertSameAnswer("-n", "x");
        assertSameAnswer("-n");
        assertSameAnswer("--format", "tasks");
        assertSameAnswer("-n", "1", "--policy", "nope");
        assertSameAnswer("-n", "1", "--format", "nope");
        assertSameAnswer("-n", "1", "--allowed", "3-1");
    }

    @Test
    void randomRequestsInsideThisProcesssCpusGetTheCommandsAnswer() throws Exception {
        long seed = Long.getLong("affinity.seed", System.nanoTime());
        Random random = new Random(seed);
        Topology node = Topology.sysfs();
        List<Integer> cpus = node.cpus().stream().boxed().toList();
        String[] policies = {"reduced", "llnl", "alps-cpu", "alps-depth", "alps-numa"};
        for (int trial = 0; trial < 100; trial++) {
            BitSet allowed = new BitSet();
            for (int cpu : cpus) {
                if (random.nextInt(4) != 0) {
                    allowed.set(cpu);
                }
            }
            List<String> args = new ArrayList<>(List.of("--topology", "sysfs", "--ntasks",
                    String.valueOf(1 + random.nextInt(cpus.size() + 1)), "--cpus-per-task",
                    String.valueOf(1 + random.nextInt(3)), "--policy", policies[random.nextInt(policies.length)],
                    "--format", "tasks"));
            if (!allowed.isEmpty()) {
                args.addAll(List.of("--allowed", CpuLists.linux(allowed)));
            }
            try {
                assertSameAnswer(args.toArray(String[]::new));
            } catch (AssertionError e) {
                throw new AssertionError("seed " + seed + " (replay with -Daffinity.seed=" + seed + "): " + e.getMessage(), e);
            }
        }
    }

    /** The options of {@code alpsbridge affinity} a plugin may send, each in a vector raa-exec must answer alike. */
    private static Map<String, List<String>> sent(String allCpus) {
        return Map.ofEntries(
                Map.entry("--topology", List.of("--topology", "sysfs", "-n", "1")),
                Map.entry("-n", List.of("-n", "1", "--format", "tasks")),
                Map.entry("--ntasks", List.of("--ntasks", "1", "--format", "tasks")),
                Map.entry("-c", List.of("-n", "1", "-c", "1", "--format", "tasks")),
                Map.entry("--cpus-per-task", List.of("-n", "1", "--cpus-per-task", "1", "--format", "tasks")),
                Map.entry("--allowed", List.of("-n", "1", "--allowed", allCpus, "--format", "tasks")),
                Map.entry("--policy", List.of("-n", "1", "--policy", "alps-cpu", "--format", "tasks")),
                Map.entry("--format", List.of("-n", "1", "--format", "hex")),
                Map.entry("-v", List.of("-n", "1", "-v")),
                Map.entry("--verbose", List.of("-n", "1", "--verbose", "--format", "list")));
    }

    /** Options raa-exec leaves to the command, as a plugin never sends them: refused (exit 2), never misread. */
    private static final Map<String, List<String>> NOT_ON_THE_FAST_PATH = Map.ofEntries(
            Map.entry("--layout", List.of("--layout", "2x8x2", "-n", "1")),
            Map.entry("--numbering", List.of("--numbering", "interleaved", "-n", "1")),
            Map.entry("--nid", List.of("--nid", "1", "-n", "1")),
            Map.entry("-j", List.of("-j", "1", "-n", "1")),
            Map.entry("--nppcu", List.of("--nppcu", "1", "-n", "1")),
            Map.entry("-S", List.of("-S", "1", "-n", "1")),
            Map.entry("--pes-per-numa", List.of("--pes-per-numa", "1", "-n", "1")),
            Map.entry("--start", List.of("--start", "1", "-n", "1")),
            Map.entry("--reverse", List.of("--reverse", "-n", "1")),
            Map.entry("--show-topology", List.of("--show-topology", "-n", "1")),
            Map.entry("-V", List.of("-V", "-n", "1")),
            Map.entry("--version", List.of("--version", "-n", "1")));

    /**
     * Ties the twins together: every option name the picocli command declares is either answered by raa-exec as
     * the command answers it, or refused by it as one it leaves to the command, or asks for help; a new option of
     * the command fails here until it is put in one of those tables.
     */
    @Test
    void everyOptionTheCommandDeclaresIsAnsweredAlikeOrRefused() throws Exception {
        Map<String, List<String>> sent = sent(CpuLists.linux(Topology.sysfs().cpus()));
        Set<String> declared = new TreeSet<>();
        new CommandLine(new AffinityCommand()).getCommandSpec().options()
                .forEach(o -> declared.addAll(List.of(o.names())));
        Set<String> tabled = new TreeSet<>(sent.keySet());
        tabled.addAll(NOT_ON_THE_FAST_PATH.keySet());
        tabled.addAll(List.of("-h", "--help"));
        assertEquals(declared, tabled, "each option of 'alpsbridge affinity' has its row here");

        sent.forEach((name, args) -> {
            assertTrue(args.contains(name), name + " is in its own vector");
            assertSameAnswer(args.toArray(String[]::new));
        });
        NOT_ON_THE_FAST_PATH.forEach((name, args) -> {
            Run r = generator(args.toArray(String[]::new));
            assertEquals(2, r.exit(), name + ": " + r.err());
            assertTrue(r.err().startsWith("affinity: Unknown option: '" + name + "'"), r.err());
        });
        for (String help : List.of("-h", "--help")) {
            assertEquals(0, AffinityCommandTest.run(help).exit());
            Run r = generator(help);
            assertEquals(0, r.exit());
            assertTrue(r.out().startsWith("Usage: raa-exec affinity"), r.out());
        }
    }

    @Test
    void onlyThisMachinesTopologyIsRead() {
        Run r = generator("--topology", "node.xml", "-n", "1");
        assertEquals(2, r.exit());
        assertTrue(r.err().startsWith("affinity: --topology node.xml: raa-exec reads this machine only (sysfs)"), r.err());
    }
}
