package org.alpsbridge.ledger.store;

import java.nio.file.Path;
import org.junit.jupiter.api.io.TempDir;

/**
 * The contract on a real PostgreSQL started for the test run (skipped with the reason when absent).
 * Each test's ledger is replayed into SQLite: the journal moves between the dialects unchanged.
 */
class PostgresLedgerTest extends LedgerContractTest {

    @TempDir
    Path dir;
    private int n;

    @Override
    String newStoreUrl() {
        return PostgresServer.get().newDatabase();
    }

    @Override
    String replayTargetUrl() {
        return "sqlite:" + dir.resolve("replay-" + (++n) + ".db");
    }
}
