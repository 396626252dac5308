package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The proxy's SQLite ledger in front of ALPS, driven by Slurm 18.08, whose RESERVE never names an account: each
 * job is charged to the account Slurm knows for it ({@code sbatch --account}, read back with squeue), else to the
 * project of its owner's primary group, and settled at RELEASE. A project without allocation is refused: the
 * refusal is remembered, so slurmctld's retry on every pass does not reach the ledger again, and the proxy holds
 * the job with the reason as its comment, which its owner reads with {@code squeue -o %k} or
 * {@code scontrol show job}.
 */
@Order(2) // the class order: src/test/resources/junit-platform.properties
class SlurmLedgerTest {

    @Test
    void jobsAreChargedToTheSchedulersAccountElseTheirGroupsProjectAndARefusedJobIsHeldWithItsReason() throws Exception {
        Path prefix = Clients.slurm();
        Bridge bridge = null;
        CraySlurm slurm = null;
        try {
            // engine 5.0.x: Slurm speaks BASIL 1.2, whose inventories must carry router_id on every Node
            bridge = new Bridge("slurm-ledger", "xc30:8,engine=5.0.3", List.of());
            String ledger = "sqlite:" + bridge.dir().resolve("ledger.db");
            // daemon's group (gid 1) is project ops, granted; bin's group (gid 2) is project dry, never granted
            bridge.alpsbridge("ledger", "--db", ledger, "project", "add", "ops", "--gid", "1").ok();
            bridge.alpsbridge("ledger", "--db", ledger, "grant", "ops", "--hours", "1000", "--from", "2020-01-01",
                    "--to", "2100-01-01").ok();
            bridge.alpsbridge("ledger", "--db", ledger, "project", "add", "dry", "--gid", "2").ok();
            bridge.proxyOptions(List.of("--ledger", ledger, "--ledger-cores-per-node", "32",
                    "--ledger-job-accounts", "squeue", "--ledger-time-limits", "none",
                    "--ledger-on-deny", "scontrol update JobId={job} Priority=0 Comment={reason}",
                    "--orphan-jobs", "squeue -h -o %A"));
            bridge.proxyEnvironment(CraySlurm.environment(prefix, bridge));
            bridge.startProxy();
            slurm = CraySlurm.start(prefix, bridge);

            String byGroup = slurm.submit("daemon", "sleep 2", "-N1", "--time=10");
            // submitted held, released once the proxy's background reading of squeue has seen it (a job that starts
            // before that reading is charged to its owner's group: slurmctld cannot be asked during its RESERVE)
            String byAccount = slurm.submit("www-data", "sleep 2", "-N2", "--time=10", "--account=ops", "--hold");
            Thread.sleep(6_000);
            slurm.cmd("scontrol", "release", byAccount).ok();
            String refused = slurm.submit("bin", "sleep 2", "-N1", "--time=10");
            CraySlurm s = slurm;
            assertTrue(Host.await(Duration.ofMinutes(3), () -> s.state(byGroup).equals("GONE")
                    && s.state(byAccount).equals("GONE")), "queue: " + slurm.queue() + "\n" + bridge.log());

            // the refused job stays, held, its reason in its comment
            assertTrue(Host.await(Duration.ofSeconds(60), () -> s.cmd("squeue", "-h", "-j", refused, "-o", "%k").out()
                    .contains("ledger")), "comment: " + slurm.cmd("scontrol", "show", "job", refused).out());
            String shown = slurm.cmd("squeue", "-h", "-j", refused, "-o", "%T|%r|%k").out().strip();
            assertTrue(shown.startsWith("PENDING|JobHeldAdmin|ledger: "), shown);
            assertTrue(shown.contains("dry"), shown);
            long reservesBefore = bridge.requests("RESERVE");
            Thread.sleep(20_000); // slurmctld keeps scheduling; the held job is not offered again
            assertEquals(reservesBefore, bridge.requests("RESERVE"), "no RESERVE for a held job");

            bridge.assertOpsChargedAndSettled(ledger, byAccount, byGroup, "squeue");
            slurm.cmd("scancel", refused).ok();
        } finally {
            if (slurm != null) {
                slurm.close();
            }
            if (bridge != null) {
                bridge.close();
            }
        }
    }
}
