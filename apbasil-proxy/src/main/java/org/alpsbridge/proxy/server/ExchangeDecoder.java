package org.alpsbridge.proxy.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.util.List;
import org.alpsbridge.proxy.wire.Exchange;

/** A whole frame (length prefix already stripped) into an {@link Exchange}. */
final class ExchangeDecoder extends MessageToMessageDecoder<ByteBuf> {

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf frame, List<Object> out) {
        out.add(Exchange.decode(frame.nioBuffer()));
    }
}
