package org.alpsbridge.proxy.orphans;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/** Runs {@code apkill -9 APID}: the second half of a safe release. */
final class Apkill {

    private final Path program;
    private final Duration timeout;

    Apkill(Path program, Duration timeout) {
        this.program = program;
        this.timeout = timeout;
    }

    ReleaseOutcome.Kill kill(long apid) {
        try {
            Process p = new ProcessBuilder(program.toString(), "-9", Long.toString(apid))
                    .redirectErrorStream(true).start();
            p.getOutputStream().close();
            if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                return new ReleaseOutcome.Kill(apid, -1, program + " gave no answer within " + timeout.toMillis() + " ms");
            }
            String out = new String(p.getInputStream().readNBytes(4096), StandardCharsets.UTF_8).strip();
            return new ReleaseOutcome.Kill(apid, p.exitValue(), p.exitValue() == 0 ? "" : out.isEmpty() ? "exit " + p.exitValue() : out);
        } catch (IOException e) {
            return new ReleaseOutcome.Kill(apid, -1, "cannot run " + program + ": " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return new ReleaseOutcome.Kill(apid, -1, "interrupted");
        }
    }
}
