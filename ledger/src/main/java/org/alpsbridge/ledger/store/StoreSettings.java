package org.alpsbridge.ledger.store;

import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.settings.Setting;
import org.alpsbridge.settings.SettingsFile;

/**
 * The PostgreSQL store's settings, declared once: every settings file of a program that opens a store lists
 * {@link #ALL} among its keys ({@code ledger.conf}, the ledger service's), and hands their values to
 * {@link org.alpsbridge.ledger.Ledger#open(String, boolean, Map)}. A SQLite store takes none of them.
 */
public final class StoreSettings {

    /**
     * Fewer write connections than callers is what makes events share commits: with one connection per caller
     * every event waited for a WAL flush of its own (16 callers on 16 connections: 1.0 event per commit and
     * 0.3–0.5 of pgbench's TPS on 2 cores; on 8 connections 1.7 per commit and 0.7–0.9; on 4, 3.0 per commit and
     * about 0.9, issue 21). A transaction applies its events one round trip after another, so 4 of them still
     * carry thousands of events per second.
     */
    public static final Setting PG_POOL = whole("pg_pool", "4", 1, "PostgreSQL write connections, i.e. transactions"
            + " in progress at once (read connections: as many, at least 16, opened as needed); fewer than callers is"
            + " what lets job events share a commit");
    /** The second prepares while the first commits, and takes the allocation's lock as soon as that commit is done. */
    public static final Setting PG_GROUP_WRITERS = whole("pg_group_writers", "2", 1, "PostgreSQL transactions of"
            + " one project in progress at once (the second prepares while the first commits)");
    /** Long enough for a standby to be promoted. */
    public static final Setting PG_RECONNECT_SECONDS = whole("pg_reconnect_seconds", "30", 0, "how long a lost"
            + " PostgreSQL server (or its standby taking over) is waited for, tried every 200 ms, before calls fail as"
            + " unavailable (TRANSIENT: retry with the same request)");

    /** Every key, in the order the settings files list them. */
    public static final List<Setting> ALL = List.of(PG_POOL, PG_GROUP_WRITERS, PG_RECONNECT_SECONDS);

    private StoreSettings() {
    }

    /** A whole number of {@code least} or more. */
    private static Setting whole(String name, String defaultValue, int least, String help) {
        return Setting.checked(name, defaultValue, help, v -> {
            try {
                if (Integer.parseInt(v) >= least) {
                    return null;
                }
            } catch (NumberFormatException e) {
                // said below
            }
            return name + "=" + v + ": expected a whole number of " + least + " or more";
        });
    }

    /** What the PostgreSQL executor is given: the values of {@link #ALL}. */
    record Postgres(int writers, int groupWriters, long reconnectSeconds) {

        static final Postgres DEFAULTS = of(Map.of());

        /**
         * @param values by key (of {@link #ALL}); a key not given takes its default
         * @throws LedgerException for a key not among {@link #ALL}, or a value its setting refuses
         */
        static Postgres of(Map<String, String> values) {
            for (Map.Entry<String, String> e : values.entrySet()) {
                Setting s = SettingsFile.find(ALL, e.getKey());
                if (s == null) {
                    throw new LedgerException("unknown ledger store setting '" + e.getKey() + "' (known: "
                            + ALL.stream().map(Setting::name).collect(java.util.stream.Collectors.joining(", ")) + ")");
                }
                String problem = s.problem(e.getValue());
                if (problem != null) {
                    throw new LedgerException(problem);
                }
            }
            return new Postgres(value(values, PG_POOL), value(values, PG_GROUP_WRITERS), value(values, PG_RECONNECT_SECONDS));
        }

        private static int value(Map<String, String> values, Setting s) {
            return Integer.parseInt(values.getOrDefault(s.name(), s.defaultValue()));
        }
    }
}
