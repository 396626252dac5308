package org.alpsbridge.ledger.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.List;
import org.alpsbridge.ledger.JournalEntry.Kind;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Resource;
import org.junit.jupiter.api.Test;

/**
 * Issue 21: on PostgreSQL the settlements of one project that share a transaction append their journal
 * entries in one statement ({@link Journal#appends}). That statement must leave the journal and the balances
 * exactly as appending them one after another does: each allocation's sequence gapless, the entries numbered
 * in the settlements' order, each balance column moved by its entries.
 */
class SharedAppendTest {

    /** The holds, appended one by one before each test. */
    private static final List<Journal.Append> HOLDS = List.of(
            hold(1, "c/b1/1/1", 100), hold(2, "c/b2/2/1", 30), hold(1, "c/b3/3/1", 9), hold(2, "c/b4/4/1", 5));
    /** Their settlements, in one transaction. */
    private static final List<Journal.Append> APPENDS = List.of(
            new Journal.Append(1, "c/b1/1/1", "release", 1_000, List.of(new Journal.Move(Kind.SETTLE, -50, null),
                    new Journal.Move(Kind.RETURN, 100, null))),
            new Journal.Append(2, "c/b2/2/1", "release", 1_001, List.of(new Journal.Move(Kind.RETURN, 30, null))),
            new Journal.Append(1, "c/b3/3/1", "release", 1_002, List.of(new Journal.Move(Kind.SETTLE, -7,
                    "NODE_FAILURE"), new Journal.Move(Kind.RETURN, 9, null))),
            new Journal.Append(2, "c/b4/4/1", "release", 1_003, List.of(new Journal.Move(Kind.SETTLE, -1, null),
                    new Journal.Move(Kind.RETURN, 5, null))));

    private static Journal.Append hold(long allocation, String key, long amount) {
        return new Journal.Append(allocation, key, "reserve", 900, List.of(new Journal.Move(Kind.HOLD, -amount, null)));
    }

    @Test
    void settlementsSharingOneStatementAppendAsOneByOne() throws SQLException {
        String shared = ledgerWithTwoAllocations();
        String oneByOne = ledgerWithTwoAllocations();
        Journal journal = new Journal(Dialect.POSTGRESQL);
        try (Connection c = DriverManager.getConnection(shared)) {
            c.setAutoCommit(false);
            journal.appends.applyAll(c, APPENDS);
            c.commit();
        }
        try (Connection c = DriverManager.getConnection(oneByOne)) {
            c.setAutoCommit(false);
            for (Journal.Append a : APPENDS) {
                journal.append(c, a.allocationId(), a.key(), a.actor(), a.at(), null, a.moves());
            }
            c.commit();
        }
        assertEquals(rows(oneByOne), rows(shared));
    }

    @Test
    void aSharedStatementOfAnUnknownAllocationKeepsNothing() throws SQLException {
        String url = ledgerWithTwoAllocations();
        String before = rows(url);
        Journal journal = new Journal(Dialect.POSTGRESQL);
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            List<Journal.Append> withUnknown = new java.util.ArrayList<>(APPENDS);
            withUnknown.add(new Journal.Append(99, "c/b5/5/1", "release", 1_004, List.of(new Journal.Move(Kind.RETURN,
                    1, null))));
            LedgerException e = assertThrows(LedgerException.class, () -> journal.appends.applyAll(c, withUnknown));
            assertEquals("journal: 7 of 8 entries appended for 5 settlements; nothing of them was kept, each runs again"
                    + " on its own", e.getMessage());
            c.rollback();
        }
        assertEquals(before, rows(url));
    }

    /** A fresh PostgreSQL ledger with allocations 1 (project hot) and 2 (project cold), each granted, with {@link #HOLDS}. */
    private static String ledgerWithTwoAllocations() {
        String url = PostgresServer.get().newDatabase();
        try (Ledger ledger = ConcurrencyTest.fresh(url, 1_000_000)) {
            ledger.addProject("cold", 2, null);
            ledger.grant("cold", Resource.CPU, 500_000, ConcurrencyTest.T.minusSeconds(60),
                    ConcurrencyTest.T.plusSeconds(86_400), "r", null);
        }
        Journal journal = new Journal(Dialect.POSTGRESQL);
        try (Connection c = DriverManager.getConnection(url)) {
            c.setAutoCommit(false);
            for (Journal.Append a : HOLDS) {
                journal.append(c, a.allocationId(), a.key(), a.actor(), a.at(), null, a.moves());
            }
            c.commit();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return url;
    }

    /** The allocations' balance columns and sequences, and every journal entry but its global seq (and a grant's time). */
    static final List<String> BALANCES_AND_JOURNAL = List.of(
            "SELECT id, credited, held, settled, last_seq FROM allocation ORDER BY id",
            "SELECT allocation_id, allocation_seq, kind, amount, rkey, actor, reason,"
                    + " CASE WHEN rkey IS NULL THEN 0 ELSE created_at END FROM entry ORDER BY allocation_id, allocation_seq");

    private static String rows(String url) throws SQLException {
        return rows(url, BALANCES_AND_JOURNAL);
    }

    /** The rows of {@code queries} on {@code url}, one line each, to compare two ledgers by. */
    static String rows(String url, List<String> queries) throws SQLException {
        StringBuilder out = new StringBuilder();
        try (Connection c = DriverManager.getConnection(url)) {
            for (String query : queries) {
                try (var rs = c.createStatement().executeQuery(query)) {
                    int columns = rs.getMetaData().getColumnCount();
                    while (rs.next()) {
                        for (int i = 1; i <= columns; i++) {
                            out.append(rs.getString(i)).append(i < columns ? " " : "\n");
                        }
                    }
                }
            }
        }
        return out.toString();
    }
}
