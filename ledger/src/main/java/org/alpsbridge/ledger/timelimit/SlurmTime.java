package org.alpsbridge.ledger.timelimit;

import java.util.Optional;
import org.alpsbridge.ledger.LedgerException;

/**
 * Slurm's text for durations (time limits, time used). A class of its own, without logging, so that the
 * Slurm hooks, which start a JVM per call, can parse a time without initialising a logging framework.
 */
public final class SlurmTime {

    private SlurmTime() {
    }

    /**
     * Parses a Slurm time ({@code squeue %l}): {@code MM}, {@code MM:SS}, {@code HH:MM:SS},
     * {@code D-HH}, {@code D-HH:MM}, {@code D-HH:MM:SS}. {@code UNLIMITED}, {@code NOT_SET} and
     * {@code INVALID} have no finite limit: empty.
     *
     * @throws LedgerException on anything else
     */
    public static Optional<Long> parse(String text) {
        String t = text == null ? "" : text.strip();
        if (t.isEmpty() || t.equals("UNLIMITED") || t.equals("NOT_SET") || t.equals("INVALID")
                || t.equals("Partition_Limit")) {
            return Optional.empty();
        }
        try {
            long days = 0;
            String rest = t;
            int dash = t.indexOf('-');
            boolean withDays = dash >= 0;
            if (withDays) {
                days = Long.parseLong(t.substring(0, dash));
                rest = t.substring(dash + 1);
            }
            String[] p = rest.split(":", -1);
            long h = 0;
            long m = 0;
            long s = 0;
            if (withDays) {
                h = Long.parseLong(p[0]);
                m = p.length > 1 ? Long.parseLong(p[1]) : 0;
                s = p.length > 2 ? Long.parseLong(p[2]) : 0;
                if (p.length > 3) {
                    throw new NumberFormatException();
                }
            } else if (p.length == 1) {
                m = Long.parseLong(p[0]);
            } else if (p.length == 2) {
                m = Long.parseLong(p[0]);
                s = Long.parseLong(p[1]);
            } else if (p.length == 3) {
                h = Long.parseLong(p[0]);
                m = Long.parseLong(p[1]);
                s = Long.parseLong(p[2]);
            } else {
                throw new NumberFormatException();
            }
            if (days < 0 || h < 0 || m < 0 || s < 0) {
                throw new NumberFormatException();
            }
            return Optional.of(Math.addExact(Math.addExact(Math.multiplyExact(days, 86_400L),
                    Math.multiplyExact(h, 3_600L)), Math.addExact(Math.multiplyExact(m, 60L), s)));
        } catch (NumberFormatException | ArithmeticException e) {
            throw new LedgerException("'" + text + "' is not a Slurm time limit ([D-]HH:MM:SS, MM:SS or MM)");
        }
    }
}
