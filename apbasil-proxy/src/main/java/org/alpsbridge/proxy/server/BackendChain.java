package org.alpsbridge.proxy.server;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.ha.Availability;
import org.alpsbridge.proxy.orphans.OrphanWatch;
import org.alpsbridge.proxy.policy.InventoryPolicy;
import org.alpsbridge.proxy.stats.Stats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The proxy's backend chain: the one place its order is written ({@code proxy serve} and the demo both build it
 * here). From the scheduler inward:
 * <ol>
 * <li><b>client-side timing</b> ({@link Stats#clientSide}): what clients asked and how long they waited, including
 *     what a layer below answered or refused on its own (a cached INVENTORY, a ledger denial);</li>
 * <li><b>the orphan watch</b>: notes every RESERVE and RELEASE on its way back, and sends the RELEASE of an orphan it
 *     is told to release into the chain below itself: above the ledger, so that RELEASE settles the orphan's hold
 *     at once (below it, the hold would stay until the ledger's sweeper voids it), and above the policy, so the
 *     cache learns of it;</li>
 * <li><b>the ledger</b> (optional): holds before forwarding a RESERVE, settles at RELEASE; above the policy, so a
 *     RESERVE it refuses reaches neither the policy nor ALPS;</li>
 * <li><b>the SUMMARY/INVENTORY policy</b>: answers INVENTORY from its cache when SUMMARY says it is current;</li>
 * <li><b>backend-side timing</b> ({@link Stats#backendSide}): only the calls that reach ALPS, so a client call with
 *     no backend call of its method beneath it counts as a cache hit.</li>
 * </ol>
 * It also joins the policy and the watch: each full inventory the policy fetches is inspected for orphans, and the
 * watch's {@code refresh=true} asks the policy for a fresh one. {@code BackendChainTest} specifies the order.
 */
public final class BackendChain {

    private static final Logger log = LoggerFactory.getLogger(BackendChain.class);

    private final Stats stats;
    private final InventoryPolicy policy;
    private final UnaryOperator<Backend> ledger;
    private final OrphanWatch orphans;

    /**
     * @param stats where both timings, the policy and the watch count
     * @param policy the SUMMARY/INVENTORY policy (its refreshes inspected by {@code orphans} from now on)
     * @param ledger wraps the chain below it in the ledger, or null for a proxy without ledger
     * @param orphans the orphan watch
     */
    public BackendChain(Stats stats, InventoryPolicy policy, UnaryOperator<Backend> ledger, OrphanWatch orphans) {
        this.stats = Objects.requireNonNull(stats);
        this.policy = Objects.requireNonNull(policy);
        this.ledger = ledger == null ? UnaryOperator.identity() : ledger;
        this.orphans = Objects.requireNonNull(orphans);
        policy.onFullInventory(orphans::inspect);
        orphans.refreshBy(policy::refreshNow);
    }

    /**
     * The chain in front of {@code alps}, in the order of the class comment, for a daemon ({@link #into}) or a
     * program calling it directly; build it once (the watch releases orphans through the last one built).
     */
    public Backend over(Backend alps) {
        Backend policed = policy.decorate(stats.backendSide(alps));
        return stats.clientSide(orphans.decorate(ledger.apply(policed)));
    }

    /**
     * Puts the chain into {@code daemon}, with the {@code stats} and {@code orphans} operator commands; in a pair of
     * proxies ({@code ha_db}) the pair's figures join the stats, its role heads the stats table, and a takeover
     * refreshes the policy and restarts the watch.
     */
    public ProxyDaemon.Builder into(ProxyDaemon.Builder daemon) {
        AtomicReference<Availability> pair = new AtomicReference<>();
        return daemon.decorate(this::over)
                .onAvailability(ha -> {
                    pair.set(ha);
                    ha.report(stats);
                    takeOverWith(ha);
                })
                .admin("stats", (args, caller) -> withRole(stats.admin(args), args, pair.get()))
                .admin("orphans", (args, caller) -> orphans.admin(args));
    }

    /**
     * A pair of proxies: at every change of role the orphan watch forgets what it knew (while standby it sees
     * nothing the active proxy forwards); the watch settles what the other proxy's interrupted RESERVEs left, and
     * ENGINE answers are shared through the pair's database (a survivor answers them while ALPS is unreachable); on
     * becoming active, the inventory cache of an earlier active spell is no longer answered from and is fetched
     * afresh in the background (never waiting for ALPS, which may be unreachable right then), and the first full
     * inventory's verdict on what the other proxy left is logged.
     */
    private void takeOverWith(Availability ha) {
        AtomicBoolean firstSinceTakeover = new AtomicBoolean();
        policy.onFullInventory((header, nodes, reservations, fetchStarted) -> {
            if (firstSinceTakeover.compareAndSet(true, false)) {
                log.warn("availability: first full inventory since taking over (epoch {}): {} reservations, {} orphans{}",
                        ha.epoch(), reservations.size(), orphans.orphans().size(), orphans.orphans().stream()
                                .map(o -> "; reservation " + o.reservationId() + " (batch id " + o.batchId() + "): " + o.why())
                                .collect(Collectors.joining()));
            }
        });
        orphans.standby(true); // every proxy of a pair starts as standby, until it holds the lease
        orphans.settleInterruptedReserves(ha);
        policy.shareEngineAnswers(new InventoryPolicy.SharedAnswers() {
            @Override
            public byte[] get(String request) throws Exception {
                return ha.engineAnswer(request);
            }

            @Override
            public void put(String request, byte[] answer) throws Exception {
                ha.rememberEngineAnswer(request, answer);
            }
        });
        ha.onRoleChange((active, epoch) -> {
            orphans.standby(!active);
            if (active) {
                firstSinceTakeover.set(true);
                policy.distrustCache();
            }
        });
    }

    /** The stats table starts with the proxy's role when it is one of a pair. */
    private static byte[] withRole(byte[] table, Map<String, String> args, Availability ha) {
        if (ha == null || !args.getOrDefault("format", "table").equals("table")) {
            return table;
        }
        byte[] role = (ha.status() + "\n").getBytes(StandardCharsets.UTF_8);
        byte[] out = Arrays.copyOf(role, role.length + table.length);
        System.arraycopy(table, 0, out, role.length, table.length);
        return out;
    }
}
