package org.alpsbridge.measure;

import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * CPU time of this whole JVM (collector and compiler threads included) in nanoseconds: the calling thread's own
 * exact figure plus, for every other thread, Linux's {@code /proc/self/task/N/schedstat} (nanoseconds, brought up
 * to date when a thread leaves the CPU or at the next scheduler tick). The JVM's own process CPU time counts 10 ms
 * clock ticks, too coarse for a document parsed in 100 ms. Threads that end between two readings take their time
 * with them, so measure spans during which the JVM's thread set stays put (a bench pass).
 */
public final class ProcessCpu {

    private static final Path TASKS = Path.of("/proc/self/task");

    private ProcessCpu() {
    }

    public static long nanos() {
        if (Files.isDirectory(TASKS)) {
            long sum = ManagementFactory.getThreadMXBean().getCurrentThreadCpuTime();
            try (var tasks = Files.newDirectoryStream(TASKS)) {
                String self = Path.of("/proc/thread-self").toRealPath().getFileName().toString();
                for (Path task : tasks) {
                    if (!task.getFileName().toString().equals(self)) {
                        sum += onCpu(task.resolve("schedstat"));
                    }
                }
                return sum;
            } catch (IOException e) {
                // fall through to the coarse figure
            }
        }
        return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean()).getProcessCpuTime();
    }

    /** The first field of a schedstat file: time spent on a CPU; 0 when the thread ended meanwhile. */
    private static long onCpu(Path schedstat) {
        try {
            String text = Files.readString(schedstat);
            int space = text.indexOf(' ');
            return Long.parseLong(space < 0 ? text.strip() : text.substring(0, space));
        } catch (IOException | NumberFormatException e) {
            return 0;
        }
    }
}
