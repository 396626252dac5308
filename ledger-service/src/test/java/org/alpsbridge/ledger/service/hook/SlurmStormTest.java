package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.Weights;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The farmers' storm (SURFsara's bad day): {@value #JOBS} one-core jobs of a few seconds submitted at once (one
 * job array) and dispatched by a real slurmctld, once without the hooks and once with them, in one run. It
 * asserts what must hold (every prolog and epilog exited 0, every run settled once, nothing overdrawn or left
 * held, {@code ledger check} clean) and PRINTS what is measured: both makespans and their ratio, the per-call
 * latency (p50/p99) of the prolog and the epilog as slurmctld waits for them beside their floors started over
 * and over beside the storm (a JVM hello world and /bin/true), as ratios, the service's own time per ledger call
 * and the agent's account of where a prolog's time went. The timing is never asserted: the machine is shared
 * and noisy.
 *
 * <p>The default run deploys the hooks as a site does (the C client and the agent). The long variant
 * ({@code -Plong}) runs the JVM hook per call instead, from {@code cli/target/alpsbridge.jar} with its CDS
 * archives when that jar is built ({@code mvn -DskipTests package} first), for the comparison:
 *
 * <pre>mvn -B -ntp -o -pl ledger-service -am verify -Dtest=SlurmStormTest -Dsurefire.failIfNoSpecifiedTests=false
 * mvn -B -ntp -o -Plong -pl ledger-service -am verify -Dtest=SlurmStormTest -Dsurefire.failIfNoSpecifiedTests=false</pre>
 */
class SlurmStormTest {

    static final int JOBS = 500;
    /**
     * The default run's node and jobs: ten waves of 50 jobs of 3 s. (100 CPUs made slurmd, launching 100 jobs at
     * once on a loaded 2-core machine, miss slurmctld's launch confirmations: "launch failed requeued held".)
     */
    static final int CPUS = 50;
    static final int SLEEP = 3;
    /** Jobs of the warm-up wave before each measured storm. */
    static final int WARMUP = 100;

    /** The script hooks (the C client and the agent) and the PrEp plugin, each beside the same storm without a ledger. */
    @Test
    void stormThroughTheAgent() throws Exception {
        storm("the script hooks (agent and C client), then the PrEp plugin prep/ledger",
                List.of(SlurmLab.Hooks.AGENT, SlurmLab.Hooks.PREP), null, CPUS, SLEEP);
    }

    /** The JVM hook per call (a JVM on slurmctld's dispatch path per job, twice), as before the agent. */
    @Test
    @Tag("long")
    void stormThroughJvmHooks() throws Exception {
        Path jar = Path.of(System.getProperty("user.dir")).resolve("../cli/target/alpsbridge.jar").normalize();
        Path classes = Path.of(System.getProperty("user.dir"), "target", "classes", "org", "alpsbridge", "ledger",
                "service", "hook", "SlurmHook.class");
        boolean useJar = Files.exists(jar) && Files.getLastModifiedTime(jar).compareTo(Files.getLastModifiedTime(classes)) >= 0;
        storm("JVM hooks from " + (useJar ? jar + " with CDS archives" : "the class path (no CDS: build the jar first)"),
                List.of(SlurmLab.Hooks.JVM), useJar ? jar : null, 50, 5);
    }

    private void storm(String what, List<SlurmLab.Hooks> ways, Path jar, int cpus, int sleep) throws Exception {
        long started = System.nanoTime();
        System.out.println("storm: " + what + "; load average before: " + loadAverage());
        double without = makespan(SlurmLab.Hooks.NONE, null, cpus, sleep, null, null);
        for (SlurmLab.Hooks hooks : ways) {
            Floors floors = new Floors();
            Map<String, List<Long>> latencies = new java.util.TreeMap<>();
            double with = makespan(hooks, jar, cpus, sleep, floors, latencies);
            System.out.printf("storm (%s): %d jobs x 1 CPU x %d s on %d CPUs: makespan without hooks %.1f s, with %.1f s,"
                    + " ratio %.2f (target <= 1.2; PrEp plugin <= 1.05)%n", hooks, JOBS, sleep, cpus, without, with,
                    with / without);
            System.out.printf("storm (%s): floors started by this test beside the storm, alternately: JVM hello world"
                    + " (n=%d): %s; /bin/true (n=%d): %s%n", hooks, floors.hello.size(), percentiles(floors.hello),
                    floors.binTrue.size(), percentiles(floors.binTrue));
            latencies.forEach((mode, micros) -> System.out.printf("storm (%s): %s p50 %s, p99 %s (target: prolog p50 <= 2x"
                    + " hello world)%n", hooks, mode, ratios(median(micros), floors, false), ratios(p99(micros), floors, true)));
        }
        System.out.printf("storm: load average after: %s; the test took %.1f s%n", loadAverage(),
                (System.nanoTime() - started) / 1e9);
    }

    /** Processes this test starts beside the storm, for the hooks' latencies to be read against. */
    private static final class Floors {
        final List<Long> hello = Collections.synchronizedList(new ArrayList<>());
        final List<Long> binTrue = Collections.synchronizedList(new ArrayList<>());
    }

