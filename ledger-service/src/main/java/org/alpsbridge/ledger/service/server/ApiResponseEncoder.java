package org.alpsbridge.ledger.service.server;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelOutboundHandlerAdapter;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;

/** An {@link ApiResponse} to an HTTP response; closes the connection after it unless kept alive. */
@Sharable
final class ApiResponseEncoder extends ChannelOutboundHandlerAdapter {

    /** What a 503 tells the caller to wait: about how long a standby takes to be promoted. */
    static final String RETRY_AFTER_SECONDS = "5";

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (!(msg instanceof ApiResponse r)) {
            ctx.write(msg, promise);
            return;
        }
        FullHttpResponse http = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(r.status()),
                Unpooled.wrappedBuffer(r.json()));
        http.headers().set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
        HttpUtil.setContentLength(http, r.json().length);
        HttpUtil.setKeepAlive(http, r.keepAlive());
        if (r.status() == 503) { // the store is unreachable (a failover): the same request may come again
            http.headers().set(HttpHeaderNames.RETRY_AFTER, RETRY_AFTER_SECONDS);
        }
        ctx.write(http, promise);
        if (!r.keepAlive()) {
            promise.addListener(ChannelFutureListener.CLOSE);
        }
    }
}
