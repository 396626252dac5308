package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.Statement;
import java.util.List;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The contract on the embedded SQLite store, plus what only a file store can show. */
class SqliteLedgerTest extends LedgerContractTest {

    @TempDir
    Path dir;
    private int n;

    @Override
    String newStoreUrl() {
        return "sqlite:" + dir.resolve("ledger-" + (++n) + ".db");
    }

    private Path ledgerWithOneGrant(String name) {
        Path file = dir.resolve(name);
        try (Ledger l = Ledger.open("sqlite:" + file)) {
            l.addProject("bio", 7, null);
            l.grant("bio", Resource.CPU, 100, JAN, JUL, "x", null);
        }
        return file;
    }

    @Test
    void aReopenedLedgerKeepsEverything() {
        try (Ledger l = Ledger.open("sqlite:" + ledgerWithOneGrant("reopen.db"))) {
            assertEquals(100, l.balances("bio").get(0).available());
        }
    }

    @Test
    void aBalanceCacheThatDisagreesWithTheJournalIsRefusedAtOpen() throws Exception {
        Path file = ledgerWithOneGrant("tampered.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            s.execute("UPDATE allocation SET credited = credited + 1");
        }
        LedgerException e = assertThrows(LedgerException.class, () -> Ledger.open("sqlite:" + file));
        assertTrue(e.getMessage().contains("granted is 101 but the journal sums to 100"), e.getMessage());
    }

    @Test
    void aSqliteLedgerMovesToASiteWidePostgresqlByReplayingItsJournal() {
        ledger.reserve(reserve(1, "j1", 2, 32, 60));
        ledger.release(ReleaseRequest.of(1, 600, T.plusSeconds(600)));
        ledger.reserve(reserve(2, "j2", 1, 32, 60));
        try (Ledger site = Ledger.open(PostgresServer.get().newDatabase())) {
            assertEquals(List.of(), ledger.replayInto(site).problems());
            assertEquals(picture(ledger), picture(site));
            // the moved ledger carries on: the held job settles there
            assertEquals(State.SETTLED, site.release(ReleaseRequest.of(2, 60, T.plusSeconds(60))).state());
        }
    }

    @Test
    void theJournalCannotBeRewritten() throws Exception {
        Path file = ledgerWithOneGrant("journal.db");
        try (Connection c = DriverManager.getConnection("jdbc:sqlite:" + file); Statement s = c.createStatement()) {
            assertThrows(java.sql.SQLException.class, () -> s.execute("UPDATE entry SET amount = 1"));
            assertThrows(java.sql.SQLException.class, () -> s.execute("DELETE FROM entry"));
        }
    }
}