    /** "X ms = N x hello world's, M x /bin/true's" (p50 against p50s, p99 against p99s). */
    private static String ratios(long micros, Floors floors, boolean p99) {
        long hello = p99 ? p99(floors.hello) : median(floors.hello);
        long binTrue = p99 ? p99(floors.binTrue) : median(floors.binTrue);
        return String.format("%.1f ms = %.2fx the hello world's, %.1fx /bin/true's", micros / 1e3,
                hello == 0 ? Double.NaN : (double) micros / hello, binTrue == 0 ? Double.NaN : (double) micros / binTrue);
    }

    /**
     * One storm; with hooks, also their latencies (into {@code latencies} by mode), and the floors started beside
     * it (into {@code floors}).
     */
    private double makespan(SlurmLab.Hooks hooks, Path jar, int cpus, int sleep, Floors floors,
                            Map<String, List<Long>> latencies) throws Exception {
        try (SlurmLab lab = SlurmLab.start(null, cpus, hooks, "superuser_uids=4242\ncharger_uids=0", "", jar)) {
            try (Ledger ledger = Ledger.open(lab.db)) {
                ledger.addProject("farm", 6001, "farm");
                Instant from = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(Duration.ofDays(1));
                ledger.grant("farm", Resource.CPU, 1_000_000, from, from.plus(Duration.ofDays(30)), "research", null);
                ledger.setWeights("debug", Weights.UNIT);
            }
            // one job first: the JVM hooks' CDS archives are written by their first calls, not in the storm; then
            // a warm-up wave, in both runs alike, as a site's slurmctld, agent and service have run for days
            // before its bad day (their JIT compilers would otherwise work through the measured storm)
            lab.sbatch("-A", "farm", "-n", "1", "-t", "1", "--wrap", "true");
            lab.awaitQuietAndSettled(Duration.ofSeconds(120));
            lab.sbatch("-A", "farm", "-n", "1", "-t", "1", "--array=1-" + WARMUP, "--wrap", "true");
            lab.awaitQuietAndSettled(Duration.ofSeconds(300));
            java.time.LocalDateTime stormStart = java.time.LocalDateTime.now();
            AtomicBoolean storming = new AtomicBoolean(true);
            Thread yardstick = new Thread(() -> floors(storming, floors));
            long start = System.nanoTime();
            lab.sbatch("-A", "farm", "-n", "1", "-t", "1", "--array=1-" + JOBS, "--wrap", "sleep " + sleep);
            if (floors != null) {
                yardstick.start();
            }
            int relaunched = awaitQuietReleasingFailedLaunches(lab, Duration.ofMinutes(30));
            double seconds = (System.nanoTime() - start) / 1e9;
            if (relaunched > 0) {
                System.out.printf("storm (%s): %d launches failed in slurmd under the load (Slurm requeued and held"
                        + " them; released, they ran again)%n", hooks, relaunched);
            }
            storming.set(false);
            if (floors != null) {
                yardstick.join();
            }
            if (hooks != SlurmLab.Hooks.NONE) {
                lab.awaitSettled(Duration.ofMinutes(5));
                for (String mode : List.of("prolog", "epilog")) {
                    List<Long> micros = new ArrayList<>();
                    List<Long> onThread = new ArrayList<>();
                    for (SlurmLab.HookCall call : lab.hookCalls(mode)) {
                        if (call.started().isBefore(stormStart)) {
                            continue; // the warm-up's
                        }
                        assertEquals(0, call.exit(), mode + " failed: " + call + "; " + lab.tail("slurmctld.log"));
                        micros.add(call.micros());
                        if (call.threadMicros() >= 0) {
                            onThread.add(call.threadMicros());
                        }
                    }
                    assertTrue(micros.size() >= JOBS, mode + " calls: " + micros.size());
                    System.out.printf("storm (%s): %s per call, as slurmctld waits for it (%s; n=%d): %s%n", hooks,
                            mode, hooks == SlurmLab.Hooks.PREP ? "the plugin's lines" : "slurmscriptd's lines",
                            micros.size(), percentiles(micros));
                    if (!onThread.isEmpty()) {
                        System.out.printf("storm (%s): %s, on slurmctld's own thread under its job lock (n=%d): %s%n",
                                hooks, mode, onThread.size(), percentiles(onThread));
                    }
                    latencies.put(mode, micros);
                }
                assertLedgerClean(lab);
                printServiceCalls(lab);
                if (hooks == SlurmLab.Hooks.AGENT || hooks == SlurmLab.Hooks.PREP) {
                    // the agent's own account of its time (per 10 s): squeue calls, prologs, settlements
                    lab.stopAgent(false);
                    Files.readAllLines(lab.dir.resolve("agent.log")).stream().filter(l -> l.contains(" in "))
                            .forEach(l -> System.out.println("storm: " + l));
                }
            }
            return seconds;
        }
    }

