package org.alpsbridge.proxy.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.Failures;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.BasilResponse;
import org.alpsbridge.basil.model.Confirmed;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.timelimit.TimeLimits;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The ledger decorator over a scripted ALPS: hold before forwarding, bind, confirm, settle, void. */
class LedgerBackendTest {

    static final Instant T = Instant.parse("2026-03-01T12:00:00Z");

    @TempDir
    Path dir;
    Ledger ledger;
    FakeAlps alps;
    MutableClock clock;
    Backend chain;
    BasilCodec codec = BasilCodec.standard();

    /** ALPS as the proxy sees it: numbered reservations, or a refusal when told to. */
    static final class FakeAlps implements Backend {
        final AtomicInteger calls = new AtomicInteger();
        long nextId = 100;
        boolean refuse;
        boolean down;
        /** Reservations ALPS no longer has (ended by a RELEASE whose answer was lost): RELEASE says "No entry". */
        final java.util.Set<Long> gone = new java.util.HashSet<>();

        @Override
        public byte[] call(Call call) throws BackendException {
            calls.incrementAndGet();
            if (down) {
                throw new BackendException("apbasil timed out", true);
            }
            try {
                BasilRequest r = BasilCodec.standard().readRequest(call.request());
                return switch (r.method()) {
                    case RESERVE -> refuse
                            ? Failures.failure(r.protocol(), Method.RESERVE, ErrorClass.PERMANENT, "SYSTEM", "no nodes")
                            : BasilCodec.standard().write(BasilResponse.success(r.protocol(), Method.RESERVE,
                                    Reserved.of(r.protocol(), nextId++, List.of(20L, 21L))));
                    case CONFIRM -> BasilCodec.standard().write(BasilResponse.success(r.protocol(), Method.CONFIRM,
                            Confirmed.of(r.protocol(), r.reservationId(), 9)));
                    case RELEASE -> gone.contains(r.reservationId())
                            ? Failures.failure(r.protocol(), Method.RELEASE, ErrorClass.PERMANENT, "BACKEND",
                                    "ALPS error: apsched: No entry for resId " + r.reservationId())
                            : BasilCodec.standard().write(BasilResponse.success(r.protocol(), Method.RELEASE,
                                    Released.of(r.protocol(), r.reservationId(), 0)));
                    default -> throw new BackendException("unexpected " + r.method(), false);
                };
            } catch (org.alpsbridge.basil.codec.BasilException e) {
                throw new BackendException(e.getMessage(), false, e);
            }
        }

        @Override
        public String describe() {
            return "fake-alps";
        }
    }

    static final class MutableClock extends Clock {
        Instant now = T;

        @Override
        public ZoneId getZone() {
            return ZoneOffset.UTC;
        }

        @Override
        public Clock withZone(ZoneId zone) {
            return this;
        }

        @Override
        public Instant instant() {
            return now;
        }
    }

    @BeforeEach
    void setUp() {
        ledger = Ledger.open("sqlite:" + dir.resolve("ledger.db"));
        ledger.addProject("chem", 5001, "chem_acct");
        ledger.grant("chem", Resource.CPU, 10_000, Instant.parse("2026-01-01T00:00:00Z"),
                Instant.parse("2026-07-01T00:00:00Z"), "research", null);
        alps = new FakeAlps();
        clock = new MutableClock();
        TimeLimits limits = new TimeLimits(job -> java.util.Optional.empty(), Map.of("default", 7_200L), 3_600);
        chain = new LedgerBackend(alps, ledger, new LedgerBackend.Settings("xc", 32, null, limits, null)
                .withDenials(ACCOUNTS, Duration.ofSeconds(300), null), clock, false);
    }

    /** The scheduler knows job 7001's account; alice's primary group is chem's gid, bob's is no project's. */
    static final JobAccounts ACCOUNTS = new JobAccounts("test",
            job -> job.equals("7001") ? Optional.of("chem_acct") : Optional.empty(),
            user -> switch (user) {
                case "alice" -> Optional.of("5001");
                case "bob" -> Optional.of("6000");
                default -> Optional.empty();
            });

    @AfterEach
    void tearDown() {
        assertEquals(List.of(), ledger.check());
        ledger.close();
    }

    Balance chem() {
        return ledger.balances("chem").get(0);
    }

    byte[] send(BasilRequest request, String exchangeId) throws Exception {
        return chain.call(new Call(codec.write(request), "1.3", request.methodText(), null, Caller.UNAUTHENTICATED,
                exchangeId));
    }

    static BasilRequest reserve(String account, long width) {
        return reserve("alice", "4242", account, width);
    }

    static BasilRequest reserve(String user, String batchId, String account, long width) {
        return BasilRequest.reserve("1.3", user, batchId, account,
                List.of(ReserveParam.builder().architecture("XT").width(width).nppn(32).build()));
    }

    ResponseData answer(byte[] response) throws Exception {
        return codec.readResponse(response).responseData();
    }

