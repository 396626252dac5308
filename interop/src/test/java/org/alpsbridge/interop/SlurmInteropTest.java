package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Slurm 18.08.9's select/alps, unmodified, schedules batch jobs through the native {@code apbasil} →
 * {@code alpsbridge proxy serve} (MUNGE) → the emulated XC30: ENGINE, INVENTORY each pass, RESERVE from slurmctld, CONFIRM (1.0) and RELEASE
 * from slurmstepd on the front end. One cluster for the class; each scenario leaves the queue empty. Every log must
 * end free of {@code fatal} and of BASIL errors.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Order(1) // the class order: src/test/resources/junit-platform.properties
class SlurmInteropTest {

    /** Users of a Debian base system (no test users are created), each with its own primary group. */
    static final List<String> USERS = List.of("daemon", "bin", "www-data", "backup", "nobody");

    private Bridge bridge;
    private CraySlurm slurm;
    /** The reservation planted behind Slurm's back, once it is: slurmctld logs finding it as an error. */
    private String planted;

    @BeforeAll
    void start() throws Exception {
        bridge = new Bridge("slurm", "xc30:16", List.of("--orphan-jobs", "squeue -h -o %A"));
        slurm = CraySlurm.startBehind(bridge);
    }

    @AfterAll
    void stop() throws Exception {
        CraySlurm.stop(slurm, bridge);
    }

    @Test
    @Order(1)
    void aMixedBatchWorkloadOfSeveralUsersCompletes() {
        long seed = Long.getLong("interop.seed", 20261125L);
        System.out.println("workload seed " + seed + " (-Dinterop.seed=N to repeat)");
        slurm.submitMixed(Integer.getInteger("interop.jobs", 10), seed, USERS);
        assertTrue(Host.await(Duration.ofMinutes(6), () -> slurm.queue().isEmpty()),
                "jobs left: " + slurm.queue());
        assertNoErrors();
        assertAlpsHoldsNothing();
    }

