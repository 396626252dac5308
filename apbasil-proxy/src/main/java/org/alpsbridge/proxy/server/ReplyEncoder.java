package org.alpsbridge.proxy.server;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandler.Sharable;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToByteEncoder;
import org.alpsbridge.proxy.wire.Reply;

/** A {@link Reply} into its length-prefixed frame. */
@Sharable
final class ReplyEncoder extends MessageToByteEncoder<Reply> {

    @Override
    protected void encode(ChannelHandlerContext ctx, Reply reply, ByteBuf out) {
        byte[] body = reply.encode();
        out.writeInt(body.length);
        out.writeBytes(body);
    }
}
