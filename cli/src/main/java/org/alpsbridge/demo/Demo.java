package org.alpsbridge.demo;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntConsumer;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.emulator.LatencyProfile;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.timelimit.TimeLimit;
import org.alpsbridge.ledger.timelimit.TimeLimits;
import org.alpsbridge.proxy.ledger.LedgerBackend;
import org.alpsbridge.proxy.orphans.Orphan;
import org.alpsbridge.proxy.orphans.OrphanWatch;
import org.alpsbridge.proxy.orphans.ReleaseOutcome;
import org.alpsbridge.proxy.policy.InventoryPolicy;
import org.alpsbridge.proxy.policy.PolicySettings;
import org.alpsbridge.proxy.server.BackendChain;
import org.alpsbridge.proxy.server.EmulatorBackend;
import org.alpsbridge.proxy.server.ProxyConfig;
import org.alpsbridge.proxy.server.ProxyDaemon;
import org.alpsbridge.proxy.stats.MethodFigures;
import org.alpsbridge.proxy.stats.Snapshot;
import org.alpsbridge.proxy.stats.Stats;
import org.alpsbridge.timing.Chart;
import org.alpsbridge.timing.Job;
import org.alpsbridge.timing.Recorder;
import org.alpsbridge.timing.Replay;
import org.alpsbridge.timing.Report;
import org.alpsbridge.timing.Target;
import org.alpsbridge.timing.Targets;
import org.alpsbridge.timing.Workload;

/**
 * The whole bridge at work on one machine: an emulated Cray behind the proxy daemon with the ledger, a
 * slurmctld-like replay on-system (straight into ALPS) and off-system (through the daemon), faults and
 * orphans planted along the way, and checks that every part did its job.
 */
public final class Demo {

    /**
     * @param machine the emulated machine, without service nodes (e.g. {@code xc30:2256})
     * @param jobs jobs in the workload
     * @param seed seed of the workload
     * @param maxNodes largest job in nodes
     * @param dir where the ledger, the chart and the state go
     * @param home the project root, for {@code bin/apbasil}; null skips the per-process sample
     * @param processCalls calls of each per-process sample
     * @param latency the emulated ALPS's latency profile ({@code none}: it answers in microseconds)
     * @param latencySeed seed of the profile's draws
     * @param latencySleep the share of each modelled latency really waited (0 to 1); the rest is added to
     *     the call's timing without waiting, so the demo's runtime stays short
     */
    public record Settings(String machine, int jobs, long seed, int maxNodes, Path dir, Path home, int processCalls,
                           LatencyProfile latency, long latencySeed, double latencySleep) {
    }

    /** One thing the demo promises, checked. */
    record Check(String name, boolean passed, String detail) {
    }

    private static final List<String> USERS = List.of("alice", "bob", "carol", "dave", "erin", "frank");
    private static final List<String> PROJECTS = List.of("astro", "bio", "chem");
    private static final int CORES_PER_NODE = 16;
    private static final long PASS_SECONDS = 60;
    private static final Duration REFRESH_INTERVAL = Duration.ofMinutes(60);
    private static final Instant EPOCH = Instant.parse("2026-01-05T08:00:00Z");

    private final Settings settings;
    private final PrintWriter out;
    private final PrintWriter err;
    private final List<Check> checks = new ArrayList<>();

    public Demo(Settings settings, PrintWriter out, PrintWriter err) {
        this.settings = settings;
        this.out = out;
        this.err = err;
    }

