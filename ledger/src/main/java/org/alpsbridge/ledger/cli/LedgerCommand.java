package org.alpsbridge.ledger.cli;

import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

/** {@code alpsbridge ledger}: the front door of this module's command line. */
@Command(name = "ledger",
        mixinStandardHelpOptions = true,
        description = {"The allocation ledger: projects, grants, reservations, balances.",
                "",
                "Amounts are in core-minutes (GPU-minutes for GPU allocations); grants are entered in hours.",
                "Dates are UTC: 2026-01-01 or 2026-01-01T12:00:00Z; allocation periods are [from, to)."},
        subcommands = {
                ProjectCommands.class,
                AdminCommands.Grant.class,
                AdminCommands.Credit.class,
                AdminCommands.Withdraw.class,
                AdminCommands.Transfer.class,
                AdminCommands.Adjust.class,
                AdminCommands.Refund.class,
                AdminCommands.Partition.class,
                EventCommands.Reserve.class,
                EventCommands.Confirm.class,
                EventCommands.Release.class,
                EventCommands.Sweep.class,
                ReportCommands.BalanceReport.class,
                ReportCommands.Holds.class,
                ReportCommands.Failures.class,
                ReportCommands.UsageReport.class,
                ReportCommands.Job.class,
                ReportCommands.Alerts.class,
                ReportCommands.Check.class,
                ReportCommands.Replay.class,
                SiteFactorCommand.class,
                SlurmSyncCommand.class,
                SlurmPartitionsCommand.class,
                BenchCommand.class
        },
        footer = {"",
                "The ledger: --db URL, else env ALPSBRIDGE_LEDGER=URL, else db=URL in /etc/alpsbridge/ledger.conf",
                "(env ALPSBRIDGE_LEDGER_CONFIG names another file); none of them is an error. URL: sqlite:PATH,",
                "jdbc:postgresql://HOST:PORT/DB?user=U&password=P, or http(s)://HOST:PORT for a ledger service.",
                "A PostgreSQL ledger, however named, takes pg_pool=, pg_group_writers= and pg_reconnect_seconds=",
                "from that file (connections, failover wait; the file's comments say what each means).",
                "",
                "Client settings for a ledger service (http(s)://), from the environment:",
                "  ALPSBRIDGE_LEDGER_AUTH=none     send no MUNGE credential (a service run with --auth none, labs only)",
                "  ALPSBRIDGE_MUNGE_SOCKET=PATH    munged's socket (default: libmunge's)",
                "  ALPSBRIDGE_LEDGER_TLS_CA=FILE   PEM CA that signed an https:// service's certificate",
                "",
                "Exit codes: 0 success; 1 failure or refused input (reason on stderr, nothing changed);",
                "2 usage error, or a RESERVE the ledger denied (reason on stderr)."})
public final class LedgerCommand {

    /**
     * The ledger every subcommand opens: {@code --db}, else env {@code ALPSBRIDGE_LEDGER}, else {@code db=} of
     * the site's {@code /etc/alpsbridge/ledger.conf}.
     */
    @Option(names = "--db", scope = ScopeType.INHERIT, paramLabel = "URL",
            description = {"Ledger to use: sqlite:PATH, jdbc:postgresql://HOST:PORT/DB?user=U&password=P, or",
                    "http(s)://HOST:PORT for a ledger service (alpsbridge ledger serve), as the caller's MUNGE identity.",
                    "Default: env ALPSBRIDGE_LEDGER, else db= in /etc/alpsbridge/ledger.conf (env",
                    "ALPSBRIDGE_LEDGER_CONFIG names another file); none of them is an error."})
    String db;

    /** The environment: the ledger's address and a ledger service's client settings (ALPSBRIDGE_*). */
    private final java.util.Map<String, String> environment;

    public LedgerCommand() {
        this(System.getenv());
    }

    /** The commands with {@code environment} for the process's (tests: a client of a service's private munged). */
    public LedgerCommand(java.util.Map<String, String> environment) {
        this.environment = environment;
    }

    /** The environment the commands read their settings from. */
    public java.util.Map<String, String> environment() {
        return environment;
    }

    /** The settings file as packaged in {@code /etc/alpsbridge/ledger.conf}, every key at its default. */
    public static String settingsTemplate() {
        return LedgerSettings.template();
    }

    /** What {@code --db} said, or null: for subcommands whose own settings come before the defaults below. */
    public String dbOption() {
        return db == null || db.isBlank() ? null : db;
    }

    /**
     * The ledger URL: {@code --db}, else the environment, else the site's settings file. None of them is an
     * error naming all three: a command that made a private empty ledger instead would answer every question
     * with nothing, and exit 0.
     */
    public String url() {
        return url(environment);
    }

    String url(java.util.Map<String, String> environment) {
        if (db != null && !db.isBlank()) {
            return checked("--db " + db, db);
        }
        String env = environment.get("ALPSBRIDGE_LEDGER");
        if (env != null && !env.isBlank()) {
            return checked("env ALPSBRIDGE_LEDGER=" + env, env);
        }
        String site = LedgerSettings.load(environment).db();
        if (site != null) {
            return site;
        }
        throw new LedgerException("no ledger given: give --db URL, set env ALPSBRIDGE_LEDGER=URL, or set db=URL in "
                + LedgerSettings.file(environment) + " (URL: " + LedgerSettings.URL_FORMS + ")");
    }

    /**
     * Opens {@code url} with the store settings of the site's file ({@code pg_pool=} etc.) when it is a PostgreSQL
     * ledger, whichever way it was named; the file is not read for the others, which take none of them.
     */
    static Ledger open(String url, boolean verify) {
        return open(url, verify, System.getenv());
    }

    static Ledger open(String url, boolean verify, java.util.Map<String, String> environment) {
        boolean postgresql = url != null && url.strip().matches("(?i)(jdbc:)?postgres(ql)?:.*");
        return Ledger.open(url, verify, postgresql ? LedgerSettings.load(environment).store() : java.util.Map.of(),
                environment);
    }

    private static String checked(String source, String url) {
        String problem = LedgerSettings.urlProblem(url);
        if (problem != null) {
            throw new LedgerException(source + ": " + problem);
        }
        return url;
    }
}
