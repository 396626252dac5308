package org.alpsbridge.proxy.orphans;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/** The two {@link JobSource}s and the job-list format they share. */
final class JobLists {

    /** Slurm job ids (also {@code 123_4}, {@code 123+1}) and PBS/Torque ids such as {@code 123.server}. */
    private static final Pattern JOB_ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._+\\-\\[\\]]*");
    private static final int MAX_OUTPUT = 64 * 1024 * 1024;

    private JobLists() {
    }

    /** One id per line, the first word of each non-blank line; anything else names the line and fails. */
    static Set<String> parse(String text, String origin) throws IOException {
        Set<String> ids = new LinkedHashSet<>();
        String[] lines = text.split("\r?\n");
        for (int i = 0; i < lines.length; i++) {
            String line = lines[i].strip();
            if (line.isEmpty()) {
                continue;
            }
            String first = line.split("\\s+", 2)[0];
            if (!JOB_ID.matcher(first).matches()) {
                throw new IOException(origin + ": line " + (i + 1) + " is not a job id: \"" + abbreviate(line) + "\"");
            }
            ids.add(first);
        }
        return ids;
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }

    static final class Command implements JobSource {
        private final List<String> argv;
        private final Duration timeout;

        Command(String commandLine, Duration timeout) {
            this.argv = Arrays.stream(commandLine.strip().split("\\s+")).filter(w -> !w.isEmpty()).toList();
            if (argv.isEmpty()) {
                throw new IllegalArgumentException("job source: the command is empty");
            }
            this.timeout = timeout;
        }

        @Override
        public Set<String> liveJobIds() throws IOException {
            Process p = new ProcessBuilder(argv).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            p.getOutputStream().close();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            Thread reader = new Thread(() -> drain(p.getInputStream(), out), "job-source-reader");
            reader.setDaemon(true);
            reader.start();
            try {
                if (!p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                    p.destroyForcibly();
                    throw new IOException(describe() + ": no answer within " + timeout.toMillis() + " ms; killed");
                }
                reader.join(timeout.toMillis());
            } catch (InterruptedException e) {
                p.destroyForcibly();
                Thread.currentThread().interrupt();
                throw new IOException(describe() + ": interrupted", e);
            }
            if (p.exitValue() != 0) {
                throw new IOException(describe() + ": exited with status " + p.exitValue());
            }
            synchronized (out) {
                return parse(out.toString(StandardCharsets.UTF_8), describe());
            }
        }

        private static void drain(InputStream in, ByteArrayOutputStream out) {
            byte[] buf = new byte[8192];
            try (in) {
                int n;
                while ((n = in.read(buf)) >= 0) {
                    synchronized (out) {
                        if (out.size() + n > MAX_OUTPUT) {
                            return;
                        }
                        out.write(buf, 0, n);
                    }
                }
            } catch (IOException ignored) {
                // the exit status or the parse reports what went wrong
            }
        }

        @Override
        public String describe() {
            return "command: " + String.join(" ", argv);
        }
    }

    static final class File implements JobSource {
        private final Path path;

        File(Path path) {
            this.path = path;
        }

        @Override
        public Set<String> liveJobIds() throws IOException {
            if (Files.size(path) > MAX_OUTPUT) {
                throw new IOException(describe() + ": larger than " + MAX_OUTPUT + " bytes");
            }
            return parse(Files.readString(path, StandardCharsets.UTF_8), describe());
        }

        @Override
        public String describe() {
            return "file: " + path;
        }
    }
}
