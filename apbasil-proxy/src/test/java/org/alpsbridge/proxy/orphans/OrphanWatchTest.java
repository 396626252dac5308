package org.alpsbridge.proxy.orphans;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.Failures;
import org.alpsbridge.basil.inventory.InventoryHeader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.inventory.ReservationView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.stats.Stats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OrphanWatchTest {

    static final BasilCodec CODEC = BasilCodec.standard();
    static final InventoryHeader HEADER = InventoryHeader.success("1.3", "sdb", 5000L, 7L, 3L);

    @TempDir
    Path dir;

    /** A fake ALPS: RESERVE answers reservation 5 on NID 12, RELEASE succeeds unless told otherwise. */
    static final class FakeAlps implements Backend {
        final List<String> seen = new ArrayList<>();
        boolean failRelease;

        @Override
        public byte[] call(Call call) throws BackendException {
            try {
                BasilRequest r = CODEC.readRequest(call.request());
                seen.add(r.methodKey() + (r.reservationId() == null ? "" : " " + r.reservationId()));
                return switch (r.method()) {
                    case RESERVE -> CODEC.write(BasilResponse.success("1.3", Method.RESERVE, Reserved.of("1.3", 5, List.of(12L))));
                    case RELEASE -> failRelease
                            ? Failures.failure("1.3", Method.RELEASE, ErrorClass.PERMANENT, "BACKEND", "ALPS error: apsched: busy")
                            : CODEC.write(BasilResponse.success("1.3", Method.RELEASE, Released.of("1.3", r.reservationId(), 0)));
                    default -> throw new BackendException("unexpected " + r.methodKey(), false);
                };
            } catch (org.alpsbridge.basil.codec.BasilException e) {
                throw new BackendException(e.getMessage(), false, e);
            }
        }

        @Override
        public String describe() {
            return "fake";
        }
    }

    static NodeView node(long nid, Long reservation) {
        NodeView.Thread t = new NodeView.Thread(0, reservation == null ? List.of() : List.of(reservation));
        NodeView.Segment seg = new NodeView.Segment(0, List.of(new NodeView.Core(0, List.of(t))), List.of(), List.of());
        return new NodeView(nid, "c0-0c0s0n" + nid, "XT", "BATCH", "UP", null,
                List.of(new NodeView.Socket(0, "x86_64", 2600, List.of(seg))), List.of(), List.of(), List.of());
    }

    static ReservationView reservation(long id, String batchId, long... apids) {
        List<ReservationView.Application> apps = new ArrayList<>();
        apps.add(new ReservationView.Application(999, 0, 0, 0, List.of()));
        for (long a : apids) {
            apps.add(new ReservationView.Application(a, 12795, 12795, 4990, List.of()));
        }
        return new ReservationView(id, "mallory", "DEFAULT", 4900L, batchId, "EXCLUSIVE", "NONE", apps);
    }

    static byte[] reserveRequest() throws Exception {
        return CODEC.write(BasilRequest.reserve("1.3", "alice", "100", null, List.of()));
    }

    static Call call(byte[] request, String method) {
        return new Call(request, "1.3", method, null, Caller.UNAUTHENTICATED, null);
    }

    OrphanWatch watch(JobSource jobs, Path apkill) {
        return new OrphanWatch(jobs, apkill, Duration.ofSeconds(10), new Stats());
    }

    @Test
    void aReservationPlantedBehindTheProxysBackIsListedWithWhyAndAge() {
        OrphanWatch w = watch(null, dir.resolve("apkill"));
        w.decorate(new FakeAlps());
        w.inspect(HEADER, List.of(node(12, null)), List.of(), 0);
        w.inspect(HEADER, List.of(node(12, 7L), node(13, 7L)), List.of(reservation(7, "4242")), 10);

        Orphan o = w.orphans().get(0);
        assertEquals(7, o.reservationId());
        assertEquals("12-13", o.nids().toString());
        assertEquals(100, o.ageSeconds());
        assertEquals(List.of(Reason.NOT_CREATED_BY_PROXY), o.reasons());

        String json = new String(w.admin(Map.of("format", "json")), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"reservationId\":7,\"user\":\"mallory\",\"account\":\"DEFAULT\",\"batchId\":\"4242\",\"nodes\":\"12-13\""), json);
        assertTrue(json.contains("\"reasons\":[\"not-created-by-proxy\"]"), json);
        String table = new String(w.admin(Map.of()), StandardCharsets.UTF_8);
        assertTrue(table.contains("not created through the proxy"), table);
    }

    @Test
    void aStandbyJudgesNothingAndATakeoverJudgesWhatTheOtherProxyLeftByItsJobOnly() {
        OrphanWatch w = watch(() -> java.util.Set.of("4242"), dir.resolve("apkill"));
        w.decorate(new FakeAlps());
        w.inspect(HEADER, List.of(node(12, null)), List.of(), 0);
        w.standby(true);
        // the active proxy of the pair made these; this one saw none of their RESERVEs
        List<ReservationView> left = List.of(reservation(7, "4242"), reservation(8, "4343"));
        w.inspect(HEADER, List.of(node(12, 7L), node(13, 8L)), left, 10);
        assertEquals(List.of(), w.orphans(), "a standby judges nothing");

        w.standby(false);
        w.inspect(HEADER, List.of(node(12, 7L), node(13, 8L)), left, 20);
        assertEquals(1, w.orphans().size(), String.valueOf(w.orphans()));
        assertEquals(8, w.orphans().get(0).reservationId(), "job 4242 is live and owns 7; 4343 is gone");
        assertEquals(List.of(Reason.JOB_GONE), w.orphans().get(0).reasons(), "not 'not created through the proxy'");
    }

    @Test
    void aReservationMadeThroughTheWatchedChainIsNotAnOrphan() throws Exception {
        OrphanWatch w = watch(() -> java.util.Set.of("100"), dir.resolve("apkill"));
        Backend chain = w.decorate(new FakeAlps());
        w.inspect(HEADER, List.of(node(12, null)), List.of(), 0);
        long fetch = System.nanoTime();
        chain.call(call(reserveRequest(), "RESERVE"));
        w.inspect(HEADER, List.of(node(12, 5L)), List.of(reservation(5, "100")), fetch);
        assertTrue(w.orphans().isEmpty(), () -> w.orphans().toString());
    }

    @Test
    void anUnknownReservationSeenWhileAReserveWasInFlightIsListedAsSoonAsThatReserveNamesAnother() throws Exception {
        OrphanWatch w = watch(() -> java.util.Set.of("100", "4242"), dir.resolve("apkill"));
        FakeAlps alps = new FakeAlps();
        Backend chain = w.decorate(new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                // a refresh completes while this RESERVE waits for ALPS: 7 might still be its answer
                w.inspect(HEADER, List.of(node(12, null), node(13, 7L)), List.of(reservation(7, "4242")), System.nanoTime());
                assertTrue(w.orphans().isEmpty(), "not judged while the RESERVE is in flight");
                return alps.call(call);
            }

            @Override
            public String describe() {
                return "slow fake";
            }
        });
        w.inspect(HEADER, List.of(node(12, null)), List.of(), 0);
        chain.call(call(reserveRequest(), "RESERVE"));
        assertEquals(List.of(7L), w.orphans().stream().map(Orphan::reservationId).toList(), "the RESERVE answered 5, not 7");
        assertEquals(List.of(Reason.NOT_CREATED_BY_PROXY), w.orphans().get(0).reasons());
    }

    /**
     * After a takeover the survivor adopted reservation 2 (a RESERVE the stopped proxy answered; the answer never
     * reached the scheduler), and the job's RESERVE again made 5: 2 is released at once, through the chain.
     */
    @Test
    void aReservationSupersededByItsJobsNewerOneIsReleasedAtOnce() throws Exception {
        FakeAlps alps = new FakeAlps();
        OrphanWatch w = watch(() -> java.util.Set.of("100"), dir.resolve("apkill"));
        Backend chain = w.decorate(alps);
        w.inspect(HEADER, List.of(node(12, 2L), node(13, null)), List.of(reservation(2, "100")), 0);
        chain.call(call(reserveRequest(), "RESERVE"));
        w.inspect(HEADER, List.of(node(12, 2L), node(13, 5L)), List.of(reservation(2, "100"), reservation(5, "100")),
                System.nanoTime());
        assertEquals(List.of("RESERVE", "RELEASE 2"), alps.seen);
        assertTrue(w.orphans().isEmpty(), () -> w.orphans().toString());
        w.inspect(HEADER, List.of(node(12, null), node(13, 5L)), List.of(reservation(5, "100")), System.nanoTime());
        assertTrue(w.orphans().isEmpty(), () -> w.orphans().toString());
    }

    @Test
    void aFailedReleaseThroughTheChainLeavesAnOrphanAndTheSafeReleaseKillsItsApplications() throws Exception {
        Path log = dir.resolve("apkill.log");
        Path apkill = dir.resolve("apkill");
        Files.writeString(apkill, "#!/bin/sh\necho \"$@\" >> " + log + "\n");
        Files.setPosixFilePermissions(apkill, PosixFilePermissions.fromString("rwx------"));
        FakeAlps alps = new FakeAlps();
        OrphanWatch w = watch(null, apkill);
        Backend chain = w.decorate(alps);
        w.inspect(HEADER, List.of(node(12, null)), List.of(), 0);
        chain.call(call(reserveRequest(), "RESERVE"));
        alps.failRelease = true;
        chain.call(call(CODEC.write(BasilRequest.release("1.3", 5)), "RELEASE"));
        w.inspect(HEADER, List.of(node(12, 5L)), List.of(reservation(5, "100", 1000001, 1000002)), System.nanoTime());
        assertEquals(List.of(Reason.RELEASE_FAILED), w.orphans().get(0).reasons());

        alps.failRelease = false;
        String json = new String(w.admin(Map.of("format", "json", "release", "true")), StandardCharsets.UTF_8);
        assertTrue(json.contains("\"release\":{\"released\":true"), json);
        assertEquals(List.of("RESERVE", "RELEASE 5", "RELEASE 5"), alps.seen);
        assertEquals("-9 1000001\n-9 1000002\n", Files.readString(log));
    }

    @Test
    void applicationsAreNotKilledWhenTheReleaseFails() throws Exception {
        Path apkill = dir.resolve("apkill-never");
        FakeAlps alps = new FakeAlps();
        alps.failRelease = true;
        OrphanWatch w = watch(null, apkill);
        w.decorate(alps);
        w.inspect(HEADER, List.of(), List.of(), 0);
        w.inspect(HEADER, List.of(node(12, 9L)), List.of(reservation(9, "77", 1000003)), 10);
        ReleaseOutcome r = w.release(List.of(9L)).get(0);
        assertEquals(false, r.released());
        assertTrue(r.message().contains("busy"), r.message());
        assertTrue(r.kills().isEmpty());
    }

    @Test
    void aFailingJobSourceIsReportedAndJudgesNothingByJob() {
        OrphanWatch w = watch(new JobSource() {
            @Override
            public java.util.Set<String> liveJobIds() throws java.io.IOException {
                throw new java.io.IOException("command: squeue: exited with status 1");
            }

            @Override
            public String describe() {
                return "command: squeue";
            }
        }, dir.resolve("apkill"));
        w.decorate(new FakeAlps());
        w.inspect(HEADER, List.of(node(12, 3L)), List.of(reservation(3, "55")), 0);
        w.inspect(HEADER, List.of(node(12, 3L)), List.of(reservation(3, "55")), 10);
        assertTrue(w.orphans().isEmpty());
        assertTrue(new String(w.admin(Map.of("format", "json")), StandardCharsets.UTF_8).contains("exited with status 1"));
    }

    @Test
    void onlyOrphansCanBeReleased() {
        OrphanWatch w = watch(null, dir.resolve("apkill"));
        w.decorate(new FakeAlps());
        w.inspect(HEADER, List.of(), List.of(), 0);
        assertThrows(IllegalArgumentException.class, () -> w.release(List.of(42L)));
    }
}
