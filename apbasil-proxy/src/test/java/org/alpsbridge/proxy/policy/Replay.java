package org.alpsbridge.proxy.policy;

import java.io.ByteArrayInputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.nodes.NidSet;
import org.alpsbridge.emulator.Control;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.orphans.JobSource;
import org.alpsbridge.proxy.orphans.Orphan;
import org.alpsbridge.proxy.orphans.OrphanWatch;
import org.alpsbridge.proxy.server.BackendChain;
import org.alpsbridge.proxy.stats.Stats;

/**
 * A randomized scheduler replay over the emulator, through the daemon's decorator chain (timing, policy,
 * orphan watch): jobs start and end the way slurmctld drove ALPS (INVENTORY each pass, RESERVE with a
 * NodeParam list picked from the served inventory, CONFIRM, RELEASE), while nodes fail and recover and
 * reservations appear behind the proxy's back, RELEASEs get lost, finished jobs are forgotten and RESERVE
 * answers get cut off. Each job's container (its CONFIRM's pagg) is a claim, as under Slurm 18.08 where it is
 * slurmstepd's session: it ends a few seconds after the job's RELEASE, which ALPS answers claims 1, and ALPS removes
 * the reservation then. A RESERVE on nodes the served inventory showed free must never fail.
 *
 * <p>Every served inventory is compared byte for byte with a fresh one taken from the emulator at the same
 * moment. A difference is tolerated only inside the documented window: after a change the proxy cannot see
 * (an out-of-band reservation, a lost RELEASE, an apkill) and before the next full refresh, and never longer
 * than the refresh interval. Every planted orphan must be found within one refresh interval.
 * Time is virtual: one clock drives the emulator and the policy, and ticks a second at a time.
 */
final class Replay {

    record Settings(String machine, int jobs, int maxNodesPerJob, long seed, Duration refreshInterval, int passSeconds) {
    }

    record Result(int passes, long schedulerInventories, long backendInventories, int compared, int differencesInWindow,
                  List<String> failures, int orphansPlanted, int orphansFound, long maxDetectionSeconds, long calls,
                  int started, int nodeFailures, long patchMismatches, Map<String, Long> reasons, long schedulerCalls,
                  org.alpsbridge.proxy.stats.MethodFigures inventoryFigures, org.alpsbridge.proxy.stats.MethodFigures summaryFigures, long inventoryBytesFetched,
                  Map<String, Long> patches, Map<String, Long> reservationChecks) {

        String summary() {
            return String.format(java.util.Locale.ROOT,
                    "passes=%d scheduler calls=%d scheduler INVENTORY=%d full backend INVENTORY=%d (1/%.1f) backend calls=%d jobs started=%d node failures=%d"
                            + " compared=%d differences in window=%d failures=%d orphans planted=%d found=%d max detection=%ds"
                            + " patch mismatches=%d",
                    passes, schedulerCalls, schedulerInventories, backendInventories, schedulerInventories / (double) Math.max(1, backendInventories),
                    calls, started, nodeFailures, compared, differencesInWindow, failures.size(), orphansPlanted, orphansFound,
                    maxDetectionSeconds, patchMismatches) + " refreshes by reason " + reasons + " patches " + patches + " reservations-only INVENTORYs " + reservationChecks
                    + String.format(java.util.Locale.ROOT, "; INVENTORY p50/p99: from the cache %d/%d us (SUMMARY check included;"
                            + " SUMMARY alone %d/%d us), from the backend %d/%d us; %.1f MB served, %.1f MB fetched",
                    inventoryFigures.cached().p50Micros(), inventoryFigures.cached().p99Micros(), summaryFigures.backend().p50Micros(),
                    summaryFigures.backend().p99Micros(), inventoryFigures.backend().p50Micros(), inventoryFigures.backend().p99Micros(),
                    inventoryFigures.responseBytes() / 1e6,
                    inventoryBytesFetched / 1e6);
        }
    }

