package org.alpsbridge.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.emulator.StateDirectory;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drop-in {@code apbasil} as separate processes on one state directory: the file lock orders them,
 * and a process killed at any moment leaves the state loadable, with every reservation it or another
 * process acknowledged.
 */
class DropInProcessesTest {

    private static final BasilCodec CODEC = BasilCodec.standard();
    private static final String SMALL = "xc30:16";

    @TempDir
    Path dir;

    /** A drop-in process answering one request; its answer is read on a thread of its own. */
    private static final class DropIn {
        final Process process;
        final Thread reader;
        volatile byte[] answer = new byte[0];

        DropIn(Path dir, String spec, byte[] request) throws IOException {
            List<String> command = List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-XX:+UseSerialGC",
                    "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"), EmulateCommand.class.getName(),
                    "--machine", spec, "--state", dir.toString());
            process = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            try (OutputStream in = process.getOutputStream()) {
                in.write(request);
            }
            reader = new Thread(() -> {
                try (InputStream out = process.getInputStream()) {
                    answer = out.readAllBytes();
                } catch (IOException killed) {
                    // a killed process's answer is whatever arrived before
                }
            });
            reader.start();
        }

        /** The answer, or {@code null} if the process did not end well (killed, or cut off). */
        ResponseData finish() throws InterruptedException {
            if (!process.waitFor(2, TimeUnit.MINUTES)) {
                process.destroyForcibly();
                throw new AssertionError("a drop-in process did not end within two minutes");
            }
            reader.join();
            if (process.exitValue() != 0) {
                return null;
            }
            try {
                return CODEC.readResponse(answer).responseData();
            } catch (BasilException e) {
                throw new AssertionError("a drop-in that exited 0 wrote no well-formed answer: " + e.getMessage(), e);
            }
        }
    }

    private static byte[] reserveNodes(String user, int nodes) throws BasilException {
        return CODEC.write(BasilRequest.reserve("1.3", user, user, null, List.of(ReserveParam.builder().width(32L * nodes).nppn(32).build())));
    }

    private static byte[] release(long id) throws BasilException {
        return CODEC.write(BasilRequest.release("1.3", id));
    }

    private Set<Long> stored() throws IOException {
        return new StateDirectory(dir).read(null, e -> Arrays.stream(e.control().reservationIds()).boxed()
                .collect(Collectors.toSet()));
    }

    @Test
    void separateProcessesReservingAtOnceGetNodesOfTheirOwnAndAllAreKept() throws Exception {
        List<DropIn> all = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            all.add(new DropIn(dir, SMALL, reserveNodes("user" + i, 1)));
        }
        all.add(new DropIn(dir, SMALL, CODEC.write(BasilRequest.query("1.3", "INVENTORY"))));
        Set<Long> nodes = new HashSet<>();
        Set<Long> ids = new HashSet<>();
        for (DropIn p : all.subList(0, 4)) {
            ResponseData d = p.finish();
            assertTrue(d != null && d.isSuccess(), "every reservation succeeds: " + (d == null ? "process failed" : d.messageText()));
            Reserved r = d.content(Reserved.class).orElseThrow();
            ids.add(r.reservationId());
            assertTrue(nodes.add(r.nodeIds().get(0)), "NID " + r.nodeIds().get(0) + " given twice");
        }
        ResponseData inventory = all.get(4).finish();
        assertTrue(inventory != null && inventory.isSuccess(), "a query running alongside answers");
        assertEquals(ids, stored());
    }

    /**
     * Rounds of drop-ins (RESERVE or RELEASE) on a machine made busy first, so a state write takes a while:
     * three at once with one killed (SIGKILL) at a random moment of its life, or one alone killed the moment
     * its temporary state file appears, i.e. in the middle of writing the state.
     */
    @Test
    @Tag("long")
    void processesKilledAtRandomNeverCorruptTheStateNorLoseAnAcknowledgedReservation() throws Exception {
        long seed = Long.getLong("emulator.crash.seed", System.nanoTime());
        int rounds = Integer.getInteger("emulator.crash.rounds", 60);
        Random random = new Random(seed);
        String spec = "xc30:9688";
        new StateDirectory(dir).update(spec, e -> {
            for (int i = 0; i < 3000; i++) {
                e.handle(reserveNodesUnchecked("prefill", 1 + i % 3));
            }
            return null;
        });
        Set<Long> held = new HashSet<>(stored());
        Set<Long> released = new HashSet<>();
        int killed = 0;
        int midWrite = 0;
        Set<String> tempSeen = new HashSet<>();
        long lifeMillis = timeOneRun(spec);
        try {
            for (int round = 0; round < rounds; round++) {
                List<DropIn> procs = new ArrayList<>();
                List<Long> releasing = new ArrayList<>();
                // Odd rounds aim at the write itself: one process alone, killed the moment its temporary state file shows.
                boolean targeted = round % 2 == 1;
                for (int i = 0; i < (targeted ? 1 : 3); i++) {
                    if (random.nextBoolean() && !held.isEmpty()) {
                        long id = held.stream().skip(random.nextInt(held.size())).findFirst().orElseThrow();
                        held.remove(id);
                        releasing.add(id);
                        procs.add(new DropIn(dir, spec, release(id)));
                    } else {
                        releasing.add(null);
                        procs.add(new DropIn(dir, spec, reserveNodes("u" + round, 1 + random.nextInt(4))));
                    }
                }
                int victim = random.nextInt(procs.size());
                if (targeted) {
                    awaitNewTemporaryFile(procs.get(victim).process, tempSeen);
                } else {
                    Thread.sleep((long) (random.nextDouble() * lifeMillis * 1.5));
                }
                procs.get(victim).process.destroyForcibly();
                for (int i = 0; i < procs.size(); i++) {
                    ResponseData d = procs.get(i).finish();
                    Long releasedId = releasing.get(i);
                    if (d == null) {
                        assertEquals(victim, i, "only the killed process may fail (seed " + seed + ")");
                        // its change may or may not be stored: a cut-off RESERVE may hold nodes, a cut-off RELEASE may not have freed them
                        killed++;
                    } else if (releasedId != null) {
                        assertTrue(d.isSuccess(), "releasing " + releasedId + ": " + d.messageText());
                        assertEquals(0, d.content(Released.class).orElseThrow().claims());
                        released.add(releasedId);
                    } else if (d.isSuccess()) {
                        held.add(d.content(Reserved.class).orElseThrow().reservationId());
                    }
                }
                for (String name : temporaryFiles()) {
                    if (tempSeen.add(name)) {
                        midWrite++; // a killed writer's temporary file: the kill landed while the state was being written
                    }
                }
                Set<Long> state = stored(); // loads, or the test fails: a torn or overlapping state is refused
                for (long id : held) {
                    assertTrue(state.contains(id), "acknowledged reservation " + id + " lost (seed " + seed + ", round " + round + ")");
                }
                for (long id : released) {
                    assertTrue(!state.contains(id), "acknowledged release of " + id + " undone (seed " + seed + ")");
                }
                Set<Long> unknown = new HashSet<>(state);
                unknown.removeAll(held);
                assertTrue(unknown.size() <= killed, unknown.size() + " reservations nobody acknowledged but only " + killed
                        + " calls were cut off (seed " + seed + ")");
            }
            new StateDirectory(dir).update(null, e -> null);
            try (var files = Files.list(dir)) {
                List<String> names = files.map(p -> p.getFileName().toString()).sorted().toList();
                assertEquals(List.of("lock", "state"), names, "a killed writer's temporary file outlives the next write");
            }
            Set<Long> unknown = new HashSet<>(stored());
            unknown.removeAll(held);
            System.out.printf("drop-in crash campaign (seed %d): %d rounds, alternately 3 processes with one SIGKILLed after 0..%d ms"
                    + " and 1 process SIGKILLed as soon as its temporary state file appears;"
                    + " %d died before answering (%d while writing the state), %d reservations of cut-off calls stored anyway;"
                    + " %d acknowledged reservations held, %d acknowledged releases, none lost or undone, the state (%d bytes)"
                    + " loadable after every round%n", seed, rounds, (long) (lifeMillis * 1.5), killed, midWrite, unknown.size(),
                    held.size(), released.size(), Files.size(dir.resolve("state")));
        } catch (AssertionError | RuntimeException e) {
            System.out.println("drop-in crash campaign failed; rerun with -Demulator.crash.seed=" + seed);
            throw e;
        }
    }

    /** Polls as fast as it can until a temporary state file not in {@code old} exists, or the process has ended. */
    private void awaitNewTemporaryFile(Process writer, Set<String> old) throws IOException {
        while (writer.isAlive()) {
            if (!old.containsAll(temporaryFiles())) {
                return;
            }
        }
    }

    private Set<String> temporaryFiles() throws IOException {
        Set<String> names = new HashSet<>();
        try (var files = Files.newDirectoryStream(dir, "state.*.tmp")) {
            files.forEach(p -> names.add(p.getFileName().toString()));
        }
        return names;
    }

    private static byte[] reserveNodesUnchecked(String user, int nodes) {
        try {
            return reserveNodes(user, nodes);
        } catch (BasilException e) {
            throw new IllegalStateException(e);
        }
    }

    /** How long one drop-in takes from spawn to exit on this machine, now. */
    private long timeOneRun(String spec) throws Exception {
        long t0 = System.nanoTime();
        ResponseData d = new DropIn(dir, spec, CODEC.write(BasilRequest.query("1.3", "SUMMARY"))).finish();
        assertTrue(d != null && d.isSuccess());
        return Math.max(100, (System.nanoTime() - t0) / 1_000_000);
    }
}
