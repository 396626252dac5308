package org.alpsbridge.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.alpsbridge.basil.cli.CheckAccess;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.emulator.Emulator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Full job lifecycles, as Slurm and the other clients drive ALPS, for every machine kind and every protocol
 * version; every response must pass {@code basil check}.
 */
class EmulatorLifecycleTest {

    private static final BasilCodec CODEC = BasilCodec.standard();
    private static final List<String> PROTOCOLS = List.of("1.0", "1.1", "1.2", "1.3", "1.4", "1.7");
    private static final List<String> MACHINES = List.of("xc30:6", "xc30-32g:6", "xe6:6", "knl:6", "xk7:6", "xc50-gpu:6",
            "mixed:xc30:4+knl:2+xc50-gpu:2,service=4,interactive=2");

    static List<String[]> cases() {
        List<String[]> out = new ArrayList<>();
        for (String m : MACHINES) {
            for (String p : PROTOCOLS) {
                out.add(new String[] {m, p});
            }
        }
        return out;
    }

    /** Calls the emulator and checks the answer as {@code basil check} does. */
    private static ResponseData call(Emulator e, BasilRequest request) throws BasilException {
        byte[] answer = e.handle(CODEC.write(request));
        String checked = CheckAccess.describe(answer);
        assertTrue(checked.startsWith("protocol=" + request.protocol() + " response"), checked);
        return CODEC.readResponse(answer).responseData();
    }

    private static List<NodeView> inventory(Emulator e, String protocol) throws BasilException {
        byte[] answer = e.handle(CODEC.write(BasilRequest.query(protocol, "INVENTORY")));
        CheckAccess.describe(answer);
        List<NodeView> nodes = new ArrayList<>();
        try (InventoryReader r = InventoryReader.open(new ByteArrayInputStream(answer))) {
            for (NodeView n; (n = r.nextNode()) != null; ) {
                nodes.add(n);
            }
        }
        return nodes;
    }

    private static long held(List<NodeView> nodes, long reservation) {
        return nodes.stream().flatMap(n -> n.segments().stream()).flatMap(s -> s.cores().stream())
                .flatMap(c -> c.threads().stream()).filter(t -> t.reservations().contains(reservation)).count();
    }

    private static long reserve(Emulator e, String protocol, ReserveParam p) throws BasilException {
        ResponseData d = call(e, BasilRequest.reserve(protocol, "alice", "4242", null, List.of(p)));
        assertTrue(d.isSuccess(), protocol + ": " + d.messageText());
        return d.content(Reserved.class).orElseThrow().reservationId();
    }

    @ParameterizedTest(name = "{0} at BASIL {1}")
    @MethodSource("cases")
    void aJobLifecycleWorksAndEveryAnswerPassesCheck(String machine, String protocol) throws BasilException {
        Emulator e = Emulator.create(machine, () -> 1_700_000_000L);
        assertTrue(call(e, BasilRequest.query("1.0", "ENGINE")).isSuccess());
        assertTrue(call(e, BasilRequest.query(protocol, "ENGINE")).isSuccess());
        List<NodeView> idle = inventory(e, protocol);
        NodeView batch = idle.stream().filter(n -> n.role().equals("BATCH")).findFirst().orElseThrow();
        long cpus = batch.processorCount();
        // Slurm's default mode: whole nodes, width = sum of CPUs, nppn = CPUs, depth 1, nppcu from 1.3 on.
        ReserveParam.Builder whole = ReserveParam.builder().architecture("XT").width(2 * cpus).nppn(cpus).depth(1);
        if (Protocols.atLeast(protocol, "1.3")) {
            whole.nppcu(0);
        }
        long id = reserve(e, protocol, whole.memoryPerPeMb(100).build());
        assertTrue(call(e, BasilRequest.confirm("1.0", id, 31337, "4242")).isSuccess());
        assertTrue(call(e, BasilRequest.confirm(protocol, id, 31337)).isSuccess(), "CONFIRM is idempotent");
        assertEquals(2 * cpus, held(inventory(e, protocol), id));
        assertTrue(call(e, BasilRequest.query(protocol, "SUMMARY")).isSuccess());
        assertEquals(Protocols.atLeast(protocol, "1.7"), call(e, BasilRequest.query(protocol, "SYSTEM")).isSuccess());
        assertTrue(call(e, BasilRequest.status(protocol, List.of(id))).isSuccess());
        assertEquals(Protocols.atLeast(protocol, "1.2"), call(e, BasilRequest.switchReservation(protocol, id, "OUT")).isSuccess());
        if (batch.accelerators().size() > 0 || machine.contains("gpu") || machine.contains("xk7")) {
            ReserveParam.Builder gpu = ReserveParam.builder().width(1);
            gpu.accel(new ReserveParam.AccelParam("GPU", null, null));
            long g = reserve(e, protocol, gpu.build());
            assertTrue(call(e, BasilRequest.release(protocol, g)).isSuccess());
        }
        ResponseData released = call(e, BasilRequest.release(protocol, id));
        assertTrue(released.isSuccess(), released.messageText());
        ResponseData again = call(e, BasilRequest.release(protocol, id));
        assertEquals("ALPS error: apsched: No entry for resId " + id, again.messageText());
        assertEquals(0, held(inventory(e, protocol), id));
        ResponseData tooBig = call(e, BasilRequest.reserve(protocol, "alice", "1", null,
                List.of(ReserveParam.builder().width(1).nppn(100_000).build())));
        assertEquals("PERMANENT", tooBig.errorClass().name());
    }