    /** Runs the demo; returns 0 when every check passed, 1 otherwise. */
    public int run() throws Exception {
        long began = System.nanoTime();
        double loadAtStart = java.lang.management.ManagementFactory.getOperatingSystemMXBean().getSystemLoadAverage();
        Files.createDirectories(settings.dir());
        List<Job> jobs = Workload.generate(settings.seed(), settings.jobs(), settings.maxNodes(), 30, USERS, PROJECTS);
        long lastSubmit = jobs.stream().mapToLong(Job::submitSecond).max().orElse(0);
        // Enough passes for every job to run one after another twice over; a replay that needs more is stuck.
        long workSeconds = jobs.stream().mapToLong(j -> j.wallSeconds() + PASS_SECONDS).sum();
        int maxPasses = (int) Math.min(200_000, (lastSubmit + 2 * workSeconds) / PASS_SECONDS + 100);
        Replay replay = new Replay(new Replay.Settings("1.3", "INVENTORY", PASS_SECONDS, CORES_PER_NODE, 0, maxPasses));

        out.printf(Locale.ROOT, "alpsbridge demo: %d jobs (seed %d) on an emulated %s, in %s%n%n",
                jobs.size(), settings.seed(), settings.machine(), settings.dir());
        Recorder direct = new Recorder("on-system (straight into ALPS)");
        Replay.Outcome directOutcome;
        Emulator onSystem = Emulator.create(settings.machine());
        describeLatency(onSystem.computeNodes());
        out.flush();
        modelLatency(onSystem);
        try (Target target = modelled(Targets.of(direct.label(), onSystem), onSystem)) {
            directOutcome = timed("on-system replay", () -> replay.run(target, jobs, direct, progress("on-system", jobs.size())));
        }

        AtomicLong workloadSecond = new AtomicLong();
        Emulator alps = Emulator.create(settings.machine(), () -> EPOCH.getEpochSecond() + workloadSecond.get());
        modelLatency(alps);
        DemoScenario scenario = new DemoScenario(alps.control(), alps.computeNodes(), EPOCH, workloadSecond);
        Stats stats = new Stats();
        Path apkill = apkillShim();
        OrphanWatch orphans = new OrphanWatch(scenario, apkill, Duration.ofSeconds(10), stats);
        // The policy runs on workload time, as the ledger does: a refresh interval of REFRESH_INTERVAL of the
        // workload, whatever the replay's speed. Listeners run on the fetching thread, so detection is in order.
        InventoryPolicy policy = new InventoryPolicy(PolicySettings.DEFAULTS.withRefreshInterval(REFRESH_INTERVAL),
                alps::userIds, scenario.clock(), stats, Runnable::run);
        Map<Long, Long> firstSeen = new ConcurrentHashMap<>();
        Recorder proxied = new Recorder("off-system (through the proxy)");
        Replay.Outcome proxiedOutcome;
        Map<String, Recorder> processes = new LinkedHashMap<>();
        List<Orphan> found;
        List<ReleaseOutcome> released;
        try (policy;
             Ledger ledger = Ledger.open("sqlite:" + settings.dir().resolve("ledger.db"));
             // the chain as `proxy serve` builds it; the watch inspects each full inventory before firstSeen reads it
             ProxyDaemon daemon = new BackendChain(stats, policy,
                     next -> new LedgerBackend(next, ledger, ledgerSettings(jobs), scenario.clock(), false), orphans)
                     .into(ProxyDaemon.builder()
                             .config(ProxyConfig.defaults().with(Map.of("listen", "127.0.0.1:0", "auth", "none")))
                             .backend(new EmulatorBackend(settings.machine(), alps)))
                     .start()) {
            policy.onFullInventory((header, nodes, reservations, fetchStarted) ->
                    orphans.orphans().forEach(o -> firstSeen.putIfAbsent(o.reservationId(), scenario.second())));
            grantBudgets(ledger, jobs);
            String address = daemon.address().toString();
            System.setProperty("apbasil.auth", "none");
            out.printf(Locale.ROOT, "proxy daemon on %s (auth none, loopback), SQLite ledger %s%n%n", address,
                    settings.dir().resolve("ledger.db"));
            alps.control().takeModelledNanos(); // what the daemon's start cost belongs to no timed call
            try (Target target = modelled(Targets.proxy(proxied.label(), address, Duration.ofSeconds(60)), alps)) {
                proxiedOutcome = timed("off-system replay", () -> replay.run(target, jobs, proxied,
                        progress("off-system", jobs.size()), scenario));
            }
            scenario.heal();
            processes.putAll(processSamples(address, alps));
            found = orphansAfterRefresh(policy, orphans, scenario);
            released = orphans.release(found.stream().map(Orphan::reservationId).toList());
            killRecordedApplications(alps, apkill);
            reportTiming(direct, proxied, directOutcome, proxiedOutcome, processes);
            reportPolicy(stats.snapshot());
            reportOrphans(scenario.planted(), alps, found, released, firstSeen);
            reportLedger(ledger, proxiedOutcome);
        }
        Path chart = settings.dir().resolve("basil-latency.svg");
        String alpsLatency = settings.latency().isNone() ? "ALPS answering at once" : "ALPS latency modelled (" + settings.latency().name() + ")";
        Chart.writeSvg(new Report(List.of(direct, proxied)), "BASIL calls, " + jobs.size() + " jobs, " + settings.machine()
                + ", " + alpsLatency + ": on-system vs off-system", chart);
        out.println("chart: " + chart.toAbsolutePath());
        out.println();
        return reportChecks(began, loadAtStart);
    }

