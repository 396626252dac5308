package org.alpsbridge.ledger.cli;

import java.nio.file.Path;
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
                BenchCommand.class
        },
        footer = {"",
                "Exit codes: 0 success; 1 failure or refused input (reason on stderr, nothing changed);",
                "2 usage error, or a RESERVE the ledger denied (reason on stderr)."})
public final class LedgerCommand {

    /**
     * The ledger every subcommand opens: {@code --db}, else env {@code ALPSBRIDGE_LEDGER}, else {@code db=} of
     * the site's {@code /etc/alpsbridge/ledger.conf}, else the SQLite file
     * {@code $XDG_DATA_HOME/alpsbridge/ledger.db} ({@code ~/.local/share/alpsbridge/ledger.db}).
     */
    @Option(names = "--db", scope = ScopeType.INHERIT, paramLabel = "URL",
            description = {"Ledger to use: sqlite:PATH, jdbc:postgresql://HOST:PORT/DB?user=U&password=P, or",
                    "http://HOST:PORT for a ledger service (alpsbridge ledger serve), as the caller's MUNGE identity.",
                    "Default: env ALPSBRIDGE_LEDGER, else db= in /etc/alpsbridge/ledger.conf (env",
                    "ALPSBRIDGE_LEDGER_CONFIG names another file), else sqlite:$XDG_DATA_HOME/alpsbridge/ledger.db",
                    "(~/.local/share/alpsbridge/ledger.db)."})
    String db;

    /** The settings file as packaged in {@code /etc/alpsbridge/ledger.conf}, every key at its default. */
    public static String settingsTemplate() {
        return LedgerSettings.template();
    }

    /** What {@code --db} said, or null: for subcommands whose own settings come before the defaults below. */
    public String dbOption() {
        return db == null || db.isBlank() ? null : db;
    }

    /** The ledger URL: {@code --db}, else the environment, the site's settings file, the per-user file. */
    public String url() {
        if (db != null && !db.isBlank()) {
            return db;
        }
        String env = System.getenv("ALPSBRIDGE_LEDGER");
        if (env != null && !env.isBlank()) {
            return env;
        }
        String site = LedgerSettings.load().db();
        if (site != null) {
            return site;
        }
        String xdg = System.getenv("XDG_DATA_HOME");
        Path base = xdg != null && !xdg.isBlank() ? Path.of(xdg)
                : Path.of(System.getProperty("user.home"), ".local", "share");
        Path file = base.resolve("alpsbridge").resolve("ledger.db");
        try {
            java.nio.file.Files.createDirectories(file.getParent());
        } catch (java.io.IOException e) {
            throw new org.alpsbridge.ledger.LedgerException("cannot create " + file.getParent() + ": " + e.getMessage());
        }
        return "sqlite:" + file;
    }
}
