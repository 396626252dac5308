package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.State;
import org.alpsbridge.slurm.harness.Programs;
import org.junit.jupiter.api.Test;

/**
 * The ledger's refusal at submission, with a real slurmctld (Debian's Slurm 22.05) running {@code job_submit.lua}
 * as a site enables it ({@code JobSubmitPlugins=lua}, the file beside slurm.conf) beside the prolog and epilog
 * hooks, through the C client, the agent and the service, with real MUNGE. A job its project cannot cover is
 * refused at {@code sbatch} with the figures in the message its owner reads, and nothing is held or written; a
 * job that fits is queued and held at dispatch as before; with the service down, and with the agent down, a job
 * is accepted (the default {@code submit_when_unavailable=allow}) and still denied at dispatch by the prolog; with
 * the agent stopped (SIGSTOP) and its backlog full, each {@code sbatch} returns within submit_timeout + 1 s and
 * slurmctld keeps answering. Prints
 * what the plugin costs a submission: {@code sbatch} with the ledger's script and with a script that only accepts,
 * alternating in blocks, in the same run. One slurmctld start.
 */
class SlurmSubmitTest {

    /** sbatch calls per plugin setting, for the cost figures. */
    static final int TIMED = Integer.getInteger("submitSamples", 60);

    @Test
    void aJobItsProjectCannotCoverIsRefusedAtSubmissionAndNothingIsHeld() throws Exception {
        try (SlurmLab lab = SlurmLab.start(null, 8, SlurmLab.Hooks.AGENT, "superuser_uids=4242\ncharger_uids=0",
                "prolog_retry_for=1", null, true)) {
            SlurmHookSlurmTest.grantChemAndBio(lab, 100);

            // --- refused at sbatch: 4 CPUs x 60 min = 240 core-minutes against 100; in big (x2) 2 CPUs x 30 min = 120
            Programs.Result refused = lab.slurm("sbatch", "--parsable", "-o", "/dev/null", "-D", lab.jobsDir().toString(),
                    "-A", "bio", "-n", "4", "-t", "60", "--wrap", "sleep 1");
            assertNotEquals(0, refused.exit(), "sbatch of a job bio cannot cover was accepted: " + refused.out());
            for (String figure : List.of("project bio", "costs up to 240", "available 100", "short by 140",
                    "ask the project's PI", "INSUFFICIENT_BALANCE")) {
                assertTrue(refused.err().contains(figure), "'" + figure + "' missing from what sbatch printed: "
                        + refused.err());
            }
            System.out.println("sbatch -A bio -n 4 -t 60 printed:\n" + refused.err().strip());
            Programs.Result big = lab.slurm("sbatch", "--parsable", "-o", "/dev/null", "-A", "bio", "-p", "big",
                    "-n", "2", "-t", "30", "--wrap", "sleep 1");
            assertNotEquals(0, big.exit(), big.out());
            assertTrue(big.err().contains("costs up to 120"), "priced with big's multiplier: " + big.err());
            Programs.Result salloc = lab.slurm("salloc", "-A", "bio", "-n", "4", "-t", "60", "true");
            assertNotEquals(0, salloc.exit(), salloc.out());
            assertTrue(salloc.err().contains("short by 140"), "salloc: " + salloc.err());
            Programs.Result unbounded = lab.slurm("sbatch", "-o", "/dev/null", "-A", "chem", "-t", "UNLIMITED",
                    "--wrap", "sleep 1");
            assertNotEquals(0, unbounded.exit(), unbounded.out());
            assertTrue(unbounded.err().contains("--time"), unbounded.err());
            assertEquals("", lab.slurm("squeue", "-h", "-o", "%i").out().strip(), "nothing queued");
            try (Ledger ledger = Ledger.open(lab.db)) {
                assertEquals(List.of(), ledger.check(), "ledger check");
                assertEquals(List.of(), ledger.holds(null), "nothing held");
                assertEquals(List.of(), ledger.failures(null, 100), "no denial recorded: nothing reached a RESERVE");
                assertEquals(List.of(JournalEntry.Kind.CREDIT, JournalEntry.Kind.CREDIT),
                        ledger.journal(null).stream().map(JournalEntry::kind).toList(), "the grants alone");
            }

            // --- a job that fits is queued and held at dispatch, then settled, as before
            String fits = lab.sbatch("-A", "bio", "-n", "1", "-t", "10", "--wrap", "sleep 2");
            lab.awaitQuietAndSettled(Duration.ofSeconds(90));
            try (Ledger ledger = Ledger.open(lab.db)) {
                List<Reservation> runs = ledger.reservations("lab", fits);
                assertEquals(1, runs.size(), "held at dispatch: " + runs);
                assertEquals(State.SETTLED, runs.get(0).state());
                assertEquals(10, runs.get(0).hold(), "the prolog held the worst case the quote priced");
                // submitted by the unprivileged job user, as a site's users submit, and charged to it
                assertEquals(lab.user.name(), runs.get(0).owner(), runs.get(0)::toString);
            }
            assertEquals(lab.user.name() + "(" + lab.user.uid() + ")", lab.job(fits).get("UserId"));

            // --- the service down, then the agent down: accepted (allow), and still guarded at dispatch
            // (each a job bio cannot cover, held so that it waits for the release below; timed: what a dead or
            // hung ledger costs a submission: a hung one the first submission's submit_timeout, 2 s by default,
            // then nothing for 10 s)
            List<String> accepted = new ArrayList<>();
            lab.stopService(false);
            List<Long> serviceDown = acceptedWhile(lab, "the service down", accepted);
            lab.startService();
            Thread.sleep(10_500); // the agent asks a ledger that did not answer again only after 10 s
            lab.pauseService(true);
            List<Long> serviceHung = acceptedWhile(lab, "the service hung", accepted);
            lab.pauseService(false);
            lab.stopAgent(false);
            List<Long> agentDown = acceptedWhile(lab, "the agent down", accepted);
            lab.startAgent();
            // the agent stopped (SIGSTOP) with its backlog full: each ledger-submit waits for its connect at most
            // submit_timeout, so sbatch returns and slurmctld, whose job_submit lock it holds meanwhile, keeps going
            lab.pauseAgent(true);
            List<Long> agentStopped;
            try (FullBacklog full = new FullBacklog(lab.dir.resolve("agent/hook.sock"))) {
                agentStopped = acceptedWhile(lab, "the agent stopped, its backlog full", accepted);
                long t = System.nanoTime();
                Programs.Result ping = lab.slurm("scontrol", "ping");
                Programs.Result queue = lab.slurm("squeue", "-h", "-o", "%i");
                assertEquals(0, ping.exit() + queue.exit(), "slurmctld answers: " + ping.err() + queue.err());
                System.out.printf("with the agent stopped: scontrol ping and squeue answered in %.1f ms%n",
                        (System.nanoTime() - t) / 1e6);
            } finally {
                lab.pauseAgent(false);
            }
            for (long micros : agentStopped) {
                assertTrue(micros < 3_000_000, "an sbatch with the agent stopped took " + micros / 1000
                        + " ms, over submit_timeout (2 s) + 1 s: " + agentStopped);
            }
            System.out.printf("sbatch of a job the ledger would refuse, accepted (submit_when_unavailable=allow,"
                    + " submit_timeout=2): the service down p50 %.1f ms max %.1f ms; the service hung (SIGSTOP) p50"
                    + " %.1f ms max %.1f ms (the first); the agent down p50 %.1f ms max %.1f ms; the agent stopped"
                    + " (SIGSTOP, its backlog full) p50 %.1f ms max %.1f ms%n", pct(serviceDown, 50),
                    pct(serviceDown, 100), pct(serviceHung, 50), pct(serviceHung, 100), pct(agentDown, 50),
                    pct(agentDown, 100), pct(agentStopped, 50), pct(agentStopped, 100));
            for (String id : List.of(accepted.get(0), accepted.get(accepted.size() - 1))) {
                lab.slurm("scontrol", "release", id);
                lab.awaitState(id, "CANCELLED", Duration.ofSeconds(60));
                assertTrue(lab.job(id).get("_raw").contains("AdminComment=ledger denied: "), "denied at dispatch: "
                        + lab.job(id).get("_raw"));
            }
            lab.slurm("scancel", "-A", "bio");
            lab.awaitQuietAndSettled(Duration.ofSeconds(60));

            // --- what the plugin costs a submission: the ledger's script, one that only accepts, and one that only
            // starts a process as the ledger's starts its client, in turns
            java.util.Map<SlurmLab.SubmitScript, List<Long>> took = new java.util.EnumMap<>(SlurmLab.SubmitScript.class);
            List<String> held = new ArrayList<>();
            for (int block = 0; block < 6; block++) {
                SlurmLab.SubmitScript script = SlurmLab.SubmitScript.values()[block % 3];
                lab.jobSubmitScript(script);
                timedSbatch(lab, held); // the first after a switch loads the script
                for (int i = 0; i < TIMED / 2; i++) {
                    took.computeIfAbsent(script, k -> new ArrayList<>()).add(timedSbatch(lab, held));
                }
            }
            List<Long> with = took.get(SlurmLab.SubmitScript.LEDGER);
            List<Long> without = took.get(SlurmLab.SubmitScript.ACCEPT);
            List<Long> fork = took.get(SlurmLab.SubmitScript.FORK);
            lab.slurm("scancel", "-A", "chem");
            lab.awaitQuiet(Duration.ofSeconds(60));
            System.out.printf("job_submit.lua per sbatch (wall time of sbatch --hold, %d each, alternating blocks):"
                    + " with the ledger's script p50 %.1f ms p99 %.1f ms; with a script that only accepts p50 %.1f ms"
                    + " p99 %.1f ms; with one that only runs /bin/true through io.popen p50 %.1f ms p99 %.1f ms; the"
                    + " ledger's check adds %.1f ms at the median, of which starting a process %.1f ms%n", with.size(),
                    pct(with, 50), pct(with, 99), pct(without, 50), pct(without, 99), pct(fork, 50), pct(fork, 99),
                    pct(with, 50) - pct(without, 50), pct(fork, 50) - pct(without, 50));
            try (Ledger ledger = Ledger.open(lab.db)) {
                assertEquals(List.of(), ledger.check(), "ledger check");
                assertEquals(List.of(), ledger.holds(null), "nothing held");
            }
            System.out.println("agent: " + String.join(" | ", java.nio.file.Files.readAllLines(lab.dir.resolve("agent.log"))
                    .stream().filter(l -> l.contains("submissions checked")).toList()));
        }
    }

