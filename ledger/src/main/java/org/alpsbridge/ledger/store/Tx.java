package org.alpsbridge.ledger.store;

import java.sql.Connection;
import java.sql.SQLException;

/** One unit of work on a connection; the executor owns the transaction around it. */
@FunctionalInterface
interface Tx<T> {
    T apply(Connection c) throws SQLException;
}
