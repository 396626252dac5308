package org.alpsbridge.ledger.store;

/** The contract on a real PostgreSQL started for the test run (skipped with the reason when absent). */
class PostgresLedgerTest extends LedgerContractTest {

    @Override
    String newStoreUrl() {
        return PostgresServer.get().newDatabase();
    }
}
