package org.alpsbridge.proxy.ledger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.timelimit.TimeLimits;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;

/**
 * Coverage-guided fuzzing of how the proxy's ledger reads a RESERVE: any request the daemon would accept as a
 * RESERVE (it reads the document before the ledger sees it) is either refused before ALPS with a BASIL failure
 * and nothing held, or held at exactly its worst case, {@code sum(ceil(width / nppn))} nodes of 32 cores for the
 * partition's 120 minutes (nppn defaulting to what fits at the request's depth), and settled back when ALPS
 * releases it. A RESERVE without {@code account_name} (what Slurm 18.08 and OpenPBS send) is charged to the
 * project of its owner's group: here {@code alice}'s group is chem's, every other user's is no project's.
 * Every refusal is PERMANENT or TRANSIENT from a source other than BACKEND (pbs_mom would requeue a BACKEND
 * refusal for ever). Never another exception, never a hold left behind, and the books check clean.
 */
class LedgerReserveFuzzTest {

    private static final long NODE_WORST_CASE = 32L * 120;
    private static final BasilCodec CODEC = BasilCodec.standard();
    private static Ledger ledger;
    private static Backend chain;
    private static LedgerBackendTest.FakeAlps alps;
    private static int runs;
    /** Each call its own exchange id, as each scheduler call is: a retry with the same id is another test's. */
    private static long exchanges;

    private static synchronized void open() throws IOException {
        if (ledger != null) {
            return;
        }
        Path dir = Files.createTempDirectory("ledger-reserve-fuzz");
        dir.toFile().deleteOnExit();
        ledger = Ledger.open("sqlite:" + dir.resolve("ledger.db"));
        ledger.addProject("chem", 5001, "chem_acct");
        ledger.grant("chem", Resource.CPU, 1_000_000_000L, Instant.parse("2026-01-01T00:00:00Z"),
                Instant.parse("2027-01-01T00:00:00Z"), "research", null);
        alps = new LedgerBackendTest.FakeAlps();
        TimeLimits limits = new TimeLimits(job -> Optional.empty(), Map.of("default", 7_200L), 3_600);
        LedgerBackendTest.MutableClock clock = new LedgerBackendTest.MutableClock();
        // No denial memory: each input stands alone (the memory has its own test in LedgerBackendTest).
        chain = new LedgerBackend(alps, ledger, new LedgerBackend.Settings("xc", 32, null, limits, null)
                .withDenials(new JobAccounts("fuzz", job -> Optional.empty(),
                        user -> user.equals("alice") ? Optional.of("5001") : Optional.of("6000")),
                        java.time.Duration.ZERO, null), clock, false);
    }

    @FuzzTest
    void aReserveIsHeldAtItsWorstCaseOrRefusedBeforeAlps(byte[] document) throws Exception {
        open();
        BasilRequest request;
        try {
            request = CODEC.readRequest(document);
        } catch (BasilException notARequest) {
            return; // the daemon refuses it before any backend: the codec's own fuzz target covers that
        }
        if (request.method() != Method.RESERVE) {
            return;
        }
        long heldBefore = chem().held();
        int alpsCallsBefore = alps.calls.get();
        byte[] response;
        try {
            response = chain.call(new Call(document, request.protocol(), request.methodText(), null,
                    Caller.UNAUTHENTICATED, "fuzz-" + exchanges++));
        } catch (BackendException e) {
            // FakeAlps refuses to answer a request it cannot read: the hold must have been voided
            assertEquals(heldBefore, chem().held(), "a RESERVE ALPS never answered leaves nothing held");
            return;
        }
        ResponseData answer = CODEC.readResponse(response).responseData();
        Optional<Long> worstCase = worstCase(request);
        if (!answer.isSuccess()) {
            assertEquals(heldBefore, chem().held(), "a refused RESERVE holds nothing: " + answer.messageText());
            assertTrue(answer.messageText() != null && !answer.messageText().isBlank(), "a refusal says why");
            if (alps.calls.get() == alpsCallsBefore) {
                assertTrue(!"BACKEND".equals(answer.errorSource()), "the ledger's refusal names no BACKEND source");
                assertTrue(worstCase.isEmpty() || worstCase.get() > chem().available(),
                        "a RESERVE the books could take was refused: " + answer.messageText());
            }
            return;
        }
        assertTrue(worstCase.isPresent(), "ALPS was asked for a RESERVE the ledger cannot price");
        assertEquals(heldBefore + worstCase.get(), chem().held(), "held at the worst case");
        long resId = alps.nextId - 1;
        chain.call(new Call(CODEC.write(BasilRequest.release("1.3", resId)), "1.3", "RELEASE", null,
                Caller.UNAUTHENTICATED, "fuzz-" + exchanges++));
        assertEquals(heldBefore, chem().held(), "a released reservation holds nothing");
        if (runs++ % 256 == 0) {
            assertEquals(List.of(), ledger.check());
        }
    }

    /** The rule, stated independently of the ledger's code: empty when it cannot be priced. */
    private static Optional<Long> worstCase(BasilRequest r) {
        boolean chem = "chem_acct".equals(r.account()) || "chem".equals(r.account())
                || ((r.account() == null || r.account().isBlank()) && "alice".equals(r.user()));
        if (!chem || r.batchId() == null || r.batchId().isBlank() || (r.user() != null && r.user().isBlank())) {
            return Optional.empty(); // a job of chem's account or alice's, run by a named user (the caller when none)
        }
        long nodes = 0;
        for (ReserveParam p : r.reserveParams()) {
            if (p.width() == null || p.width() <= 0) {
                return Optional.empty();
            }
            long depth = p.depth() == null || p.depth() <= 0 ? 1 : p.depth();
            long nppn = p.nppn() != null && p.nppn() > 0 ? p.nppn() : Math.max(1, 32 / depth);
            nodes += (p.width() + nppn - 1) / nppn;
        }
        if (nodes < 1 || nodes > Integer.MAX_VALUE) {
            return Optional.empty();
        }
        return Optional.of(nodes * NODE_WORST_CASE);
    }

    private static Balance chem() {
        return ledger.balances("chem").get(0);
    }
}