    private record Job(long id, int nodes, long wallSeconds) {
    }

    private record Running(Job job, long reservationId, long endSecond) {
    }

    private static final BasilCodec CODEC = BasilCodec.standard();
    private static final String PROTOCOL = "1.3";

    private final Settings s;
    private final Random random;
    private final InventoryPolicyTest.ManualClock clock = new InventoryPolicyTest.ManualClock();
    private final Emulator emulator;
    private final Control control;
    private final Stats stats = new Stats();
    private final InventoryPolicy policy;
    private final OrphanWatch watch;
    private final Backend chain;
    private final Set<String> liveJobs = ConcurrentHashMap.newKeySet();
    /** The jobs' containers (slurmstepd's session under Slurm 18.08) still alive, each with the second it ends. */
    private final Map<Long, Long> containers = new HashMap<>();
    private final Map<Long, Long> expectedOrphans = new LinkedHashMap<>();
    private final List<String> failures = new ArrayList<>();
    private Long windowSince;
    private long calls;
    private long schedulerCalls;
    private long inventoryBytesFetched;
    private long refreshesSeen;
    private long maxDetection;
    private int found;
    private int planted;

    Replay(Settings settings) {
        this.s = settings;
        this.random = new Random(settings.seed());
        this.emulator = Emulator.create(settings.machine(), () -> clock.millis() / 1000);
        this.control = emulator.control();
        // a confirmed reservation's container is a claim while it lives, as ALPS counted the job container
        control.watchPaggs(containers::containsKey);
        this.policy = new InventoryPolicy(PolicySettings.DEFAULTS.withRefreshInterval(settings.refreshInterval()), emulator::userIds, clock, stats,
                Runnable::run);
        this.watch = new OrphanWatch(new JobSource() {
            @Override
            public Set<String> liveJobIds() {
                return Set.copyOf(liveJobs);
            }
        }, java.nio.file.Path.of("/nonexistent/apkill"), Duration.ofSeconds(5), stats);
        Backend emu = new Backend() {
            @Override
            public byte[] call(Call call) {
                calls++;
                byte[] answer = emulator.handle(call.request());
                if ("INVENTORY".equals(call.queryType())) {
                    inventoryBytesFetched += answer.length;
                }
                return answer;
            }

            @Override
            public String describe() {
                return "emulator:" + settings.machine();
            }
        };
        this.chain = new BackendChain(stats, policy, null, watch).over(emu);
    }