    private void modelLatency(Emulator emulator) {
        emulator.control().latencyProfile(settings.latency(), settings.latencySeed(), settings.latencySleep());
    }

    private static Target modelled(Target target, Emulator emulator) {
        return Targets.withModelledLatency(target, emulator.control()::takeModelledNanos);
    }

    /** Says, before any figure, whether the ALPS behind the figures answers as a real one would or at once. */
    private void describeLatency(int computeNodes) {
        LatencyProfile p = settings.latency();
        if (p.isNone()) {
            out.println("ALPS latency: none (--latency-profile none): the emulated ALPS answers in microseconds, so the");
            out.println("  off/on ratios below compare the proxy with an in-memory emulator, not with a real ALPS.");
            out.println();
            return;
        }
        out.printf(Locale.ROOT, "ALPS latency: MODELLED, profile %s, seed %d (--latency-seed). Each emulated ALPS call takes a%n",
                p.name(), settings.latencySeed());
        out.println("  latency drawn from the profile (per method: a median from the machine's size and reservations, and a");
        out.printf(Locale.ROOT, "  log-normal tail); %.0f%% of it is waited (--latency-sleep), the rest added to the call's timing, so%n",
                settings.latencySleep() * 100);
        out.println("  ALPS figures below are modelled, not measured; the proxy's own share is measured on this machine.");
        out.println("  Model medians at this machine, idle (ms; sources and assumptions: docs/benchmarks.md, \"The latency model\"):");
        LatencyProfile.Load idle = new LatencyProfile.Load(computeNodes, 0, 0);
        List<String> parts = new ArrayList<>();
        for (String m : List.of("QUERY/SUMMARY", "QUERY/INVENTORY", "RESERVE", "CONFIRM", "RELEASE")) {
            LatencyProfile.Term t = p.term(m);
            parts.add(String.format(Locale.ROOT, "%s %.0f%s%s", m, t.medianMillis(idle),
                    t.perReservation() > 0 ? String.format(Locale.ROOT, " +%.1f/reservation", t.perReservation()) : "",
                    t.perReservedNode() > 0 ? String.format(Locale.ROOT, " +%.1f/node reserved", t.perReservedNode()) : ""));
        }
        out.println("    " + String.join(", ", parts.subList(0, 3)) + ",");
        out.println("    " + String.join(", ", parts.subList(3, parts.size())));
        out.println();
    }

    private interface Step<T> {
        T run() throws Exception;
    }

    private <T> T timed(String what, Step<T> step) throws Exception {
        long start = System.nanoTime();
        T result = step.run();
        err.printf(Locale.ROOT, "demo: %s done in %.1f s%n", what, (System.nanoTime() - start) / 1e9);
        err.flush();
        return result;
    }

    private IntConsumer progress(String label, int total) {
        int step = Math.max(1, total / 10);
        int[] next = {step};
        return settled -> {
            if (settled >= next[0]) {
                err.printf(Locale.ROOT, "demo: %s: %d of %d jobs settled%n", label, settled, total);
                err.flush();
                next[0] += step;
            }
        };
    }

    /** The jobs' time limits as slurmctld would report them: the run time rounded up to whole hours. */
    private static LedgerBackend.Settings ledgerSettings(List<Job> jobs) {
        Map<String, Long> limits = new LinkedHashMap<>();
        for (Job job : jobs) {
            limits.put(Long.toString(job.id()), limitSeconds(job));
        }
        TimeLimits.Source source = batchId -> Optional.ofNullable(limits.get(batchId)).map(s -> new TimeLimit(s, "demo workload"));
        return new LedgerBackend.Settings("demo", CORES_PER_NODE, null, new TimeLimits(source, Map.of(), 12 * 3600), null);
    }

    private static long limitSeconds(Job job) {
        return Math.max(3600, (job.wallSeconds() + 3599) / 3600 * 3600);
    }

    /**
     * astro and bio get three times their worst case; chem a fifth of it, so its later jobs are denied for
     * lack of budget, as a project that ran out would be.
     */
    private static void grantBudgets(Ledger ledger, List<Job> jobs) {
        Map<String, Long> worstCase = new LinkedHashMap<>();
        for (Job job : jobs) {
            worstCase.merge(job.account(), (long) job.nodes() * CORES_PER_NODE * (limitSeconds(job) / 60), Long::sum);
        }
        int gid = 5001;
        for (String project : PROJECTS) {
            if (ledger.projects().stream().noneMatch(p -> p.name().equals(project))) {
                ledger.addProject(project, gid, project);
            }
            gid++;
            long demand = worstCase.getOrDefault(project, 0L);
            long grant = project.equals("chem") ? Math.max(1, demand / 5) : 3 * demand + 1;
            ledger.grant(project, Resource.CPU, grant, EPOCH.minus(Duration.ofDays(1)), EPOCH.plus(Duration.ofDays(365)),
                    "demo", "demo-grant-" + project);
        }
    }

