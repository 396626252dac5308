package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Stream;
import org.alpsbridge.ledger.store.PostgresServer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 with a real scheduler: Slurm 18.08.9 through a proxy pair ({@code APBASIL_PROXY=A,B}, one {@code ha_db}
 * on a throwaway PostgreSQL, both proxies in front of the same drop-in emulator, whose state outlives them) while
 * the active proxy is killed -9 at a seeded point of a seeded workload, {@code rounds} times on one cluster: each
 * round submits its jobs, kills the proxy that is active then, measures the time from the kill to the first
 * successful call through the survivor, starts the killed one again (it joins as the standby) and waits for the
 * queue to drain. Round 1 kills while a RESERVE is in flight (forwarded to ALPS, not yet answered); the others at a
 * seeded choice of that or a seeded delay after the k-th RESERVE reached ALPS.
 *
 * <p>Then: every job completed or ended with a reason its owner sees ({@code squeue -t all}), none was lost (each
 * left the queue in a final state), Slurm logged no {@code fatal}, and once the survivor's orphan watch has looked
 * ({@code proxy orphans --refresh}, then {@code --release} of what it lists) ALPS holds nothing.
 *
 * <p>Opt-in ({@code long}: a Slurm cluster and several failovers take minutes): {@code mvn -B -ntp -Plong -pl interop
 * -am verify -Dtest=SlurmProxyFailoverTest -Dsurefire.failIfNoSpecifiedTests=false}; {@code -Dinterop.jobs=N}
 * (default 12), {@code -Dinterop.rounds=R} (default 2), {@code -Dinterop.seed=S} replays a run, {@code
 * -Dinterop.haLease=SECONDS} (default 5, the product's default).
 */
@Tag("long")
@Order(5) // the class order: src/test/resources/junit-platform.properties
class SlurmProxyFailoverTest {

    private static final String ENGINE = "<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.0\" method=\"QUERY\" type=\"ENGINE\"/>\n";
    private static final List<String> DONE = List.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
            "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "PREEMPTED");

    /** What one round did: its kill point and the time from the kill to the survivor's first answer. */
    private record Round(int number, String killPoint, int killed, long recoveryMs) {
    }

    @Test
    void aWorkloadThroughAProxyPairOutlivesTheActiveProxyKilledAtASeededPoint() throws Exception {
        int jobs = Integer.getInteger("interop.jobs", 12);
        int rounds = Integer.getInteger("interop.rounds", 2);
        int lease = Integer.getInteger("interop.haLease", 5);
        long seed = Long.getLong("interop.seed", System.nanoTime() % 100_000_000L);
        System.out.println("proxy failover: seed " + seed + " (-Dinterop.seed=" + seed + " replays), " + jobs
                + " jobs x " + rounds + " rounds, ha_lease=" + lease + " s");
        Path prefix = Clients.slurm();
        String haDb = PostgresServer.get().newDatabase();
        Bridge bridge = new Bridge("slurm-failover", "xc30:16", List.of("--orphan-jobs", "squeue -h -o %A"));
        CraySlurm slurm = null;
        try {
            bridge.proxyEnvironment(CraySlurm.environment(prefix, bridge));
            bridge.startProxyPair(haDb, lease);
            slurm = CraySlurm.start(prefix, bridge);
            Random random = new Random(seed);
            Captured captured = new Captured(bridge.dir().resolve("capture"));
            Map<String, String> outcome = new LinkedHashMap<>();
            List<Round> done = new ArrayList<>();
            for (int r = 1; r <= rounds; r++) {
                done.add(round(r, bridge, slurm, random, captured, jobs, outcome));
            }
            report(seed, jobs, lease, done);

            List<String> unfinished = outcome.entrySet().stream().filter(e -> !e.getValue().startsWith("COMPLETED"))
                    .map(e -> "job " + e.getKey() + ": " + e.getValue()).toList();
            System.out.println("jobs not COMPLETED: " + (unfinished.isEmpty() ? "none" : String.join("; ", unfinished)));
            for (Map.Entry<String, String> e : outcome.entrySet()) {
                String[] stateReason = e.getValue().split(" ", 2);
                assertTrue(DONE.contains(stateReason[0]), "job " + e.getKey() + " lost: last seen " + e.getValue());
                assertTrue(stateReason[0].equals("COMPLETED") || !stateReason[1].equals("None"),
                        "job " + e.getKey() + " ended " + e.getValue() + " with no reason its owner can see");
            }
            List<String> fatal = Stream.concat(slurm.ctldLog().lines(), slurm.slurmdLog().lines())
                    .filter(l -> l.contains("fatal")).toList();
            assertEquals(List.of(), fatal, "fatal in Slurm's logs");
            System.out.println("slurmctld released as orphans: " + slurm.ctldLog().lines()
                    .filter(l -> l.contains("orphaned ALPS reservation")).map(String::strip).toList());
            assertNothingLeftInAlps(bridge);
        } finally {
            CraySlurm.stop(slurm, bridge);
        }
    }

    private static Round round(int number, Bridge bridge, CraySlurm slurm, Random random, Captured captured,
                               int jobs, Map<String, String> outcome) throws IOException, InterruptedException {
        int active = bridge.activePort();
        assertTrue(active != 0, "no proxy of the pair is active");
        int survivor = bridge.proxyPorts().stream().filter(p -> p != active).findFirst().orElseThrow();
        boolean inFlight = number == 1 || random.nextBoolean();
        int k = 1 + random.nextInt(Math.max(1, jobs / 2));
        long delayMs = inFlight ? 0 : random.nextInt(3000);
        int before = captured.reserves();
        long interruptedBefore = interruptedReserves(bridge);
        List<String> submitted = slurm.submitMixed(jobs, random.nextLong(), SlurmInteropTest.USERS);
        submitted.forEach(j -> outcome.put(j, "SUBMITTED None"));

        String point;
        long deadline = System.nanoTime() + Duration.ofMinutes(4).toNanos();
        String pending = null;
        while (System.nanoTime() < deadline
                && (captured.reserves() < before + k || inFlight && (pending = captured.reserveInFlight(before)) == null)) {
            Thread.sleep(10);
        }
        if (inFlight && pending != null) {
            point = "RESERVE " + (captured.reserves() - before) + " of the round in flight (" + pending + ")";
        } else if (captured.reserves() >= before + k) {
            Thread.sleep(delayMs);
            point = delayMs + " ms after RESERVE " + k + " of the round reached ALPS";
        } else {
            point = "kill point not reached in 4 minutes (" + (captured.reserves() - before) + " RESERVEs), killed then";
        }
        long killed = System.nanoTime();
        bridge.killProxy(active);
        long recoveryMs = firstAnswer(bridge, survivor, killed);
        System.out.println("round " + number + ": kill -9 of the active proxy (port " + active + ") at " + point
                + "; first successful call through the survivor (port " + survivor + ") " + recoveryMs + " ms after");
        bridge.operateOn(survivor);
        bridge.restartProxy(active); // the killed one comes back as the standby: the next round kills the survivor

        Duration drain = Duration.ofMinutes(3).plusSeconds(10L * jobs);
        assertTrue(Host.await(drain, () -> {
            for (String line : Host.lines(slurm.cmd("squeue", "-h", "-t", "all", "-o", "%i %T %r").out())) {
                String[] f = line.split(" ", 2);
                outcome.computeIfPresent(f[0], (j, old) -> f[1]);
            }
            return submitted.stream().allMatch(j -> DONE.contains(outcome.get(j).split(" ", 2)[0]));
        }), "round " + number + ": jobs left after " + drain.toSeconds() + " s: " + slurm.queue());
        System.out.println("round " + number + ": interrupted exchanges the survivor knows:\n"
                + bridge.interrupted().out().strip());
        if (pending != null) {
            // recorded in ha_db before it was forwarded: the survivor answers a retry "outcome unknown", never runs it
            assertTrue(interruptedReserves(bridge) > interruptedBefore, "the RESERVE in flight at the kill is not"
                    + " among the survivor's interrupted exchanges: " + bridge.interrupted().out());
        }
        return new Round(number, point, active, recoveryMs);
    }

    private static long interruptedReserves(Bridge bridge) {
        return bridge.interrupted().ok().out().lines().filter(l -> l.contains(" RESERVE exchange ")).count();
    }

    /** Calls the survivor directly (no retries) until its ENGINE answer is a success; ms since {@code killed}. */
    private static long firstAnswer(Bridge bridge, int survivor, long killed) throws IOException, InterruptedException {
        Path request = Files.writeString(bridge.dir().resolve("engine.xml"), ENGINE);
        Map<String, String> env = Map.of("APBASIL_PROXY", "127.0.0.1:" + survivor, "APBASIL_AUTH", "munge",
                "APBASIL_MUNGE_SOCKET", bridge.mungeSocket().toString(), "APBASIL_RETRIES", "0",
                "APBASIL_CONFIG", "/dev/null");
        String client = Host.repository().resolve("apbasil-proxy/target/c/apbasil").toString();
        long deadline = killed + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (Host.run(env, Duration.ofSeconds(30), List.of("sh", "-c", client + " < " + request)).out()
                    .contains("status=\"SUCCESS\"")) {
                return (System.nanoTime() - killed) / 1_000_000;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the survivor did not answer within 60 s of the kill:\n" + bridge.log("proxy-b.log"));
    }

    /** After the last round: the survivor's orphan watch lists what no job owns, releases it, and ALPS holds nothing. */
    private static void assertNothingLeftInAlps(Bridge bridge) {
        String orphans = bridge.orphans("--refresh").ok().out();
        System.out.println("the survivor's orphan watch after the workload:\n" + orphans.strip());
        if (!orphans.contains(" 0 orphans")) {
            System.out.println("released:\n" + bridge.orphans("--release").ok().out().strip());
        }
        assertTrue(Host.await(Duration.ofSeconds(60), () -> bridge.alpsReservations().isEmpty()),
                "ALPS holds " + bridge.alpsReservations() + " with no job left");
    }

    private static void report(long seed, int jobs, int lease, List<Round> rounds) {
        List<Long> ms = rounds.stream().map(Round::recoveryMs).sorted().toList();
        StringBuilder out = new StringBuilder("proxy failover under Slurm 18.08.9: seed " + seed + ", " + jobs
                + " jobs per round, " + rounds.size() + " rounds, ha_lease=" + lease + " s\n");
        for (Round r : rounds) {
            out.append(String.format("round %d: killed port %d at %s; recovered in %d ms%n", r.number(), r.killed(),
                    r.killPoint(), r.recoveryMs()));
        }
        out.append("kill to first successful call through the survivor: median ").append(ms.get((ms.size() - 1) / 2))
                .append(" ms, max ").append(ms.get(ms.size() - 1)).append(" ms (target <= 10000 ms)");
        System.out.println(out);
    }

    /**
     * The RESERVEs that reached the emulator, from its {@code capture/} ({@code <time>-request.xml} written as the
     * request arrives, {@code -response.xml} empty until the emulator answers).
     */
    private static final class Captured {
        private final Path dir;
        private final Set<Path> looked = new HashSet<>();
        private final List<Path> reserves = new ArrayList<>();
        private final Map<Path, String> batchIds = new HashMap<>();

        Captured(Path dir) {
            this.dir = dir;
        }

        int reserves() {
            scan();
            return reserves.size();
        }

        /**
         * A RESERVE after the first {@code from} whose answer the emulator has not written yet (its batch id and file),
         * or null. Only the newer ones: the answer of one in flight at an earlier kill is never written (its {@code
         * tee} writes to the dead proxy's pipe first, and dies of SIGPIPE).
         */
        String reserveInFlight(int from) throws IOException {
            scan();
            for (Path request : reserves.subList(from, reserves.size())) {
                Path response = Path.of(request.toString().replace("-request.xml", "-response.xml"));
                if (Files.exists(response) && Files.size(response) == 0) {
                    return "batch_id " + batchIds.get(request) + ", " + request.getFileName();
                }
            }
            return null;
        }

        private void scan() {
            try (Stream<Path> files = Files.list(dir)) {
                for (Path f : files.filter(p -> p.toString().endsWith("-request.xml") && !looked.contains(p)).toList()) {
                    String text = Files.readString(f);
                    if (!text.contains("method=")) {
                        continue; // still arriving: looked at again next time
                    }
                    looked.add(f);
                    if (text.contains("method=\"RESERVE\"")) {
                        reserves.add(f);
                        java.util.regex.Matcher m = java.util.regex.Pattern.compile("batch_id=\"([^\"]*)\"").matcher(text);
                        batchIds.put(f, m.find() ? m.group(1) : "?");
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
    }
}