    Result run() throws Exception {
        Deque<Job> arriving = new ArrayDeque<>();
        long at = 0;
        for (int i = 0; i < s.jobs(); i++) {
            at += random.nextInt(2 * s.passSeconds() + 1);
            arriving.add(new Job(1000 + i, 1 + random.nextInt(s.maxNodesPerJob()),
                    20 + (long) Math.exp(random.nextDouble() * Math.log(600))));
        }
        long[] arrivals = new long[s.jobs()];
        at = 0;
        int k = 0;
        for (Job ignored : arriving) {
            at += random.nextInt(2 * s.passSeconds() + 1);
            arrivals[k++] = at;
        }
        Deque<Job> queued = new ArrayDeque<>();
        List<Running> running = new ArrayList<>();
        Set<Integer> down = new HashSet<>();
        int passes = 0;
        long schedulerInventories = 0;
        int compared = 0;
        int inWindow = 0;
        int started = 0;
        int nodeFailures = 0;
        long second = 0;
        int next = 0;
        List<Job> all = new ArrayList<>(arriving);
        while (next < all.size() || !queued.isEmpty() || !running.isEmpty()) {
            for (int t = 0; t < s.passSeconds(); t++) {
                clock.advance(Duration.ofSeconds(1));
                second++;
                long now = second;
                containers.values().removeIf(end -> end <= now);
                policy.refreshDue();
                noteRefreshes(second);
            }
            passes++;
            while (next < all.size() && arrivals[next] <= second) {
                queued.add(all.get(next));
                liveJobs.add(Long.toString(all.get(next).id()));
                next++;
            }
            // jobs that ended: released, forgotten (slurmctld lost track) or released into a lost RELEASE
            for (Running r : new ArrayList<>(running)) {
                if (r.endSecond() > second) {
                    continue;
                }
                running.remove(r);
                liveJobs.remove(Long.toString(r.job().id()));
                // the job's container outlives its RELEASE by a few seconds (slurmstepd releases, reports, then exits)
                containers.put(pagg(r.job()), second + 1 + random.nextInt(3 * s.passSeconds()));
                double dice = random.nextDouble();
                if (dice < 0.01) {
                    expect(r.reservationId(), second); // forgotten: its batch job is gone
                    continue;
                }
                if (dice < 0.02) {
                    control.loseNextRelease();
                    openWindow(second);
                    expect(r.reservationId(), second);
                }
                call(BasilRequest.release(PROTOCOL, r.reservationId()));
            }
            // the world changes behind the proxy's back
            double perPass = s.passSeconds() / 10.0;
            if (random.nextDouble() < 0.04 * perPass) {
                int nid = random.nextInt(emulator.computeNodes());
                if (down.add(nid)) {
                    control.setState(new int[] {nid}, "DOWN");
                    nodeFailures++;
                }
            }
            if (!down.isEmpty() && random.nextDouble() < 0.06 * perPass) {
                int nid = down.iterator().next();
                down.remove(nid);
                control.setState(new int[] {nid}, "UP");
            }
            if (random.nextDouble() < 0.01 * perPass) {
                plant(second);
            }
            // the scheduling pass
            long before = refreshCount();
            schedulerCalls++;
            byte[] served = chain.call(new Call(CODEC.write(BasilRequest.query(PROTOCOL, "INVENTORY")), PROTOCOL, "QUERY",
                    "INVENTORY", Caller.UNAUTHENTICATED, null));
            schedulerInventories++;
            byte[] truth = emulator.handle(CODEC.write(BasilRequest.query(PROTOCOL, "INVENTORY")));
            if (refreshCount() > before) {
                windowSince = null; // this very call fetched a full inventory: nothing is hidden any more
            }
            refreshesSeen = refreshCount();
            compared++;
            if (!Arrays.equals(served, truth)) {
                if (windowSince != null && second - windowSince < s.refreshInterval().toSeconds()) {
                    inWindow++;
                } else {
                    failures.add("pass " + passes + " (second " + second + "): served inventory differs from ALPS outside the window: "
                            + firstDifference(served, truth));
                }
            }
            checkOrphans(second);
            started += schedule(free(served), queued, running, second);
        }
        for (long t = 0; t <= s.refreshInterval().toSeconds() && !expectedOrphans.isEmpty(); t++) {
            clock.advance(Duration.ofSeconds(1));
            second++;
            policy.refreshDue();
            noteRefreshes(second);
        }
        // full ones: the backend's QUERY/INVENTORY count holds the reservations-only checks too
        long backendInventories = refreshCount();
        var mismatches = stats.snapshot().counters().get("policy_patch_mismatches");
        long patchMismatches = mismatches == null ? 0 : mismatches.values().getOrDefault("", 0L);
        for (Map.Entry<Long, Long> e : expectedOrphans.entrySet()) {
            failures.add("orphan reservation " + e.getKey() + " planted at second " + e.getValue() + " was never found");
        }
        policy.close();
        return new Result(passes, schedulerInventories, backendInventories, compared, inWindow, failures, planted, found,
                maxDetection, calls, started, nodeFailures, patchMismatches,
                stats.snapshot().counters().get("policy_refreshes").counted(), schedulerCalls,
                stats.snapshot().methods().get("QUERY/INVENTORY"), stats.snapshot().methods().get("QUERY/SUMMARY"), inventoryBytesFetched,
                counter("policy_patches"), counter("policy_reservation_checks"));
    }