    @Test
    void aReserveIsHeldBeforeAlpsSeesItThenConfirmedAndSettledByTheClock() throws Exception {
        ResponseData reserved = answer(send(reserve("chem_acct", 64), "ex-1"));
        assertTrue(reserved.isSuccess());
        assertEquals(7_680, chem().held(), "2 nodes x 32 cores x 120 min from the partition default");
        assertEquals(State.HELD, ledger.reservation(new org.alpsbridge.ledger.Lookup("xc", 100, null)).orElseThrow().state());

        assertTrue(answer(send(BasilRequest.confirm("1.3", 100, 9), "ex-2")).isSuccess());
        clock.now = T.plusSeconds(4_990);
        assertTrue(answer(send(BasilRequest.release("1.3", 100), "ex-3")).isSuccess());
        assertEquals(0, chem().held());
        assertEquals(5_323, chem().used());
        assertEquals(3, alps.calls.get());
    }

    @Test
    void anInsufficientBalanceIsAPermanentBasilFailureNamingProjectCostAndBalanceAndNeverReachesAlps()
            throws Exception {
        ResponseData denied = answer(send(reserve("chem_acct", 32 * 10), "ex-1"));
        assertFalse(denied.isSuccess());
        assertEquals(ErrorClass.PERMANENT, denied.errorClass());
        String text = denied.messageText();
        assertTrue(text.contains("chem") && text.contains("38400") && text.contains("available 10000"), text);
        // what the job's owner reads in squeue's comment: the job, not the ledger's internal key, and what to do
        assertFalse(text.contains("default/"), text);
        assertTrue(text.contains("job "), text);
        assertTrue(text.contains("ask the project's PI or the allocation office for more"), text);
        assertEquals(0, alps.calls.get());
        assertEquals(1, ledger.failures("chem", 5).size());
    }

    @Test
    void aRetriedReserveWithTheSameExchangeIdHoldsOnce() throws Exception {
        send(reserve("chem_acct", 32), "ex-1");
        alps.nextId = 100; // ALPS answers the retry with the same reservation
        send(reserve("chem_acct", 32), "ex-1");
        assertEquals(3_840, chem().held());
    }

    @Test
    void aHoldIsVoidedWhenAlpsRefusesOrCannotBeReached() throws Exception {
        alps.refuse = true;
        assertFalse(answer(send(reserve("chem_acct", 64), "ex-1")).isSuccess());
        assertEquals(0, chem().held());
        alps.refuse = false;
        alps.down = true;
        assertThrows(BackendException.class, () -> send(reserve("chem_acct", 64), "ex-2"));
        assertEquals(0, chem().held());
        assertEquals(10_000, chem().available());
    }

    @Test
    void aReserveOfAnUnknownAccountOrAnOwnerWithoutProjectIsRefusedWithAReason() throws Exception {
        ResponseData noProject = answer(send(reserve("bob", "1", null, 64), "ex-1"));
        assertFalse(noProject.isSuccess());
        assertTrue(noProject.messageText().contains("account_name") && noProject.messageText().contains("6000"),
                noProject.messageText());
        ResponseData noUser = answer(send(reserve("carol", "2", null, 64), "ex-2"));
        assertTrue(noUser.messageText().contains("carol has no primary group"), noUser.messageText());
        ResponseData unknown = answer(send(reserve("alice", "3", "nobody", 64), "ex-3"));
        assertTrue(unknown.messageText().contains("nobody"), unknown.messageText());
        assertEquals(0, alps.calls.get());
    }

    @Test
    void aReserveWithoutAccountIsChargedToTheSchedulersAccountElseToTheProjectOfTheOwnersGroup() throws Exception {
        assertTrue(answer(send(reserve("bob", "7001", null, 32), "ex-1")).isSuccess(), "squeue/qstat names chem_acct");
        assertEquals(3_840, chem().held());
        assertTrue(answer(send(reserve("alice", "7002", null, 32), "ex-2")).isSuccess(), "alice's group is chem's");
        assertEquals(7_680, chem().held());
        assertEquals(2, alps.calls.get());
    }

