package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ExecBackendTest {

    @TempDir
    Path dir;

    private static Call query(byte[] request) {
        return new Call(request, "1.0", "QUERY", "ENGINE", Caller.UNAUTHENTICATED, "x");
    }

    private static ExecBackend exec(Path program, long timeoutMillis, int concurrency, int maxResponse) {
        return new ExecBackend(program, m -> Duration.ofMillis(timeoutMillis), concurrency, maxResponse);
    }

    @Test
    void runsTheProgramWithTheRequestOnStdinAndReturnsItsStdout() throws Exception {
        byte[] request = Fixtures.basil("query-engine-1.0.xml");
        try (ExecBackend b = exec(Fixtures.answering(dir, "engine-response-1.0.xml"), 5000, 2, 1 << 20)) {
            assertArrayEquals(Fixtures.basil("engine-response-1.0.xml"), b.call(query(request)));
        }
        assertArrayEquals(request, Files.readAllBytes(dir.resolve("request.out")));
    }

    @Test
    void aHungApbasilIsKilledAndTheCallerHearsSoWithinTheLimit() throws Exception {
        Path hang = Fixtures.script(dir, "hang", "sleep 60");
        try (ExecBackend b = exec(hang, 500, 2, 1 << 20)) {
            long t0 = System.nanoTime();
            BackendException e = assertThrows(BackendException.class, () -> b.call(query(new byte[] {1})));
            long ms = (System.nanoTime() - t0) / 1_000_000;
            assertTrue(e.isTransient());
            assertTrue(e.getMessage().contains("did not answer QUERY/ENGINE within 500 ms"), e.getMessage());
            // a guard, not a speed target: killed at the limit rather than waited for (60 s); a loaded host's fork and
            // kill may take seconds
            assertTrue(ms < 30_000, "took " + ms + " ms: the hung program was waited for, not killed");
        }
    }

    @Test
    void aResponseOverTheLimitIsCutOffAndRefused() throws Exception {
        Path flood = Fixtures.script(dir, "flood", "cat >/dev/null; head -c 3000000 /dev/zero");
        try (ExecBackend b = exec(flood, 5000, 2, 1 << 20)) {
            BackendException e = assertThrows(BackendException.class, () -> b.call(query(new byte[] {1})));
            assertFalse(e.isTransient());
            assertTrue(e.getMessage().contains("max_response_bytes=1048576"), e.getMessage());
        }
    }

    @Test
    void aProgramThatCannotStartIsATransientFailureNamingIt() throws Exception {
        try (ExecBackend b = exec(dir.resolve("missing-apbasil"), 5000, 2, 1 << 20)) {
            BackendException e = assertThrows(BackendException.class, () -> b.call(query(new byte[] {1})));
            assertTrue(e.isTransient());
            assertTrue(e.getMessage().contains("cannot run exec:" + dir.resolve("missing-apbasil")), e.getMessage());
        }
    }

    @Test
    void anApbasilThatWritesNothingIsNotAnAnswer() throws Exception {
        Path silent = Fixtures.script(dir, "silent", "echo 'ALPS is down' >&2; exit 3");
        try (ExecBackend b = exec(silent, 5000, 2, 1 << 20)) {
            BackendException e = assertThrows(BackendException.class, () -> b.call(query(new byte[] {1})));
            assertTrue(e.isTransient());
            assertTrue(e.getMessage().contains("exited with status 3"), e.getMessage());
            assertTrue(e.getMessage().contains("ALPS is down"), e.getMessage());
        }
    }

    @Test
    void noMoreChildrenRunAtOnceThanTheConcurrencyLimit() throws Exception {
        Path running = Files.createDirectory(dir.resolve("running"));
        Path log = dir.resolve("counts");
        Path canned = dir.resolve("canned");
        Files.write(canned, Fixtures.basil("engine-response-1.0.xml"));
        Path slow = Fixtures.script(dir, "slow", "cat >/dev/null; touch '" + running + "'/$$; ls '" + running
                + "' | wc -l >> '" + log + "'; sleep 0.2; rm '" + running + "'/$$; cat '" + canned + "'");
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try (ExecBackend b = exec(slow, 10_000, 2, 1 << 20)) {
            List<Future<byte[]>> calls = new ArrayList<>();
            for (int i = 0; i < 8; i++) {
                calls.add(pool.submit(() -> b.call(query(new byte[] {1}))));
            }
            for (Future<byte[]> f : calls) {
                f.get();
            }
        } finally {
            pool.shutdownNow();
        }
        for (String count : Files.readAllLines(log)) {
            assertTrue(Integer.parseInt(count.strip()) <= 2, "saw " + count.strip() + " children at once");
        }
    }

    @Test
    void garbageOnStdoutIsATransientFailureThatSaysSo() throws Exception {
        Path garbage = Fixtures.script(dir, "garbage", "cat >/dev/null; echo 'Segmentation fault (core dumped)'");
        try (ExecBackend b = exec(garbage, 5000, 2, 1 << 20)) {
            BackendException e = assertThrows(BackendException.class, () -> b.call(query(new byte[] {1})));
            assertTrue(e.isTransient());
            assertTrue(e.getMessage().contains("not a BASIL response"), e.getMessage());
        }
    }

    @Test
    void anApbasilThatDiesMidResponseIsNotPassedOnHalfWritten() throws Exception {
        Path crash = Fixtures.script(dir, "crash", "cat >/dev/null; printf '<?xml version=\"1.0\"?>"
                + "<BasilResponse protocol=\"1.0\"><ResponseData status=\"SUCC'; kill -9 $$");
        try (ExecBackend b = exec(crash, 5000, 2, 1 << 20)) {
            BackendException e = assertThrows(BackendException.class, () -> b.call(query(new byte[] {1})));
            assertTrue(e.isTransient());
            assertTrue(e.getMessage().contains("exited with status 137"), e.getMessage());
            assertTrue(e.getMessage().contains("not a BASIL response"), e.getMessage());
        }
    }
}
