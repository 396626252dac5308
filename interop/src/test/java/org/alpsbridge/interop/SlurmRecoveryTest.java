package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Slurm 18.08.9 and the bridge through restarts and an outage while jobs run: slurmctld restarted, the proxy
 * restarted, and the Cray "down" (the emulator answers nothing) for about a minute. Each time the jobs finish, each
 * reservation is released once (one RELEASE reaches ALPS), none is left an orphan, and slurmctld never stops. One
 * cluster for the class, the strictest scenario first: the logs accumulate.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
// -Plong until its three scenarios pass in one run on a loaded 2-core machine (each passed alone; the
// slurmctld restart one counts CONFIRMs after short jobs may have ended)
@Tag("long")
class SlurmRecoveryTest {

    /**
     * What Slurm logs while it cannot reach ALPS: its INVENTORY failed, bin/apbasil's exit status 1, and at debug
     * level the TRANSIENT failure the proxy answered for the program that answered nothing.
     */
    private static final String[] OUTAGE = {"INVENTORY failed", "child process for BASIL", "debug:  TRANSIENT ALPS BACKEND error"};

    private Bridge bridge;
    private SlurmCluster slurm;

    @BeforeAll
    void start() throws Exception {
        bridge = new Bridge("slurm-recovery", "xc30:8", List.of("--orphan-jobs", "squeue -h -o %A"));
        slurm = SlurmCluster.startBehind(bridge);
    }

    @AfterAll
    void stop() throws Exception {
        SlurmCluster.stop(slurm, bridge);
    }

    @Test
    @Order(1)
    void jobsRunningWhileSlurmctldRestartsFinishReleasedOnce() {
        List<String> jobs = running(2, "sleep 15");
        slurm.stopController();
        slurm.startController();
        assertFinishedAndReleasedOnce(jobs);
        assertEquals(List.of(), slurm.basilErrors(), "fatal or BASIL errors in Slurm's logs");
    }

    @Test
    @Order(2)
    void jobsRunningWhileTheProxyRestartsFinishReleasedOnce() throws Exception {
        List<String> jobs = running(2, "sleep 15");
        bridge.stopProxy();
        bridge.startProxy();
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
        List<String> jobs = new ArrayList<>(running(1, "sleep 20"));
        bridge.alpsDown();
        try {
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

    /** Submits {@code count} two-node jobs and waits until each runs and slurmstepd has confirmed it. */
    private List<String> running(int count, String script) {
        long confirms = bridge.requests("CONFIRM");
        List<String> jobs = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            jobs.add(slurm.submit(SlurmInteropTest.USERS.get(i), script, "-N2", "--time=5"));
        }
        assertTrue(Host.await(Duration.ofMinutes(3), () -> jobs.stream().allMatch(j -> slurm.state(j).equals("RUNNING"))
                && bridge.requests("CONFIRM") >= confirms + count), "queue: " + slurm.queue());
        return jobs;
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
