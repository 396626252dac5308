package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Slurm 18.08.9's select/alps, unmodified, schedules batch jobs through {@code bin/apbasil} → {@code alpsbridge proxy
 * serve} (MUNGE) → the emulated XC30: ENGINE, INVENTORY each pass, RESERVE from slurmctld, CONFIRM (1.0) and RELEASE
 * from slurmstepd on the front end. One cluster for the class; each scenario leaves the queue empty. Every log must
 * end free of {@code fatal} and of BASIL errors.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class SlurmInteropTest {

    /** Users of a Debian base system (no test users are created), each with its own primary group. */
    static final List<String> USERS = List.of("daemon", "bin", "www-data", "backup", "nobody");

    private Bridge bridge;
    private SlurmCluster slurm;

    @BeforeAll
    void start() throws Exception {
        Path prefix = Clients.slurm();
        bridge = new Bridge("slurm", "xc30:16", List.of("--orphan-jobs", "squeue -h -o %A"));
        bridge.proxyEnvironment(SlurmCluster.environment(prefix, bridge));
        bridge.startProxy();
        slurm = SlurmCluster.start(prefix, bridge);
    }

    @AfterAll
    void stop() throws Exception {
        if (slurm != null) {
            slurm.close();
        }
        if (bridge != null) {
            System.out.println("proxy stats:\n" + bridge.stats().out());
            bridge.close();
        }
    }

    @Test
    @Order(1)
    void aMixedBatchWorkloadOfSeveralUsersCompletes() {
        Random random = new Random(Long.getLong("interop.seed", 20261125L));
        System.out.println("workload seed " + Long.getLong("interop.seed", 20261125L) + " (-Dinterop.seed=N to repeat)");
        List<String> jobs = new ArrayList<>();
        int count = Integer.getInteger("interop.jobs", 10);
        for (int i = 0; i < count; i++) {
            String user = USERS.get(random.nextInt(USERS.size()));
            List<String> shape = switch (random.nextInt(5)) {
                case 0 -> List.of("-N1");
                case 1 -> List.of("-N2", "--ntasks-per-node=4", "-c2");
                case 2 -> List.of("-n5");
                case 3 -> List.of("-N4");
                default -> List.of("-N1", "--mem=2000");
            };
            List<String> options = new ArrayList<>(shape);
            options.add("--time=" + (1 + random.nextInt(30)));
            jobs.add(slurm.submit(user, "sleep " + (1 + random.nextInt(3)), options.toArray(String[]::new)));
        }
        assertTrue(Host.await(Duration.ofMinutes(6), () -> slurm.queue().isEmpty()),
                "jobs left: " + slurm.queue());
        assertNoErrors();
        assertEquals("", alpsReservations(), "ALPS holds nothing");
    }

    @Test
    @Order(2)
    void aJobTooLargeForTheMachineIsRefusedBySlurmBeforeAlps() {
        Host.Result r = slurm.cmd("sbatch", "--uid=daemon", "--chdir=/tmp", "-N17", "--wrap=true");
        assertNotEquals(0, r.exit(), r.out());
        assertTrue(r.out().contains("Node count specification invalid"), r.out());
    }

    /**
     * Last: the cancelled jobs stay COMPLETING for up to 8.5 minutes (slurmstepd's RELEASE after slurmctld's gets
     * "No entry for resId" and is retried with doubling sleeps for 500 s, basil_interface.c), which would hold the
     * nodes from any later scenario. ALPS itself is free at once.
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
        assertTrue(Host.await(Duration.ofMinutes(2), () -> all.stream().map(slurm::state)
                .allMatch(s -> s.equals("GONE") || s.equals("COMPLETING"))), "left: " + slurm.queue());
        assertTrue(Host.await(Duration.ofMinutes(1), () -> alpsReservations().isEmpty()), "ALPS holds " + alpsReservations());
        assertNoErrors();
    }

    private String alpsReservations() {
        return bridge.control("show").lines().filter(l -> l.startsWith("reservations"))
                .map(l -> l.substring("reservations".length()).strip()).findFirst().orElse("");
    }

    private void assertNoErrors() {
        for (String log : List.of(slurm.ctldLog(), slurm.slurmdLog())) {
            // "can not read resId for JobId=N": Slurm's own line for a cancelled job that never had a reservation
            // (select_p_job_fini before any RESERVE); no BASIL call is made
            List<String> bad = log.lines().filter(l -> l.contains("fatal")
                    || (l.contains("error:") && !l.contains("can not read resId for JobId") && (l.contains("BASIL")
                    || l.contains("basil") || l.contains("ALPS") || l.contains("resId")))).toList();
            assertEquals(List.of(), bad, "fatal or BASIL errors in Slurm's logs");
        }
    }
}
