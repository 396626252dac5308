package org.alpsbridge.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class ReplayTest {

    /** A node counter that answers like ALPS for the requests a replay sends; nothing more. */
    private static final class CountingAlps implements Target {
        private static final Pattern METHOD = Pattern.compile("method=\"(\\w+)\"");
        private static final Pattern WIDTH = Pattern.compile("width=\"(\\d+)\"");
        private static final Pattern NPPN = Pattern.compile("nppn=\"(\\d+)\"");
        private static final Pattern RESID = Pattern.compile("reservation_id=\"(\\d+)\"");
        private final int nodes;
        private final Map<String, Integer> held = new HashMap<>();
        private int next = 1;
        private int peak;

        CountingAlps(int nodes) {
            this.nodes = nodes;
        }

        @Override
        public String name() {
            return "counting";
        }

        @Override
        public byte[] call(byte[] request) {
            String text = new String(request, StandardCharsets.UTF_8);
            String method = find(METHOD, text);
            String body;
            switch (method) {
                case "RESERVE" -> {
                    int want = Integer.parseInt(find(WIDTH, text)) / Integer.parseInt(find(NPPN, text));
                    int used = held.values().stream().mapToInt(Integer::intValue).sum();
                    if (want > nodes) {
                        return failure("PERMANENT", "request exceeds the machine");
                    }
                    if (used + want > nodes) {
                        return failure("TRANSIENT", "insufficient resources");
                    }
                    String id = Integer.toString(next++);
                    held.put(id, want);
                    peak = Math.max(peak, used + want);
                    body = "<Reserved reservation_id=\"" + id + "\"/>";
                }
                case "CONFIRM" -> body = "<Confirmed/>";
                case "RELEASE" -> {
                    String id = find(RESID, text);
                    if (held.remove(id) == null) {
                        return failure("PERMANENT", "no such reservation " + id);
                    }
                    body = "<Released reservation_id=\"" + id + "\"/>";
                }
                default -> body = "<Inventory/>";
            }
            return ("<BasilResponse protocol=\"1.3\"><ResponseData status=\"SUCCESS\" method=\"" + method + "\">" + body
                    + "</ResponseData></BasilResponse>").getBytes(StandardCharsets.UTF_8);
        }

        private static byte[] failure(String errorClass, String message) {
            return ("<BasilResponse protocol=\"1.3\"><ResponseData status=\"FAILURE\" error_class=\"" + errorClass
                    + "\" method=\"RESERVE\"><Message severity=\"ERROR\">" + message + "</Message></ResponseData></BasilResponse>")
                    .getBytes(StandardCharsets.UTF_8);
        }

        private static String find(Pattern p, String text) {
            Matcher m = p.matcher(text);
            return m.find() ? m.group(1) : "";
        }
    }

    private static final Replay.Settings SETTINGS = new Replay.Settings("1.3", "INVENTORY", 60, 16, 0, 100_000);

    @Test
    void everyStartedJobIsConfirmedOnceAndReleasedOnce() {
        List<Job> jobs = Workload.generate(3, 300, 32, 20, List.of("alice"), List.of("astro"));
        CountingAlps alps = new CountingAlps(64);
        Recorder recorder = new Recorder("counting");
        Replay.Outcome outcome = new Replay(SETTINGS).run(alps, jobs, recorder, done -> { });
        assertEquals(300, outcome.started());
        assertEquals(300, outcome.finished());
        assertEquals(0, outcome.unplaced());
        assertEquals(300, recorder.methods().get("CONFIRM").count());
        assertEquals(300, recorder.methods().get("RELEASE").count());
        assertEquals(0, recorder.methods().get("RELEASE").failures());
        assertTrue(alps.held.isEmpty(), "the replay leaves no reservation behind");
        assertTrue(alps.peak <= 64);
        assertEquals(outcome.passes(), recorder.methods().get("QUERY/INVENTORY").count());
        assertEquals(1, recorder.methods().get("QUERY/ENGINE").count());
    }

    @Test
    void aJobLargerThanTheMachineIsDeniedAndDoesNotBlockTheQueue() {
        List<Job> jobs = List.of(new Job(1, 0, 100, 60, "alice", "astro"), new Job(2, 0, 2, 60, "alice", "astro"));
        Recorder recorder = new Recorder("counting");
        Replay.Outcome outcome = new Replay(SETTINGS).run(new CountingAlps(8), jobs, recorder, done -> { });
        assertEquals(1, outcome.deniedPermanent());
        assertEquals(1, outcome.started());
        assertTrue(outcome.permanentReasons().get(0).contains("exceeds the machine"), outcome.permanentReasons()::toString);
    }

    @Test
    void busyReservationsAreHeldDuringTheRunAndReleasedAfterIt() {
        CountingAlps alps = new CountingAlps(64);
        Replay.Settings busy = new Replay.Settings("1.3", "SUMMARY", 60, 16, 10, 100_000);
        Replay.Outcome outcome = new Replay(busy).run(alps, Workload.generate(5, 50, 8, 20, List.of("a"), List.of("b")),
                new Recorder("busy"), done -> { });
        assertEquals(10, outcome.busyPlanted());
        assertTrue(alps.held.isEmpty());
    }

    @Test
    void aForgottenReleaseLeavesTheReservationHeldAndTheScenarioSeesOnlyRunningJobs() {
        List<Job> jobs = List.of(new Job(1, 0, 2, 60, "alice", "astro"), new Job(2, 0, 2, 600, "bob", "bio"));
        CountingAlps alps = new CountingAlps(8);
        java.util.List<java.util.Set<Long>> seen = new java.util.ArrayList<>();
        Replay.Scenario forgetJobOne = new Replay.Scenario() {
            @Override
            public void beforePass(int pass, long second, java.util.Set<Long> running) {
                seen.add(java.util.Set.copyOf(running));
            }

            @Override
            public boolean forgetRelease(Job job) {
                return job.id() == 1;
            }
        };
        Replay.Outcome outcome = new Replay(SETTINGS).run(alps, jobs, new Recorder("c"), done -> { }, forgetJobOne);
        assertEquals(2, outcome.finished());
        assertEquals(1, alps.held.size(), "job 1's reservation is still held: an orphan");
        assertEquals(java.util.Set.of(), seen.get(0), "nothing runs before the first pass reserves");
        assertEquals(java.util.Set.of(2L), seen.get(2), "job 1 ended after 60 s, job 2 still runs");
    }
}
