package org.alpsbridge.proxy.cli;

import io.netty.buffer.PooledByteBufAllocator;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.basil.model.ResponseData;
import org.alpsbridge.emulator.LatencyProfile;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.BackendException;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.policy.InventoryPolicy;
import org.alpsbridge.proxy.policy.PolicySettings;
import org.alpsbridge.proxy.policy.UserIds;
import org.alpsbridge.proxy.server.Backends;
import org.alpsbridge.proxy.server.EmulatorBackend;
import org.alpsbridge.proxy.server.ProxyConfig;
import org.alpsbridge.proxy.server.ProxyDaemon;
import org.alpsbridge.proxy.stats.Stats;
import org.alpsbridge.proxy.wire.Exchange;

/**
 * {@code proxy bench --cached-inventory}: what a cached INVENTORY costs on a large machine (issue 34 item 4), with a
 * daemon in this JVM in front of the policy and the in-process emulator: the heap the cache holds, the time a client
 * takes to receive an INVENTORY answered from it, and what RESERVE and RELEASE wait meanwhile. Clients are raw
 * sockets of this JVM that read each answer to its end and keep none of it, so the heap figures are the daemon's.
 */
final class CachedInventoryBench {

    private static final BasilCodec CODEC = BasilCodec.standard();
    private static final Duration TIMEOUT = Duration.ofSeconds(300);
    private static final double MB = 1e6;
    /** The PBS-like pass: clients reserving at once, and the latency model ALPS answers them by. */
    private static final int PBS_CLIENTS = 4;
    private static final String PBS_LATENCY = "xc30-2256";

    private final String machine;
    private final String protocol;
    private final int runs;
    private final int seconds;
    private final int fillPercent;
    private final PrintWriter out;
    private final AtomicLong ids = new AtomicLong();
    private InetSocketAddress address;
    private long stalledHeap;
    /** What RESERVE and RELEASE take at ALPS itself (the emulator), in the phase under way. */
    private final Map<String, Row> atAlps = new java.util.concurrent.ConcurrentHashMap<>();
    private long stalledDirect;

    /**
     * @param fillPercent the share of the compute nodes reserved whole (16 nodes a reservation) before the cache is
     *     filled, for a busy machine's inventory
     */
    CachedInventoryBench(String machine, String protocol, int runs, int seconds, int fillPercent, PrintWriter out) {
        this.fillPercent = fillPercent;
        this.machine = machine;
        this.protocol = protocol;
        this.runs = runs;
        this.seconds = seconds;
        this.out = out;
    }

    /** One kind of timed call: wall milliseconds, and the bytes each answer had. */
    private record Row(String name, List<Double> millis, List<Long> bytes) {
        Row(String name) {
            this(name, Collections.synchronizedList(new ArrayList<>()), Collections.synchronizedList(new ArrayList<>()));
        }

        double percentile(double p) {
            double[] sorted;
            synchronized (millis) {
                sorted = millis.stream().mapToDouble(Double::doubleValue).sorted().toArray();
            }
            if (sorted.length == 0) {
                return Double.NaN;
            }
            int i = (int) Math.ceil(p / 100.0 * sorted.length) - 1;
            return sorted[Math.max(0, Math.min(sorted.length - 1, i))];
        }

        double megabytes() {
            synchronized (bytes) {
                return bytes.stream().mapToLong(Long::longValue).average().orElse(0) / MB;
            }
        }
    }

