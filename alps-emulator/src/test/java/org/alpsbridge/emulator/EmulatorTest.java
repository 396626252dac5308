package org.alpsbridge.emulator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Confirmed;
import org.alpsbridge.basil.model.Engine;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.ReservationStates;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.junit.jupiter.api.Test;

class EmulatorTest {

    private static final BasilCodec CODEC = BasilCodec.standard();

    private static ResponseData call(Emulator e, BasilRequest request) throws BasilException {
        BasilResponse response = CODEC.readResponse(e.handle(CODEC.write(request)));
        assertEquals(request.protocol(), response.protocol(), "ALPS echoes the protocol");
        return response.responseData();
    }

    private static BasilRequest reserve(String protocol, ReserveParam... params) {
        return BasilRequest.reserve(protocol, "alice", "1234", null, List.of(params));
    }

    @Test
    void engineReportsItsVersionAndFromOnePointOneTheProtocolsItSpeaks() throws BasilException {
        Emulator e = Emulator.create("xc30:4");
        Engine old = call(e, BasilRequest.query("1.0", "ENGINE")).content(Engine.class).orElseThrow();
        assertEquals("ALPS", old.name());
        assertEquals("6.0.0", old.version());
        assertEquals(null, old.basilSupport());
        Engine modern = call(e, BasilRequest.query("1.3", "ENGINE")).content(Engine.class).orElseThrow();
        assertEquals(List.of("1.7", "1.4", "1.3", "1.2", "1.1", "1.0"), modern.supportedProtocols());
    }

    @Test
    void anOlderEngineRefusesNewerProtocolsPermanently() throws BasilException {
        Emulator e = Emulator.create("xe6:4,engine=5.1.0");
        assertEquals(List.of("1.3", "1.2", "1.1", "1.0"),
                call(e, BasilRequest.query("1.1", "ENGINE")).content(Engine.class).orElseThrow().supportedProtocols());
        ResponseData d = call(e, BasilRequest.query("1.4", "ENGINE"));
        assertFalse(d.isSuccess());
        assertEquals(ErrorClass.PERMANENT, d.errorClass());
        assertTrue(d.messageText().contains("protocol version '1.4' is not supported by ALPS 5.1.0"), d.messageText());
    }

    @Test
    void aNodeParamIsPlacedInTheOrderWrittenAndARepeatedNidIsRefused() throws BasilException {
        Emulator e = Emulator.create("xc30:8");
        // Slurm writes NodeParam in its node-rank order and merges only upward runs: 6-7,2-3 is not 2-3,6-7.
        ResponseData placed = call(e, reserve("1.3", ReserveParam.builder().width(4 * 32).nppn(32).nodes("6-7,2-3").build()));
        assertTrue(placed.isSuccess(), placed.messageText());
        assertEquals(List.of(6L, 7L, 2L, 3L), placed.content(Reserved.class).orElseThrow().nodeIds());
        ResponseData repeated = call(e, reserve("1.3", ReserveParam.builder().width(32).nodes("4,0-5").build()));
        assertEquals(ErrorClass.PERMANENT, repeated.errorClass());
        assertTrue(repeated.messageText().startsWith("ALPS error: bad NodeParam '4,0-5': "), repeated.messageText());
    }

    @Test
    void aSlurmStyleLifecycleReservesConfirmsAtOnePointZeroAndReleases() throws BasilException {
        Emulator e = Emulator.create("xc30:8");
        ResponseData reserved = call(e, reserve("1.3", ReserveParam.builder().architecture("XT").width(64).nppn(32).nppcu(0).depth(1)
                .nodes("2-3").build()));
        assertTrue(reserved.isSuccess(), reserved.messageText());
        Reserved r = reserved.content(Reserved.class).orElseThrow();
        assertEquals(List.of(2L, 3L), r.nodeIds());
        long id = r.reservationId();
        ResponseData confirmed = call(e, BasilRequest.confirm("1.0", id, 4242, "1234"));
        assertTrue(confirmed.isSuccess());
        assertTrue(call(e, BasilRequest.confirm("1.0", id, 4242, "1234")).isSuccess(), "CONFIRM is idempotent");
        Released released = call(e, BasilRequest.release("1.3", id)).content(Released.class).orElseThrow();
        assertEquals(id, released.reservationId());
        assertEquals(0L, released.claims());
        ResponseData again = call(e, BasilRequest.release("1.3", id));
        assertEquals(ErrorClass.PERMANENT, again.errorClass());
        assertEquals("BACKEND", again.errorSource());
        assertEquals("ALPS error: apsched: No entry for resId " + id, again.messageText());
    }

