package org.alpsbridge.ledger.cli;

import java.io.PrintWriter;
import java.time.Instant;
import java.time.LocalDate;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.concurrent.Callable;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/**
 * What every ledger subcommand shares: open the ledger named by {@code --db}, run, close; a refused
 * input or an unreachable store prints its reason on stderr and exits 1.
 */
abstract class LedgerTask implements Callable<Integer> {

    /** Exit code of a RESERVE the ledger denied (and of usage errors, picocli's default). */
    static final int DENIED = 2;

    @Spec
    CommandSpec spec;

    PrintWriter out() {
        return spec.commandLine().getOut();
    }

    PrintWriter err() {
        return spec.commandLine().getErr();
    }

    @Override
    public final Integer call() {
        try (Ledger ledger = LedgerCommand.open(root().url(), verifyOnOpen(), root().environment())) {
            int code = run(ledger);
            out().flush();
            return code;
        } catch (LedgerException e) {
            err().println("ledger " + spec.name() + ": " + e.getMessage());
            err().flush();
            return 1;
        }
    }

    abstract int run(Ledger ledger);

    /** The environment the ledger command was given (its settings file, its service client's settings). */
    java.util.Map<String, String> environment() {
        return root().environment();
    }

    /** Whether opening refuses a ledger whose balances disagree with its journal (all but {@code check}). */
    boolean verifyOnOpen() {
        return true;
    }

    private LedgerCommand root() {
        Object cmd = spec.root().userObject();
        if (cmd instanceof LedgerCommand l) {
            return l;
        }
        for (var c = spec.commandLine(); c != null; c = c.getParent()) {
            if (c.getCommand() instanceof LedgerCommand l) {
                return l;
            }
        }
        throw new IllegalStateException("ledger subcommand outside 'ledger'");
    }

    /** {@code 2026-01-01} (UTC midnight) or an ISO instant; null or "now" is now. */
    static Instant time(String text) {
        if (text == null || text.isBlank() || text.equals("now")) {
            return Instant.now();
        }
        try {
            if (text.length() == 10) {
                return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
            }
            return Instant.parse(text);
        } catch (DateTimeParseException e) {
            throw new LedgerException("'" + text + "' is not a date (2026-01-01) or UTC instant (2026-01-01T12:00:00Z)");
        }
    }

    /** Exactly one of hours (×60) and minutes. */
    static long minutes(Long hours, Long minutes) {
        if ((hours == null) == (minutes == null)) {
            throw new LedgerException("give exactly one of --hours and --minutes");
        }
        return hours != null ? org.alpsbridge.ledger.cost.Cost.hoursToMinutes(hours) : minutes;
    }
}
