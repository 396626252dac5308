package org.alpsbridge.ledger.service.hook;

import org.alpsbridge.ledger.service.client.ServiceHttp;
import java.io.PrintStream;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAccumulator;
import java.util.concurrent.atomic.LongAdder;

/**
 * Where the agent's time goes, for an operator reading its journal during a storm: per period, the prologs
 * answered, the epilogs spooled and settled, the submissions checked, and the squeue calls (how many jobs each asked for), with mean
 * and longest times as the agent measured them (the client's and slurmctld's own time are outside). A line
 * per period with calls (every 10 s, and at the stop), never one per call.
 */
final class AgentStats implements ServiceHttp.Timing {

    /** One kind of call: how many, their total and longest time. */
    static final class Timer {
        private final LongAdder count = new LongAdder();
        private final LongAdder nanos = new LongAdder();
        private final LongAccumulator longest = new LongAccumulator(Math::max, 0);
        private final LongAdder items = new LongAdder();

        void add(long startNanos, int itemCount) {
            took(System.nanoTime() - startNanos, itemCount);
        }

        void took(long t, int itemCount) {
            count.increment();
            nanos.add(t);
            longest.accumulate(t);
            items.add(itemCount);
        }

        /** "N (mean X ms, longest Y ms)", and resets. */
        String drain(String what, boolean withItems) {
            long n = count.sumThenReset();
            long total = nanos.sumThenReset();
            long max = longest.getThenReset();
            long i = items.sumThenReset();
            if (n == 0) {
                return "";
            }
            return String.format("%d %s (mean %.1f ms, longest %.1f ms%s)", n, what, total / 1e6 / n, max / 1e6,
                    withItems ? String.format(", %.1f jobs each", (double) i / n) : "");
        }
    }

    final Timer prologs = new Timer();
    final Timer epilogsSpooled = new Timer();
    /** Epilogs the C client spooled itself: the time is the agent's handling of the notice. */
    final Timer epilogsSpooledByClient = new Timer();
    final Timer settlements = new Timer();
    /** Submissions checked for the job_submit plugin (a quote each). */
    final Timer submissions = new Timer();
    /** Their requests to the service (credential included). */
    final Timer submissionRequests = new Timer();
    final Timer squeues = new Timer();
    /** Inside the prologs: waiting for the job's record, making the MUNGE credential, the service's answer. */
    final Timer prologRecords = new Timer();
    final Timer prologCredentials = new Timer();
    final Timer prologRequests = new Timer();
    /** The prologs' requests to the service, each carrying a wave's STARTs ({@link StartBatch}). */
    final Timer startRequests = new Timer();
    /** The same for the settlements' requests. */
    final Timer settlementCredentials = new Timer();
    final Timer settlementRequests = new Timer();
    private final AtomicLong lastReport = new AtomicLong(System.nanoTime());

    @Override
    public void took(org.alpsbridge.ledger.service.api.Route route, long signedNanos, long answeredNanos) {
        if (route == org.alpsbridge.ledger.service.api.Route.QUOTE) {
            submissionRequests.took(signedNanos + answeredNanos, 1);
            return;
        }
        boolean prolog = route == org.alpsbridge.ledger.service.api.Route.START
                || route == org.alpsbridge.ledger.service.api.Route.STARTS
                || route == org.alpsbridge.ledger.service.api.Route.RESERVE
                || route == org.alpsbridge.ledger.service.api.Route.CONFIRM;
        (prolog ? prologCredentials : settlementCredentials).took(signedNanos, 1);
        (prolog ? prologRequests : settlementRequests).took(answeredNanos, 1);
    }

    /** The line of what happened since the last one, if anything did. */
    void report(PrintStream log) {
        long now = System.nanoTime();
        double seconds = (now - lastReport.getAndSet(now)) / 1e9;
        StringBuilder b = new StringBuilder();
        for (String part : new String[] {prologs.drain("prologs answered", false),
                epilogsSpooled.drain("epilogs spooled", false),
                epilogsSpooledByClient.drain("epilogs spooled by the client", false), settlements.drain("settled", false),
                submissions.drain("submissions checked", false),
                submissionRequests.drain("submission requests", false),
                squeues.drain("squeue calls", true), prologRecords.drain("prolog job records", false),
                prologCredentials.drain("prolog credentials", false), prologRequests.drain("prolog requests", false),
                startRequests.drain("start requests", true),
                settlementCredentials.drain("settlement credentials", false),
                settlementRequests.drain("settlement requests", false)}) {
            if (!part.isEmpty()) {
                b.append(b.length() == 0 ? "" : "; ").append(part);
            }
        }
        if (b.length() > 0) {
            log.printf("ledger hook-agent: in %.0f s: %s%n", seconds, b);
        }
    }
}
