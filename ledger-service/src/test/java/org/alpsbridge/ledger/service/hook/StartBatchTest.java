package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.Weights;
import org.alpsbridge.ledger.service.server.RunningService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent's STARTs against a real service (with MUNGE): a wave of prologs' STARTs goes in a few requests,
 * each prolog answered with its own job's outcome; a request the service refuses is sent again one START per
 * prolog, so each gets its own answer.
 */
class StartBatchTest {

    @TempDir
    Path dir;
    RunningService service;
    ServiceCall call;
    AgentStats.Timer requests = new AgentStats.Timer();
    StartBatch batch;

    @BeforeEach
    void start() throws Exception {
        service = RunningService.start(dir, Map.of("charger_uids", Long.toString(new com.sun.security.auth.module
                .UnixSystem().getUid())));
        Instant from = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(Duration.ofDays(1));
        service.ledger().addProject("chem", 5001, "chem");
        service.ledger().grant("chem", Resource.CPU, 100_000, from, from.plus(Duration.ofDays(30)), null, null);
        service.ledger().setWeights("debug", Weights.UNIT);
        call = new ServiceCall(HookSettings.read(Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", "/dev/null",
                "ALPSBRIDGE_MUNGE_SOCKET", service.mungeSocket().toString()), true, List.of("--db", service.url())));
        batch = new StartBatch(call, requests);
    }

    @AfterEach
    void stop() throws Exception {
        batch.close();
        service.close();
    }

    private static SlurmJob job(int id, int cpus) {
        return new SlurmJob("lab", Integer.toString(id), 0, "chem", "alice", "debug", 1, cpus, "n1");
    }

    @Test
    void aWaveOfStartsGoesInFewRequestsAndEachPrologGetsItsOwnJobsOutcome() throws Exception {
        int wave = 40;
        ExecutorService prologs = Executors.newFixedThreadPool(wave);
        try {
            CountDownLatch go = new CountDownLatch(1);
            List<Future<Map<String, String>>> answers = new ArrayList<>();
            for (int i = 1; i <= wave; i++) {
                SlurmJob job = job(i, 1 + i % 3);
                answers.add(prologs.submit(() -> {
                    go.await();
                    return batch.start(EventJson.reserve(job, 600, Instant.now()));
                }));
            }
            go.countDown();
            for (int i = 1; i <= wave; i++) {
                Map<String, String> o = answers.get(i - 1).get(30, TimeUnit.SECONDS);
                assertEquals("OK", o.get("decision"), o.toString());
                assertTrue(o.get("key").contains("/" + i + "/"), "job " + i + " got its own outcome: " + o);
                assertEquals(Long.toString((1 + i % 3) * 10L), o.get("hold"), o.toString());
            }
        } finally {
            prologs.shutdownNow();
        }
        String sent = requests.drain("requests", true);
        int count = Integer.parseInt(sent.substring(0, sent.indexOf(' ')));
        assertTrue(count < wave, "fewer requests than STARTs: " + sent);
        for (int i = 1; i <= wave; i++) {
            assertEquals(State.CONFIRMED, service.ledger().reservations("lab", Integer.toString(i)).get(0).state());
        }
        assertEquals(List.of(), service.ledger().check());
    }

    @Test
    void aRefusedRequestIsSentAgainOneStartPerProlog() throws Exception {
        ExecutorService prologs = Executors.newFixedThreadPool(3);
        try {
            // the first goes alone while the two others wait for it, then go together: one of them is refused
            Future<Map<String, String>> first = prologs.submit(() -> batch.start(EventJson.reserve(job(1, 1), 600,
                    Instant.now())));
            Thread.sleep(5);
            Future<Map<String, String>> good = prologs.submit(() -> batch.start(EventJson.reserve(job(2, 1), 600,
                    Instant.now())));
            Future<Map<String, String>> bad = prologs.submit(() -> batch.start(EventJson.reserve(new SlurmJob("lab", "3", 0,
                    "chem", "alice", "debug", 0, 1, "n1"), 600,
                    Instant.now())));
            assertEquals("OK", first.get(30, TimeUnit.SECONDS).get("decision"));
            assertEquals("OK", good.get(30, TimeUnit.SECONDS).get("decision"), "answered despite its neighbour");
            Exception e = assertThrows(Exception.class, () -> bad.get(30, TimeUnit.SECONDS));
            assertTrue(e.getCause() instanceof org.alpsbridge.ledger.service.client.ServiceHttp.Refused r && r.status == 422, "its own refusal: " + e);
        } finally {
            prologs.shutdownNow();
        }
        assertEquals(List.of(), service.ledger().check());
    }
}
