package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.store.PostgresServer;

/**
 * What the proxy-pair scenarios (issue 37) share, whichever scheduler drives the bridge ({@link
 * SlurmProxyFailoverTest}, {@link PbsProxyFailoverTest}): the seeded choice of the kill point, the {@code kill -9} of
 * the active proxy there (ALPS made unreachable across it in an outage round) and the time to the survivor's first
 * answer, and the checks after the workload: the survivor's orphan watch leaves nothing in ALPS, the ledger both
 * proxies charged is clean with no hold taken twice for one job run.
 */
final class ProxyPairFailover {

    private static final String INVENTORY = "<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.3\" method=\"QUERY\" type=\"INVENTORY\"/>\n";
    private static final String ENGINE = "<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.0\" method=\"QUERY\" type=\"ENGINE\"/>\n";

    private ProxyPairFailover() {
    }

    /**
     * Where a round kills: while a RESERVE is in flight (forwarded to ALPS, not yet answered), or {@code delayMs}
     * after the {@code k}-th RESERVE of the round reached ALPS. Round 1 always kills a RESERVE in flight.
     */
    record KillPoint(boolean inFlight, int k, long delayMs) {

        /** Draws three values of {@code random}, in this order, whatever the round. */
        static KillPoint choose(int round, Random random, int jobs) {
            boolean inFlight = round == 1 || random.nextBoolean();
            int k = 1 + random.nextInt(Math.max(1, jobs / 2));
            long delayMs = inFlight ? 0 : random.nextInt(3000);
            return new KillPoint(inFlight, k, delayMs);
        }
    }

    /**
     * One kill: where it happened, the port killed and the survivor's, the RESERVE in flight (null if none), the
     * time from the kill to the first successful call through the survivor; with ALPS unreachable across the kill,
     * the time to the survivor's first (TRANSIENT) answer as the active proxy and from ALPS's return to its first
     * success (else -1).
     */
    record Kill(int round, String point, int killed, int survivor, String pending, long recoveryMs, long takeoverMs,
                long backMs) {
    }

    /**
     * Waits (at most 4 minutes) for {@code at} among the RESERVEs that reach ALPS after the first {@code before},
     * makes ALPS unreachable from then on for {@code outage} seconds if above 0, kills the active proxy with
     * {@code kill -9}, measures the survivor's recovery, and starts the killed one again as the standby (the next
     * round kills the survivor). Operator commands go to the survivor from then on.
     */
    static Kill kill(int round, Bridge bridge, Captured captured, int before, KillPoint at, int outage)
            throws IOException, InterruptedException {
        int active = bridge.activePort();
        assertTrue(active != 0, "no proxy of the pair is active");
        int survivor = bridge.proxyPorts().stream().filter(p -> p != active).findFirst().orElseThrow();
        String point;
        long deadline = System.nanoTime() + Duration.ofMinutes(4).toNanos();
        String pending = null;
        while (System.nanoTime() < deadline && (captured.reserves() < before + at.k()
                || at.inFlight() && (pending = captured.reserveInFlight(before)) == null)) {
            Thread.sleep(10);
        }
        if (at.inFlight() && pending != null) {
            point = "RESERVE " + (captured.reserves() - before) + " of the round in flight (" + pending + ")";
        } else if (captured.reserves() >= before + at.k()) {
            Thread.sleep(at.delayMs());
            point = at.delayMs() + " ms after RESERVE " + at.k() + " of the round reached ALPS";
        } else {
            point = "kill point not reached in 4 minutes (" + (captured.reserves() - before) + " RESERVEs), killed then";
        }
        Path down = bridge.dir().resolve("alps/down");
        if (outage > 0) {
            Files.writeString(down, "");
            point += ", ALPS unreachable for " + outage + " s from then on";
        }
        long killed = System.nanoTime();
        bridge.killProxy(active);
        long takeoverMs = -1;
        long backMs = -1;
        long recoveryMs;
        if (outage > 0) {
            takeoverMs = transientUntil(bridge, survivor, killed, killed + Duration.ofSeconds(outage).toNanos());
            Files.delete(down);
            long back = System.nanoTime();
            backMs = firstAnswer(bridge, survivor, back);
            recoveryMs = (System.nanoTime() - killed) / 1_000_000;
            System.out.println("round " + round + ": kill -9 of the active proxy (port " + active + ") at " + point
                    + "; the survivor (port " + survivor + ") answered as the active proxy " + takeoverMs + " ms after"
                    + " the kill, TRANSIENT only while ALPS was unreachable; its first success " + backMs
                    + " ms after ALPS came back");
        } else {
            recoveryMs = firstAnswer(bridge, survivor, killed);
            System.out.println("round " + round + ": kill -9 of the active proxy (port " + active + ") at " + point
                    + "; first successful call through the survivor (port " + survivor + ") " + recoveryMs + " ms after");
        }
        bridge.operateOn(survivor);
        bridge.restartProxy(active);
        return new Kill(round, point, active, survivor, pending, recoveryMs, takeoverMs, backMs);
    }

