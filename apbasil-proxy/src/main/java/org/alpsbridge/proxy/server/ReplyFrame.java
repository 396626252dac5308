package org.alpsbridge.proxy.server;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.stream.ChunkedInput;
import io.netty.handler.stream.ChunkedWriteHandler;
import org.alpsbridge.proxy.wire.Reply;

/**
 * A {@link Reply} as its length-prefixed frame, handed to the connection's {@link ChunkedWriteHandler} in slices of
 * the payload itself: a cached 100-MB INVENTORY is never copied whole (every connection answering it shares the one
 * array), the handler takes the next slice only while the connection is writable (a reader that stalls holds at most
 * Netty's high-water mark and one slice here), and after {@link #TURN} bytes in a row the connection lets the others
 * on its event loop go first, so a fast reader of a large answer does not hold theirs up either.
 */
final class ReplyFrame implements ChunkedInput<ByteBuf> {

    /** One slice of the payload. */
    static final int SLICE = 256 * 1024;
    /** Bytes sent in a row before yielding the event loop to the other connections on it. */
    static final int TURN = 4 * SLICE;

    private final byte[] prefix;
    private final byte[] payload;
    private final ChannelHandlerContext ctx;
    private final ChunkedWriteHandler writer;
    private int offset = -1;
    private int sentThisTurn;

    /**
     * @param ctx the connection's context, whose executor resumes the transfer after a yield
     * @param writer the connection's chunked writer
     */
    ReplyFrame(Reply reply, ChannelHandlerContext ctx, ChunkedWriteHandler writer) {
        this.prefix = reply.prefix();
        this.payload = reply.payload();
        this.ctx = ctx;
        this.writer = writer;
    }

    @Override
    public boolean isEndOfInput() {
        return offset >= payload.length;
    }

    @Override
    public void close() {
        // nothing to release: the payload is a shared array
    }

    @Deprecated
    @Override
    public ByteBuf readChunk(ChannelHandlerContext context) {
        return readChunk(context.alloc());
    }

    @Override
    public ByteBuf readChunk(ByteBufAllocator allocator) {
        if (offset < 0) {
            // The frame's length and the reply's prefix go with the first slice: a small reply leaves in one write.
            int n = Math.min(SLICE, payload.length);
            ByteBuf first = allocator.buffer(Integer.BYTES + prefix.length + n);
            first.writeInt(prefix.length + payload.length).writeBytes(prefix).writeBytes(payload, 0, n);
            offset = n;
            sentThisTurn = n;
            return first;
        }
        if (isEndOfInput()) {
            return null;
        }
        if (sentThisTurn >= TURN) {
            sentThisTurn = 0;
            ctx.executor().execute(writer::resumeTransfer); // runs after the other connections' pending work
            return null;
        }
        int n = Math.min(SLICE, payload.length - offset);
        ByteBuf slice = Unpooled.wrappedBuffer(payload, offset, n);
        offset += n;
        sentThisTurn += n;
        return slice;
    }

    @Override
    public long length() {
        return Integer.BYTES + prefix.length + payload.length;
    }

    @Override
    public long progress() {
        return offset < 0 ? 0 : Integer.BYTES + prefix.length + offset;
    }
}
