package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.function.ToIntFunction;

/**
 * The agent's epilog settlements on disk: the epilog's request is written to a file of its run (a temporary
 * name, fsync'd, renamed, the directory fsync'd) before slurmctld is answered, and worker threads settle the
 * files and delete them. What is in the directory when the agent starts (it was stopped or killed -9) is
 * settled first. A settlement that is sent again (the agent died between the service's answer and the
 * delete) is the same RELEASE of the same run, which the ledger answers as a replay and never charges twice.
 * A file the service refused is kept as {@code NAME.refused} (the run's hold then waits for
 * {@code ledger sweep}), one that cannot be read as {@code NAME.bad}.
 */
final class EpilogSpool implements AutoCloseable {

    private static final String SUFFIX = ".epilog";

    private final Path dir;
    private final ToIntFunction<AgentRequest> settle;
    private final PrintStream log;
    private final LinkedBlockingQueue<Path> queue = new LinkedBlockingQueue<>();
    private final Set<Path> queued = new HashSet<>();
    private final List<Thread> workers = new ArrayList<>();

    /**
     * @param settle settles one spooled epilog; its exit code (a hook's): OK deletes the file
     */
    EpilogSpool(Path dir, int workers, ToIntFunction<AgentRequest> settle, PrintStream log) throws IOException {
        this.dir = dir;
        this.settle = settle;
        this.log = log;
        Files.createDirectories(dir);
        int replayed = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path f : files) {
                String name = f.getFileName().toString();
                if (name.startsWith(".tmp-")) {
                    Files.deleteIfExists(f); // never renamed: slurmctld was never answered for it, it ran the epilog again
                } else if (name.endsWith(SUFFIX)) {
                    enqueue(f);
                    replayed++;
                }
            }
        }
        if (replayed > 0) {
            log.println("ledger hook-agent: " + replayed + " spooled epilog(s) from before the start in " + dir + ", settling them");
        }
        for (int i = 0; i < workers; i++) {
            Thread t = new Thread(this::work, "ledger-hook-settle-" + i);
            t.setDaemon(true);
            this.workers.add(t);
            t.start();
        }
    }

    /** The names the spool gives settlements (the C client names them the same way). */
    private static final java.util.regex.Pattern NAME = java.util.regex.Pattern.compile(
            "job-[0-9]+-run-[0-9]+(-[A-Za-z0-9_.-]+)?\\" + SUFFIX);

    /** Whether {@code name} is a settlement's file name (no path, nothing a caller could use to reach elsewhere). */
    static boolean isSpoolName(String name) {
        return NAME.matcher(name).matches() && !name.contains("/") && !name.startsWith(".");
    }

    /** The file of this run's settlement: job-ID-run-N[-CLUSTER].epilog. */
    static String name(SlurmJob job) {
        return "job-" + job.jobId() + "-run-" + job.resId()
                + (job.cluster().isEmpty() ? "" : "-" + job.cluster().replaceAll("[^A-Za-z0-9_.-]", "_")) + SUFFIX;
    }

    /**
     * Queues a settlement the C client wrote into the spool itself; false when there is no such file (it was
     * settled already: a notice that came twice).
     */
    boolean adopt(String name) {
        if (!isSpoolName(name)) {
            throw new IllegalArgumentException("'" + name + "' is not a spooled epilog's name");
        }
        Path file = dir.resolve(name);
        if (!Files.isRegularFile(file)) {
            return false;
        }
        enqueue(file);
        return true;
    }

    /** Queues what the spool holds that is not queued: files whose notice was lost (the C client's write failed). */
    int rescan() throws IOException {
        int found = 0;
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir, "*" + SUFFIX)) {
            for (Path f : files) {
                if (isSpoolName(f.getFileName().toString()) && enqueue(f)) {
                    found++;
                }
            }
        }
        return found;
    }

    /** Writes the request durably (returns once it is on disk) and queues it. */
    Path put(SlurmJob job, AgentRequest request) throws IOException {
        String name = name(job);
        Path file = dir.resolve(name);
        Path tmp = dir.resolve(".tmp-" + name + "-" + Thread.currentThread().getId());
        try (FileChannel c = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            ByteBuffer b = ByteBuffer.wrap(AgentCodec.frame(request));
            while (b.hasRemaining()) {
                c.write(b);
            }
            c.force(true);
        }
        try {
            Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE);
        } catch (AtomicMoveNotSupportedException e) {
            Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING);
        }
        try (FileChannel d = FileChannel.open(dir, StandardOpenOption.READ)) {
            d.force(true);
        }
        enqueue(file);
        return file;
    }

    /** How many settlements wait (queued or being settled). */
    int pending() {
        synchronized (queued) {
            return queued.size();
        }
    }

    /** Whether it was not queued before. */
    private boolean enqueue(Path file) {
        synchronized (queued) {
            if (queued.add(file)) {
                queue.add(file);
                return true;
            }
            return false;
        }
    }

    private void work() {
        while (true) {
            Path file;
            try {
                file = queue.take();
            } catch (InterruptedException e) {
                return;
            }
            try {
                settleOne(file);
            } finally {
                synchronized (queued) {
                    queued.remove(file);
                }
            }
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    private void settleOne(Path file) {
        if (!Files.exists(file)) {
            return; // settled meanwhile (a rescan found it just before its worker removed it)
        }
        AgentRequest request;
        try (InputStream in = Files.newInputStream(file)) {
            request = AgentCodec.request(AgentCodec.readFrame(in));
            if (!AgentRequest.EPILOG.equals(request.mode()) || request.at() == null) {
                throw new IllegalArgumentException("not a spooled epilog (mode " + request.mode() + ", at " + request.at() + ")");
            }
        } catch (IOException | IllegalArgumentException e) {
            log.println("ledger hook-agent: cannot read " + file + " (" + e.getMessage() + "); kept as .bad");
            keep(file, ".bad");
            return;
        }
        int exit = settle.applyAsInt(request);
        if (Thread.currentThread().isInterrupted()) {
            return; // stopping: the file stays for the next start
        }
        if (exit == Hook.OK) {
            try {
                Files.deleteIfExists(file);
            } catch (IOException e) {
                log.println("ledger hook-agent: settled, but cannot delete " + file + ": " + e);
            }
        } else {
            keep(file, ".refused");
        }
    }

    private void keep(Path file, String suffix) {
        try {
            Files.move(file, file.resolveSibling(file.getFileName() + suffix), StandardCopyOption.REPLACE_EXISTING);
        } catch (IOException e) {
            log.println("ledger hook-agent: cannot rename " + file + ": " + e);
        }
    }

    @Override
    public void close() {
        workers.forEach(Thread::interrupt);
        for (Thread t : workers) {
            try {
                t.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }
}