    /** Held sbatch calls of a job bio cannot cover, each accepted; their wall times in µs, as the user's shell timed them. */
    private static List<Long> acceptedWhile(SlurmLab lab, String what, List<String> ids) throws Exception {
        List<Long> times = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            Programs.Result r = lab.sbatchTimed("--parsable", "--hold", "-o", "/dev/null", "-A", "bio", "-n", "4",
                    "-t", "60", "--wrap", "sleep 1");
            assertEquals(0, r.exit(), what + " refused a job: " + r.err());
            String[] err = r.err().strip().split("\n");
            times.add(Long.parseLong(err[err.length - 1].strip()));
            ids.add(r.out().strip());
        }
        return times;
    }

    /** One held sbatch of a job chem covers (never dispatched, so never held in the ledger); its wall time in µs. */
    private static long timedSbatch(SlurmLab lab, List<String> ids) throws Exception {
        long t = System.nanoTime();
        ids.add(lab.sbatch("--hold", "-A", "chem", "-n", "1", "-t", "5", "--wrap", "true"));
        return (System.nanoTime() - t) / 1_000;
    }

    private static double pct(List<Long> micros, int p) {
        List<Long> sorted = micros.stream().sorted().toList();
        return sorted.get(Math.min(sorted.size() - 1, (int) Math.ceil(p / 100.0 * sorted.size()) - 1)) / 1000.0;
    }
}
