package org.alpsbridge.proxy.stats;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioEventLoopGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.ReadTimeoutHandler;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;

/**
 * The Prometheus scrape endpoint: {@code GET /metrics} answers the text exposition format; every other
 * path is 404 and every other method 405. One small event loop; rendering a snapshot takes microseconds,
 * so it runs on the loop.
 */
public final class MetricsServer implements AutoCloseable {

    /** Prometheus text exposition format, as scrapers expect it. */
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final EventLoopGroup group;
    private final Channel channel;

    private MetricsServer(EventLoopGroup group, Channel channel) {
        this.group = group;
        this.channel = channel;
    }

    /**
     * Binds and starts serving.
     *
     * @param address where to listen, e.g. {@code 127.0.0.1:19201}; port 0 picks a free port
     * @param body renders the page at each scrape, e.g. {@code () -> stats.snapshot().prometheus()}
     * @throws InterruptedException if interrupted while binding
     * @throws IllegalStateException if the address cannot be bound (the message names it)
     */
    public static MetricsServer start(InetSocketAddress address, Supplier<String> body) throws InterruptedException {
        EventLoopGroup group = new NioEventLoopGroup(1);
        try {
            Channel ch = new ServerBootstrap()
                    .group(group)
                    .channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel c) {
                            c.pipeline().addLast(new ReadTimeoutHandler(30, TimeUnit.SECONDS),
                                    new HttpServerCodec(),
                                    new HttpObjectAggregator(8192),
                                    new Scrape(body));
                        }
                    })
                    .bind(address).sync().channel();
            return new MetricsServer(group, ch);
        } catch (InterruptedException e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        } catch (Exception e) { // Netty rethrows the checked BindException undeclared
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw new IllegalStateException("metrics: cannot listen on " + address + ": " + e.getMessage(), e);
        }
    }

    /** The bound address (useful when started on port 0). */
    public InetSocketAddress address() {
        return (InetSocketAddress) channel.localAddress();
    }

    @Override
    public void close() {
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }

    private static final class Scrape extends SimpleChannelInboundHandler<FullHttpRequest> {
        private final Supplier<String> body;

        Scrape(Supplier<String> body) {
            this.body = body;
        }

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            HttpResponseStatus status;
            String text;
            if (!new QueryStringDecoder(req.uri()).path().equals("/metrics")) {
                status = HttpResponseStatus.NOT_FOUND;
                text = "not found: only /metrics is served here\n";
            } else if (!req.method().equals(HttpMethod.GET) && !req.method().equals(HttpMethod.HEAD)) {
                status = HttpResponseStatus.METHOD_NOT_ALLOWED;
                text = "method not allowed: use GET\n";
            } else {
                status = HttpResponseStatus.OK;
                text = body.get();
            }
            byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
            FullHttpResponse res = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status,
                    req.method().equals(HttpMethod.HEAD) ? Unpooled.EMPTY_BUFFER : Unpooled.wrappedBuffer(bytes));
            res.headers().set(HttpHeaderNames.CONTENT_TYPE, status == HttpResponseStatus.OK ? CONTENT_TYPE : "text/plain; charset=utf-8");
            res.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            if (keepAlive) {
                res.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
                ctx.writeAndFlush(res);
            } else {
                ctx.writeAndFlush(res).addListener(ChannelFutureListener.CLOSE);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }
}
