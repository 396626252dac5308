package org.alpsbridge.emulator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class StateDirectoryTest {

    private static final BasilCodec CODEC = BasilCodec.standard();
    private static final String SPEC = "xc30:16,interactive=2";

    @TempDir
    Path dir;

    private static ResponseData call(StateDirectory d, BasilRequest request) throws IOException, BasilException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        d.apbasil(SPEC, CODEC.write(request), out);
        return CODEC.readResponse(out.toByteArray()).responseData();
    }

    private static BasilRequest reserveOneNode() {
        return BasilRequest.reserve("1.3", "alice", "7", null, List.of(ReserveParam.builder().width(32).build()));
    }

    private static long reserveWhole(Emulator e, ReserveParam.Builder p) throws BasilException {
        ResponseData d = CODEC.readResponse(e.handle(CODEC.write(BasilRequest.reserve("1.3", "dave", "9", null, List.of(p.build())))))
                .responseData();
        assertTrue(d.isSuccess(), d.messageText());
        return d.content(Reserved.class).orElseThrow().reservationId();
    }

    private static String snapshot(Emulator e) throws IOException {
        StringWriter w = new StringWriter();
        Snapshot.write(e, w);
        return w.toString();
    }

    @Test
    void watchingPaggsAQueryStoresTheRemovalOfAReleasedReservationWhoseContainerEnded() throws Exception {
        java.util.Set<Long> alive = new java.util.HashSet<>(List.of(4242L));
        StateDirectory d = new StateDirectory(dir).watchingPaggs(alive::contains);
        long id = call(d, reserveOneNode()).content(Reserved.class).orElseThrow().reservationId();
        call(d, BasilRequest.confirm("1.3", id, 4242));
        assertEquals(1L, call(d, BasilRequest.release("1.3", id)).content(Released.class).orElseThrow().claims());
        alive.clear();
        assertTrue(call(d, BasilRequest.query("1.3", "INVENTORY")).isSuccess());
        StateDirectory plain = new StateDirectory(dir); // a drop-in that watches nothing reads what that query stored
        assertEquals(0, (int) plain.read(SPEC, e -> e.control().reservationIds().length));
    }

    @Test
    void aSnapshotKeepsNodesReservationsCountersAndFaults() throws Exception {
        Emulator e = Emulator.create(SPEC, () -> 1000);
        e.handle(CODEC.write(reserveOneNode()));
        e.handle(CODEC.write(BasilRequest.confirm("1.3", 1, 55)));
        e.handle(CODEC.write(BasilRequest.reserve("1.3", "bob", "8", null,
                List.of(ReserveParam.builder().width(8).reservationMode("SHARED").memoryPerPeMb(1000).build()))));
        long orphan = e.control().plantReservation("carol", "UNKNOWN", 0);
        e.control().launch(1, "./a.out");
        e.control().setState(new int[] {5}, "DOWN");
        e.control().setLabels(new int[] {6}, "bigmem", "with space");
        long wide = reserveWhole(e, ReserveParam.builder().width(4 * 32).nppn(32));
        long listed = reserveWhole(e, ReserveParam.builder().width(3 * 32).nppn(32).nodes("15,14,13"));
        e.control().fail(Method.RESERVE, ErrorClass.TRANSIENT, "ALPS error: try later");
        e.control().fail(Method.CONFIRM, ErrorClass.PERMANENT, "SYSTEM", "ALPS error: no");
        e.control().loseNextRelease();
        String text = snapshot(e);
        assertTrue(text.contains("\nshares 6-8 0-31 "), "consecutive whole nodes take one line: " + text);
        Emulator back = Snapshot.read(new BufferedReader(new StringReader(text)), SPEC, () -> 1000);
        assertEquals(text, snapshot(back));
        assertArrayEquals(new long[] {1, 2, orphan, wide, listed}, back.control().reservationIds());
        assertArrayEquals(new int[] {4, 6, 7, 8}, back.control().reservationNodes(wide), "down NID 5 skipped, order kept");
        assertArrayEquals(new int[] {15, 14, 13}, back.control().reservationNodes(listed), "a node list's order is kept");
        assertEquals(e.control().schedChangeCount(), back.control().schedChangeCount());
        assertEquals(e.control().changeCount(), back.control().changeCount());
    }

    @Test
    void aCutOrForeignStateFileIsRefusedWithTheReason() throws Exception {
        Emulator e = Emulator.create(SPEC, () -> 1000);
        e.handle(CODEC.write(reserveOneNode()));
        String text = snapshot(e);
        String cut = text.substring(0, text.lastIndexOf("end"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Snapshot.read(new BufferedReader(new StringReader(cut)), SPEC, () -> 1)).getMessage().contains("incomplete"));
        assertTrue(assertThrows(IllegalArgumentException.class,
                () -> Snapshot.read(new BufferedReader(new StringReader(text)), "xe6:4", () -> 1)).getMessage()
                .contains("holds machine 'xc30:16,interactive=2', not 'xe6:4'"));
    }

    @Test
    void successiveInvocationsSeeEachOthersEffects() throws Exception {
        ResponseData first = call(new StateDirectory(dir), reserveOneNode());
        long id = first.content(Reserved.class).orElseThrow().reservationId();
        ResponseData second = call(new StateDirectory(dir), reserveOneNode());
        assertEquals(List.of(3L), second.content(Reserved.class).orElseThrow().nodeIds(), "NIDs 0-1 are interactive, 2 is taken");
        assertTrue(call(new StateDirectory(dir), BasilRequest.release("1.3", id)).isSuccess());
        assertEquals("ALPS error: apsched: No entry for resId " + id,
                call(new StateDirectory(dir), BasilRequest.release("1.3", id)).messageText());
    }

    @Test
    void queriesDoNotRewriteTheState() throws Exception {
        StateDirectory d = new StateDirectory(dir);
        call(d, reserveOneNode());
        byte[] before = Files.readAllBytes(dir.resolve("state"));
        long modified = Files.getLastModifiedTime(dir.resolve("state")).toMillis();
        assertTrue(call(d, BasilRequest.query("1.3", "ENGINE")).isSuccess());
        assertArrayEquals(before, Files.readAllBytes(dir.resolve("state")));
        assertEquals(modified, Files.getLastModifiedTime(dir.resolve("state")).toMillis());
    }

    @Test
    void aLeftoverTemporaryFileFromACrashedWriterIsIgnoredAndRemovedByTheNextWriter() throws Exception {
        StateDirectory d = new StateDirectory(dir);
        long id = call(d, reserveOneNode()).content(Reserved.class).orElseThrow().reservationId();
        Path leftover = dir.resolve("state.123.tmp");
        Files.writeString(leftover, "alpsbridge-emulator-state 1\nmachine xc30%3A16\n");
        long first = d.read(null, e -> e.control().reservationIds()[0]);
        assertEquals(id, first);
        assertTrue(Files.exists(leftover), "a reader leaves it");
        call(d, reserveOneNode());
        assertFalse(Files.exists(leftover), "the next writer removes it");
    }

    @Test
    void controlChangesPersistAndFaultsReachTheDropIn() throws Exception {
        StateDirectory d = new StateDirectory(dir);
        d.update(SPEC, e -> {
            e.control().fail(Method.RESERVE, ErrorClass.PERMANENT, "ALPS error: no");
            return null;
        });
        assertEquals("ALPS error: no", call(d, reserveOneNode()).messageText());
        d.update(null, e -> {
            e.control().clearFaults();
            return null;
        });
        assertTrue(call(d, reserveOneNode()).isSuccess());
    }

    @Test
    void concurrentInvocationsNeverLoseOrDoubleBookAReservation() throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<ResponseData>> calls = new ArrayList<>();
            for (int i = 0; i < 14; i++) {
                calls.add(pool.submit(() -> call(new StateDirectory(dir), reserveOneNode())));
            }
            Set<Long> nodes = new HashSet<>();
            Set<Long> ids = new HashSet<>();
            for (Future<ResponseData> f : calls) {
                Reserved r = f.get().content(Reserved.class).orElseThrow();
                ids.add(r.reservationId());
                assertTrue(nodes.add(r.nodeIds().get(0)), "node " + r.nodeIds() + " given twice");
            }
            assertEquals(14, ids.size());
            int held = new StateDirectory(dir).read(SPEC, e -> e.control().reservationIds().length);
            assertEquals(14, held);
            assertEquals(ErrorClass.TRANSIENT, call(new StateDirectory(dir), reserveOneNode()).errorClass(), "the machine is full");
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void theStateFileIsPlainText() throws Exception {
        call(new StateDirectory(dir), reserveOneNode());
        String text = Files.readString(dir.resolve("state"), StandardCharsets.UTF_8);
        assertTrue(text.startsWith(Snapshot.MAGIC + "\nmachine xc30%3A16%2Cinteractive%3D2\n"), text);
        assertTrue(text.contains("\nshare 2 0-31 "), text);
    }
}
