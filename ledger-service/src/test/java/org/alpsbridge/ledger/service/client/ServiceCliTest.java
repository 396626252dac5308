package org.alpsbridge.ledger.service.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.cli.LedgerCommand;
import org.alpsbridge.ledger.service.server.RunningService;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * {@code alpsbridge ledger --db http://HOST:PORT ...} against a running service gives what the same commands
 * give on a database file: the same stdout, stderr and exit code, step by step.
 */
class ServiceCliTest {

    static final String FROM = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(30, ChronoUnit.DAYS).toString();
    static final String TO = Instant.now().truncatedTo(ChronoUnit.DAYS).plus(60, ChronoUnit.DAYS).toString();

    @TempDir
    Path dir;
    RunningService service;
    /** The commands' environment: the service's private munged. */
    static Map<String, String> client = Map.of();

    /** What one command printed and returned. */
    record Run(int code, String out, String err) {
    }

    @BeforeEach
    void start() throws Exception {
        service = RunningService.start(dir, Map.of());
        client = Map.of("ALPSBRIDGE_MUNGE_SOCKET", service.mungeSocket().toString());
    }

    @AfterEach
    void stop() throws Exception {
        service.close();
    }

    static Run run(String db, String... args) {
        StringWriter o = new StringWriter();
        StringWriter e = new StringWriter();
        CommandLine cmd = new CommandLine(new LedgerCommand(client));
        cmd.setOut(new PrintWriter(o));
        cmd.setErr(new PrintWriter(e));
        List<String> full = new ArrayList<>(List.of("--db", db));
        full.addAll(List.of(args));
        int code = cmd.execute(full.toArray(String[]::new));
        // journal entries carry the second they were written: the same step runs a moment apart on the two
        return new Run(code, o.toString().replaceAll("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ", "TIME"),
                e.toString());
    }

    @Test
    void theReadmeScenarioGivesTheSameOutputAndExitCodesAsOnADatabaseFile() {
        String file = "sqlite:" + dir.resolve("file.db");
        String[][] steps = {
                {"project", "add", "chem", "--gid", "5001", "--account", "chem_acct"},
                {"project", "add", "chem", "--gid", "5002"},
                {"grant", "chem", "--resource", "cpu", "--hours", "100", "--from", FROM, "--to", TO,
                        "--request-id", "g1"},
                {"grant", "chem", "--resource", "cpu", "--hours", "100", "--from", FROM, "--to", TO,
                        "--request-id", "g1"},
                {"reserve", "--id", "11", "--batch-id", "4242", "--project", "chem", "--user", "alice", "--nodes", "2",
                        "--cores-per-node", "4", "--time-limit", "120"},
                {"reserve", "--id", "12", "--batch-id", "4243", "--project", "chem", "--user", "bob", "--nodes", "20",
                        "--cores-per-node", "32", "--time-limit", "600"},
                {"confirm", "--id", "11"},
                {"release", "--id", "11", "--elapsed", "4990"},
                {"balance", "chem", "--json"},
                {"balance", "nosuch"},
                {"failures", "chem"},
                {"usage", "chem", "--json"},
                {"job", "4242"},
                {"holds"},
                {"check"},
                {"project", "list", "--json"},
        };
        for (String[] step : steps) {
            Run local = run(file, step);
            Run remote = run(service.url(), step);
            assertEquals(local, remote, "ledger " + String.join(" ", step));
        }
        assertEquals(2, run(service.url(), steps[5]).code(), "a denied RESERVE exits 2 through the service too");
        assertTrue(run(service.url(), steps[9]).err().contains("unknown project 'nosuch'"));
    }

    @Test
    void sixteenConcurrentReservesThroughTheServiceNeverOverdraw() throws Exception {
        assertEquals(0, run(service.url(), "project", "add", "chem", "--gid", "5001").code());
        assertEquals(0, run(service.url(), "grant", "chem", "--hours", "100", "--from", FROM, "--to", TO).code());
        // each RESERVE holds 1 node x 10 cores x 100 min = 1000 of the 6000 core-minutes: six fit
        ExecutorService pool = Executors.newFixedThreadPool(16);
        List<Future<Run>> runs = new ArrayList<>();
        for (int i = 1; i <= 16; i++) {
            String id = Integer.toString(i);
            runs.add(pool.submit(() -> run(service.url(), "reserve", "--id", id, "--batch-id", "job" + id, "--project",
                    "chem", "--user", "u" + id, "--nodes", "1", "--cores-per-node", "10", "--time-limit", "100")));
        }
        int held = 0;
        int denied = 0;
        for (Future<Run> f : runs) {
            Run r = f.get();
            if (r.code() == 0) {
                held++;
            } else {
                assertEquals(2, r.code(), r.err());
                assertTrue(r.err().contains("insufficient balance"), r.err());
                denied++;
            }
        }
        pool.shutdown();
        assertEquals(6, held);
        assertEquals(10, denied);
        Balance b = service.ledger().balances("chem").get(0);
        assertEquals(6000, b.held());
        assertEquals(0, b.available());
        assertEquals(List.of(), service.ledger().check());
    }

    @Test
    void aStandardUserIsRefusedAnotherGroupsBalanceWithExitOneAndTheRuleNamed() throws Exception {
        service.close();
        service = RunningService.start(Files.createDirectories(dir.resolve("standard")),
                Map.of("superuser_uids", "4242")); // root is now an ordinary user, in group 0 only
        client = Map.of("ALPSBRIDGE_MUNGE_SOCKET", service.mungeSocket().toString());
        service.ledger().addProject("chem", 5001, null);
        Run r = run(service.url(), "balance", "chem");
        assertEquals(1, r.code(), r.err());
        assertEquals("", r.out());
        assertTrue(r.err().startsWith("ledger balance: refused by " + service.url() + ": uid 0 (root, standard)"),
                r.err());
        assertTrue(r.err().contains("(rule standard-reads-own-groups)"), r.err());
    }

    @Test
    void replayIsRefusedThroughTheServiceWithWhereToRunItInstead() {
        Run r = run(service.url(), "replay", "--into", "sqlite:" + dir.resolve("copy.db"));
        assertEquals(1, r.code());
        assertTrue(r.err().contains("replay reads the store itself"), r.err());
    }
}