    /**
     * Times a few calls of the per-call programs a scheduler really runs: the drop-in {@code bin/apbasil}
     * (a JVM start, then the proxy) beside the emulator as an on-system apbasil program would be.
     */
    private Map<String, Recorder> processSamples(String address, Emulator alps) throws IOException {
        Map<String, Recorder> samples = new LinkedHashMap<>();
        if (settings.home() == null || settings.processCalls() <= 0) {
            return samples;
        }
        Path apbasil = settings.home().resolve("bin/apbasil");
        if (!Files.isExecutable(apbasil)) {
            err.println("demo: " + apbasil + " is missing; the per-process sample is skipped");
            return samples;
        }
        Recorder dropIn = new Recorder("bin/apbasil process (off-system)");
        alps.control().takeModelledNanos();
        try (Target target = modelled(Targets.exec(dropIn.label(), List.of(apbasil.toString()),
                Map.of("APBASIL_PROXY", address, "APBASIL_AUTH", "none"), Duration.ofSeconds(60)), alps)) {
            sample(target, dropIn);
        }
        samples.put(dropIn.label(), dropIn);
        return samples;
    }

    private void sample(Target target, Recorder recorder) {
        byte[] engine = "<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.0\" method=\"QUERY\" type=\"ENGINE\"/>\n"
                .getBytes(StandardCharsets.US_ASCII);
        for (int i = 0; i < settings.processCalls(); i++) {
            long start = System.nanoTime();
            try {
                byte[] answer = target.call(engine);
                recorder.record("QUERY/ENGINE", System.nanoTime() - start + target.takeModelledNanos(), answer.length,
                        !new String(answer, StandardCharsets.US_ASCII).contains("status=\"SUCCESS\""));
            } catch (IOException e) {
                recorder.record("QUERY/ENGINE", System.nanoTime() - start + target.takeModelledNanos(), 0, true);
            }
        }
    }

    /**
     * Once the scheduler's last job ended, one more full inventory straight from ALPS, so the detector judges
     * the machine as the replay left it.
     */
    private static List<Orphan> orphansAfterRefresh(InventoryPolicy policy, OrphanWatch watch, DemoScenario scenario) {
        scenario.idle(PASS_SECONDS);
        policy.refreshNow();
        return watch.orphans();
    }

    /**
     * The demo's {@code apkill} records the APIDs it is given; here they are killed in the emulator, as the
     * real apkill would end the applications on the compute nodes, and the releases are retried.
     */
    private void killRecordedApplications(Emulator alps, Path apkill) throws IOException {
        Path log = apkill.resolveSibling("apkill.log");
        if (!Files.exists(log)) {
            return;
        }
        for (String line : Files.readAllLines(log)) {
            String[] words = line.trim().split("\\s+");
            String apid = words[words.length - 1];
            if (apid.matches("\\d+")) {
                alps.control().kill(Long.parseLong(apid));
            }
        }
    }

    private Path apkillShim() throws IOException {
        Path shim = settings.dir().resolve("apkill");
        Path log = settings.dir().resolve("apkill.log");
        Files.deleteIfExists(log);
        Files.writeString(shim, "#!/bin/sh\n# The demo's apkill: records what it was asked to kill.\necho \"$@\" >> '" + log + "'\n");
        Files.setPosixFilePermissions(shim, PosixFilePermissions.fromString("rwxr-xr-x"));
        return shim;
    }

