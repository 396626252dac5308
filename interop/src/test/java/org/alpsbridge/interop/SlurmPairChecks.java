package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

/**
 * What issue 37's Slurm scenarios (SlurmProxyFailoverTest, SlurmBackupControllerTest) check beside {@link
 * ProxyPairFailover}: every job ended, with a reason when not COMPLETED, and how many times slurmctld ran each.
 */
final class SlurmPairChecks {

    /** squeue's states of a job that has ended. */
    static final List<String> DONE = List.of("COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL",
            "BOOT_FAIL", "DEADLINE", "OUT_OF_MEMORY", "PREEMPTED");

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
}