    /**
     * Asks the survivor directly (no retries) for an INVENTORY every 200 ms until {@code until}, while ALPS answers
     * nothing: before it takes over it says "not active" (the client exits 1), after that it answers (exit 0), and
     * every answer must be a TRANSIENT failure. Returns the ms from {@code killed} to its first answer.
     */
    private static long transientUntil(Bridge bridge, int survivor, long killed, long until)
            throws IOException, InterruptedException {
        Path request = Files.writeString(bridge.dir().resolve("inventory.xml"), INVENTORY);
        long first = -1;
        int answers = 0;
        while (System.nanoTime() < until) {
            Host.Result r = bridge.directly(survivor, request);
            if (r.exit() == 0) {
                assertTrue(r.out().contains("status=\"FAILURE\"") && r.out().contains("error_class=\"TRANSIENT\""),
                        "the survivor answered while ALPS was unreachable: " + r.out());
                answers++;
                if (first < 0) {
                    first = (System.nanoTime() - killed) / 1_000_000;
                }
            } else {
                assertTrue(first < 0, "the survivor stopped answering after it took over: " + r.out());
            }
            Thread.sleep(200);
        }
        assertTrue(first >= 0, "the survivor did not take over while ALPS was unreachable:\n"
                + bridge.log(survivor == bridge.proxyPorts().get(0) ? "proxy.log" : "proxy-b.log"));
        System.out.println("while ALPS was unreachable the survivor answered " + answers + " INVENTORY requests, each"
                + " a TRANSIENT failure");
        return first;
    }