    private Map<String, Long> counter(String name) {
        var c = stats.snapshot().counters().get(name);
        return c == null ? Map.of() : c.counted();
    }

    private long refreshCount() {
        return stats.counter(org.alpsbridge.proxy.stats.ProxyMetric.POLICY_REFRESHES).total();
    }

    /** A timer refresh closes the window too. */
    private void noteRefreshes(long second) {
        long n = refreshCount();
        if (n > refreshesSeen) {
            refreshesSeen = n;
            windowSince = null;
            checkOrphans(second);
        }
    }

    private void openWindow(long second) {
        if (windowSince == null) {
            windowSince = second;
        }
    }

    private void expect(long reservationId, long second) {
        expectedOrphans.put(reservationId, second);
        planted++;
    }

    private void plant(long second) throws Exception {
        List<Integer> free = freeNodes(emulator.handle(CODEC.write(BasilRequest.query(PROTOCOL, "INVENTORY"))));
        if (free.isEmpty()) {
            return;
        }
        int nid = free.get(random.nextInt(free.size()));
        long id = control.plantReservation("mallory", Long.toString(990_000 + random.nextInt(1000)), nid);
        openWindow(second);
        expect(id, second);
    }

    private void checkOrphans(long second) {
        Set<Long> now = new HashSet<>();
        for (Orphan o : watch.orphans()) {
            now.add(o.reservationId());
        }
        for (Long id : new ArrayList<>(expectedOrphans.keySet())) {
            long since = expectedOrphans.get(id);
            if (now.contains(id)) {
                expectedOrphans.remove(id);
                found++;
                maxDetection = Math.max(maxDetection, second - since);
                if (second - since > s.refreshInterval().toSeconds()) {
                    failures.add("orphan " + id + " found after " + (second - since) + " s, more than the refresh interval");
                }
                releaseOrphan(id, second);
            } else if (second - since > s.refreshInterval().toSeconds()) {
                failures.add("orphan " + id + " not found within the refresh interval (planted at second " + since + ")");
                expectedOrphans.remove(id);
            }
        }
    }

    /** The operator's {@code proxy orphans --release}: RELEASE through the proxy, then apkill (here: the emulator's kill). */
    private void releaseOrphan(long id, long second) {
        Orphan o = watch.orphans().stream().filter(x -> x.reservationId() == id).findFirst().orElseThrow();
        var outcome = watch.release(List.of(id)).get(0);
        if (!outcome.released()) {
            failures.add("orphan " + id + " could not be released: " + outcome.message());
        }
        for (long apid : o.apids()) {
            control.kill(apid);
            openWindow(second); // apkill works behind the proxy's back: the reservation goes when its last application ends
        }
    }

    /** Free nodes as the served inventory shows them: from the policy's views, which that document was written from or read into. */
    private List<Integer> free(byte[] served) throws Exception {
        List<NodeView> nodes = policy.cachedNodes(PROTOCOL);
        if (nodes == null) {
            return freeNodes(served);
        }
        List<Integer> free = new ArrayList<>();
        for (NodeView n : nodes) {
            if ("UP".equals(n.state()) && "BATCH".equals(n.role()) && !n.isAllocated()) {
                free.add((int) n.nodeId());
            }
        }
        return free;
    }

