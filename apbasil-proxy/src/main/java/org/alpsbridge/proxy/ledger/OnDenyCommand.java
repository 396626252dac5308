package org.alpsbridge.proxy.ledger;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One run of {@code --ledger-on-deny} for a refused job, and what an operator reads when it fails: the command, how it
 * ended, what it printed (the first {@link #MAX_OUTPUT} bytes) and what to check. A failed hold leaves the job pending,
 * asked for again on every scheduling pass, so the line must say enough to fix it without running it by hand first.
 */
final class OnDenyCommand {

    /** What of the command's output goes into the log line: enough for an error message, never a flood. */
    static final int MAX_OUTPUT = 1024;
    private static final int MAX_SHOWN_COMMAND = 200;

    private OnDenyCommand() {
    }

    /**
     * Runs {@code command} (stdin closed, stdout and stderr together) for at most {@code timeout}.
     *
     * @return null when it exited 0, else the line to log
     */
    static String run(List<String> command, String batchId, Duration timeout) throws InterruptedException {
        Process p;
        try {
            p = new ProcessBuilder(command).redirectErrorStream(true).start();
        } catch (IOException e) {
            return "cannot run the on-deny command for job " + batchId + " (" + shown(command) + "): " + e.getMessage()
                    + "; " + hint(command);
        }
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        Thread reader = new Thread(() -> keepHead(p.getInputStream(), printed), "ledger-on-deny-output");
        reader.setDaemon(true);
        reader.start();
        try {
            p.getOutputStream().close();
        } catch (IOException e) {
            // it exited before reading: its output says why
        }
        boolean ended = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!ended) {
            p.destroyForcibly();
        }
        reader.join(1_000);
        if (ended && p.exitValue() == 0) {
            return null;
        }
        String output;
        synchronized (printed) {
            // one log line, whatever it printed: lines joined, other control characters shown as ?
            output = printed.toString(StandardCharsets.UTF_8).strip().replace("\n", " | ").replaceAll("\\p{Cntrl}", "?");
        }
        return "on-deny command for job " + batchId + " (" + shown(command) + ") "
                + (ended ? "exited " + p.exitValue() : "took longer than " + timeout.toSeconds() + " s and was killed")
                + (output.isEmpty() ? ", printing nothing" : ", printing: " + output)
                + "; the job is not held and is asked for again on every pass: " + hint(command);
    }

    private static String hint(List<String> command) {
        String program = command.isEmpty() ? "" : command.get(0);
        return "check that " + program + " is on the proxy's PATH, that the proxy's user may run it, and that it"
                + " reaches the scheduler" + (program.endsWith("scontrol")
                ? " (as that user: scontrol ping; SLURM_CONF in /etc/default/alpsbridge-proxy if slurm.conf is elsewhere)"
                : "");
    }

    /** The command as typed, cut: the reason it carries can be long. */
    private static String shown(List<String> command) {
        String s = String.join(" ", command);
        return s.length() <= MAX_SHOWN_COMMAND ? s : s.substring(0, MAX_SHOWN_COMMAND) + "...";
    }

    /** The first {@link #MAX_OUTPUT} bytes into {@code head}; the rest read and dropped, so the child never blocks. */
    private static void keepHead(InputStream in, ByteArrayOutputStream head) {
        byte[] buf = new byte[4096];
        try (in) {
            for (int n; (n = in.read(buf)) >= 0; ) {
                synchronized (head) {
                    head.write(buf, 0, Math.max(0, Math.min(n, MAX_OUTPUT - head.size())));
                }
            }
        } catch (IOException e) {
            // the process was killed: what it printed so far is what there is
        }
    }
}
