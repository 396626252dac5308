package org.alpsbridge.proxy.ledger;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Whom to charge a RESERVE that names no {@code account_name} — neither Slurm 18.08's select/alps nor OpenPBS's
 * pbs_mom ever fills it. First the account the scheduler knows for the job (Slurm: {@code %a} of squeue, read in
 * the background by {@link SlurmJobTable}, since slurmctld holds its locks while it waits for RESERVE; OpenPBS:
 * {@code Account_Name} of {@code qstat -f ID}), else the job owner's primary Unix group ({@code id -g
 * USER}, through the host's name service), whose project the ledger knows by gid (as HADM ties a workgroup to
 * its gid). A lookup that fails, times out or prints nothing means "unknown", never an error.
 */
public final class JobAccounts {

    private static final Logger log = LoggerFactory.getLogger(JobAccounts.class);
    private static final long TIMEOUT_MS = 5_000;
    private static final Pattern QSTAT_ACCOUNT = Pattern.compile("(?m)^\\s*Account_Name\\s*=\\s*(\\S+)\\s*$");
    /** Job ids and user names handed to a command line: nothing a shell or the command could misread. */
    private static final Pattern SAFE = Pattern.compile("[0-9A-Za-z_.\\-\\[\\]@]+");

    /** One lookup: a key (batch id, user name) to its answer, empty when unknown. */
    @FunctionalInterface
    interface Lookup {
        Optional<String> find(String key);
    }

    private final String description;
    private final Lookup scheduler;
    private final Lookup primaryGroup;

    JobAccounts(String description, Lookup scheduler, Lookup primaryGroup) {
        this.description = description;
        this.scheduler = scheduler;
        this.primaryGroup = primaryGroup;
    }

    /**
     * By name: {@code squeue} (Slurm), {@code qstat} (OpenPBS), or {@code none} (the owner's group only); each
     * falls back to the owner's primary group.
     *
     * @throws IllegalArgumentException for any other name
     */
    public static JobAccounts named(String source) {
        return named(source, null);
    }

    /** As {@link #named(String)}, {@code squeue} reading the given table (a new one when null). */
    static JobAccounts named(String source, SlurmJobTable table) {
        Lookup groups = user -> run(List.of("id", "-g", "--", user));
        return switch (source) {
            case "squeue" -> {
                SlurmJobTable jobs = table != null ? table : SlurmJobTable.squeue();
                yield new JobAccounts("squeue", jobs::account, groups);
            }
            case "qstat" -> new JobAccounts("qstat", job -> run(List.of("qstat", "-f", job)).flatMap(out -> {
                Matcher m = QSTAT_ACCOUNT.matcher(out);
                return m.find() ? Optional.of(m.group(1)) : Optional.empty();
            }), groups);
            case "none" -> new JobAccounts("none", job -> Optional.empty(), groups);
            default -> throw new IllegalArgumentException("job accounts come from squeue, qstat or none, not '" + source + "'");
        };
    }

    /** The account the scheduler knows for this job, if any. */
    Optional<String> schedulerAccount(String batchId) {
        if (batchId == null || !SAFE.matcher(batchId).matches()) {
            return Optional.empty();
        }
        return scheduler.find(batchId).map(String::strip).filter(a -> !a.isEmpty());
    }

    /** The primary gid of a user, if the name service knows the user. */
    OptionalInt primaryGid(String user) {
        if (user == null || !SAFE.matcher(user).matches()) {
            return OptionalInt.empty();
        }
        Optional<String> gid = primaryGroup.find(user).map(String::strip);
        try {
            return gid.isPresent() ? OptionalInt.of(Integer.parseInt(gid.get())) : OptionalInt.empty();
        } catch (NumberFormatException e) {
            return OptionalInt.empty();
        }
    }

    /** The first line of a command's output (all of it for qstat), empty if it fails, prints nothing or hangs. */
    private static Optional<String> run(List<String> command) {
        java.nio.file.Path out = null;
        try {
            // Output to a file, not a pipe: a command that hangs with its output open cannot block this thread.
            out = java.nio.file.Files.createTempFile("alpsbridge-account", ".out");
            Process p = new ProcessBuilder(new ArrayList<>(command)).redirectError(ProcessBuilder.Redirect.DISCARD)
                    .redirectOutput(out.toFile()).start();
            p.getOutputStream().close();
            if (!p.waitFor(TIMEOUT_MS, TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                log.warn("'{}' took longer than {} ms", String.join(" ", command), TIMEOUT_MS);
                return Optional.empty();
            }
            String text = java.nio.file.Files.readString(out, StandardCharsets.UTF_8).strip();
            if (p.exitValue() != 0 || text.isEmpty()) {
                return Optional.empty();
            }
            return Optional.of(command.get(0).equals("qstat") ? text : text.lines().findFirst().orElse(""));
        } catch (IOException e) {
            log.warn("cannot run '{}': {}", String.join(" ", command), e.getMessage());
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        } finally {
            if (out != null) {
                out.toFile().delete();
            }
        }
    }

    @Override
    public String toString() {
        return description;
    }
}