    /**
     * Slurm 18.08 with proctrack/pgid confirms with slurmstepd's own session, which lives until after the stepd's
     * RELEASE: slurmctld's RELEASE at scancel and the stepd's both find the reservation (claims 1), and it goes at
     * the first call of any kind after the stepd exits.
     */
    @Test
    void aJobsLivingContainerIsAClaimSoTheReleaseAfterScancelAndTheStepdsReleaseBothSucceed() throws BasilException {
        Emulator e = Emulator.create("xc30:8");
        java.util.Set<Long> alive = new java.util.HashSet<>(List.of(4242L));
        e.control().watchPaggs(alive::contains);
        long id = call(e, reserve("1.3", ReserveParam.builder().architecture("XT").width(64).nppn(32).build()))
                .content(Reserved.class).orElseThrow().reservationId();
        assertTrue(call(e, BasilRequest.confirm("1.0", id, 4242, "1234")).isSuccess());
        // slurmctld at scancel, then slurmstepd at the job's end: the stepd's session still lives both times
        assertEquals(1L, call(e, BasilRequest.release("1.3", id)).content(Released.class).orElseThrow().claims());
        assertTrue(call(e, BasilRequest.query("1.3", "INVENTORY")).isSuccess());
        assertEquals(1L, call(e, BasilRequest.release("1.3", id)).content(Released.class).orElseThrow().claims(),
                "a RELEASE of a reservation already releasing counts its claims again");
        assertEquals(1, e.control().reservationIds().length, "kept while its container lives");
        alive.clear(); // the stepd exited
        String inventory = new String(e.handle(BasilCodec.standard().write(BasilRequest.query("1.3", "INVENTORY"))),
                java.nio.charset.StandardCharsets.UTF_8);
        assertFalse(inventory.contains("reservation_id=\"" + id + "\""), "gone at the next call, a query too: " + inventory);
        assertEquals(0, e.control().reservationIds().length);
        assertTrue(call(e, BasilRequest.release("1.3", id)).messageText().contains("No entry for resId"),
                "a RELEASE after that finds nothing, as ALPS answered");
        // a released reservation whose container has already ended goes at once
        long other = call(e, reserve("1.3", ReserveParam.builder().architecture("XT").width(64).nppn(32).build()))
                .content(Reserved.class).orElseThrow().reservationId();
        call(e, BasilRequest.confirm("1.0", other, 77, "1235"));
        assertEquals(0L, call(e, BasilRequest.release("1.3", other)).content(Released.class).orElseThrow().claims());
        assertEquals(0, e.control().reservationIds().length);
    }

    @Test
    void confirmAfterOnePointOneEchoesReservationAndPagg() throws BasilException {
        Emulator e = Emulator.create("xc30:2");
        long id = call(e, reserve("1.2", ReserveParam.builder().width(1).build())).content(Reserved.class).orElseThrow().reservationId();
        Confirmed c = call(e, BasilRequest.confirm("1.2", id, 99)).content(Confirmed.class).orElseThrow();
        assertEquals(id, c.reservationId());
        assertEquals(99L, c.paggId());
    }

    @Test
    void onePointZeroReserveAnswersWithCookies() throws BasilException {
        Emulator e = Emulator.create("xc30:2");
        Reserved r = call(e, reserve("1.0", ReserveParam.builder().width(1).build())).content(Reserved.class).orElseThrow();
        assertEquals(0L, r.adminCookie());
        assertEquals(0L, r.allocCookie());
    }

