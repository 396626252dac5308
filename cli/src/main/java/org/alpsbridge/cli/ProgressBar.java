package org.alpsbridge.cli;

import java.io.PrintWriter;

/** A one-line progress bar on stderr for long runs; silent when not wanted, so pipes and logs stay clean. */
final class ProgressBar {

    private static final int WIDTH = 30;

    private final PrintWriter err;
    private final String label;
    private final int total;
    private final boolean enabled;
    private int lastDrawn = -1;

    ProgressBar(PrintWriter err, String label, int total, boolean enabled) {
        this.err = err;
        this.label = label;
        this.total = Math.max(1, total);
        this.enabled = enabled;
    }

    void update(int done) {
        if (!enabled) {
            return;
        }
        int filled = (int) ((long) Math.min(done, total) * WIDTH / total);
        if (filled == lastDrawn) {
            return;
        }
        lastDrawn = filled;
        err.print("\r" + label + " [" + "#".repeat(filled) + " ".repeat(WIDTH - filled) + "] " + done + "/" + total);
        err.flush();
    }

    void finish() {
        if (enabled && lastDrawn >= 0) {
            err.println();
            err.flush();
        }
    }
}
