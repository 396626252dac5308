package org.alpsbridge.proxy.server;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Future;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import io.netty.util.concurrent.DefaultThreadFactory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs the real {@code apbasil} once per request, exactly as Slurm did: argv is the path alone, the
 * request goes on stdin which is then closed, stdout is read to EOF, stderr is kept for the log.
 *
 * <p>Limits: at most {@code backend_concurrency} children at once (a caller waits for a slot within its
 * time limit); each call has the method's {@code apbasil_timeout}, after which the child and everything it
 * started are killed; a response over {@code max_response_bytes} is cut off the same way. Each of these,
 * and a child that cannot start, dies part-way or writes no BASIL response, is a {@link BackendException}
 * whose message says which.
 */
public final class ExecBackend implements Backend {

    private static final Logger log = LoggerFactory.getLogger(ExecBackend.class);
    private static final int STDERR_KEPT = 4096;
    private static final long STDERR_WAIT_MILLIS = 200;

    private final Path program;
    private final Function<String, Duration> timeoutFor;
    private final int concurrency;
    private final Semaphore slots;
    private final int maxResponseBytes;
    private final ExecutorService pumps;
    private final ScheduledExecutorService killer;

    /**
     * @param timeoutFor the time limit per method key ({@code QUERY/INVENTORY}, {@code RESERVE}, ...)
     */
    public ExecBackend(Path program, Function<String, Duration> timeoutFor, int concurrency, int maxResponseBytes) {
        this.program = program;
        this.timeoutFor = timeoutFor;
        this.concurrency = concurrency;
        this.slots = new Semaphore(concurrency, true);
        this.maxResponseBytes = maxResponseBytes;
        this.pumps = Executors.newCachedThreadPool(new DefaultThreadFactory("apbasil-exec-io", true));
        this.killer = Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("apbasil-exec-kill", true));
    }

    /** From the daemon's config: {@code apbasil_timeout*}, {@code backend_concurrency}, {@code max_response_bytes}. */
    public static ExecBackend fromConfig(Path program, ProxyConfig config) {
        return new ExecBackend(program, config::apbasilTimeout, config.backendConcurrency(), config.maxResponseBytes());
    }

    @Override
    public byte[] call(Call call) throws BackendException {
        Duration limit = timeoutFor.apply(call.methodKey());
        long deadline = System.nanoTime() + limit.toNanos();
        try {
            if (!slots.tryAcquire(limit.toNanos(), TimeUnit.NANOSECONDS)) {
                throw new BackendException("all " + concurrency + " apbasil slots (backend_concurrency) stayed busy for "
                        + limit.toMillis() + " ms", true);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while waiting for an apbasil slot", true);
        }
        try {
            return run(call, deadline, limit);
        } finally {
            slots.release();
        }
    }

    private byte[] run(Call call, long deadline, Duration limit) throws BackendException {
        Process child;
        try {
            child = new ProcessBuilder(List.of(program.toString())).start();
        } catch (IOException e) {
            throw new BackendException("cannot run " + describe() + ": " + e.getMessage(), true, e);
        }
        AtomicBoolean timedOut = new AtomicBoolean();
        ScheduledFuture<?> kill = killer.schedule(() -> {
            timedOut.set(true);
            killTree(child);
        }, Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        ByteArrayOutputStream stderr = new ByteArrayOutputStream();
        pumps.execute(() -> feed(child, call.request()));
        Future<?> stderrDone = pumps.submit(() -> keepHead(child.getErrorStream(), stderr));
        try {
            byte[] out = readCapped(child);
            if (out == null) {
                killTree(child);
                throw new BackendException(describe() + " wrote a " + call.methodKey() + " response larger than "
                        + "max_response_bytes=" + maxResponseBytes + "; killed it", false);
            }
            int status = child.waitFor();
            if (timedOut.get()) {
                throw new BackendException(describe() + " did not answer " + call.methodKey() + " within "
                        + limit.toMillis() + " ms (apbasil_timeout); killed it", true);
            }
            String err = stderrText(stderrDone, stderr);
            if (status != 0) {
                log.warn("{} exited with {} for {}; stderr: {}", describe(), status, call.methodKey(), err);
            } else if (!err.isEmpty()) {
                log.info("{} stderr for {}: {}", describe(), call.methodKey(), err);
            }
            String problem = BasilDocuments.responseProblem(out);
            if (problem != null) {
                throw new BackendException(describe() + (status == 0 ? "" : " exited with status " + status + " and")
                        + " wrote " + out.length + " bytes that are not a BASIL response (" + problem + ")"
                        + (err.isEmpty() ? "" : "; stderr: " + err), true);
            }
            return out;
        } catch (IOException e) {
            killTree(child);
            throw new BackendException("reading " + describe() + " failed: " + e.getMessage(), true, e);
        } catch (InterruptedException e) {
            killTree(child);
            Thread.currentThread().interrupt();
            throw new BackendException("interrupted while " + describe() + " ran", true, e);
        } finally {
            kill.cancel(false);
        }
    }

    /** stdout to EOF, or null as soon as it passes the limit. */
    private byte[] readCapped(Process child) throws IOException {
        InputStream in = child.getInputStream();
        ByteArrayOutputStream out = new ByteArrayOutputStream(8192);
        byte[] buf = new byte[65536];
        int n;
        while ((n = in.read(buf)) >= 0) {
            if (out.size() + n > maxResponseBytes) {
                return null;
            }
            out.write(buf, 0, n);
        }
        return out.toByteArray();
    }

    private static void feed(Process child, byte[] request) {
        try (OutputStream stdin = child.getOutputStream()) {
            stdin.write(request);
        } catch (IOException e) {
            // the child exited without reading all of its stdin; its output tells the rest
        }
    }

    private static void keepHead(InputStream in, ByteArrayOutputStream head) {
        byte[] buf = new byte[4096];
        int n;
        try {
            while ((n = in.read(buf)) >= 0) {
                synchronized (head) {
                    if (head.size() < STDERR_KEPT) {
                        head.write(buf, 0, Math.min(n, STDERR_KEPT - head.size()));
                    }
                }
            }
        } catch (IOException e) {
            // the child is gone; what was read is what there is
        }
    }

    /** What the child wrote on stderr; waits briefly for the pump, since a grandchild may still hold it open. */
    private static String stderrText(Future<?> done, ByteArrayOutputStream head) {
        try {
            done.get(STDERR_WAIT_MILLIS, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (ExecutionException | TimeoutException e) {
            // keep what has arrived
        }
        synchronized (head) {
            return head.toString(StandardCharsets.UTF_8).strip();
        }
    }

    /** The child and everything it started: a shell script's {@code sleep} would otherwise hold stdout open. */
    private static void killTree(Process child) {
        List<ProcessHandle> descendants = child.descendants().toList();
        child.destroyForcibly();
        descendants.forEach(ProcessHandle::destroyForcibly);
    }

    @Override
    public String describe() {
        return "exec:" + program;
    }

    @Override
    public void close() {
        pumps.shutdownNow();
        killer.shutdownNow();
    }
}
