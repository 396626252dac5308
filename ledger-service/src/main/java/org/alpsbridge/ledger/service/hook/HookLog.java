package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.LocalDateTime;

/**
 * Where the hooks say what they did: stderr, and a log file. Slurm 22.05 drops what a PrologSlurmctld or
 * EpilogSlurmctld prints (slurmscriptd keeps only the exit status), so by default each line is appended to
 * slurmctld's own log file ({@code SlurmctldLogFile} of slurm.conf), stamped as slurmctld stamps its lines,
 * in one write (appends of one line from many processes do not interleave).
 */
final class HookLog {

    private final PrintStream err;
    private final Path file;

    HookLog(PrintStream err, Path file) {
        this.err = err;
        this.file = file;
    }

    /**
     * The file a {@code log_file} setting names: a path, {@code none}, or {@code slurmctld} (the default): the
     * {@code SlurmctldLogFile} of {@code slurmConf} (else {@code SLURM_CONF}, else /etc/slurm/slurm.conf), or
     * none when slurmctld logs to syslog.
     */
    static Path resolve(String setting, String slurmConf, String envSlurmConf) {
        if (setting == null || setting.isBlank() || setting.equals("slurmctld")) {
            String conf = slurmConf != null && !slurmConf.isBlank() ? slurmConf
                    : envSlurmConf != null && !envSlurmConf.isBlank() ? envSlurmConf : "/etc/slurm/slurm.conf";
            try {
                for (String line : Files.readAllLines(Path.of(conf))) {
                    String l = line.strip();
                    if (l.regionMatches(true, 0, "SlurmctldLogFile=", 0, 17)) {
                        String v = l.substring(17).replaceFirst("\\s*#.*", "").strip();
                        return v.isEmpty() ? null : Path.of(v);
                    }
                }
            } catch (IOException | RuntimeException e) {
                return null;
            }
            return null;
        }
        return setting.equals("none") ? null : Path.of(setting);
    }

    void say(String line) {
        err.println(line);
        if (file == null) {
            return;
        }
        LocalDateTime t = LocalDateTime.now();
        String stamped = "[" + t.getYear() + "-" + two(t.getMonthValue()) + "-" + two(t.getDayOfMonth()) + "T"
                + two(t.getHour()) + ":" + two(t.getMinute()) + ":" + two(t.getSecond()) + "."
                + (t.getNano() / 1_000_000 + 1000 + "").substring(1) + "] " + line.replace('\n', ' ') + "\n";
        try {
            Files.write(file, stamped.getBytes(StandardCharsets.UTF_8), StandardOpenOption.CREATE,
                    StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        } catch (IOException e) {
            err.println("ledger hook: cannot append to " + file + ": " + e);
        }
    }

    private static String two(int n) {
        return n < 10 ? "0" + n : Integer.toString(n);
    }
}