    /** Calls the survivor directly (no retries) until its ENGINE answer is a success; ms since {@code killed}. */
    static long firstAnswer(Bridge bridge, int survivor, long killed) throws IOException, InterruptedException {
        Path request = Files.writeString(bridge.dir().resolve("engine.xml"), ENGINE);
        long deadline = killed + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            if (bridge.directly(survivor, request).out().contains("status=\"SUCCESS\"")) {
                return (System.nanoTime() - killed) / 1_000_000;
            }
            Thread.sleep(50);
        }
        throw new AssertionError("the survivor did not answer within 60 s of the kill:\n" + bridge.log("proxy-b.log"));
    }

    /** RESERVE exchanges the survivor lists as interrupted ({@code proxy interrupted}). */
    static long interruptedReserves(Bridge bridge) {
        return bridge.interrupted().ok().out().lines().filter(l -> l.contains(" RESERVE exchange ")).count();
    }

    /** A PostgreSQL ledger with a project, well granted, for the primary group of each of {@code users}. */
    static String ledgerFor(List<String> users) {
        String url = PostgresServer.get().newDatabase();
        try (Ledger setup = Ledger.open(url)) {
            for (String user : users) {
                int gid = Integer.parseInt(Host.run(Map.of(), "id", "-g", user).ok().out().strip());
                String project = "p" + gid;
                setup.addProject(project, gid, null);
                setup.grant(project, Resource.CPU, 1_000_000_000L, Instant.now().minusSeconds(86_400),
                        Instant.now().plusSeconds(86_400 * 30), "interop", null);
            }
        }
        return url;
    }

    /**
     * The ledger both proxies charged: {@code ledger check} clean, nothing held any more, and no hold taken twice for
     * one job run: per job at most one reservation that was not voided (a completed job's settled), every other one
     * voided for a reason (an interrupted RESERVE's, ALPS unreachable or refusing, never run).
     */
    static void assertLedgerClean(String url, Collection<String> jobs, Predicate<String> completed) {
        assertLedgerClean(url, jobs, completed, j -> 1);
    }

    /**
     * As {@link #assertLedgerClean(String, Collection, Predicate)} for a scheduler that may run a job more than once
     * ({@code runs}: how many times it started each, e.g. after a controller lost its start): per job no more
     * reservations that were not voided than runs (at least one), each settled, each on an ALPS reservation of its
     * own, none held while another was.
     */
    static void assertLedgerClean(String url, Collection<String> jobs, Predicate<String> completed,
                                  java.util.function.ToIntFunction<String> runs) {
        try (Ledger ledger = Ledger.open(url)) {
            assertEquals(List.of(), ledger.check(), "ledger check");
            Map<String, Integer> voided = new java.util.TreeMap<>();
            List<String> reruns = new java.util.ArrayList<>();
            for (String job : jobs) {
                List<Reservation> all = ledger.reservations(Ledger.DEFAULT_CLUSTER, job);
                List<Reservation> kept = all.stream().filter(r -> r.state() != State.VOIDED && r.state() != State.DENIED)
                        .sorted(java.util.Comparator.comparing(Reservation::reservedAt)).toList();
                int started = Math.max(1, runs.applyAsInt(job));
                assertTrue(kept.size() <= started, "job " + job + " held " + kept.size() + " times, run " + started
                        + " times: " + all);
                assertTrue(kept.stream().allMatch(r -> r.state() == State.SETTLED), "job " + job + " still held: " + all);
                assertEquals(kept.size(), kept.stream().map(Reservation::resId).distinct().count(),
                        "job " + job + ": two holds on one ALPS reservation: " + all);
                for (int i = 1; i < kept.size(); i++) {
                    assertTrue(!kept.get(i).reservedAt().isBefore(kept.get(i - 1).releasedAt()), "job " + job
                            + " held twice at once: " + all);
                }
                if (completed.test(job)) {
                    assertTrue(!kept.isEmpty(), "job " + job + " ran uncharged: " + all);
                }
                if (kept.size() > 1) {
                    reruns.add(job + " (" + kept.size() + " runs, ALPS reservations "
                            + kept.stream().map(Reservation::resId).toList() + ")");
                }
                all.stream().filter(r -> r.state() == State.VOIDED).forEach(r -> voided.merge(r.reason(), 1, Integer::sum));
            }
            System.out.println("ledger: check clean; one settled reservation per job run; jobs run again: "
                    + (reruns.isEmpty() ? "none" : reruns) + "; holds voided, by reason: " + voided);
        }
    }

    /** After the last round: the survivor's orphan watch lists what no job owns, releases it, and ALPS holds nothing. */
    static void assertNothingLeftInAlps(Bridge bridge) {
        String orphans = bridge.orphans("--refresh").ok().out();
        System.out.println("the survivor's orphan watch after the workload:\n" + orphans.strip());
        if (!orphans.contains(" 0 orphans")) {
            System.out.println("released:\n" + bridge.orphans("--release").ok().out().strip());
        }
        assertTrue(Host.await(Duration.ofSeconds(60), () -> bridge.alpsReservations().isEmpty()),
                "ALPS holds " + bridge.alpsReservations() + " with no job left");
    }

    /** The kills' table, then the median and maximum of the recovery times (target: 10 s). */
    static void report(String scheduler, long seed, int jobs, int lease, List<Kill> kills) {
        List<Long> ms = kills.stream().map(Kill::recoveryMs).sorted().toList();
        StringBuilder out = new StringBuilder("proxy failover under " + scheduler + ": seed " + seed + ", " + jobs
                + " jobs per round, " + kills.size() + " rounds, ha_lease=" + lease + " s\n");
        for (Kill r : kills) {
            out.append(String.format("round %d: killed port %d at %s; recovered in %d ms%s%n", r.round(), r.killed(),
                    r.point(), r.recoveryMs(), r.backMs() < 0 ? "" : String.format(" (the survivor active after %d ms,"
                            + " answering TRANSIENT; its first success %d ms after ALPS came back)", r.takeoverMs(),
                            r.backMs())));
        }
        List<Long> plain = kills.stream().map(r -> r.backMs() < 0 ? r.recoveryMs() : r.takeoverMs()).sorted().toList();
        out.append("kill to the survivor answering as the active proxy: median ").append(plain.get((plain.size() - 1) / 2))
                .append(" ms, max ").append(plain.get(plain.size() - 1)).append(" ms (target <= 10000 ms;")
                .append(" a success while ALPS answers, a TRANSIENT failure while it is unreachable); kill to the first")
                .append(" success, outage included: median ").append(ms.get((ms.size() - 1) / 2)).append(" ms, max ")
                .append(ms.get(ms.size() - 1)).append(" ms");
        System.out.println(out);
    }

    /**
     * The RESERVEs that reached the emulator, from its {@code capture/} ({@code <time>-request.xml} written as the
     * request arrives, {@code -response.xml} empty until the emulator answers).
     */
    static final class Captured {
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

    /**
     * What a failover scenario runs, from the system properties: {@code -Dinterop.jobs} per round (12),
     * {@code -Dinterop.rounds} (2), {@code -Dinterop.haLease} seconds (5), {@code -Dinterop.outage} seconds of ALPS
     * unreachable in the last round (60), and the runs' seeds: {@code -Dinterop.seeds=S1,S2,...}, else
     * {@code -Dinterop.runs=N} (1) consecutive seeds from {@code -Dinterop.seed} (else one drawn now, printed by the
     * caller).
     */
    record Workload(int jobs, int rounds, int lease, int outage, List<Long> seeds) {

        static Workload fromProperties() {
            return new Workload(Integer.getInteger("interop.jobs", 12), Integer.getInteger("interop.rounds", 2),
                    Integer.getInteger("interop.haLease", 5), Integer.getInteger("interop.outage", 60), seedsFromProperties());
        }

        private static List<Long> seedsFromProperties() {
            String list = System.getProperty("interop.seeds", "").strip();
            if (!list.isEmpty()) {
                return java.util.Arrays.stream(list.split(",")).map(String::strip).map(Long::parseLong).toList();
            }
            long first = Long.getLong("interop.seed", System.nanoTime() % 100_000_000L);
            int count = Integer.getInteger("interop.runs", 1);
            return java.util.stream.LongStream.range(first, first + count).boxed().toList();
        }
    }
}
