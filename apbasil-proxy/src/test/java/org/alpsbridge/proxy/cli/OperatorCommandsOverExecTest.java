package org.alpsbridge.proxy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;
import org.alpsbridge.emulator.StateDirectory;
import org.alpsbridge.proxy.client.Apbasil;
import org.alpsbridge.proxy.server.ProxyDaemon;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The operator's view of issue 5, end to end: {@code proxy serve} with an {@code exec:} backend that is the
 * emulator's drop-in apbasil with a {@code --state DIR}, a reservation planted in that directory behind
 * the proxy's back, and {@code proxy orphans} / {@code proxy stats} run against the daemon.
 */
class OperatorCommandsOverExecTest {

    static final String MACHINE = "xc30:8";

    @TempDir
    Path dir;

    Path state;
    Path killed;
    ProxyDaemon daemon;
    String address;

    @BeforeEach
    void serve() throws Exception {
        state = dir.resolve("alps");
        killed = dir.resolve("killed");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = System.getProperty("surefire.test.class.path", System.getProperty("java.class.path"));
        Path apbasil = script("apbasil", "exec '" + java + "' -Xshare:auto -XX:TieredStopAtLevel=1 -cp '" + classPath
                + "' org.alpsbridge.emulator.cli.EmulateCommand --machine " + MACHINE + " --state '" + state + "'");
        Path apkill = script("apkill", "echo \"$@\" >> '" + killed + "'");
        Path jobs = dir.resolve("jobs");
        Files.writeString(jobs, "100\n101\n");
        ProxyServeCommand serve = new ProxyServeCommand();
        new CommandLine(serve).parseArgs("--listen", "unix:" + dir.resolve("proxy.sock"), "--backend", "exec:" + apbasil,
                "--auth", "none", "--refresh-interval", "2", "--orphan-jobs-file", jobs.toString(), "--apkill", apkill.toString());
        daemon = serve.start();
        address = daemon.address().text();
        System.setProperty("apbasil.auth", "none");
    }

    @AfterEach
    void stop() {
        System.clearProperty("apbasil.auth");
        daemon.close();
    }

    private Path script(String name, String body) throws Exception {
        Path p = dir.resolve(name);
        Files.writeString(p, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rwx------"));
        return p;
    }

    private String run(Callable<Integer> command, String... args) {
        StringWriter out = new StringWriter();
        int status = new CommandLine(command).setOut(new PrintWriter(out)).execute(args);
        assertEquals(0, status, out::toString);
        return out.toString();
    }

    private String orphans(String... flags) {
        String[] args = new String[flags.length + 2];
        args[0] = "--connect";
        args[1] = address;
        System.arraycopy(flags, 0, args, 2, flags.length);
        return run(new ProxyOrphansCommand(), args);
    }

    private void schedulerInventory() throws Exception {
        byte[] answer = Apbasil.call(address, "<BasilRequest protocol=\"1.3\" method=\"QUERY\" type=\"INVENTORY\"/>"
                .getBytes(StandardCharsets.US_ASCII), Duration.ofSeconds(60));
        assertTrue(new String(answer, StandardCharsets.US_ASCII).contains("status=\"SUCCESS\""));
    }

    @Test
    void aReservationPlantedBehindTheProxysBackIsListedAfterTheTimerRefreshAndReleasedSafely() throws Exception {
        schedulerInventory();
        long[] plantedAndApid = new StateDirectory(state).update(MACHINE, alps -> {
            long id = alps.control().plantReservation("mallory", "4242", 3, 4);
            return new long[] {id, alps.control().launch(id, "./a.out")};
        });
        long planted = plantedAndApid[0];
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        String listed = orphans("--json");
        while (!listed.contains("\"reservationId\":" + planted) && System.nanoTime() < deadline) {
            Thread.sleep(200);
            listed = orphans("--json");
        }
        assertTrue(listed.contains("\"reservationId\":" + planted + ",\"user\":\"mallory\""), listed);
        assertTrue(listed.contains("\"reasons\":[\"not-created-by-proxy\",\"job-gone\"]"), listed);

        String released = orphans("--release");
        assertTrue(released.contains(planted + " ") && released.contains("released"), released);
        List<String> kills = Files.readAllLines(killed);
        assertTrue(kills.contains("-9 " + plantedAndApid[1]), "RELEASE first, then apkill -9 of each application with a time stamp: "
                + kills);
        assertTrue(kills.stream().allMatch(k -> k.matches("-9 \\d+")), kills::toString);
    }

    @Test
    void refreshListsFromAnInventoryFetchedNowAndStatsCountsWhatReachedTheBackend() throws Exception {
        schedulerInventory();
        schedulerInventory();
        long planted = new StateDirectory(state).update(MACHINE, alps -> alps.control().plantReservation("eve", "100", 5));
        String listed = orphans("--json", "--refresh");
        assertTrue(listed.contains("\"reservationId\":" + planted + ",\"user\":\"eve\""), listed);
        assertTrue(listed.contains("\"reasons\":[\"not-created-by-proxy\"]"), "batch job 100 is live: " + listed);

        String json = run(new ProxyStatsCommand(), "--connect", address, "--json");
        assertTrue(json.contains("\"QUERY/INVENTORY\":{\"requests\":2,"), json);
        assertTrue(json.contains("\"backendCalls\":"), json);
        String table = run(new ProxyStatsCommand(), "--connect", address);
        assertTrue(table.contains("QUERY/INVENTORY") && table.contains("p99"), table);
    }
}