    private void reportTiming(Recorder direct, Recorder proxied, Replay.Outcome directOutcome, Replay.Outcome proxiedOutcome,
                              Map<String, Recorder> processes) {
        out.println("== BASIL calls as the scheduler saw them: on-system vs off-system (through the proxy)");
        new Report(List.of(direct, proxied)).printTable(out);
        out.println(direct.label() + ": " + describe(directOutcome));
        out.println(proxied.label() + ": " + describe(proxiedOutcome));
        long directWaits = failures(direct, "RESERVE") - directOutcome.deniedPermanent();
        long proxiedWaits = failures(proxied, "RESERVE") - proxiedOutcome.deniedPermanent();
        out.printf(Locale.ROOT, "errors: BASIL calls answered with a FAILURE. For RESERVE: %d on-system and %d off-system were"
                + " the head of the FIFO queue asking while the machine had too few free nodes (TRANSIENT: it waits and asks"
                + " again at the next pass, as Slurm's WAIT_RESOURCES)", directWaits, proxiedWaits);
        out.printf(Locale.ROOT, "%s.%n", proxiedOutcome.deniedPermanent() == 0 ? ""
                : String.format(Locale.ROOT, "; %d off-system were the ledger's refusals (PERMANENT: the job is not run)",
                        proxiedOutcome.deniedPermanent()));
        if (proxiedOutcome.deniedPermanent() != directOutcome.deniedPermanent()) {
            // the ledger sits in the proxy only: the off-system run is the same workload less the jobs it refused
            out.printf(Locale.ROOT, "Not like with like in totals: only the off-system run has the ledger, which refused %d"
                            + " jobs of the project without budget, so it started %d jobs to the on-system run's %d and waited"
                            + " less for nodes. Per-call latencies (min to max) compare like with like; counts, errors and"
                            + " passes do not.%n", proxiedOutcome.deniedPermanent(), proxiedOutcome.started(),
                    directOutcome.started());
        }
        out.println();
        if (!processes.isEmpty()) {
            out.println("== Per-call process cost: what slurmctld pays when it runs the drop-in program");
            new Report(new ArrayList<>(processes.values())).printTable(out);
            out.println();
            for (Recorder r : processes.values()) {
                long failures = r.methods().values().stream().mapToLong(Recorder.MethodRecord::failures).sum();
                check("the drop-in bin/apbasil answered every call through the proxy", failures == 0,
                        failures + " of " + settings.processCalls() + " calls failed");
            }
        }
        check("the on-system replay started jobs", directOutcome.started() > 0, directOutcome.started() + " started");
        check("the off-system replay started jobs", proxiedOutcome.started() > 0, proxiedOutcome.started() + " started");
    }

    private static long failures(Recorder run, String method) {
        Recorder.MethodRecord m = run.methods().get(method);
        return m == null ? 0 : m.failures();
    }

    private static String describe(Replay.Outcome o) {
        return o.started() + " jobs started, " + o.finished() + " finished, " + o.deniedPermanent() + " denied, "
                + o.unplaced() + " never placed, " + o.passes() + " scheduling passes";
    }

    private void reportPolicy(Snapshot snapshot) {
        out.println("== What ALPS was spared (SUMMARY/INVENTORY policy, refresh interval " + REFRESH_INTERVAL.toMinutes()
                + " min of workload time)");
        MethodFigures inventory = snapshot.methods().get("QUERY/INVENTORY");
        MethodFigures summary = snapshot.methods().get("QUERY/SUMMARY");
        long asked = inventory == null ? 0 : inventory.requests();
        long sent = inventory == null ? 0 : inventory.backendCalls();
        long summaries = summary == null ? 0 : summary.backendCalls();
        out.printf(Locale.ROOT, "scheduler QUERY(INVENTORY) requests: %d; full inventories fetched from ALPS: %d%s; "
                        + "QUERY(SUMMARY) sent in their place: %d%n", asked, sent,
                sent > 0 ? String.format(Locale.ROOT, " (1 per %.1f requests)", (double) asked / sent) : "", summaries);
        out.println();
        check("the proxy answered every scheduler INVENTORY", asked > 0, asked + " requests");
        check("ALPS served at most 1 full inventory per 20 scheduler requests", sent > 0 && sent * 20 <= asked,
                sent + " of " + asked);
    }

