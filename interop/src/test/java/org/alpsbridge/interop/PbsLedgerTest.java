package org.alpsbridge.interop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;

/**
 * The proxy's SQLite ledger in front of ALPS, driven by OpenPBS, whose RESERVE never names an account
 * ({@code account_name} of basil.h is never filled): each job is charged to the account PBS knows for it
 * ({@code qsub -A}, read with {@code qstat -f}), else to the project of its owner's primary group, and settled at
 * RELEASE. A project without allocation is refused FAILURE PERMANENT with source SYSTEM (pbs_mom would retry a
 * BACKEND one for ever): pbs_mom ends the job at once, never retried, and the proxy's on-deny command has put the
 * ledger's reason in the job's comment, which its owner reads with {@code qstat -xf}.
 */
@Order(7) // the class order: src/test/resources/junit-platform.properties
class PbsLedgerTest {

    @Test
    void jobsAreChargedToTheirPbsAccountElseTheirGroupsProjectAndARefusedJobEndsWithItsReason() throws Exception {
        Path prefix = Clients.openpbs();
        try (Bridge bridge = new Bridge("pbs-ledger", "xc30:8", List.of())) {
            String ledger = "sqlite:" + bridge.dir().resolve("ledger.db");
            // daemon's group (gid 1) is project ops, granted; bin's group (gid 2) is project dry, never granted
            bridge.alpsbridge("ledger", "--db", ledger, "project", "add", "ops", "--gid", "1").ok();
            bridge.alpsbridge("ledger", "--db", ledger, "grant", "ops", "--hours", "1000", "--from", "2020-01-01",
                    "--to", "2100-01-01").ok();
            bridge.alpsbridge("ledger", "--db", ledger, "project", "add", "dry", "--gid", "2").ok();
            bridge.proxyOptions(List.of("--ledger", ledger, "--ledger-cores-per-node", "32",
                    "--ledger-job-accounts", "qstat", "--ledger-time-limits", "none",
                    "--ledger-on-deny", "qalter -W comment={reason} {job}"));
            try (PbsComplex pbs = PbsComplex.start(prefix, bridge)) {
                String byGroup = pbs.submit("daemon", PbsComplex.nodes(1), 2);
                String byAccount = pbs.submit("www-data", PbsComplex.nodes(2), 2, "-A", "ops");
                String refused = pbs.submit("bin", PbsComplex.nodes(1), 2);
                List<String> all = List.of(byGroup, byAccount, refused);
                assertTrue(Host.await(Duration.ofMinutes(2), () -> all.stream().allMatch(j -> pbs.state(j).equals("F"))),
                        "queue: " + pbs.cmd("qstat", "-x").out() + "\n" + bridge.log());
                assertEquals("0", pbs.attribute(byGroup, "Exit_status"), pbs.job(byGroup));
                assertEquals("0", pbs.attribute(byAccount, "Exit_status"), pbs.job(byAccount));

                // the refused job ended at its first attempt, its reason in its comment
                String shown = pbs.job(refused);
                System.out.println("qstat -xf of the refused job:\n" + shown);
                assertEquals("1", pbs.attribute(refused, "run_count"), shown);
                assertTrue(pbs.attribute(refused, "comment").contains("ledger: "), shown);
                assertTrue(pbs.attribute(refused, "comment").contains("dry"), shown);
                long reserves = bridge.requests("RESERVE");
                Thread.sleep(10_000);
                assertEquals(reserves, bridge.requests("RESERVE"), "no RESERVE after the refusal");

                bridge.assertOpsChargedAndSettled(ledger, byAccount, byGroup, "qstat");
            }
        }
    }
}