    @Test
    @Order(2)
    void aJobTooLargeForTheMachineIsRefusedBySlurmBeforeAlps() {
        Host.Result r = slurm.cmd("sbatch", "--uid=daemon", "--chdir=/tmp", "-N17", "--wrap=true");
        assertNotEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("Node count specification invalid"), r.out());
    }

    /**
     * {@code --ntasks-per-core=1} reaches ALPS as the RESERVE's {@code nppcu="1"} (basil_interface.c takes the job's
     * ntasks_per_core when one is set, else 0), one PE per core of the emulated XC30 (16 cores of 2 hyperthreads,
     * as slurm.conf describes it). {@code --hint=nomultithread} is not nppcu in 18.08: it sets the job's threads per
     * core to 1 (proc_args.c), so the RESERVE says {@code nppcu="0"}; ALPS places it all the same.
     */
    @Test
    @Order(3)
    void oneTaskPerCoreReachesAlpsAsNppcu() {
        String perCore = slurm.submit("daemon", "sleep 1", "-N1", "--ntasks-per-core=1", "--time=5");
        String noThreads = slurm.submit("backup", "sleep 1", "-N1", "--hint=nomultithread", "--time=5");
        assertTrue(Host.await(Duration.ofMinutes(2), () -> slurm.queue().isEmpty()), "jobs left: " + slurm.queue());
        for (String job : List.of(perCore, noThreads)) {
            System.out.println("job " + job + ": " + bridge.reserveOf(job).lines().filter(l -> l.contains("<ReserveParam "))
                    .findFirst().orElse("no RESERVE").strip());
        }
        assertTrue(bridge.reserveOf(perCore).contains("nppcu=\"1\""), bridge.reserveOf(perCore));
        assertTrue(bridge.reserveOf(noThreads).contains("nppcu=\"0\""), bridge.reserveOf(noThreads));
        assertNoErrors();
        assertAlpsHoldsNothing();
    }

    /**
     * {@code scontrol suspend/resume} of a running job: SWITCH OUT and IN of its reservation; it runs on and leaves
     * queue and ALPS when cancelled.
     */
    @Test
    @Order(4)
    void aSuspendedAndResumedJobSwitchesItsReservationAndFinishes() {
        long confirms = bridge.requests("CONFIRM");
        // runs until cancelled: the SWITCHes took up to 43 s each on a loaded machine
        String job = slurm.submit("www-data", "sleep 600", "-N2", "--time=15");
        assertTrue(Host.await(Duration.ofMinutes(2), () -> slurm.state(job).equals("RUNNING")
                && bridge.requests("CONFIRM") > confirms), "queue: " + slurm.queue());
        String resId = bridge.reservationOf(job);
        slurm.cmd("scontrol", "suspend", job).ok();
        assertTrue(Host.await(Duration.ofSeconds(90), () -> switched(resId, "OUT")), "no SWITCH OUT of " + resId);
        assertEquals("SUSPENDED", slurm.state(job));
        slurm.cmd("scontrol", "resume", job).ok();
        assertTrue(Host.await(Duration.ofSeconds(90), () -> switched(resId, "IN")), "no SWITCH IN of " + resId);
        assertEquals("RUNNING", slurm.state(job));
        slurm.cmd("scancel", job).ok();
        assertTrue(Host.await(Duration.ofMinutes(3), () -> slurm.state(job).equals("GONE")), "queue: " + slurm.queue());
        assertNoErrors();
        assertAlpsHoldsNothing();
    }

    /**
     * A reservation planted in ALPS behind everyone's back, with a running application: the proxy's orphan watch
     * lists it ({@code proxy orphans --refresh}) unless slurmctld's own check was quicker, slurmctld's check
     * (basil_inventory) finds it no job of its own and releases it the safe way (RELEASE, then apkill of its
     * application); the proxy's {@code --release} after that finds nothing left to release. One RELEASE of it
     * reaches ALPS, never two.
     */
    @Test
    @Order(5)
    void aPlantedReservationIsFoundByTheProxyAndSlurmAndReleasedOnce() {
        String node = slurm.nodes().get(slurm.nodes().size() - 1);
        planted = bridge.control("plant:nobody:999999:" + Integer.parseInt(node.substring(3))).lines().map(String::strip)
                .filter(l -> l.matches("\\d+")).findFirst().orElseThrow();
        String resId = planted;
        String listed = bridge.orphans("--refresh").ok().out();
        // Two watchers race: slurmctld's own check (its next INVENTORY) may release the reservation between the
        // refresh's fetch and a loaded proxy's judging of it; the proxy then rightly leaves out a reservation released
        // since its inventory was fetched. Either the proxy lists it, or slurmctld had released it by then.
        boolean listedByProxy = listed.lines().anyMatch(l -> l.strip().startsWith(resId + " ") && l.contains("999999"));
        assertTrue(listedByProxy || !bridge.releasesOf(resId).isEmpty(),
                "the proxy's orphan list: " + listed + "\nand no RELEASE of " + resId + " reached ALPS");
        assertTrue(Host.await(Duration.ofMinutes(2), () -> !bridge.alpsReservations().contains(resId)),
                "ALPS still holds " + bridge.alpsReservations() + "\n" + slurm.ctldLog());
        assertTrue(slurm.ctldLog().contains("orphaned ALPS reservation " + resId), "slurmctld did not find it");
        String released = bridge.orphans("--refresh", "--release").ok().out();
        assertTrue(released.lines().noneMatch(l -> l.strip().startsWith(resId + " ")), released);
        assertEquals(1, bridge.releasesOf(resId).size(), "RELEASEs of the planted reservation that reached ALPS");
        // its one job fits again: Slurm schedules after the mismatch
        String job = slurm.submit("daemon", "sleep 1", "-w", node, "--time=5");
        assertTrue(Host.await(Duration.ofMinutes(2), () -> slurm.state(job).equals("GONE")), "queue: " + slurm.queue());
        assertNoErrors();
    }

    /**
     * Last: cancelled running and pending jobs leave queue and ALPS within seconds. slurmctld releases a running
     * batch job's reservation at the signal (select_p_job_signal, so that no new aprun starts), ALPS keeps it while
     * the job's container lives (claims 1), and slurmstepd's RELEASE once the script is gone removes it (claims 0):
     * the stepd does not spend 500 s retrying a "No entry for resId" (basil_interface.c), nor stays COMPLETING.
     */
    @Test
    @Order(9)
    void cancelledRunningAndPendingJobsLeaveAlpsAtOnce() {
        long confirms = bridge.requests("CONFIRM");
        List<String> running = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            running.add(slurm.submit("daemon", "sleep 300", "-N4"));
        }
        String pending = slurm.submit("bin", "sleep 300", "-N16");
        assertTrue(Host.await(Duration.ofMinutes(3), () -> running.stream().allMatch(j -> slurm.state(j).equals("RUNNING"))),
                "running: " + slurm.queue());
        assertEquals("PENDING", slurm.state(pending));
        // cancelled once slurmstepd has confirmed (else its CONFIRM finds no reservation: a race Slurm logs as an error)
        assertTrue(Host.await(Duration.ofMinutes(1), () -> bridge.requests("CONFIRM") >= confirms + running.size()));
        List<String> all = new ArrayList<>(running);
        all.add(pending);
        slurm.cmd("scancel", all.toArray(String[]::new)).ok();
        // seconds on an idle machine; each BASIL call took 5-18 s on this shared one under load
        assertTrue(Host.await(Duration.ofMinutes(3), () -> all.stream().map(slurm::state).allMatch(s -> s.equals("GONE"))),
                "left: " + slurm.queue());
        assertAlpsHoldsNothing();
        for (String job : running) {
            String resId = bridge.reservationOf(job);
            List<String> releases = bridge.releasesOf(resId);
            assertTrue(releases.stream().noneMatch(x -> x.contains("No entry for resId")), "job " + job + ": " + releases);
        }
        assertNoErrors();
    }

    private boolean switched(String resId, String action) {
        return bridge.captured("SWITCH").stream().anyMatch(x -> x.contains("reservation_id=\"" + resId + "\"")
                && x.contains("action=\"" + action + "\"") && x.contains("status=\"SUCCESS\""));
    }

    /**
     * ALPS holds no reservation, within a minute: a finished job's reservation goes when its slurmstepd has exited,
     * at the emulator's next call (slurmctld's next INVENTORY).
     */
    private void assertAlpsHoldsNothing() {
        assertTrue(Host.await(Duration.ofSeconds(60), () -> bridge.alpsReservations().isEmpty()),
                "ALPS holds " + bridge.alpsReservations());
    }

    /** No fatal and no BASIL error in Slurm's logs, but slurmctld's finding the planted reservation. */
    private void assertNoErrors() {
        assertEquals(List.of(), planted == null ? slurm.basilErrors()
                : slurm.basilErrors("orphaned ALPS reservation " + planted + ", trying to remove"), "fatal or BASIL errors in Slurm's logs");
    }
}
