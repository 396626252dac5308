package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * OpenPBS's pbs_mom, unmodified, runs batch jobs through the native {@code apbasil} → {@code alpsbridge proxy serve}
 * (MUNGE) → the emulated XC30: ENGINE (1.1, 1.4), SYSTEM (1.7), INVENTORY at start and on HUP, RESERVE and CONFIRM
 * at job start, RELEASE at its end, SWITCH and STATUS on suspend and resume. One complex for the class; each
 * scenario leaves no job running. pbs_mom's log must stay free of BASIL and parse errors.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
@Order(5) // the class order: src/test/resources/junit-platform.properties
class PbsInteropTest {

    /** What pbs_mom logs when an ALPS exchange failed (alps.c) or a job could not get its reservation (mom_start.c). */
    static final Pattern MOM_ERRORS = Pattern.compile("BASIL error|ALPS .*failed|Failed to .*ALPS|MPP reservation error"
            + "|Illegal element|Unrecognized attribute|Unspecified attribute");

    private Bridge bridge;
    private PbsComplex pbs;

    @BeforeAll
    void start() throws Exception {
        Path prefix = Clients.openpbs();
        bridge = new Bridge("pbs", "xc30:16", List.of());
        pbs = PbsComplex.start(prefix, bridge);
    }

    @AfterAll
    void stop() throws Exception {
        if (pbs != null) {
            pbs.close();
        }
        if (bridge != null) {
            bridge.close();
        }
    }

    @Test
    @Order(1)
    void aMixedBatchWorkloadOfSeveralUsersFinishes() {
        long seed = Long.getLong("interop.seed", 20261125L);
        Random random = new Random(seed);
        System.out.println("workload seed " + seed + " (-Dinterop.seed=N to repeat)");
        List<String> jobs = new ArrayList<>();
        int count = Integer.getInteger("interop.pbs.jobs", 5);
        for (int i = 0; i < count; i++) {
            String user = SlurmInteropTest.USERS.get(random.nextInt(SlurmInteropTest.USERS.size()));
            jobs.add(pbs.submit(user, PbsComplex.nodes(1 + random.nextInt(4)), 1 + random.nextInt(3)));
        }
        assertTrue(Host.await(Duration.ofMinutes(4), () -> pbs.queue().isEmpty()), "jobs left: " + pbs.queue());
        for (String job : jobs) {
            assertEquals("F", pbs.state(job), pbs.job(job));
            assertEquals("0", pbs.attribute(job, "Exit_status"), pbs.job(job));
        }
        assertTrue(bridge.requests("RESERVE") >= count && bridge.requests("CONFIRM") >= count, bridge.stats().out());
        assertNoErrors();
        assertEquals("", alpsReservations(), "ALPS holds nothing");
    }

    @Test
    @Order(2)
    void aJobTooLargeForAnyVnodeSetIsRefusedByPbsBeforeAlps() {
        long reserves = bridge.requests("RESERVE");
        String job = pbs.submit("daemon", PbsComplex.nodes(17), 1);
        assertTrue(Host.await(Duration.ofSeconds(60), () -> pbs.attribute(job, "comment").startsWith("Can Never Run")),
                pbs.job(job));
        assertEquals("Q", pbs.state(job));
        assertEquals(reserves, bridge.requests("RESERVE"), "no RESERVE for a job that can never run");
        pbs.cmd("qdel", job).ok();
    }

    @Test
    @Order(3)
    void qdelOfARunningAndAPendingJobLeavesAlpsAtOnce() {
        long confirms = bridge.requests("CONFIRM");
        List<String> running = List.of(pbs.submit("daemon", PbsComplex.nodes(8), 300), pbs.submit("www-data", PbsComplex.nodes(8), 300));
        String pending = pbs.submit("bin", PbsComplex.nodes(4), 300);
        assertTrue(Host.await(Duration.ofMinutes(2), () -> running.stream().allMatch(j -> pbs.state(j).equals("R"))
                && bridge.requests("CONFIRM") >= confirms + 2), pbs.cmd("qstat", "-a").out());
        assertEquals("Q", pbs.state(pending));
        List<String> all = new ArrayList<>(running);
        all.add(pending);
        all.forEach(j -> pbs.cmd("qdel", j).ok());
        assertTrue(Host.await(Duration.ofMinutes(1), () -> pbs.queue().isEmpty()), "left: " + pbs.queue());
        assertTrue(Host.await(Duration.ofSeconds(30), () -> alpsReservations().isEmpty()), "ALPS holds " + alpsReservations());
        assertNoErrors();
    }

    /**
     * {@code qsig -s suspend} / {@code resume} of a running job: SWITCH OUT and IN of its reservation (pbs_mom polls
     * STATUS between); it runs on and leaves queue and ALPS when deleted.
     */
    @Test
    @Order(4)
    void aSuspendedJobIsSwitchedOutOfAlpsAndBackIn() {
        // runs until deleted: with pbs_mom's calls taking seconds each under load, a short job could end before
        // its suspend reached it, or at once after its resume, before the test saw it running again
        String job = pbs.submit("backup", PbsComplex.nodes(2), 600);
        // running once pbs_mom has confirmed and started it (it has a session); before, qsig is "invalid for state"
        assertTrue(Host.await(Duration.ofMinutes(2), () -> pbs.state(job).equals("R")
                && !pbs.attribute(job, "session_id").isEmpty()), pbs.job(job));
        long switches = bridge.requests("SWITCH");
        pbs.cmd("qsig", "-s", "suspend", job).ok();
        assertTrue(Host.await(Duration.ofSeconds(90), () -> pbs.state(job).equals("S")
                && bridge.requests("SWITCH") > switches), "SWITCH OUT: " + pbs.job(job) + bridge.stats().out());
        pbs.cmd("qsig", "-s", "resume", job).ok();
        assertTrue(Host.await(Duration.ofSeconds(90), () -> pbs.state(job).equals("R")
                && bridge.requests("SWITCH") > switches + 1), "SWITCH IN: " + pbs.job(job) + bridge.stats().out());
        pbs.cmd("qdel", job).ok();
        assertTrue(Host.await(Duration.ofMinutes(1), () -> pbs.queue().isEmpty()), "left: " + pbs.queue());
        assertTrue(Host.await(Duration.ofSeconds(30), () -> alpsReservations().isEmpty()), "ALPS holds " + alpsReservations());
        assertNoErrors();
    }

    private String alpsReservations() {
        return bridge.control("show").lines().filter(l -> l.startsWith("reservations"))
                .map(l -> l.substring("reservations".length()).strip()).findFirst().orElse("");
    }

    private void assertNoErrors() {
        assertEquals(List.of(), errors(pbs), "BASIL errors in pbs_mom's log");
    }

    /** The lines of pbs_mom's log that tell of a failed ALPS exchange. */
    static List<String> errors(PbsComplex pbs) {
        return pbs.momLog().lines().filter(l -> MOM_ERRORS.matcher(l).find()).toList();
    }
}