    private static void assertLedgerClean(SlurmLab lab) throws Exception {
        try (Ledger ledger = Ledger.open(lab.db)) {
            assertEquals(List.of(), ledger.check(), "ledger check");
            assertEquals(List.of(), ledger.holds(null), "nothing left held");
            Balance b = ledger.balances("farm").get(0);
            assertTrue(b.available() >= 0, "no overdraft: " + b);
            assertEquals(List.of(), ledger.failures(null, 10), "nothing denied");
            long charged = 0;
            long settled = 0;
            for (int i = 0; i <= 1 + WARMUP + JOBS + 1; i++) {
                List<Reservation> runs = ledger.reservations("lab", Integer.toString(i));
                settled += runs.isEmpty() ? 0 : 1;
                for (Reservation r : runs) {
                    assertEquals(State.SETTLED, r.state(), r.toString());
                    assertTrue(r.charge() <= r.hold(), r.toString());
                    assertEquals(r.charge() > 0 ? 1 : 0, ledger.journal(r.key()).stream()
                            .filter(e -> e.kind() == JournalEntry.Kind.SETTLE).count(), () -> "settled once: " + r);
                    charged += r.charge();
                }
            }
            assertEquals(1 + WARMUP + JOBS, settled, "every job's runs settled, each once (the warm-up jobs too)");
            assertEquals(charged, b.used(), "used is the sum of the charges");
            System.out.printf("storm: ledger: %d core-minutes used, %d available, check clean, nothing held%n",
                    b.used(), b.available());
        }
    }

    /**
     * Waits until no job is queued; a job whose launch failed in slurmd (Slurm requeues it and holds it) is
     * released to run again. How many were.
     */
    private static int awaitQuietReleasingFailedLaunches(SlurmLab lab, Duration limit) throws Exception {
        java.util.Set<String> released = new java.util.HashSet<>();
        long deadline = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < deadline) {
            String queued = lab.slurm("squeue", "-h", "-o", "%i|%T|%r").out().strip();
            if (queued.isEmpty()) {
                return released.size();
            }
            for (String line : queued.split("\n")) {
                String[] f = line.split("\\|");
                if (f.length == 3 && f[2].contains("launch failed requeued held")) {
                    lab.slurm("scontrol", "release", f[0]);
                    released.add(f[0]);
                }
            }
            Thread.sleep(250);
        }
        throw new AssertionError("jobs still queued after " + limit.toSeconds() + " s");
    }

    /** The service's own time per ledger call during the whole lab (its {@code /metrics}): mean and count. */
    private static void printServiceCalls(SlurmLab lab) throws Exception {
        java.net.http.HttpResponse<String> r = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create(lab.url() + "/metrics")).build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());
        java.util.Map<String, Double> sums = new java.util.TreeMap<>();
        java.util.Map<String, Double> counts = new java.util.TreeMap<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("_call_seconds_(sum|count)\\{op=\"(\\w+)\"\\} (\\S+)")
                .matcher(r.body());
        while (m.find()) {
            (m.group(1).equals("sum") ? sums : counts).put(m.group(2), Double.parseDouble(m.group(3)));
        }
        StringBuilder b = new StringBuilder();
        counts.forEach((op, n) -> b.append(b.length() == 0 ? "" : "; ").append(String.format("%s %.0f (mean %.1f ms)",
                op, n, n == 0 ? 0 : sums.getOrDefault(op, 0.0) / n * 1e3)));
        System.out.println("storm: the service's ledger calls (its /metrics, warm-up included): " + b);
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).strip();
        } catch (Exception e) {
            return "unknown";
        }
    }

    /** A JVM hello world and a /bin/true, each started and waited for in turn, every 200 ms while it storms. */
    private static void floors(AtomicBoolean storming, Floors into) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        List<String> hello = List.of(java, "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Xshare:auto",
                "-Xss512k", "-cp", Path.of(System.getProperty("user.dir"), "target", "test-classes").toString(),
                HelloWorld.class.getName());
        while (storming.get()) {
            try {
                into.hello.add(startAndWait(hello));
                into.binTrue.add(startAndWait(List.of("/bin/true")));
                Thread.sleep(200);
            } catch (Exception e) {
                return;
            }
        }
    }

    /** Microseconds from starting a process to its end. */
    private static long startAndWait(List<String> argv) throws Exception {
        long t = System.nanoTime();
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        p.waitFor();
        return (System.nanoTime() - t) / 1000;
    }

    private static long median(List<Long> micros) {
        List<Long> s = sorted(micros);
        return s.isEmpty() ? 0 : s.get(s.size() / 2);
    }

    private static long p99(List<Long> micros) {
        List<Long> s = sorted(micros);
        return s.isEmpty() ? 0 : s.get(Math.min(s.size() - 1, (int) Math.ceil(s.size() * 0.99) - 1));
    }

    private static List<Long> sorted(List<Long> micros) {
        List<Long> s;
        synchronized (micros) {
            s = new ArrayList<>(micros);
        }
        Collections.sort(s);
        return s;
    }

    private static String percentiles(List<Long> micros) {
        if (micros.isEmpty()) {
            return "no samples";
        }
        List<Long> s = sorted(micros);
        return String.format("p50 %.1f ms, p99 %.1f ms, max %.1f ms", median(s) / 1e3, p99(s) / 1e3,
                s.get(s.size() - 1) / 1e3);
    }
}
