package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Slurm 18.08.9 and the bridge through restarts and an outage while jobs run: slurmctld restarted, the proxy
 * restarted, and the Cray "down" (the emulator answers nothing) for about a minute. Each time the jobs finish, each
 * reservation is released once (one RELEASE reaches ALPS), none is left an orphan, and slurmctld never stops. One
 * cluster for the class, the strictest scenario first: the logs accumulate.
 *
 * <p>The jobs run until the test opens their gate (a file they wait for), not for a fixed time: on a loaded machine
 * a job sleeping a few seconds could end before the restart it is meant to live through, or before the test had
 * seen it running.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Order(3) // the class order: src/test/resources/junit-platform.properties
class SlurmRecoveryTest {

    /**
     * What Slurm logs while it cannot reach ALPS: its INVENTORY failed, the drop-in apbasil's exit status 1, and at debug
     * level the TRANSIENT failure the proxy answered for the program that answered nothing.
     */
    private static final String[] OUTAGE = {"INVENTORY failed", "child process for BASIL", "debug:  TRANSIENT ALPS BACKEND error"};

    private Bridge bridge;
    private CraySlurm slurm;
    /** Where the gates are: readable by the jobs' users (not /tmp's private temporary directories). */
    private Path gates;

    @BeforeAll
    void start() throws Exception {
        gates = Files.createTempDirectory(Path.of("/tmp"), "interop-gates");
        Files.setPosixFilePermissions(gates, PosixFilePermissions.fromString("rwxr-xr-x"));
        bridge = new Bridge("slurm-recovery", "xc30:8", List.of("--orphan-jobs", "squeue -h -o %A"));
        slurm = CraySlurm.startBehind(bridge);
    }

    @AfterAll
    void stop() throws Exception {
        CraySlurm.stop(slurm, bridge);
        if (gates != null) {
            Host.run(Map.of(), Duration.ofSeconds(30), List.of("rm", "-rf", gates.toString()));
        }
    }

    @Test
    @Order(1)
    void jobsRunningWhileSlurmctldRestartsFinishReleasedOnce() throws IOException {
        List<String> jobs = running(2, "slurmctld");
        slurm.stopController();
        slurm.startController();
        open("slurmctld");
        assertFinishedAndReleasedOnce(jobs);
        assertEquals(List.of(), slurm.basilErrors(), "fatal or BASIL errors in Slurm's logs");
    }

    @Test
    @Order(2)
    void jobsRunningWhileTheProxyRestartsFinishReleasedOnce() throws Exception {
        List<String> jobs = running(2, "proxy");
        bridge.stopProxy();
        bridge.startProxy();
        open("proxy");
        assertFinishedAndReleasedOnce(jobs);
        assertEquals(List.of(), slurm.basilErrors(OUTAGE), "fatal or BASIL errors in Slurm's logs");
    }

    /**
     * ALPS answers nothing for a minute: slurmctld stays up (its INVENTORY fails, it schedules nothing), a job that
     * ends meanwhile has its RELEASE retried by slurmstepd with doubling sleeps, a job submitted meanwhile waits; all
     * run and finish once ALPS is back.
     */
    @Test
    @Order(3)
    void theCrayDownForAMinuteLeavesSlurmctldUpAndItCatchesUp() throws Exception {
        List<String> jobs = new ArrayList<>(running(1, "alps"));
        bridge.alpsDown();
        try {
            open("alps"); // the running job ends while ALPS is down: slurmstepd's RELEASE fails and is retried
            jobs.add(slurm.submit("bin", "sleep 1", "-N1", "--time=5"));
            long pid = slurm.controllerPid();
            long end = System.nanoTime() + Duration.ofSeconds(60).toNanos();
            while (System.nanoTime() < end) {
                assertTrue(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false),
                        "slurmctld stopped while ALPS was down:\n" + slurm.ctldLog());
                Thread.sleep(2_000);
            }
            assertEquals(0, slurm.cmd("squeue").exit(), "slurmctld answers while ALPS is down");
        } finally {
            bridge.alpsUp();
        }
        assertFinishedAndReleasedOnce(jobs);
        assertEquals(List.of(), slurm.basilErrors(OUTAGE), "fatal or BASIL errors in Slurm's logs");
    }

    /**
     * Submits {@code count} two-node jobs that run until {@link #open} of {@code gate}, and waits until each runs and
     * slurmstepd has confirmed it.
     */
    private List<String> running(int count, String gate) {
        long confirms = bridge.requests("CONFIRM");
        List<String> jobs = new ArrayList<>();
        String script = "while [ ! -e " + gates.resolve(gate) + " ]; do sleep 1; done";
        for (int i = 0; i < count; i++) {
            jobs.add(slurm.submit(SlurmInteropTest.USERS.get(i), script, "-N2", "--time=10"));
        }
        assertTrue(Host.await(Duration.ofMinutes(3), () -> jobs.stream().allMatch(j -> slurm.state(j).equals("RUNNING"))
                && bridge.requests("CONFIRM") >= confirms + count), "queue: " + slurm.queue());
        return jobs;
    }

    /** Lets the jobs waiting at {@code gate} end. */
    private void open(String gate) throws IOException {
        Files.createFile(gates.resolve(gate));
    }

    private void assertFinishedAndReleasedOnce(List<String> jobs) {
        assertTrue(Host.await(Duration.ofMinutes(4), () -> jobs.stream().allMatch(j -> slurm.state(j).equals("GONE"))),
                "queue: " + slurm.queue() + "\n" + bridge.log());
        assertTrue(Host.await(Duration.ofSeconds(30), () -> bridge.alpsReservations().isEmpty()),
                "ALPS holds " + bridge.alpsReservations());
        for (String job : jobs) {
            String resId = bridge.reservationOf(job);
            List<String> releases = bridge.releasesOf(resId).stream().filter(x -> x.contains("status=\"SUCCESS\"")).toList();
            assertEquals(1, releases.size(), "successful RELEASEs of job " + job + "'s reservation " + resId + ": " + releases);
        }
        String orphans = bridge.orphans("--refresh").ok().out();
        assertTrue(orphans.contains(" 0 orphans"), "the proxy's orphan watch: " + orphans);
        assertTrue(!slurm.ctldLog().contains("orphaned ALPS reservation"), "slurmctld found an orphan");
    }
}
