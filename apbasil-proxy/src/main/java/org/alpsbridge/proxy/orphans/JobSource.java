package org.alpsbridge.proxy.orphans;

import java.io.IOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Set;

/**
 * Where the orphan detector learns which batch jobs the scheduler still has: the output of a command
 * such as {@code squeue -h -o %A} (one job id a line), or a file in the same format that a site's own
 * tooling keeps up to date.
 *
 * <p>A source that cannot answer throws: the detector then judges no reservation by its job, because an
 * empty list read from a dead slurmctld would make every reservation look orphaned.
 */
public interface JobSource {

    /** The ids of the jobs the scheduler considers live (pending, running or completing). */
    Set<String> liveJobIds() throws IOException;

    /** For logs and listings, e.g. {@code command: squeue -h -o %A}. */
    default String describe() {
        return "job source";
    }

    /**
     * Runs {@code commandLine} (split on white space, no shell: use a script for pipes or quoting) and
     * reads one job id per line, the first word of each non-blank line. A non-zero exit, output on a
     * line that is not a job id, or no exit within {@code timeout} is an error.
     */
    static JobSource command(String commandLine, Duration timeout) {
        return new JobLists.Command(commandLine, timeout);
    }

    /** Reads {@code path} in the same format at every call; a missing or unreadable file is an error. */
    static JobSource file(Path path) {
        return new JobLists.File(path);
    }
}
