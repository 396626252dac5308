package org.alpsbridge.emulator;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@link Control#HOST_PAGGS}: a session with a live process is a live pagg; one whose only process has exited and
 * waits, a zombie, for a parent that does not reap it (a PID namespace whose first process is a JVM) is not.
 */
class HostPaggsTest {

    @Test
    void aSessionIsAlivePaggWhileAProcessRunsInItButNotWhenOnlyAZombieIsLeft() throws Exception {
        // the parent (sh, then sleep by exec) never waits: the first child ends and stays a zombie in its own session;
        // the second lives in its own session until the parent ends
        Process parent = new ProcessBuilder("sh", "-c",
                "setsid sh -c 'exit 0' & echo $!; setsid sleep 30 & echo $!; exec sleep 30").start();
        try (BufferedReader out = new BufferedReader(new InputStreamReader(parent.getInputStream()))) {
            long zombie = Long.parseLong(out.readLine().strip());
            long live = Long.parseLong(out.readLine().strip());
            Path stat = Path.of("/proc/" + zombie + "/stat");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!zombieState(stat) && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertTrue(zombieState(stat), "no zombie to look at: " + Files.readString(stat));
            assertFalse(Control.HOST_PAGGS.test(zombie), "a session of a zombie alone counted as a live pagg");
            assertTrue(Control.HOST_PAGGS.test(live), "a session with a running process not counted");
            ProcessHandle.of(live).ifPresent(ProcessHandle::destroy);
        } finally {
            parent.destroyForcibly();
        }
    }

    private static boolean zombieState(Path stat) throws java.io.IOException {
        String s = Files.readString(stat);
        return s.substring(s.lastIndexOf(')') + 2).startsWith("Z");
    }
}