    @Test
    void rejectionsCarryTheirErrorClass() throws BasilException {
        Emulator e = Emulator.create("xc30:2");
        ResponseData impossible = call(e, reserve("1.3", ReserveParam.builder().width(32).nppn(32).nppcu(1).build()));
        assertEquals(ErrorClass.PERMANENT, impossible.errorClass());
        assertEquals(Method.RESERVE, impossible.method());
        call(e, reserve("1.3", ReserveParam.builder().width(64).build()));
        ResponseData busy = call(e, reserve("1.3", ReserveParam.builder().width(1).build()));
        assertEquals(ErrorClass.TRANSIENT, busy.errorClass());
        ResponseData badList = call(e, reserve("1.3", ReserveParam.builder().width(1).nodes("5-3").build()));
        assertEquals("SYNTAX", badList.errorSource());
    }

    @Test
    void switchSuspendsAndResumesAndStatusReportsIt() throws BasilException {
        Emulator e = Emulator.create("xc30:2");
        long id = call(e, reserve("1.3", ReserveParam.builder().width(1).build())).content(Reserved.class).orElseThrow().reservationId();
        ReservationStates out = call(e, BasilRequest.switchReservation("1.3", id, "OUT")).content(ReservationStates.class).orElseThrow();
        assertEquals("SUCCESS", out.reservations().get(0).status());
        ReservationStates status = call(e, BasilRequest.status("1.3", List.of(id, 77L))).content(ReservationStates.class).orElseThrow();
        assertEquals("SUSPEND", status.reservations().get(0).status());
        assertEquals("INVALID", status.reservations().get(1).status());
        assertEquals("FAILURE", call(e, BasilRequest.switchReservation("1.3", 77, "IN")).content(ReservationStates.class)
                .orElseThrow().reservations().get(0).status());
        assertFalse(call(e, BasilRequest.switchReservation("1.1", id, "IN")).isSuccess(), "SWITCH came with 1.2");
    }