    void run() throws Exception {
        ProxyConfig config = ProxyConfig.defaults().with(Map.of("listen", "127.0.0.1:0", "auth", "none",
                "backend", "emulator:" + machine));
        Backend backend = Backends.of(config.backend(), config);
        UserIds users = backend instanceof EmulatorBackend e ? e.emulator()::userIds : UserIds.NONE;
        // Every INVENTORY of the run is answered from the cache (a SUMMARY before each, the default), none refreshed.
        InventoryPolicy policy = new InventoryPolicy(PolicySettings.DEFAULTS.withRefreshInterval(Duration.ofHours(1)),
                users, new Stats());
        int filled = fill(backend);
        long heapBefore = heapAfterGc();
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(config).backend(timedAtAlps(backend)).decorate(policy::decorate)
                .start()) {
            InetSocketAddress bound = (InetSocketAddress) daemon.address().socketAddress();
            address = new InetSocketAddress(bound.getHostString(), bound.getPort());
            out.printf(Locale.ROOT, "proxy bench --cached-inventory: machine %s, protocol %s, java %s, %d cpus, max heap %d MB%n",
                    machine, protocol, System.getProperty("java.version"), Runtime.getRuntime().availableProcessors(),
                    Runtime.getRuntime().maxMemory() >> 20);
            out.printf(Locale.ROOT, "  daemon %s in this JVM: policy (SUMMARY before each cached answer) over emulator:%s; "
                    + "clients read each answer to its end over loopback TCP, keeping none of it%n", address, machine);
            if (filled > 0) {
                out.printf(Locale.ROOT, "  %d%% of the compute nodes reserved whole first: %d reservations of up to 16 nodes%n",
                        fillPercent, filled);
            }
            Row fetch = new Row("INVENTORY fetched (cache empty)");
            timedInventory(fetch);
            long heapCached = heapAfterGc();
            out.printf(Locale.ROOT, "  heap after a full GC: %.1f MB with the emulator alone, %.1f MB with the cache full "
                    + "(the cache: %.1f MB for a %.1f MB answer); RSS %.1f MB%n", heapBefore / MB, heapCached / MB,
                    (heapCached - heapBefore) / MB, fetch.megabytes(), rssBytes() / MB);
            out.flush();

            Row unchanged = new Row("from cache, unchanged");  // the same bytes, or re-stamped in a new second
            Row patched = new Row("from cache, after a RESERVE");
            Row alone = new Row("reservations alone (policy check)"); // passed through to ALPS, as the policy's check asks it
            for (int i = 0; i < runs; i++) {
                timedInventory(unchanged);
                long id = reserve();
                timedInventory(patched);
                release(id);
                timedInventory(alone, BasilRequest.inventorySince(protocol, null, true));
            }
            out.printf(Locale.ROOT, "%n%-34s %8s %9s %9s %9s %9s%n", "INVENTORY as a client sees it", "MB", "p50 ms", "p90 ms",
                    "max ms", "MB/s p50");
            for (Row r : List.of(fetch, unchanged, patched, alone)) {
                out.printf(Locale.ROOT, "%-34s %8.1f %9.1f %9.1f %9.1f %9.0f%n", r.name(), r.megabytes(), r.percentile(50),
                        r.percentile(90), r.percentile(100), r.megabytes() / (r.percentile(50) / 1000));
            }
            out.flush();

            if (seconds > 0) {
                out.printf(Locale.ROOT, "%nRESERVE and RELEASE (one client, one after the other, %d s each; ALPS: the same calls' "
                        + "time in the emulator itself; INVENTORYs: answered, or fetched afresh, meanwhile)%n", seconds);
                out.printf(Locale.ROOT, "%-58s %7s %9s %9s %9s %9s %9s %11s%n", "while", "calls", "p50 ms", "p90 ms", "max ms",
                        "ALPS p50", "ALPS p90", "INVENTORYs");
                changesWhile("nothing else", 0, false, null, 1);
                changesWhile("2 clients ask INVENTORY back to back", 2, false, null, 1);
                changesWhile("a client stalls half-way through an INVENTORY", 0, true, null, 1);
                changesWhile("the cache is fetched afresh back to back", 1, false, policy, 1);
                out.printf(Locale.ROOT, "  while the client stalled: heap after a full GC %.1f MB, Netty's direct buffers %.1f MB "
                        + "in use; RSS at the end %.1f MB%n", stalledHeap / MB, stalledDirect / MB, rssBytes() / MB);
                if (backend instanceof EmulatorBackend e) {
                    // pbs_mom reserves from its forked job starters at once, and ALPS takes a third of a second a RESERVE
                    e.emulator().control().latencyProfile(LatencyProfile.named(PBS_LATENCY), 2256, 1.0);
                    out.printf(Locale.ROOT, "%nRESERVE and RELEASE from %d clients at once (as pbs_mom's job starters send them), "
                            + "ALPS answering as the %s latency model, %d s each%n", PBS_CLIENTS, PBS_LATENCY, seconds);
                    changesWhile("%d clients at once".formatted(PBS_CLIENTS), 0, false, null, PBS_CLIENTS);
                    changesWhile("%d clients at once, the cache fetched afresh".formatted(PBS_CLIENTS), 1, false, policy,
                            PBS_CLIENTS);
                }
            }
            out.flush();
        }
    }

    /**
     * RESERVE+RELEASE cycles for {@link #seconds}, from {@code changers} clients at once, while {@code readers} clients
     * ask INVENTORY back to back (each answer from the cache, re-written after each cycle's patches), or while one
     * client holds an INVENTORY answer half read, or while {@code refreshing} fetches full inventories back to back (as
     * an operator's refresh does).
     */
    private void changesWhile(String what, int readers, boolean stalled, InventoryPolicy refreshing, int changers)
            throws Exception {
        Row reserve = new Row("RESERVE");
        Row release = new Row("RELEASE");
        atAlps.put("RESERVE", new Row("RESERVE at ALPS"));
        atAlps.put("RELEASE", new Row("RELEASE at ALPS"));
        AtomicBoolean stop = new AtomicBoolean();
        AtomicLong inventories = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(readers + changers);
        List<Future<?>> load = new ArrayList<>();
        Socket stall = stalled ? stalledInventory() : null;
        if (stalled) {
            stalledHeap = heapAfterGc();
            stalledDirect = PooledByteBufAllocator.DEFAULT.metric().usedDirectMemory();
        }
        try {
            for (int i = 0; i < readers; i++) {
                load.add(pool.submit(() -> {
                    while (!stop.get()) {
                        if (refreshing != null) {
                            refreshing.refreshNow();
                        } else {
                            inventory();
                        }
                        inventories.incrementAndGet();
                    }
                    return null;
                }));
            }
            long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
            List<Future<?>> cycles = new ArrayList<>();
            for (int i = 0; i < changers; i++) {
                cycles.add(pool.submit(() -> {
                    while (System.nanoTime() < end) {
                        long t0 = System.nanoTime();
                        long id = reserve();
                        long t1 = System.nanoTime();
                        release(id);
                        long t2 = System.nanoTime();
                        reserve.millis().add((t1 - t0) / 1e6);
                        release.millis().add((t2 - t1) / 1e6);
                    }
                    return null;
                }));
            }
            for (Future<?> f : cycles) {
                f.get(seconds + TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
            stop.set(true);
            for (Future<?> f : load) {
                f.get(TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            }
        } finally {
            stop.set(true);
            pool.shutdownNow();
            if (stall != null) {
                stall.close();
            }
        }
        for (Row r : List.of(reserve, release)) {
            Row alps = atAlps.get(r.name());
            out.printf(Locale.ROOT, "%-58s %7d %9.2f %9.2f %9.2f %9.2f %9.2f %11s%n", r.name() + " / " + what, r.millis().size(),
                    r.percentile(50), r.percentile(90), r.percentile(100), alps.percentile(50), alps.percentile(90),
                    readers == 0 ? "" : Long.toString(inventories.get()));
        }
        out.flush();
    }

    /**
     * Reserves {@link #fillPercent} of the compute nodes whole, every processor of them, 16 nodes a reservation, at
     * ALPS directly; returns how many reservations that made.
     */
    private int fill(Backend alps) throws Exception {
        if (fillPercent <= 0 || !(alps instanceof EmulatorBackend e)) {
            return 0;
        }
        Call inventory = new Call(CODEC.write(BasilRequest.query(protocol, "INVENTORY")), protocol, "QUERY", "INVENTORY",
                Caller.UNAUTHENTICATED, null);
        long perNode;
        try (InventoryReader r = InventoryReader.open(new java.io.ByteArrayInputStream(alps.call(inventory)))) {
            perNode = r.nextNode().processorCount();
        }
        int made = 0;
        for (int left = e.emulator().computeNodes() * fillPercent / 100; left > 0; left -= 16) {
            int nodes = Math.min(16, left);
            byte[] reserve = CODEC.write(BasilRequest.reserve(protocol, "bench", "fill-" + made, null,
                    List.of(ReserveParam.builder().width(nodes).nppn(1).depth(perNode).build())));
            ResponseData d = CODEC.readResponse(alps.call(new Call(reserve, protocol, "RESERVE", null, Caller.UNAUTHENTICATED,
                    null))).responseData();
            if (!d.isSuccess()) {
                throw new IllegalStateException("filling the machine: a RESERVE failed: " + d.messageText());
            }
            made++;
        }
        return made;
    }

    /** {@code alps}, with the time each RESERVE and RELEASE takes there noted in {@link #atAlps}. */
    private Backend timedAtAlps(Backend alps) {
        return new Backend() {
            @Override
            public byte[] call(Call call) throws BackendException {
                long t0 = System.nanoTime();
                try {
                    return alps.call(call);
                } finally {
                    Row r = atAlps.get(call.method());
                    if (r != null) {
                        r.millis().add((System.nanoTime() - t0) / 1e6);
                    }
                }
            }

            @Override
            public String describe() {
                return alps.describe();
            }

            @Override
            public void close() {
                alps.close();
            }
        };
    }

    private void timedInventory(Row row) throws Exception {
        timedInventory(row, BasilRequest.query(protocol, "INVENTORY"));
    }

    private void timedInventory(Row row, BasilRequest request) throws Exception {
        long t0 = System.nanoTime();
        long bytes = inventory(request);
        row.millis().add((System.nanoTime() - t0) / 1e6);
        row.bytes().add(bytes);
    }

    /** Asks INVENTORY and reads the whole answer, keeping none of it; returns the BASIL document's length. */
    private long inventory() throws Exception {
        return inventory(BasilRequest.query(protocol, "INVENTORY"));
    }

    private long inventory(BasilRequest request) throws Exception {
        try (Socket s = connect()) {
            send(s, CODEC.write(request));
            DataInputStream in = new DataInputStream(s.getInputStream());
            int length = in.readInt();
            byte[] head = new byte[5];
            in.readFully(head);
            if (head[4] != 0) {
                throw new IOException("the daemon refused the INVENTORY (reply status " + head[4] + ")");
            }
            byte[] first = new byte[Math.min(256, length - 5)];
            in.readFully(first);
            if (!new String(first, StandardCharsets.US_ASCII).contains("status=\"SUCCESS\"")) {
                throw new IOException("an INVENTORY failed: " + new String(first, StandardCharsets.US_ASCII));
            }
            long left = length - 5L - first.length;
            byte[] sink = new byte[1 << 16];
            while (left > 0) {
                int n = in.read(sink, 0, (int) Math.min(sink.length, left));
                if (n < 0) {
                    throw new IOException("the INVENTORY answer ended " + left + " bytes early");
                }
                left -= n;
            }
            return length - 5L;
        }
    }

    /** A client that asks INVENTORY, reads its first 64 KiB and then reads nothing more until closed. */
    private Socket stalledInventory() throws Exception {
        Socket s = new Socket();
        s.setReceiveBufferSize(1 << 16);
        s.connect(address);
        send(s, CODEC.write(BasilRequest.query(protocol, "INVENTORY")));
        new DataInputStream(s.getInputStream()).readFully(new byte[1 << 16]);
        return s;
    }

    private long reserve() throws Exception {
        byte[] answer = call(CODEC.write(BasilRequest.reserve(protocol, "bench", "bench-" + ids.incrementAndGet(), null,
                List.of(ReserveParam.builder().width(1).build()))));
        return CODEC.readResponse(answer).responseData().content(Reserved.class)
                .orElseThrow(() -> new IllegalStateException("no Reserved in the RESERVE answer")).reservationId();
    }

    private void release(long id) throws Exception {
        call(CODEC.write(BasilRequest.release(protocol, id)));
    }

    /** One exchange, its whole answer read; fails unless BASIL SUCCESS. */
    private byte[] call(byte[] request) throws Exception {
        try (Socket s = connect()) {
            send(s, request);
            DataInputStream in = new DataInputStream(s.getInputStream());
            byte[] reply = new byte[in.readInt()];
            in.readFully(reply);
            byte[] answer = java.util.Arrays.copyOfRange(reply, 5, reply.length);
            ResponseData d = CODEC.readResponse(answer).responseData();
            if (reply[4] != 0 || !d.isSuccess()) {
                throw new IllegalStateException("a bench call failed: " + new String(answer, StandardCharsets.UTF_8));
            }
            return answer;
        }
    }

    private Socket connect() throws IOException {
        Socket s = new Socket();
        s.setTcpNoDelay(true);
        s.setSoTimeout((int) TIMEOUT.toMillis());
        s.connect(address);
        return s;
    }

    private void send(Socket s, byte[] request) throws IOException {
        byte[] body = new Exchange(Exchange.Kind.BASIL, "bench-" + ids.incrementAndGet(), "", request).encode();
        DataOutputStream o = new DataOutputStream(s.getOutputStream());
        o.writeInt(body.length);
        o.write(body);
        o.flush();
    }

    private static long heapAfterGc() {
        for (int i = 0; i < 2; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    /** This process's resident set, from /proc; 0 where there is none. */
    private static long rssBytes() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", "")) * 1024;
                }
            }
        } catch (IOException | NumberFormatException e) {
            // no /proc: no figure
        }
        return 0;
    }
}