    @Test
    void aRefusalIsPermanentWithASourceOtherThanBackendSoOpenPbsFailsTheJobInsteadOfRequeueingIt() throws Exception {
        byte[] denied = send(reserve("chem_acct", 32 * 10), "ex-1");
        String xml = new String(denied, java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(xml.contains("error_class=\"PERMANENT\"") && xml.contains("error_source=\"SYSTEM\""), xml);
        ledger.close();
        String transientXml = new String(send(reserve("alice", "9", "chem_acct", 32), "ex-2"),
                java.nio.charset.StandardCharsets.UTF_8);
        ledger = Ledger.open("sqlite:" + dir.resolve("ledger.db"));
        assertTrue(transientXml.contains("error_class=\"TRANSIENT\"") && !transientXml.contains("BACKEND"), transientXml);
    }

    @Test
    void aRefusedJobIsRefusedFromMemoryUntilItExpiresAndTheOnDenyCommandRunsOnceWithTheReason() throws Exception {
        Path seen = dir.resolve("on-deny.txt");
        Backend remembering = new LedgerBackend(alps, ledger, new LedgerBackend.Settings("xc", 32, null,
                new TimeLimits(job -> Optional.empty(), Map.of("default", 7_200L), 3_600), null)
                .withDenials(ACCOUNTS, Duration.ofSeconds(300),
                        List.of("sh", "-c", "printf '%s|%s\\n' \"$1\" \"$2\" >> " + seen, "on-deny", "{job}", "{reason}")),
                clock, false);
        byte[] request = codec.write(reserve("alice", "555", null, 32 * 10));
        for (int pass = 0; pass < 5; pass++) { // slurmctld's scheduling passes
            ResponseData r = answer(remembering.call(new Call(request, "1.3", "RESERVE", null, Caller.UNAUTHENTICATED,
                    "pass-" + pass)));
            assertEquals(ErrorClass.PERMANENT, r.errorClass());
            assertTrue(r.messageText().contains("chem"), r.messageText());
        }
        assertEquals(1, ledger.failures("chem", 10).size(), "the ledger was asked once");
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (!java.nio.file.Files.exists(seen) && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        List<String> lines = java.nio.file.Files.readAllLines(seen);
        assertEquals(1, lines.size(), "run once: " + lines);
        assertTrue(lines.get(0).startsWith("555|ledger: ") && lines.get(0).contains("chem"), lines.get(0));
        clock.now = T.plusSeconds(301);
        remembering.call(new Call(request, "1.3", "RESERVE", null, Caller.UNAUTHENTICATED, "later"));
        assertEquals(2, ledger.failures("chem", 10).size(), "asked again once the memory expired");
        assertEquals(0, alps.calls.get());
        // the new denial runs the command again, after the answer: wait for it, so it does not write into the
        // temporary directory while JUnit removes it
        deadline = System.nanoTime() + 10_000_000_000L;
        while (java.nio.file.Files.readAllLines(seen).size() < 2 && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals(2, java.nio.file.Files.readAllLines(seen).size(), "run again for the new denial");
        remembering.close();
    }

    @Test
    void aReleaseOfAReservationNeverConfirmedVoidsTheWholeHold() throws Exception {
        send(reserve("chem_acct", 64), "ex-1");
        clock.now = T.plusSeconds(600);
        send(BasilRequest.release("1.3", 100), "ex-2");
        assertEquals(10_000, chem().available());
    }

    @Test
    void aRepeatedReleaseSettlesOnce() throws Exception {
        send(reserve("chem_acct", 64), "ex-1");
        send(BasilRequest.confirm("1.3", 100, 9), "ex-2");
        clock.now = T.plusSeconds(600);
        send(BasilRequest.release("1.3", 100), "ex-3");
        clock.now = T.plusSeconds(900);
        send(BasilRequest.release("1.3", 100), "ex-3");
        assertEquals(640, chem().used());
    }

    @Test
    void aReleaseAnsweredNoEntryBecauseTheFirstOnesAnswerWasLostSettlesTheHoldByTheClockOnce() throws Exception {
        send(reserve("chem_acct", 32), "ex-1");
        send(BasilRequest.confirm("1.3", 100, 9), "ex-2");
        send(reserve("chem_acct", 32), "ex-3"); // reservation 101, never confirmed
        alps.gone.addAll(List.of(100L, 101L)); // released through a proxy that died before it answered
        clock.now = T.plusSeconds(600);
        assertTrue(answer(send(BasilRequest.release("1.3", 100), "ex-4")).messageText().contains("No entry"));
        assertTrue(answer(send(BasilRequest.release("1.3", 101), "ex-5")).messageText().contains("No entry"));
        assertEquals(0, chem().held());
        assertEquals(320, chem().used(), "32 cores for the 600 s to the answer that proved it gone; 101 never ran");
        clock.now = T.plusSeconds(900);
        send(BasilRequest.release("1.3", 100), "ex-6"); // repeated: already settled
        assertEquals(320, chem().used());
        assertEquals(List.of(State.SETTLED, State.VOIDED), ledger.reservations("xc", "4242").stream()
                .map(org.alpsbridge.ledger.Reservation::state).sorted().toList());
    }

    @Test
    void anUnavailableLedgerFailsClosedWithATransientFailureByDefault() throws Exception {
        ledger.close();
        ResponseData r = answer(send(reserve("chem_acct", 64), "ex-1"));
        assertEquals(ErrorClass.TRANSIENT, r.errorClass());
        assertEquals(0, alps.calls.get());
        ledger = Ledger.open("sqlite:" + dir.resolve("ledger.db"));
        Backend open = new LedgerBackend(alps, closedLedger(), new LedgerBackend.Settings("xc", 32, null, null,
                LedgerBackend.WhenUnavailable.ALLOW), clock, false);
        assertTrue(answer(open.call(new Call(codec.write(reserve("chem_acct", 64)), "1.3", "RESERVE", null,
                Caller.UNAUTHENTICATED, "ex-9"))).isSuccess());
    }

    private Ledger closedLedger() {
        Ledger l = Ledger.open("sqlite:" + dir.resolve("other.db"));
        l.close();
        return l;
    }
}