    @Test
    void badDocumentsGetAParserFailureNotAnException() throws BasilException {
        Emulator e = Emulator.create("xc30:2");
        BasilResponse r = CODEC.readResponse(e.handle("<BasilRequest protocol=\"1.3\" method=\"QUERY\"><oops></BasilRequest>".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("1.3", r.protocol());
        assertEquals("PARSER", r.responseData().errorSource());
        BasilResponse nothing = CODEC.readResponse(e.handle(new byte[0]));
        assertEquals(Method.UNDEFINED, nothing.responseData().method());
        BasilResponse unknownMethod = CODEC.readResponse(e.handle(
                "<BasilRequest protocol=\"1.3\" method=\"DANCE\"/>".getBytes(StandardCharsets.US_ASCII)));
        assertEquals("SYNTAX", unknownMethod.responseData().errorSource());
    }

    @Test
    void aFailFaultAnswersTheFailureUntilCleared() throws BasilException {
        Emulator e = Emulator.create("xc30:2");
        e.control().fail(Method.RESERVE, ErrorClass.TRANSIENT, "ALPS error: apsched: busy");
        ResponseData d = call(e, reserve("1.3", ReserveParam.builder().width(1).build()));
        assertEquals(ErrorClass.TRANSIENT, d.errorClass());
        assertEquals("ALPS error: apsched: busy", d.messageText());
        assertEquals("BACKEND", d.errorSource(), "ALPS's own refusals come from its backend");
        assertTrue(call(e, BasilRequest.query("1.3", "ENGINE")).isSuccess(), "other methods are unaffected");
        e.control().clearFaults();
        assertTrue(call(e, reserve("1.3", ReserveParam.builder().width(1).build())).isSuccess());
    }

    @Test
    void aFailFaultCanNameAnotherSourceSoOpenPbsSeesAPermanentRefusal() throws BasilException {
        Emulator e = Emulator.create("xc30:2");
        e.control().fail(Method.RESERVE, ErrorClass.PERMANENT, "SYSTEM", "ALPS error: no allocation");
        ResponseData d = call(e, reserve("1.3", ReserveParam.builder().width(1).build()));
        assertEquals(ErrorClass.PERMANENT, d.errorClass());
        assertEquals("SYSTEM", d.errorSource());
        assertThrows(IllegalArgumentException.class, () -> e.control().fail(Method.RESERVE, ErrorClass.PERMANENT, "ALPS", "x"));
    }

    @Test
    void garbageAndTruncatedAnswersAreNotReadable() throws BasilException {
        Emulator e = Emulator.create("xc30:2");
        byte[] engine = CODEC.write(BasilRequest.query("1.3", "ENGINE"));
        e.control().garbage(Method.QUERY);
        assertThrows(BasilException.class, () -> CODEC.readResponse(e.handle(engine)));
        e.control().truncate(Method.QUERY);
        byte[] cut = e.handle(engine);
        e.control().clearFaults();
        assertEquals(e.handle(engine).length / 2, cut.length);
        assertThrows(BasilException.class, () -> CODEC.readResponse(cut));
    }

    @Test
    void aHungMethodBlocksUntilFaultsAreCleared() throws Exception {
        Emulator e = Emulator.create("xc30:2");
        e.control().hang(Method.RELEASE);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            Future<byte[]> call = pool.submit(() -> e.handle(CODEC.write(BasilRequest.release("1.3", 1))));
            assertThrows(TimeoutException.class, () -> call.get(200, TimeUnit.MILLISECONDS));
            e.control().clearFaults();
            assertEquals("ALPS error: apsched: No entry for resId 1",
                    CODEC.readResponse(call.get(5, TimeUnit.SECONDS)).responseData().messageText());
        } finally {
            pool.shutdownNow();
        }
    }

    @Test
    void aSlowMethodStillAnswers() throws BasilException {
        Emulator e = Emulator.create("xc30:2");
        e.control().slow(Method.QUERY, 50);
        long start = System.nanoTime();
        assertTrue(call(e, BasilRequest.query("1.3", "ENGINE")).isSuccess());
        assertTrue(System.nanoTime() - start >= 50_000_000L);
    }

    @Test
    void theLatencyModelsJitterVariesPerCallWithinItsBoundAndRepeatsFromRunToRun() {
        Faults.Fault f = new Faults.Fault(Faults.Kind.SLOW, null, null, 10, 100);
        Faults first = new Faults();
        Faults second = new Faults();
        long[] a = new long[20];
        long[] b = new long[20];
        for (int i = 0; i < a.length; i++) {
            a[i] = first.delayMillis(f);
            b[i] = second.delayMillis(f);
            assertTrue(a[i] >= 10 && a[i] < 110, "delay " + a[i]);
        }
        assertArrayEquals(a, b, "seeded: an in-process run repeats");
        assertTrue(java.util.Arrays.stream(a).distinct().count() > 10, "drawn per call: " + java.util.Arrays.toString(a));
    }

    @Test
    void aLostReleaseAnswersSuccessButKeepsTheReservation() throws BasilException {
        Emulator e = Emulator.create("xc30:2");
        long id = call(e, reserve("1.3", ReserveParam.builder().width(1).build())).content(Reserved.class).orElseThrow().reservationId();
        e.control().loseNextRelease();
        assertTrue(call(e, BasilRequest.release("1.3", id)).isSuccess());
        assertArrayEquals(new long[] {id}, e.control().reservationIds());
        assertTrue(call(e, BasilRequest.release("1.3", id)).isSuccess());
        assertArrayEquals(new long[0], e.control().reservationIds());
    }

    @Test
    void plantedReservationsAndNodeChangesShowThroughTheControl() {
        Emulator e = Emulator.create("xc30:4,interactive=1");
        long orphan = e.control().plantReservation("bob", "UNKNOWN", 0);
        assertArrayEquals(new int[] {0}, e.control().reservationNodes(orphan));
        long before = e.control().schedChangeCount();
        e.control().setState(new int[] {2}, "DOWN");
        assertEquals(before + 1, e.control().schedChangeCount());
        assertThrows(IllegalArgumentException.class, () -> e.control().setState(new int[] {2}, "SIDEWAYS"));
        assertThrows(IllegalArgumentException.class, () -> e.control().setRole(new int[] {99}, "BATCH"));
        assertEquals(4, e.computeNodes());
    }
}