    private int schedule(List<Integer> free, Deque<Job> queued, List<Running> running, long second) throws Exception {
        int started = 0;
        while (!queued.isEmpty()) {
            Job job = queued.peek();
            if (free.size() < job.nodes()) {
                break; // FIFO: the head waits for nodes
            }
            List<Integer> pick = new ArrayList<>(free.subList(0, job.nodes()));
            ReserveParam.Builder p = ReserveParam.builder().architecture("XT");
            int cpus = 32;
            double style = random.nextDouble();
            if (style < 0.2) {
                p.width((long) job.nodes() * 16).nppn(16).nppcu(1).memoryPerPeMb(1000);
            } else if (style < 0.3) {
                p.width((long) job.nodes() * cpus).depth(2).width((long) job.nodes() * cpus / 2).nppn(cpus / 2);
            } else {
                p.width((long) job.nodes() * cpus).nppn(cpus).depth(1);
            }
            if (random.nextDouble() < 0.8) {
                p.nodes(NidSet.copyOf(pick.stream().mapToLong(Integer::longValue)).toString());
            }
            BasilRequest reserve = BasilRequest.reserve(PROTOCOL, "user" + (job.id() % 7), Long.toString(job.id()), null, List.of(p.build()));
            boolean cut = random.nextDouble() < 0.01;
            long[] idsBefore = control.reservationIds();
            if (cut) {
                control.truncate(Method.RESERVE);
            }
            byte[] answer;
            try {
                answer = call(reserve);
            } catch (org.alpsbridge.proxy.backend.BackendException e) {
                answer = null;
            } finally {
                if (cut) {
                    control.clearFaults();
                }
            }
            BasilResponse response = null;
            try {
                response = answer == null ? null : CODEC.readResponse(answer);
            } catch (org.alpsbridge.basil.codec.BasilException e) {
                response = null;
            }
            if (response == null || !response.responseData().isSuccess()) {
                if (!cut) {
                    // the nodes came from the served inventory: ALPS holding one of them means the cache hid it
                    failures.add("second " + second + ": RESERVE on nodes the served inventory showed free failed: "
                            + (response == null ? "no answer" : response.responseData().messageText()));
                }
                if (cut) {
                    for (long id : control.reservationIds()) {
                        if (Arrays.stream(idsBefore).noneMatch(x -> x == id)) {
                            expect(id, second); // made, but the scheduler never learned its id
                        }
                    }
                }
                break;
            }
            queued.poll();
            long id = response.responseData().content(Reserved.class).orElseThrow().reservationId();
            call(BasilRequest.confirm("1.0", id, pagg(job)));
            containers.put(pagg(job), Long.MAX_VALUE);
            running.add(new Running(job, id, second + job.wallSeconds()));
            for (long nid : response.responseData().content(Reserved.class).orElseThrow().nodeIds()) {
                free.remove(Integer.valueOf((int) nid));
            }
            free.removeAll(pick);
            started++;
        }
        return started;
    }

    /** The job's container id (planted reservations' paggs are 100,000 + their id: kept apart). */
    private static long pagg(Job job) {
        return 500_000 + job.id();
    }

    private byte[] call(BasilRequest r) throws Exception {
        schedulerCalls++;
        return chain.call(new Call(CODEC.write(r), r.protocol(), r.methodText(), r.type(), Caller.UNAUTHENTICATED, null));
    }

    private static List<Integer> freeNodes(byte[] inventory) throws Exception {
        List<Integer> free = new ArrayList<>();
        try (InventoryReader r = InventoryReader.open(new ByteArrayInputStream(inventory))) {
            for (NodeView n; (n = r.nextNode()) != null; ) {
                if ("UP".equals(n.state()) && "BATCH".equals(n.role()) && !n.isAllocated()) {
                    free.add((int) n.nodeId());
                }
            }
        }
        return free;
    }

    private static String firstDifference(byte[] served, byte[] truth) {
        String a = new String(served, StandardCharsets.US_ASCII);
        String b = new String(truth, StandardCharsets.US_ASCII);
        int i = 0;
        while (i < a.length() && i < b.length() && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        int from = Math.max(0, i - 120);
        return "at byte " + i + ": served ..." + a.substring(from, Math.min(a.length(), i + 80)).replace('\n', ' ')
                + "... ALPS ..." + b.substring(from, Math.min(b.length(), i + 80)).replace('\n', ' ') + "...";
    }
}
