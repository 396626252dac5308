package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * What the agent does with a run whose prolog's answer slurmctld did not hear, by what slurmctld shows of the job
 * (a slurmctld here is a table of job states; the whole path runs on a real Slurm 22.05 and 26.05 in
 * {@link SlurmHookSlurmTest}).
 */
class UnheardPrologTest {

    /** slurmctld as a table: job id to (state, restart count); what it was asked to do, in order. */
    private static final class Table implements UnheardProlog.Slurmctld {
        final Map<String, String[]> jobs = new HashMap<>();
        final List<String> asked = new ArrayList<>();
        boolean down;

        @Override
        public boolean requeue(String jobId) throws IOException {
            asked.add("requeue " + jobId);
            return !jobId.equals("99"); // 99: --no-requeue
        }

        @Override
        public void cancel(String jobId) {
            asked.add("cancel " + jobId);
        }

        @Override
        public Map<String, String> job(String jobId) throws IOException {
            if (down) {
                throw new IOException("slurmctld does not answer");
            }
            String[] j = jobs.get(jobId);
            return j == null ? Map.of() : Map.of("state", j[0], "restarts", j[1]);
        }
    }

    private static SlurmJob run(String id, int restart) {
        return new SlurmJob("lab", id, restart, "chem", "alice", "debug", 1, 2, "n1");
    }

    @Test
    void aRunSlurmctldStartedWithoutTheAnswerIsVoidedAndRequeuedOrCancelled() {
        UnheardProlog unheard = new UnheardProlog();
        Table slurmctld = new Table();
        List<String> voided = new ArrayList<>();
        slurmctld.jobs.put("1", new String[] {"RUNNING", "0"});
        slurmctld.jobs.put("2", new String[] {"RUNNING", "0"});
        slurmctld.jobs.put("99", new String[] {"RUNNING", "0"});
        slurmctld.jobs.put("3", new String[] {"RUNNING", "0"});
        unheard.sending(run("1", 0));
        unheard.unheard(run("1", 0), Hook.OK);
        unheard.unheard(run("2", 0), Hook.DENIED);
        unheard.unheard(run("99", 0), Hook.OK);
        unheard.unheard(run("3", 0), Hook.UNAVAILABLE);
        List<String> said = unheard.reconcile(slurmctld, j -> voided.add(j.jobId()));
        assertEquals(List.of("1", "99"), voided.stream().sorted().toList(), "a hold is voided, nothing else");
        assertEquals(List.of("cancel 2", "cancel 99", "requeue 1", "requeue 3", "requeue 99"),
                slurmctld.asked.stream().sorted().toList(), "requeued as after a failing prolog; denied or not requeueable: cancelled");
        assertEquals(4, said.size(), said::toString);
        assertTrue(said.stream().anyMatch(s -> s.startsWith("ledger hook-agent: job 99 run 1: slurmctld started it without"
                + " the prolog's answer") && s.endsWith("not requeueable: cancelled")), said::toString);
        assertEquals(0, unheard.size(), "each seen through once");
        assertEquals(List.of(), unheard.reconcile(slurmctld, j -> voided.add(j.jobId())));
    }

    @Test
    void aRunStillConfiguringWaitsForItsPrologToRunAgainAndOneHeardThenIsLeftAlone() {
        UnheardProlog unheard = new UnheardProlog();
        Table slurmctld = new Table();
        slurmctld.jobs.put("5", new String[] {"CONFIGURING", "0"});
        unheard.unheard(run("5", 0), Hook.OK);
        assertEquals(List.of(), unheard.reconcile(slurmctld, j -> true));
        assertEquals(1, unheard.size(), "waits: Slurm 22.05 runs the prolog again at start-up");
        unheard.sending(run("5", 0)); // it runs again and is being answered: slurmctld may start it on the answer
        slurmctld.jobs.put("5", new String[] {"RUNNING", "0"});
        assertEquals(List.of(), unheard.reconcile(slurmctld, j -> true), "not before the answer's fate is known");
        unheard.heard(run("5", 0));
        assertEquals(List.of(), unheard.reconcile(slurmctld, j -> true));
        unheard.unheard(run("5", 0), Hook.OK); // the killed call's answer, failing after the repeat's was heard
        assertEquals(0, unheard.size(), "no news: the run was answered");
        assertEquals(List.of(), slurmctld.asked);
    }

    @Test
    void aRunSlurmctldMovedOnFromIsForgottenAndOneItCannotBeAskedAboutIsTriedAgain() {
        UnheardProlog unheard = new UnheardProlog();
        Table slurmctld = new Table();
        slurmctld.jobs.put("6", new String[] {"PENDING", "1"}); // requeued: the prolog failed (timed out)
        slurmctld.jobs.put("7", new String[] {"RUNNING", "1"}); // a later run
        slurmctld.jobs.put("8", new String[] {"CANCELLED", "0"});
        unheard.unheard(run("6", 0), Hook.OK);
        unheard.unheard(run("7", 0), Hook.OK);
        unheard.unheard(run("8", 0), Hook.OK);
        unheard.unheard(run("9", 0), Hook.OK); // purged
        assertEquals(List.of(), unheard.reconcile(slurmctld, j -> true));
        assertEquals(0, unheard.size());

        slurmctld.jobs.put("10", new String[] {"RUNNING", "0"});
        unheard.unheard(run("10", 0), Hook.OK);
        slurmctld.down = true;
        assertEquals(1, unheard.reconcile(slurmctld, j -> true).size(), "said once");
        assertEquals(List.of(), unheard.reconcile(slurmctld, j -> true), "not every few seconds");
        slurmctld.down = false;
        assertEquals(List.of(), unheard.reconcile(slurmctld, j -> false));
        assertEquals(1, unheard.size(), "the service cannot void the hold: kept, tried again");
        assertEquals(List.of(), slurmctld.asked, "not requeued before its hold is voided");
        assertEquals(1, unheard.reconcile(slurmctld, j -> true).size());
        assertEquals(List.of("requeue 10"), slurmctld.asked);
    }
}