    @Test
    void anXc30JobWithOneTaskPerCoreGetsOneThreadOfEachComputeUnit() throws BasilException {
        Emulator e = Emulator.create("xc30:4");
        // --ntasks-per-core=1 on 2 nodes: Slurm sends width 32 (16 usable CPUs per node), nppn 16, nppcu 1.
        long id = reserve(e, "1.3", ReserveParam.builder().width(32).nppn(16).nppcu(1).depth(1).build());
        for (NodeView n : inventory(e, "1.3").subList(0, 2)) {
            for (NodeView.Segment s : n.segments()) {
                for (NodeView.Core c : s.cores()) {
                    assertTrue(c.threads().get(0).reservations().contains(id));
                    assertFalse(c.threads().get(1).reservations().contains(id));
                }
            }
        }
        ResponseData tooMany = call(e, BasilRequest.reserve("1.3", "alice", "2", null,
                List.of(ReserveParam.builder().width(64).nppn(32).nppcu(1).build())));
        assertEquals("PERMANENT", tooMany.errorClass().name(), "32 per node is more than nppcu 1 allows");
    }

    @Test
    void anXe6JobPlacedPerComputeUnitTakesOneIntegerCoreOfEachUnit() throws BasilException {
        Emulator e = Emulator.create("xe6:4");
        long id = reserve(e, "1.3", ReserveParam.builder().width(32).nppn(16).nppcu(1).build());
        List<NodeView> nodes = inventory(e, "1.3");
        for (NodeView n : nodes.subList(0, 2)) {
            assertEquals(16, n.coreCount());
            assertEquals(16, held(List.of(n), id));
            for (NodeView.Segment s : n.segments()) {
                for (NodeView.Core c : s.cores()) {
                    assertEquals(1, c.threads().stream().filter(t -> t.reservations().contains(id)).count());
                }
            }
        }
    }

    @Test
    void aHundredThousandNodeMachineRunsALifecycleAndItsInventoryPassesCheckStreaming() throws Exception {
        Emulator e = Emulator.create("xc30:100000", () -> 1_700_000_000L);
        long id = reserve(e, "1.3", ReserveParam.builder().width(50_000L * 32).nppn(32).nppcu(0).build());
        assertTrue(call(e, BasilRequest.confirm("1.0", id, 7, "1")).isSuccess());
        ResponseData summary = call(e, BasilRequest.query("1.3", "SUMMARY"));
        assertTrue(summary.isSuccess());
        PipedInputStream in = new PipedInputStream(1 << 20);
        PipedOutputStream out = new PipedOutputStream(in);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try (out) {
                e.handle(CODEC.write(BasilRequest.query("1.3", "INVENTORY")), out);
            } catch (IOException | BasilException ex) {
                throw new RuntimeException(ex);
            }
        });
        String checked = CheckAccess.describeInventoryStream(in);
        writer.join();
        assertTrue(checked.contains("nodes=100000"), checked);
        assertTrue(checked.contains("reservations=1"), checked);
        assertTrue(call(e, BasilRequest.release("1.3", id)).isSuccess());
    }
}
