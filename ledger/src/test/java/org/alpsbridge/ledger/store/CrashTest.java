package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.ledger.JournalEntry;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Kills ({@code kill -9}) a ledger process at random points of a charge storm, again and again, then lets
 * it finish. After every kill the ledger opens (its start-up check passes: balances equal the journal),
 * every event acknowledged before the kill is there, none is doubled, and the redelivered events report
 * exactly what was acknowledged the first time.
 */
class CrashTest {

    @TempDir
    Path dir;

    @Test
    void killedMidStormSqliteLosesAndDoublesNothing() throws Exception {
        campaign("sqlite:" + dir.resolve("crash.db"), System.nanoTime(), 400, 4);
    }

    @Test
    void killedMidStormPostgresqlLosesAndDoublesNothing() throws Exception {
        campaign(PostgresServer.get().newDatabase(), System.nanoTime(), 200, 3);
    }

    @Test
    @Tag("long")
    void manyKillsOnBothStores() throws Exception {
        campaign("sqlite:" + dir.resolve("long.db"), System.nanoTime(), 5_000, 40);
        campaign(PostgresServer.get().newDatabase(), System.nanoTime(), 3_000, 40);
    }

    static void campaign(String url, long seed, int jobs, int kills) throws Exception {
        String where = "seed " + seed + " " + url.replaceAll("\\?.*", "");
        try (Ledger ledger = Ledger.open(url)) {
            ledger.addProject("crash", 1, null);
            // enough for most but not all jobs, so denials are part of the storm
            ledger.grant("crash", Resource.CPU, jobs * 2_000L, CrashStorm.T.minusSeconds(86_400),
                    CrashStorm.T.plusSeconds(86_400 * 30), "r", null);
        }
        Random rnd = new Random(seed);
        Map<String, String> acked = new HashMap<>();
        int killed = 0;
        for (int run = 0; run <= kills; run++) {
            boolean kill = run < kills;
            Process p = new ProcessBuilder(javaCommand(url, seed, jobs)).redirectError(ProcessBuilder.Redirect.INHERIT)
                    .start();
            List<String> lines = new ArrayList<>();
            BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            String line = in.readLine();
            assertEquals("READY", line, where + ": the storm did not start");
            if (kill) {
                long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(50 + rnd.nextInt(700));
                while (System.nanoTime() < deadline && (line = readReady(in, p)) != null) {
                    lines.add(line);
                }
                // kill -9 by pid (not destroyForcibly, which closes our end of its stdout): no shutdown hooks,
                // no close; every ACK it flushed before dying is still read below
                new ProcessBuilder("kill", "-9", Long.toString(p.pid())).start().waitFor();
                killed++;
            }
            while ((line = in.readLine()) != null) {
                lines.add(line);
            }
            p.waitFor(2, TimeUnit.MINUTES);
            for (String l : lines) {
                if (!l.startsWith("ACK ")) {
                    continue;
                }
                String[] f = l.split(" ", 4);
                String id = f[1] + " " + f[2];
                String previous = acked.putIfAbsent(id, f[3]);
                if (previous != null) {
                    assertEquals(previous, f[3], where + ": redelivered " + id + " changed its outcome");
                }
            }
            System.out.println(where + " run " + run + (kill ? " killed" : " completed") + " after "
                    + lines.stream().filter(l -> l.startsWith("ACK ")).count() + " acks; " + acked.size()
                    + " distinct events acknowledged so far" + (lines.contains("DONE") ? " (storm had finished)" : ""));
            verify(url, acked, where + " after run " + run + (kill ? " (killed)" : ""), !kill);
        }
        assertEquals(kills, killed);
    }

    /** Reads a line if one is ready within a few ms; keeps the kill timer honest. */
    private static String readReady(BufferedReader in, Process p) throws IOException, InterruptedException {
        for (int i = 0; i < 5; i++) {
            if (in.ready()) {
                return in.readLine();
            }
            if (!p.isAlive()) {
                return in.readLine();
            }
            Thread.sleep(1);
        }
        return "";
    }

    static void verify(String url, Map<String, String> acked, String where, boolean complete) {
        try (Ledger ledger = Ledger.open(url)) { // refuses to open if balances and journal disagree
            assertEquals(List.of(), ledger.check(), where);
            long charged = 0;
            for (Map.Entry<String, String> e : acked.entrySet()) {
                String[] id = e.getKey().split(" ");
                String key = id[1];
                Reservation r = ledger.reservations(null, key.split("/")[1]).get(0);
                String[] v = e.getValue().split(" ");
                switch (id[0]) {
                    case "R" -> {
                        if (v[0].equals("OK")) {
                            assertEquals(Long.parseLong(v[1]), r.hold(), where + " " + key);
                        } else {
                            assertEquals(State.DENIED, r.state(), where + " " + key);
                        }
                    }
                    case "L" -> {
                        assertEquals(State.SETTLED, r.state(), where + " " + key);
                        assertEquals(Long.parseLong(v[1]), r.charge(), where + " " + key);
                        charged += r.charge();
                    }
                    default -> assertTrue(r.state() == State.CONFIRMED || r.state() == State.SETTLED, where + " " + key);
                }
            }
            Map<String, Integer> perKind = new HashMap<>();
            for (JournalEntry entry : ledger.journal(null)) {
                if (entry.reservationKey() != null) {
                    String k = entry.reservationKey() + " " + entry.kind();
                    perKind.merge(k, 1, Integer::sum);
                }
            }
            perKind.forEach((k, n) -> assertEquals(1, n, where + ": " + k + " doubled"));
            if (complete) {
                assertEquals(0, ledger.balances("crash").get(0).held(), where);
                assertEquals(charged, ledger.balances("crash").get(0).used(), where);
            }
        }
    }

    static List<String> javaCommand(String url, long seed, int jobs) {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return List.of(java, "-Xmx256m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                CrashStorm.class.getName(), url, Long.toString(seed), Integer.toString(jobs), "8");
    }
}
