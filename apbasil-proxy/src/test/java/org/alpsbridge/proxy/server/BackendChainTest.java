package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Set;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.ledger.LedgerBackend;
import org.alpsbridge.proxy.orphans.Orphan;
import org.alpsbridge.proxy.orphans.OrphanWatch;
import org.alpsbridge.proxy.orphans.Reason;
import org.alpsbridge.proxy.policy.InventoryPolicy;
import org.alpsbridge.proxy.policy.PolicySettings;
import org.alpsbridge.proxy.stats.MethodFigures;
import org.alpsbridge.proxy.stats.Stats;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The order of the backend chain, specified by what each layer sees of the others, over the emulated ALPS. */
class BackendChainTest {

    private static final BasilCodec CODEC = BasilCodec.standard();
    private static final String CLUSTER = "xc";

    @TempDir
    Path dir;
    Ledger ledger;
    Stats stats;
    InventoryPolicy policy;
    OrphanWatch orphans;
    Emulator alps;
    Backend chain;

    @BeforeEach
    void assemble() {
        ledger = Ledger.open("sqlite:" + dir.resolve("ledger.db"));
        ledger.addProject("chem", 5001, "chem_acct");
        ledger.grant("chem", Resource.CPU, 10_000, Instant.parse("2020-01-01T00:00:00Z"),
                Instant.parse("2100-01-01T00:00:00Z"), "research", null);
        alps = Emulator.create("xc30:4");
        stats = new Stats();
        policy = new InventoryPolicy(PolicySettings.DEFAULTS, alps::userIds, Clock.systemUTC(), stats, Runnable::run);
        // the scheduler knows no live job: every reservation with a batch id is an orphan once inspected
        orphans = new OrphanWatch(Set::of, dir.resolve("apkill"), Duration.ofSeconds(10), stats);
        LedgerBackend.Settings settings = new LedgerBackend.Settings(CLUSTER, 32, null, null, null);
        chain = new BackendChain(stats, policy, next -> new LedgerBackend(next, ledger, settings, Clock.systemUTC(), false),
                orphans).over(new EmulatorBackend("xc30:4", alps));
    }

    @AfterEach
    void close() {
        policy.close();
        ledger.close();
    }

    @Test
    void anOrphansReleaseSettlesItsHoldBecauseTheWatchSitsAboveTheLedger() throws Exception {
        assertTrue(send(BasilRequest.query("1.3", "INVENTORY")).isSuccess());
        long id = send(reserve("4242", 32)).content(Reserved.class).orElseThrow().reservationId();
        assertEquals(State.HELD, state(id));

        policy.refreshNow(); // the policy's full inventory reaches the watch
        Orphan orphan = orphans.orphans().get(0);
        assertEquals(id, orphan.reservationId());
        assertEquals(List.of(Reason.JOB_GONE), orphan.reasons());

        assertTrue(orphans.release(List.of(id)).get(0).released());
        assertEquals(State.VOIDED, state(id), "the orphan's RELEASE passed through the ledger: a never-confirmed hold is voided");
        assertEquals(0, ledger.balances("chem").get(0).held());
    }

    @Test
    void theOuterTimingSeesEveryClientCallTheInnerOnlyWhatReachesAlps() throws Exception {
        for (int i = 0; i < 3; i++) {
            assertTrue(send(BasilRequest.query("1.3", "INVENTORY")).isSuccess());
        }
        MethodFigures inventory = stats.snapshot().methods().get("QUERY/INVENTORY");
        assertEquals(3, inventory.requests());
        assertEquals(1, inventory.backendCalls(), "the policy answered the second and third from its cache");
        assertEquals(2, inventory.cacheHits());

        ResponseData refused = send(reserve("4343", 8 * 32)); // 8 nodes x 32 cores x 60 min: more than chem holds
        assertFalse(refused.isSuccess(), "the ledger refuses it");
        MethodFigures reserve = stats.snapshot().methods().get("RESERVE");
        assertEquals(1, reserve.requests(), "the client's timing counts what the ledger refused");
        assertEquals(1, reserve.errors());
        assertEquals(0, reserve.backendCalls(), "the refused RESERVE reached neither the policy nor ALPS");
    }

    private State state(long reservationId) {
        return ledger.reservation(new Lookup(CLUSTER, reservationId, null)).orElseThrow().state();
    }

    private static BasilRequest reserve(String batchId, long width) {
        return BasilRequest.reserve("1.3", "alice", batchId, "chem_acct",
                List.of(ReserveParam.builder().architecture("XT").width(width).nppn(32).build()));
    }

    private ResponseData send(BasilRequest r) throws Exception {
        Call call = new Call(CODEC.write(r), r.protocol(), r.methodText(), r.type(), Caller.UNAUTHENTICATED, null);
        return CODEC.readResponse(chain.call(call)).responseData();
    }
}
