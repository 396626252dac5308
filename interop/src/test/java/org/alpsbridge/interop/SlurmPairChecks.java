package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.store.PostgresServer;

/**
 * What issue 37's Slurm scenarios check after a proxy pair lost a member (SlurmProxyFailoverTest,
 * SlurmBackupControllerTest): the first answer through the survivor, timed; every job ended, with a reason when not
 * COMPLETED; ALPS left holding nothing once the survivor's orphan watch has looked; the shared ledger clean.
 */
final class SlurmPairChecks {

    /** squeue's states of a job that has ended. */
    static final List<String> DONE = List.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
            "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "PREEMPTED");
    private static final String ENGINE = "<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.0\" method=\"QUERY\" type=\"ENGINE\"/>\n";

    private SlurmPairChecks() {
    }

    /**
     * Each job of {@code outcome} (id to squeue's "STATE REASON", last seen) has ended, none lost, and one that did not
     * COMPLETE shows its owner a reason.
     */
    static void assertEndedWithAReason(Map<String, String> outcome) {
        for (Map.Entry<String, String> e : outcome.entrySet()) {
            String[] stateReason = e.getValue().split(" ", 2);
            assertTrue(DONE.contains(stateReason[0]), "job " + e.getKey() + " lost: last seen " + e.getValue());
            assertTrue(stateReason[0].equals("COMPLETED") || !stateReason[1].equals("None"),
                    "job " + e.getKey() + " ended " + e.getValue() + " with no reason its owner can see");
        }
    }

    static Map<String, String> direct(Bridge bridge, int port) {
        return Map.of("APBASIL_PROXY", "127.0.0.1:" + port, "APBASIL_AUTH", "munge",
                "APBASIL_MUNGE_SOCKET", bridge.mungeSocket().toString(), "APBASIL_RETRIES", "0",
                "APBASIL_CONFIG", "/dev/null");
    }

    static String client() {
        return Host.repository().resolve("apbasil-proxy/target/c/apbasil").toString();
    }

    /** A PostgreSQL ledger with a project, well granted, for the primary group of each user the workload runs as. */
    static String ledgerForTheUsers() {
        String url = PostgresServer.get().newDatabase();
        try (Ledger setup = Ledger.open(url)) {
            for (String user : SlurmInteropTest.USERS) {
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
     * How many times slurmctld started each job (its "sched: Allocate JobId=N" and "backfill: Started JobId=N" lines,
     * over every controller's log): a job started, lost by a controller and started again ran twice.
     */
    static Map<String, Integer> starts(String... ctldLogs) {
        Map<String, Integer> starts = new java.util.HashMap<>();
        java.util.regex.Pattern started = java.util.regex.Pattern.compile(
                "(?:sched: Allocate|backfill: Started) JobId=(\\d+)\\b");
        for (String log : ctldLogs) {
            java.util.regex.Matcher m = started.matcher(log);
            while (m.find()) {
                starts.merge(m.group(1), 1, Integer::sum);
            }
        }
        return starts;
    }

    /**
     * The ledger both proxies charged: {@code ledger check} clean, nothing held any more, and no hold taken twice for
     * one job run: per job no more reservations that were not voided than slurmctld started it ({@code starts}, from
     * {@link #starts}), each settled, each on an ALPS reservation of its own, none held while another was (one run at
     * a time), a COMPLETED job's charged; every other one voided for a reason (an interrupted RESERVE's, ALPS
     * unreachable or refusing, never run).
     */
    static void assertLedgerClean(String url, Map<String, String> outcome, Map<String, Integer> starts) {
        try (Ledger ledger = Ledger.open(url)) {
            assertEquals(List.of(), ledger.check(), "ledger check");
            Map<String, Integer> voided = new java.util.TreeMap<>();
            List<String> reruns = new java.util.ArrayList<>();
            for (Map.Entry<String, String> job : outcome.entrySet()) {
                List<Reservation> all = ledger.reservations(Ledger.DEFAULT_CLUSTER, job.getKey());
                List<Reservation> kept = all.stream().filter(r -> r.state() != State.VOIDED && r.state() != State.DENIED)
                        .sorted(java.util.Comparator.comparing(Reservation::reservedAt)).toList();
                int runs = starts.getOrDefault(job.getKey(), 0);
                assertTrue(kept.size() <= Math.max(1, runs), "job " + job.getKey() + " held " + kept.size()
                        + " times, started " + runs + " times: " + all);
                assertTrue(kept.stream().allMatch(r -> r.state() == State.SETTLED), "job " + job.getKey()
                        + " still held: " + all);
                assertEquals(kept.size(), kept.stream().map(Reservation::resId).distinct().count(),
                        "job " + job.getKey() + ": two holds on one ALPS reservation: " + all);
                for (int i = 1; i < kept.size(); i++) {
                    assertTrue(!kept.get(i).reservedAt().isBefore(kept.get(i - 1).releasedAt()), "job " + job.getKey()
                            + " held twice at once: " + all);
                }
                if (job.getValue().startsWith("COMPLETED")) {
                    assertTrue(!kept.isEmpty(), "job " + job.getKey() + " ran uncharged: " + all);
                }
                if (kept.size() > 1) {
                    reruns.add(job.getKey() + " (" + kept.size() + " runs, ALPS reservations "
                            + kept.stream().map(Reservation::resId).toList() + ")");
                }
                all.stream().filter(r -> r.state() == State.VOIDED).forEach(r -> voided.merge(r.reason(), 1, Integer::sum));
            }
            System.out.println("ledger: check clean; one settled reservation per job run; jobs slurmctld ran again: "
                    + (reruns.isEmpty() ? "none" : reruns) + "; holds voided, by reason: " + voided);
        }
    }

    /** Calls the survivor directly (no retries) until its ENGINE answer is a success; ms since {@code killed}. */
    static long firstAnswer(Bridge bridge, int survivor, long killed) throws IOException, InterruptedException {
        Path request = Files.writeString(bridge.dir().resolve("engine.xml"), ENGINE);
        Map<String, String> env = direct(bridge, survivor);
        String client = client();
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
    static void assertNothingLeftInAlps(Bridge bridge) {
        String orphans = bridge.orphans("--refresh").ok().out();
        System.out.println("the survivor's orphan watch after the workload:\n" + orphans.strip());
        if (!orphans.contains(" 0 orphans")) {
            System.out.println("released:\n" + bridge.orphans("--release").ok().out().strip());
        }
        assertTrue(Host.await(Duration.ofSeconds(60), () -> bridge.alpsReservations().isEmpty()),
                "ALPS holds " + bridge.alpsReservations() + " with no job left");
    }
}
