package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.regex.Pattern;
import org.alpsbridge.ledger.store.PostgresServer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Issue 37 with OpenPBS: pbs_mom runs the native {@code apbasil} with the proxy pair ({@code APBASIL_PROXY=A,B},
 * both proxies in the complex's namespace, one {@code ha_db} on the throwaway PostgreSQL reached through its socket,
 * both in front of the same drop-in emulator) while the active proxy is killed -9 at a seeded point of a seeded
 * workload, {@code rounds} times on one complex, as {@link SlurmProxyFailoverTest} does under Slurm (the kill and
 * the checks are {@link ProxyPairFailover}'s). Round 1 kills while a RESERVE is in flight; the last makes ALPS
 * unreachable across its kill for {@code outage} seconds. Both proxies charge one PostgreSQL ledger and watch for
 * orphans with PBS's own job list ({@code qselect}, ids such as {@code 12.pbshost}, the form of pbs_mom's
 * {@code batch_id}).
 *
 * <p>What pbs_mom does at a kill between a RESERVE's forward and its answer: its {@code apbasil} gets TRANSIENT (a
 * RESERVE that reached a proxy is never sent to the other), the job is requeued and run again later under a new
 * RESERVE. Unlike Slurm, PBS never releases a reservation it was not told of: the one ALPS made for the interrupted
 * RESERVE is the survivor's alone to find and release, so each such RESERVE must be settled by the survivor (its
 * log names the batch id) before the workload ends.
 *
 * <p>What PBS itself does with TRANSIENT answers (any ALPS outage does it, the bridge or not), the test answers as
 * an admin would ({@code Admin}): pbs_mom whose INVENTORY failed drops its Cray vnodes and the server licenses only
 * the first when they come back (SIGHUP to pbs_mom); a job whose RESERVE was answered TRANSIENT 20 times is held
 * "too many failed attempts to run" ({@code qrls -h s}). Round 1 also runs a job array: pbs_mom reserves for each
 * subjob as {@code 12[1].pbshost} while {@code qselect} lists {@code 12[].pbshost}, and the survivor's orphan watch must
 * not take the running subjob's reservation for an orphan.
 *
 * <p>The clients run with the settings a site installs (only the proxies and MUNGE's socket are set). Then: every
 * job finished ({@code qstat -x}: F) and exited 0 (the workload is short sleeps, so any other end is the failover's
 * doing), none lost; pbs_mom's strict parser refused no answer; once the survivor's orphan watch has looked ALPS holds nothing;
 * {@code ledger check} is clean and no job run has more than one hold that was not voided.
 *
 * <p>Opt-in ({@code long}): {@code mvn -B -ntp -Plong -pl interop -am verify -Dtest=PbsProxyFailoverTest
 * -Dsurefire.failIfNoSpecifiedTests=false}; {@code -Dinterop.jobs=N} (per round, default 12), {@code
 * -Dinterop.rounds=R} (default 2), {@code -Dinterop.seed=S} replays a run, {@code -Dinterop.seeds=S1,S2,...} runs one
 * fresh complex per seed, {@code -Dinterop.haLease=SECONDS} (default 5), {@code -Dinterop.outage=SECONDS} (default
 * 60; 0: ALPS stays reachable).
 */
@Tag("long")
@Order(8) // the class order: src/test/resources/junit-platform.properties
class PbsProxyFailoverTest {

    /** pbs_mom's strict parser refusing an answer (alps.c): never acceptable, whatever failed over. */
    private static final Pattern PARSE_ERRORS = Pattern.compile("Illegal element|Unrecognized attribute"
            + "|Unspecified attribute|XML parse error");

    @Test
    void aPbsWorkloadThroughAProxyPairOutlivesTheActiveProxyKilledAtASeededPoint() throws Exception {
        ProxyPairFailover.Workload w = ProxyPairFailover.Workload.fromProperties();
        for (long seed : w.seeds()) {
            run(seed, w.jobs(), w.rounds(), w.lease(), w.outage());
        }
    }

    private static void run(long seed, int jobs, int rounds, int lease, int outage) throws Exception {
        System.out.println("proxy failover under OpenPBS: seed " + seed + " (-Dinterop.seed=" + seed + " replays), "
                + jobs + " jobs x " + rounds + " rounds, ha_lease=" + lease + " s, ALPS unreachable " + outage
                + " s in the last round");
        long started = System.nanoTime();
        Path prefix = Clients.openpbs();
        PostgresServer pg = PostgresServer.get();
        String haDb = pg.newDatabase();
        String ledger = ProxyPairFailover.ledgerFor(SlurmInteropTest.USERS);
        try (Bridge bridge = new Bridge("pbs-failover", "xc30:16", List.of(
                "--orphan-jobs", prefix.resolve("bin/qselect").toString(),
                // both proxies charge one ledger (the same throwaway PostgreSQL) to each owner's group's project
                "--ledger", ledger, "--ledger-cores-per-node", "32", "--ledger-job-accounts", "none",
                "--ledger-time-limits", "none", "--ledger-on-deny", "qalter -W comment={reason} {job}"));
             PbsComplex pbs = PbsComplex.start(prefix, bridge, c -> {
                 // the proxies live in PBS's namespace, whose loopback is not the host's: ha_db and the ledger by socket
                 c.forwardLoopback(pg.port(), pg.socket());
                 bridge.startProxyPair(haDb, lease);
             })) {
            Random random = new Random(seed);
            ProxyPairFailover.Captured captured = new ProxyPairFailover.Captured(bridge.dir().resolve("capture"));
            List<String> all = new ArrayList<>();
            List<ProxyPairFailover.Kill> kills = new ArrayList<>();
            for (int r = 1; r <= rounds; r++) {
                kills.add(round(r, bridge, pbs, random, captured, jobs, all, r == rounds ? outage : 0));
            }
            ProxyPairFailover.report("OpenPBS", seed, jobs, lease, kills);

            Map<String, String> ended = new LinkedHashMap<>();
            for (String job : all) {
                assertEquals("F", pbs.state(job), "job " + job + " lost: " + pbs.job(job));
                String exit = pbs.attribute(job, "Exit_status");
                String comment = pbs.attribute(job, "comment");
                assertTrue(exit.equals("0") || !comment.isEmpty(), "job " + job + " ended " + exit
                        + " with no reason its owner can see: " + pbs.job(job));
                ended.put(job, "exit " + exit + ", run_count " + pbs.attribute(job, "run_count") + ": " + comment);
            }
            List<String> failed = ended.entrySet().stream().filter(e -> !e.getValue().startsWith("exit 0,"))
                    .map(e -> "job " + e.getKey() + " " + e.getValue()).toList();
            System.out.println("jobs not exited 0: " + (failed.isEmpty() ? "none" : String.join("; ", failed)));
            // every job is a short sleep: with the client settings a site installs, none may fail for the failover
            assertEquals(List.of(), failed, "jobs that did not complete across the kills with the shipped client settings");
            System.out.println("jobs run more than once: " + ended.entrySet().stream()
                    .filter(e -> !e.getValue().contains("run_count 1:")).map(Map.Entry::getKey).toList());
            List<String> refused = pbs.momLog().lines().filter(l -> PARSE_ERRORS.matcher(l).find()).toList();
            assertEquals(List.of(), refused, "pbs_mom's parser refused answers");
            ProxyPairFailover.assertNothingLeftInAlps(bridge);
            ProxyPairFailover.assertLedgerClean(ledger, all, j -> ended.get(j).startsWith("exit 0,"));
            System.out.println("seed " + seed + ": " + all.size() + " jobs, " + (System.nanoTime() - started) / 1_000_000_000
                    + " s with the complex's start");
        }
    }

    private static ProxyPairFailover.Kill round(int number, Bridge bridge, PbsComplex pbs, Random random,
                                               ProxyPairFailover.Captured captured, int jobs, List<String> all,
                                               int outage) throws IOException, InterruptedException {
        ProxyPairFailover.KillPoint at = ProxyPairFailover.KillPoint.choose(number, random, jobs);
        int before = captured.reserves();
        long interruptedBefore = ProxyPairFailover.interruptedReserves(bridge);
        List<String> submitted = new ArrayList<>(pbs.submitMixed(jobs, random.nextLong(), 5));
        // a job array in round 1: pbs_mom reserves for each subjob under its own id (12[1].pbshost), while the job
        // source, plain qselect, lists the array (12[].pbshost)
        String array = number == 1 ? pbs.submit("daemon", PbsComplex.nodes(1), 30, "-J", "1-2") : null;
        if (array != null) {
            submitted.addAll(List.of(array.replace("[]", "[1]"), array.replace("[]", "[2]")));
        }
        all.addAll(submitted);
        ProxyPairFailover.Kill kill = ProxyPairFailover.kill(number, bridge, captured, before, at, outage);
        if (array != null) {
            assertSubjobsReservationsAreNoOrphans(bridge, array);
        }

        Duration drain = Duration.ofMinutes(4).plusSeconds(15L * jobs);
        Admin admin = new Admin(pbs);
        assertTrue(Host.await(drain, () -> {
            admin.look();
            return Set.copyOf(Host.lines(pbs.cmd("qselect", "-x", "-T", "-s", "F").out())).containsAll(submitted);
        }), "round " + number + ": jobs left after " + drain.toSeconds() + " s: " + pbs.cmd("qstat", "-x").out());
        admin.report(number);
        String interrupted = bridge.interrupted().out().strip();
        System.out.println("round " + number + ": interrupted exchanges the survivor knows:\n" + interrupted);
        if (kill.pending() != null) {
            assertTrue(ProxyPairFailover.interruptedReserves(bridge) > interruptedBefore, "the RESERVE in flight at the"
                    + " kill is not among the survivor's interrupted exchanges: " + interrupted);
            // PBS releases nothing it was not told of: the survivor must have found the reservation it left, by batch id
            String batch = kill.pending().replaceFirst("^batch_id ([^,]*),.*$", "$1");
            String log = kill.survivor() == bridge.proxyPorts().get(0) ? "proxy.log" : "proxy-b.log";
            String mark = "interrupted RESERVE of batch " + batch + " ";
            // settled at a full inventory with no RESERVE in flight: ask for one (proxy orphans --refresh) if need be
            Host.await(Duration.ofSeconds(90), () -> bridge.log(log).contains(mark) || bridge.orphans("--refresh")
                    .exit() == 0 && bridge.log(log).contains(mark));
            List<String> settled = bridge.log(log).lines().filter(l -> l.contains(mark)).toList();
            System.out.println("round " + number + ": the survivor on the RESERVE of batch " + batch + ":\n"
                    + String.join("\n", settled));
            assertFalse(settled.isEmpty(), "the survivor never looked for the reservation of the interrupted RESERVE of "
                    + batch);
        }
        return kill;
    }

    /**
     * What a PBS admin does after ALPS was unreachable, every 10 s while a round drains; both are PBS's reactions to
     * TRANSIENT answers, whoever gives them (Cray's apbasil as well as the bridge):
     * <ul>
     * <li>compute vnodes unlicensed after an INVENTORY that failed (see {@link PbsComplex#unlicensedVnodes}): SIGHUP
     * to pbs_mom;
     * <li>a job held by the server after 20 runs that did not start ({@code run_count} > 20: each RESERVE answered
     * TRANSIENT requeues it, and the scheduler runs it again within seconds, so a one-minute outage is enough), its
     * owner reading "job held, too many failed attempts to run" in {@code qstat}: {@code qrls -h s} once ALPS answers.
     * </ul>
     */
    private static final class Admin {
        private final PbsComplex pbs;
        private long next = System.nanoTime();
        private long lastHup;
        private int hups;
        private final List<String> released = new ArrayList<>();

        Admin(PbsComplex pbs) {
            this.pbs = pbs;
        }

        void look() {
            if (System.nanoTime() - next < 0) {
                return;
            }
            next = System.nanoTime() + Duration.ofSeconds(10).toNanos();
            if (System.nanoTime() - lastHup > Duration.ofSeconds(30).toNanos() && pbs.unlicensedVnodes() > 0) {
                pbs.hupMom();
                hups++;
                lastHup = System.nanoTime();
            }
            for (String job : Host.lines(pbs.cmd("qselect", "-s", "H").out())) {
                String comment = pbs.attribute(job, "comment");
                if (comment.contains("too many failed attempts")) {
                    System.out.println("held by PBS: " + job + " (run_count " + pbs.attribute(job, "run_count") + "): "
                            + comment + "; qrls -h s");
                    pbs.cmd("qrls", "-h", "s", job).ok();
                    released.add(job);
                }
            }
        }

        void report(int round) {
            if (hups > 0 || !released.isEmpty()) {
                System.out.println("round " + round + ": the admin sent pbs_mom SIGHUP " + hups + " time(s) (vnodes"
                        + " unlicensed after a failed inventory) and released " + released.size() + " job(s) PBS had"
                        + " held after 20 failed starts: " + released);
            }
        }
    }

    /**
     * Once ALPS holds a reservation of a subjob of {@code array} (through the survivor), the survivor's orphan watch,
     * asked to look now, must not list it: its job lives, listed by the job source as the array.
     */
    private static void assertSubjobsReservationsAreNoOrphans(Bridge bridge, String array) throws IOException {
        String subjob = "batch_id=\"" + array.substring(0, array.indexOf('[') + 1);
        assertTrue(Host.await(Duration.ofMinutes(4), () -> {
            try {
                return bridge.inventory().contains(subjob);
            } catch (IOException | RuntimeException e) {
                return false; // asked again
            }
        }), "no reservation of a subjob of " + array + " in ALPS in 4 minutes");
        String orphans = bridge.orphans("--refresh").ok().out();
        System.out.println("with a subjob of " + array + " reserved, the survivor's orphan watch:\n" + orphans.strip());
        assertTrue(orphans.lines().noneMatch(l -> l.contains(array.substring(0, array.indexOf('[') + 1))),
                "a running subjob's reservation listed as an orphan: " + orphans);
    }
}
