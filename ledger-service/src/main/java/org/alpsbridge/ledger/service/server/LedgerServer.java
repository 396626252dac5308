package org.alpsbridge.ledger.service.server;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.epoll.Epoll;
import io.netty.channel.epoll.EpollEventLoopGroup;
import io.netty.channel.epoll.EpollServerDomainSocketChannel;
import io.netty.channel.epoll.EpollServerSocketChannel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.channel.unix.DomainSocketAddress;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.util.concurrent.DefaultEventExecutorGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.EventExecutorGroup;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.net.UnknownHostException;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.address.ProxyAddress;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.metrics.LedgerMetrics;
import org.alpsbridge.ledger.service.api.ApiJson;
import org.alpsbridge.munge.Munge;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ledger service: an HTTP/JSON API over one {@link Ledger} on TCP and unix sockets. Each connection's
 * pipeline: HTTP codec, aggregation (at most {@code max_body_bytes}), the web console (every path but the
 * API's), {@link ApiRequestDecoder},
 * then on the worker threads {@link AuthenticationHandler} and {@link ApiHandler}; answers go out through
 * {@link ApiResponseEncoder}.
 */
public final class LedgerServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LedgerServer.class);
    private static final ApiResponseEncoder RESPONSES = new ApiResponseEncoder();

    private final EventLoopGroup io;
    private final EventExecutorGroup workers;
    /** The figures {@code /metrics} shows; their probe stops with the server. */
    private ServiceMetrics metrics;
    private final ChannelGroup channels = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final List<String> addresses = new ArrayList<>();
    private final List<Path> socketFiles = new ArrayList<>();
    /** The web console's sign-in links (null: console=false); for tests that sign in a uid of their choosing. */
    SignIns signIns;

    private LedgerServer(EventLoopGroup io, EventExecutorGroup workers) {
        this.io = io;
        this.workers = workers;
    }

    /**
     * Starts serving {@code ledger} (which the caller still owns and closes after this server), with {@code front}
     * (the web console; null: none) before the API on every connection.
     *
     * @throws IOException when an address cannot be bound, or {@code auth=none} is asked for on an address
     *     other hosts can reach
     */
    public static LedgerServer start(Ledger ledger, ServiceSettings settings, String version, WebFront front)
            throws IOException {
        List<ProxyAddress> listen = new ArrayList<>();
        for (String text : settings.listen()) {
            ProxyAddress a = ProxyAddress.parse(text);
            if (!settings.mungeAuth() && !a.isUnix() && !loopback((InetSocketAddress) a.socketAddress())) {
                throw new IOException("auth=none on " + a + " would let anyone on the network act as superuser;"
                        + " it is for loopback addresses and unix sockets only");
            }
            listen.add(a);
        }
        if (listen.isEmpty()) {
            throw new IOException("nothing to listen on (listen= is empty)");
        }
        Munge munge = null;
        if (settings.mungeAuth()) {
            munge = Munge.best(settings.mungeSocket());
            log.info("authenticating callers with {}", munge.describe());
        } else {
            log.warn("auth=none: every caller is taken for a superuser; for loopback labs only");
        }
        SslContext tls = tls(settings);
        boolean epoll = Epoll.isAvailable();
        EventLoopGroup io = epoll ? new EpollEventLoopGroup(2, new DefaultThreadFactory("ledger-io", true))
                : new NioEventLoopGroup(2, new DefaultThreadFactory("ledger-io", true));
        EventExecutorGroup workers = new DefaultEventExecutorGroup(settings.number(ServiceSettings.Key.WORKERS),
                new DefaultThreadFactory("ledger-worker", true));
        LedgerServer server = new LedgerServer(io, workers);
        server.signIns = front;
        // every ledger call the service makes is timed and its refusals counted, for GET /metrics
        LedgerMetrics metrics = new LedgerMetrics(ServiceMetrics.PREFIX + "ledger");
        Ledger measured = metrics.wrap(ledger);
        ServiceMetrics exported = new ServiceMetrics(ledger, metrics);
        server.metrics = exported;
        Dispatcher dispatcher = new Dispatcher(measured, new Policy(measured, settings.standardJobEvents()),
                ApiJson.mapper(true), version, front, exported::prometheus);
        Directory directory = new Directory(settings.number(ServiceSettings.Key.GROUP_CACHE_SECONDS));
        Roles roles = new Roles(settings);
        LocalApi api = new LocalApi(dispatcher, directory, roles, munge != null);
        int maxBody = settings.number(ServiceSettings.Key.MAX_BODY_BYTES);
        Munge verifier = munge;
        ChannelInitializer<Channel> pipeline = new ChannelInitializer<>() {
            @Override
            protected void initChannel(Channel ch) {
                server.channels.add(ch);
                ChannelPipeline p = ch.pipeline();
                boolean secure = tls != null && !(ch.localAddress() instanceof DomainSocketAddress);
                if (secure) {
                    p.addLast("tls", tls.newHandler(ch.alloc()));
                }
                p.addLast("http", new HttpServerCodec());
                p.addLast("aggregate", new HttpObjectAggregator(maxBody));
                p.addLast("respond", RESPONSES);
                if (front != null) {
                    p.addLast("console", front.handler(api, workers.next(), secure));
                }
                p.addLast("request", new ApiRequestDecoder());
                p.addLast(workers, "authenticate", new AuthenticationHandler(verifier, directory, roles));
                p.addLast(workers, "dispatch", new ApiHandler(dispatcher));
            }
        };
        try {
            for (ProxyAddress a : listen) {
                server.bind(a, epoll, pipeline);
            }
        } catch (IOException | RuntimeException e) {
            server.close();
            throw e;
        }
        log.info("ledger service on {} serving {}", server.addresses, ledger);
        return server;
    }

    private static SslContext tls(ServiceSettings settings) throws IOException {
        Path[] files;
        try {
            files = settings.tls();
        } catch (IllegalArgumentException e) {
            throw new IOException(e.getMessage(), e);
        }
        if (files == null) {
            return null;
        }
        try {
            return SslContextBuilder.forServer(files[0].toFile(), files[1].toFile()).build();
        } catch (Exception e) {
            throw new IOException("cannot serve HTTPS with tls_cert=" + files[0] + " tls_key=" + files[1] + ": "
                    + e.getMessage(), e);
        }
    }

    private static boolean loopback(InetSocketAddress a) {
        try {
            return (a.isUnresolved() ? InetAddress.getByName(a.getHostString()) : a.getAddress()).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private void bind(ProxyAddress address, boolean epoll, ChannelInitializer<Channel> pipeline) throws IOException {
        ServerBootstrap b = new ServerBootstrap().group(io).childHandler(pipeline);
        SocketAddress at;
        if (address.isUnix()) {
            if (!epoll) {
                throw new IOException(address + " needs Netty's native epoll transport, not available here");
            }
            Path path = Path.of(address.text().substring("unix:".length()));
            clearSocketFile(path);
            b.channel(EpollServerDomainSocketChannel.class);
            at = new DomainSocketAddress(path.toFile());
            socketFiles.add(path);
        } else {
            b.channel(epoll ? EpollServerSocketChannel.class : NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 1024).option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.TCP_NODELAY, true);
            InetSocketAddress inet = (InetSocketAddress) address.socketAddress();
            at = new InetSocketAddress(inet.getHostString(), inet.getPort());
        }
        Channel ch;
        try {
            ch = b.bind(at).syncUninterruptibly().channel();
        } catch (Exception e) {
            throw new IOException(org.alpsbridge.failure.Failures.listen(address.toString(), e), e);
        }
        channels.add(ch);
        if (ch.localAddress() instanceof InetSocketAddress bound) {
            String host = bound.getAddress().getHostAddress();
            addresses.add((host.contains(":") ? "[" + host + "]" : host) + ":" + bound.getPort());
        } else {
            addresses.add(address.text());
        }
    }

    /** A socket file nobody answers on is left over from a dead service and goes; a live one is refused. */
    private static void clearSocketFile(Path path) throws IOException {
        if (!Files.exists(path)) {
            return;
        }
        boolean live;
        try (SocketChannel probe = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            live = probe.connect(UnixDomainSocketAddress.of(path));
        } catch (IOException e) {
            live = false;
        }
        if (live) {
            throw new IOException("unix:" + path + " is in use by a running service");
        }
        Files.delete(path);
    }

    /** Where it listens, as bound: {@code HOST:PORT} (the real port when 0 was asked) or {@code unix:/PATH}. */
    public List<String> addresses() {
        return List.copyOf(addresses);
    }

    @Override
    public void close() {
        if (metrics != null) {
            metrics.close();
        }
        channels.close().awaitUninterruptibly();
        // workers first, with a quiet period: closed connections still pass their last events through the
        // handlers on the workers, and on to the I/O threads, which must outlive them
        workers.shutdownGracefully(100, 2_000, TimeUnit.MILLISECONDS).awaitUninterruptibly();
        io.shutdownGracefully(0, 2, TimeUnit.SECONDS).awaitUninterruptibly();
        for (Path p : socketFiles) {
            try {
                Files.deleteIfExists(p);
            } catch (IOException e) {
                log.warn("cannot remove {}: {}", p, e.getMessage());
            }
        }
    }
}
