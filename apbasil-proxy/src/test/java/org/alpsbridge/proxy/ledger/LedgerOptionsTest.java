package org.alpsbridge.proxy.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;

/** What the proxy does with a job its ledger refuses when the site said nothing: the safe action for its scheduler. */
class LedgerOptionsTest {

    @Command
    static final class Holder {
        @Mixin
        LedgerOptions ledger = new LedgerOptions();
    }

    private static LedgerOptions parse(String... args) {
        Holder h = new Holder();
        new CommandLine(h).parseArgs(args);
        return h.ledger;
    }

    @Test
    void slurmJobsAreHeldWithTheirReasonByDefault() {
        assertEquals(List.of("scontrol", "update", "JobId={job}", "Priority=0", "Comment={reason}"),
                parse("--ledger", "sqlite:x").onDenyCommand());
    }

    @Test
    void openPbsFailsTheJobItselfSoNothingRunsByDefault() {
        assertEquals(List.of(), parse("--ledger-job-accounts", "qstat").onDenyCommand());
    }

    @Test
    void withoutAKnownSchedulerTheSiteMustSayAndIsToldWhat() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("--ledger-job-accounts", "none").onDenyCommand());
        assertTrue(e.getMessage().contains("needs --ledger-on-deny"), e.getMessage());
        assertTrue(e.getMessage().contains("--ledger-on-deny none"), e.getMessage());
        assertEquals(List.of(), parse("--ledger-job-accounts", "none", "--ledger-on-deny", "none").onDenyCommand());
    }

    @Test
    void aGivenCommandWins() {
        assertEquals(List.of("qalter", "-W", "comment={reason}", "{job}"),
                parse("--ledger-job-accounts", "qstat", "--ledger-on-deny", "qalter -W comment={reason} {job}").onDenyCommand());
    }

    @Test
    void storeSettingsReachTheLedgerAndABadOneIsRefusedByName(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) {
        String url = "sqlite:" + dir.resolve("l.db");
        try (org.alpsbridge.ledger.Ledger l = parse("--ledger", url, "--ledger-store", "pg_pool=8").open()) {
            assertTrue(l != null);
        }
        Exception bad = assertThrows(org.alpsbridge.ledger.LedgerException.class,
                () -> parse("--ledger", url, "--ledger-store", "pg_pool=0").open());
        assertTrue(bad.getMessage().contains("pg_pool=0"), bad.getMessage());
        Exception unknown = assertThrows(org.alpsbridge.ledger.LedgerException.class,
                () -> parse("--ledger", url, "--ledger-store", "pg_pools=4").open());
        assertTrue(unknown.getMessage().contains("unknown ledger store setting 'pg_pools'"), unknown.getMessage());
    }
}