    private void reportOrphans(DemoScenario.Planted planted, Emulator alps, List<Orphan> found, List<ReleaseOutcome> released,
                               Map<Long, Long> firstSeen) {
        out.println("== Orphan reservations");
        Set<Long> foundIds = new TreeSet<>();
        long slowest = 0;
        for (Orphan o : found) {
            foundIds.add(o.reservationId());
            long became = becameOrphan(planted, o);
            long after = firstSeen.getOrDefault(o.reservationId(), Long.MAX_VALUE) - became;
            slowest = Math.max(slowest, after);
            out.printf(Locale.ROOT, "  found %d: user %s, batch %s, nodes %s: %s; found %d min after it became one%n",
                    o.reservationId(), o.user(), o.batchId(), o.nids(), o.why(), after / 60);
        }
        out.printf(Locale.ROOT, "planted: out-of-band reservation %d, interactive UNKNOWN reservation %d (must be left alone), "
                        + "%d lost RELEASE, forgotten releases of jobs %s; %d node failures%n",
                planted.outOfBand(), planted.interactive(), planted.lostReleases(), planted.forgottenJobs(), planted.nodeFailures());
        int expected = 1 + planted.lostReleases() + planted.forgottenJobs().size();
        check("every planted orphan was found", foundIds.contains(planted.outOfBand()) && found.size() == expected,
                found.size() + " found, " + expected + " planted");
        long bound = REFRESH_INTERVAL.toSeconds() + PASS_SECONDS;
        check("each orphan was found within one refresh interval (and one scheduling pass)", !found.isEmpty() && slowest <= bound,
                "slowest " + slowest / 60 + " min, bound " + bound / 60 + " min of workload time");
        check("the interactive UNKNOWN reservation was not called an orphan", !foundIds.contains(planted.interactive()),
                "reservation " + planted.interactive());
        long releasedCount = released.stream().filter(ReleaseOutcome::released).count();
        out.printf(Locale.ROOT, "released %d of %d orphans (RELEASE, then apkill of their applications)%n%n", releasedCount, found.size());
        Set<Long> left = new TreeSet<>();
        for (long id : alps.control().reservationIds()) {
            left.add(id);
        }
        left.remove(planted.interactive());
        check("no orphan is left on the machine after release", left.isEmpty(), "left: " + left);
    }

    /** The workload second a found orphan became one, by what the scenario did. */
    private static long becameOrphan(DemoScenario.Planted planted, Orphan o) {
        if (o.reservationId() == planted.outOfBand()) {
            return planted.outOfBandSecond();
        }
        try {
            Long forgotten = planted.forgottenJobSeconds().get(Long.parseLong(o.batchId()));
            if (forgotten != null) {
                return forgotten;
            }
        } catch (NumberFormatException e) {
            // not one of the replay's jobs: judged against the lost RELEASE below
        }
        return planted.lostReleaseSecond();
    }

    private void reportLedger(Ledger ledger, Replay.Outcome proxiedOutcome) {
        out.println("== Ledger (core-minutes)");
        out.printf(Locale.ROOT, "  %-8s %14s %14s %14s %14s%n", "project", "granted", "held", "used", "available");
        boolean negative = false;
        long held = 0;
        for (Balance b : ledger.balances(null)) {
            held += b.held();
            out.printf(Locale.ROOT, "  %-8s %14d %14d %14d %14d%n", b.project(), b.granted(), b.held(), b.used(), b.available());
            negative |= b.available() < 0;
        }
        List<Reservation> failures = ledger.failures(null, 5);
        out.println("denied for lack of budget (newest first):");
        for (Reservation r : failures) {
            out.println("  job " + r.batchId() + " (" + r.project() + "): " + (r.message() != null ? r.message() : r.reason()));
        }
        List<String> problems = ledger.check();
        out.println();
        check("the ledger never overdrew a project", !negative, negative ? "a balance is negative" : "all balances >= 0");
        check("no hold is left once every job ended and every orphan was released", held == 0, held + " core-minutes held");
        check("the ledger's journal and balances agree", problems.isEmpty(), problems.isEmpty() ? "consistent" : String.join("; ", problems));
        check("jobs of the project without budget were denied", proxiedOutcome.deniedPermanent() > 0 && !failures.isEmpty(),
                proxiedOutcome.deniedPermanent() + " denied");
    }

    private void check(String name, boolean passed, String detail) {
        checks.add(new Check(name, passed, detail));
    }

    /** The checks, after what the run took and on what: the demo's length depends on the machine and its load. */
    private int reportChecks(long began, double loadAtStart) {
        long seconds = (System.nanoTime() - began) / 1_000_000_000L;
        out.printf(Locale.ROOT, "demo: took %d min %02d s on %d cpus%s%n%n", seconds / 60, seconds % 60,
                Runtime.getRuntime().availableProcessors(), loadAtStart < 0 ? ""
                        : String.format(Locale.ROOT, ", load average %.1f at its start", loadAtStart));
        out.println("== Checks");
        boolean all = true;
        for (Check c : checks) {
            out.printf(Locale.ROOT, "  [%s] %s (%s)%n", c.passed() ? "ok" : "FAILED", c.name(), c.detail());
            all &= c.passed();
        }
        out.println(all ? "demo: all checks passed" : "demo: some checks FAILED");
        out.flush();
        return all ? 0 : 1;
    }
}
