package org.alpsbridge.proxy.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.ServerChannel;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.LengthFieldBasedFrameDecoder;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import org.alpsbridge.address.ProxyAddress;
import org.alpsbridge.munge.Munge;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.ha.Availability;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The apbasil proxy daemon: listens on TCP and/or unix sockets, answers one BASIL request per
 * connection through a {@link Backend} chain, and stops gracefully (in-flight requests finish).
 *
 * <pre>{@code
 * ProxyDaemon daemon = ProxyDaemon.builder()
 *         .config(ProxyConfig.read(path))
 *         .backend(new ExecBackend(...))
 *         .decorate(timing::wrap)            // applied in order, innermost first
 *         .admin("stats", statsHandler)
 *         .start();
 * }</pre>
 *
 * <p>Pipeline per connection: {@code [SslHandler] → LengthFieldBasedFrameDecoder (fail-fast at
 * max_request_bytes) → ExchangeDecoder → RequestDeadline → ExchangeHandler}, with a {@code ChunkedWriteHandler}
 * outbound that sends each reply as a {@link ReplyFrame} (slices of the answer itself, taken while the connection is
 * writable). Backend work runs on a bounded worker pool, never on the event loop; a worker is done with an exchange
 * once its answer is had, before it is sent.
 */
public final class ProxyDaemon implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ProxyDaemon.class);
    private static final int LENGTH_BYTES = 4;
    /** How long a stop waits for the failure answers of abandoned requests to reach their clients. */
    private static final long FLUSH_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final ProxyConfig config;
    private final Backend backend;
    private final EventLoopGroup group;
    private final ThreadPoolExecutor workers;
    private final ScheduledExecutorService timers;
    private final ExchangeProcessor processor;
    private final ExchangeJournal journal;
    private final Availability pair;
    private final ChannelGroup channels = new DefaultChannelGroup("apbasil-proxy", GlobalEventExecutor.INSTANCE);
    private final List<Channel> servers = new ArrayList<>();
    private final List<ProxyAddress> addresses = new ArrayList<>();
    private final List<Path> socketFiles = new ArrayList<>();
    private boolean closed;

    private ProxyDaemon(Builder b) throws IOException {
        this.config = b.config;
        Backend chain = Objects.requireNonNull(b.backend, "backend");
        for (UnaryOperator<Backend> d : b.decorators) {
            chain = Objects.requireNonNull(d.apply(chain), "a decorator returned null");
        }
        this.backend = chain;
        Munge munge = null;
        if (config.mungeAuth()) {
            munge = b.munge != null ? b.munge : Munge.best(config.mungeSocket());
        } else {
            log.warn("authentication is OFF (auth=none): anyone who can connect may RESERVE and RELEASE; "
                    + "use this only for a lab on loopback");
        }
        Gatekeeper gatekeeper = new Gatekeeper(munge, config.allowQuery(), config.allowReserve(), config.allowAdmin());
        this.workers = new ThreadPoolExecutor(config.workers(), config.workers(), 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(config.queue()), new DefaultThreadFactory("apbasil-proxy-worker", true));
        workers.allowCoreThreadTimeOut(true);
        this.timers = Executors.newSingleThreadScheduledExecutor(new DefaultThreadFactory("apbasil-proxy-timer", true));
        try {
            this.journal = config.exchangeJournal() == null ? null
                    : ExchangeJournal.open(config.exchangeJournal(), config.exchangeMemory());
        } catch (IOException e) {
            workers.shutdownNow();
            timers.shutdownNow();
            throw new IOException("the exchange journal (exchange_journal=" + config.exchangeJournal() + "): "
                    + org.alpsbridge.failure.Failures.describe(e), e);
        }
        try {
            this.pair = config.haDb() == null ? null : Availability.open(new Availability.Settings(config.haDb(),
                    config.haName(), config.haLease()));
        } catch (IOException e) {
            workers.shutdownNow();
            timers.shutdownNow();
            throw e;
        }
        if (pair != null) {
            if (!config.get(ProxyConfig.Key.EXCHANGE_JOURNAL).isBlank()) {
                log.info("exchange_journal={} is not used: with ha_db the exchange memory is kept in the pair's database",
                        config.get(ProxyConfig.Key.EXCHANGE_JOURNAL));
            }
            b.availabilityHooks.forEach(h -> h.accept(pair));
        }
        ExchangeMemory memory = new ExchangeMemory(config.exchangeMemory(), journal, pair);
        for (String lost : memory.interrupted()) {
            log.warn("interrupted by the previous stop, outcome unknown: {}", lost);
        }
        Map<String, AdminHandler> admin = new LinkedHashMap<>(b.admin);
        admin.putIfAbsent("interrupted", (args, caller) -> memory.interrupted().stream()
                .map(line -> line + "\n").collect(Collectors.joining()).getBytes(StandardCharsets.UTF_8));
        timers.scheduleWithFixedDelay(memory::expire, 30, 30, TimeUnit.SECONDS);
        this.processor = new ExchangeProcessor(config, gatekeeper, backend, admin, memory, pair, workers, timers);
        boolean epoll = Epoll.isAvailable();
        this.group = epoll ? new EpollEventLoopGroup(2, new DefaultThreadFactory("apbasil-proxy-io", true))
                : new NioEventLoopGroup(2, new DefaultThreadFactory("apbasil-proxy-io", true));
        try {
            SslContext tls = tls(config);
            for (String listen : config.listen()) {
                bind(ProxyAddress.parse(listen), epoll, tls);
            }
            if (pair != null) {
                pair.start(address().text());
            }
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
        log.info("apbasil proxy listening on {}; backend {}; auth {}", addresses, backend.describe(),
                munge == null ? "none" : munge.describe());
    }

    public static Builder builder() {
        return new Builder();
    }

    /** The first listening address (with the real port when the config asked for port 0). */
    public ProxyAddress address() {
        return addresses.get(0);
    }

    public List<ProxyAddress> addresses() {
        return List.copyOf(addresses);
    }

    /** The backend chain as decorated. */
    public Backend backend() {
        return backend;
    }

    private void bind(ProxyAddress address, boolean epoll, SslContext tls) throws IOException {
        ServerBootstrap b = new ServerBootstrap().group(group)
                .childOption(ChannelOption.ALLOW_HALF_CLOSURE, false)
                .childHandler(new ChannelInitializer<Channel>() {
                    @Override
                    protected void initChannel(Channel ch) {
                        channels.add(ch);
                        ChannelPipeline p = ch.pipeline();
                        if (tls != null && !address.isUnix()) {
                            p.addLast("tls", tls.newHandler(ch.alloc()));
                        }
                        p.addLast("frames", new LengthFieldBasedFrameDecoder(config.maxRequestBytes(), 0, LENGTH_BYTES,
                                0, LENGTH_BYTES, true));
                        p.addLast("exchange", new ExchangeDecoder());
                        p.addLast("deadline", new RequestDeadline(config.requestTimeout()));
                        p.addLast("reply", new ChunkedWriteHandler());
                        p.addLast("handler", new ExchangeHandler(processor, config.replyTimeout()));
                    }
                });
        SocketAddress bindTo;
        if (address.isUnix()) {
            if (!epoll) {
                throw new IOException("unix socket " + address + " needs Netty's native epoll transport, "
                        + "which is not available here");
            }
            Path path = Path.of(address.text().substring("unix:".length()));
            removeStaleSocket(path);
            b.channel(EpollServerDomainSocketChannel.class);
            bindTo = new DomainSocketAddress(path.toFile());
            socketFiles.add(path);
        } else {
            Class<? extends ServerChannel> type = epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class;
            b.channel(type).option(ChannelOption.SO_BACKLOG, 1024).option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true);
            InetSocketAddress inet = (InetSocketAddress) address.socketAddress();
            bindTo = new InetSocketAddress(inet.getHostString(), inet.getPort());
        }
        Channel server;
        try {
            server = b.bind(bindTo).syncUninterruptibly().channel();
        } catch (Exception e) {
            throw new IOException(org.alpsbridge.failure.Failures.listen(address.toString(), e), e);
        }
        servers.add(server);
        if (server.localAddress() instanceof InetSocketAddress bound) {
            String host = bound.getAddress().getHostAddress();
            addresses.add(ProxyAddress.parse((host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort()));
        } else {
            addresses.add(address);
        }
    }

    /** A socket file left by a daemon that died is removed; one with a live daemon behind it is not. */
    private static void removeStaleSocket(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            probe.connect(java.net.UnixDomainSocketAddress.of(path));
            throw new IOException("another daemon is already listening on unix:" + path);
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("another daemon")) {
                throw e;
            }
            Files.deleteIfExists(path);
        }
    }

    private static SslContext tls(ProxyConfig config) throws IOException {
        if (config.tlsCert() == null) {
            return null;
        }
        try {
            return SslContextBuilder.forServer(config.tlsCert().toFile(), config.tlsKey().toFile()).build();
        } catch (Exception e) {
            throw new IOException("cannot set up TLS from tls_cert=" + config.tlsCert() + " tls_key="
                    + config.tlsKey() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Stops gracefully: no new connections, requests in flight finish (up to {@code shutdown_timeout}),
     * then everything is closed. Idempotent.
     */
    @Override
    public synchronized void close() {
        if (closed) {
            return;
        }
        closed = true;
        for (Channel s : servers) {
            s.close().syncUninterruptibly();
        }
        long deadline = System.nanoTime() + config.shutdownTimeout().toNanos();
        while (processor != null && processor.inFlight() > 0 && System.nanoTime() < deadline) {
            sleepQuietly(10);
        }
        if (processor != null && processor.inFlight() > 0) {
            log.warn("stopping with {} requests still in flight after shutdown_timeout", processor.inFlight());
            processor.abandonAll("the apbasil proxy stopped (restart?) before this request finished within its "
                    + "shutdown_timeout of " + config.shutdownTimeout().toMillis() + " ms; the outcome is unknown");
            long flush = System.nanoTime() + FLUSH_NANOS;
            while (channels.size() > 0 && System.nanoTime() < flush) {
                sleepQuietly(10);
            }
        }
        channels.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        workers.shutdownNow();
        timers.shutdownNow();
        try {
            // An abandoned call that still ends gets its outcome into the journal before it closes.
            workers.awaitTermination(1, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        for (Path p : socketFiles) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                log.warn("could not remove socket file {}: {}", p, e.getMessage());
            }
        }
        if (pair != null) {
            pair.close(); // after the exchanges in flight have recorded their outcomes
        }
        backend.close();
        if (journal != null) {
            journal.close();
        }
        log.info("apbasil proxy stopped");
    }

    /**
     * What {@code kill -9} does to a daemon, for failover tests: connections drop, nothing more is written
     * to the pair's database, the lease is neither renewed nor released, work in progress is abandoned
     * unanswered. The backend is left as it is (a real ALPS outlives the proxy).
     */
    public synchronized void halt() {
        closed = true;
        if (pair != null) {
            pair.halt();
        }
        for (Channel s : servers) {
            s.close().syncUninterruptibly();
        }
        channels.close().awaitUninterruptibly(1, TimeUnit.SECONDS);
        workers.shutdownNow();
        timers.shutdownNow();
        if (group != null) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
        if (journal != null) {
            journal.close();
        }
        log.warn("apbasil proxy halted (simulated crash)");
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Assembles a daemon; see the class comment. */
    public static final class Builder {
        private ProxyConfig config = ProxyConfig.defaults();
        private Backend backend;
        private final List<UnaryOperator<Backend>> decorators = new ArrayList<>();
        private final Map<String, AdminHandler> admin = new LinkedHashMap<>();
        private Munge munge;
        private final List<Consumer<Availability>> availabilityHooks = new ArrayList<>();

        public Builder config(ProxyConfig c) {
            this.config = Objects.requireNonNull(c);
            return this;
        }

        public Builder backend(Backend b) {
            this.backend = Objects.requireNonNull(b);
            return this;
        }

        /** Wraps the backend; decorators apply in the order given, the first one innermost. */
        public Builder decorate(UnaryOperator<Backend> decorator) {
            decorators.add(Objects.requireNonNull(decorator));
            return this;
        }

        /** Registers an operator command; a second handler for the same name is an error. */
        public Builder admin(String name, AdminHandler handler) {
            if (admin.putIfAbsent(name, Objects.requireNonNull(handler)) != null) {
                throw new IllegalArgumentException("admin command '" + name + "' is already registered");
            }
            return this;
        }

        /**
         * Called with the pair's {@link Availability} when {@code ha_db} is set, before the daemon contends for
         * the lease: add its figures to the daemon's stats, listen to its role changes.
         */
        public Builder onAvailability(Consumer<Availability> hook) {
            availabilityHooks.add(Objects.requireNonNull(hook));
            return this;
        }

        /** The MUNGE implementation to decode credentials with; default libmunge, else the programs. */
        public Builder munge(Munge m) {
            this.munge = m;
            return this;
        }

        public ProxyDaemon start() throws IOException {
            return new ProxyDaemon(this);
        }
    }
}
