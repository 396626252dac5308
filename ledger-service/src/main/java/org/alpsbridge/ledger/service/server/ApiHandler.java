package org.alpsbridge.ledger.service.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;

/** Hands each authenticated request to the {@link Dispatcher} and writes its answer. */
final class ApiHandler extends SimpleChannelInboundHandler<ApiRequest> {

    private final Dispatcher dispatcher;

    ApiHandler(Dispatcher dispatcher) {
        this.dispatcher = dispatcher;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, ApiRequest q) {
        ctx.writeAndFlush(dispatcher.handle(q));
    }
}
