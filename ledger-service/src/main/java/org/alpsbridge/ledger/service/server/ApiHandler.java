package org.alpsbridge.ledger.service.server;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Hands each authenticated request to the {@link Dispatcher} and writes its answer. Anything the handlers
 * before it could not handle ends here as a 500 and a closed connection, never as a caller left waiting.
 */
final class ApiHandler extends SimpleChannelInboundHandler<ApiRequest> {

    private static final Logger log = LoggerFactory.getLogger(ApiHandler.class);

    private final Dispatcher dispatcher;

    ApiHandler(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ApiRequest q) {
        ctx.writeAndFlush(dispatcher.handle(q));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        if (cause instanceof IOException) {
            log.debug("connection from {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
            ctx.close(); // the caller went away; nobody is left to answer
            return;
        }
        log.error("request on {} failed", ctx.channel().remoteAddress(), cause);
        if (ctx.channel().isActive()) {
            ctx.writeAndFlush(Problems.of(500, "the ledger service failed: " + cause, false))
                    .addListener(ChannelFutureListener.CLOSE);
        }
    }
}
