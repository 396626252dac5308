package org.alpsbridge.proxy.server;

import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.DecoderException;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.stream.ChunkedWriteHandler;
import io.netty.util.concurrent.ScheduledFuture;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.proxy.wire.Exchange;
import org.alpsbridge.proxy.wire.Reply;
import org.alpsbridge.proxy.wire.WireException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One exchange per connection: hands the request to the {@link ExchangeProcessor} (off the event loop),
 * writes its reply and closes. Framing errors and late requests get a reason before the close, never
 * a bare reset.
 */
final class ExchangeHandler extends SimpleChannelInboundHandler<Exchange> {

    private static final Logger log = LoggerFactory.getLogger(ExchangeHandler.class);

    private final ExchangeProcessor processor;
    private final Duration replyTimeout;
    private boolean answered;

    ExchangeHandler(ExchangeProcessor processor, Duration replyTimeout) {
        this.processor = processor;
        this.replyTimeout = replyTimeout;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, Exchange exchange) {
        if (answered) {
            return; // one request per connection; anything after it is ignored
        }
        answered = true;
        ctx.channel().config().setAutoRead(false);
        processor.process(exchange).whenComplete((reply, error) -> {
            Reply r = error == null ? reply : Reply.rejected("internal error: " + error, true);
            answer(ctx, r);
        });
    }

    /**
     * Writes the reply ({@link ReplyFrame}: slice by slice, while the client takes it) and closes. A client that stops
     * reading would otherwise hold the connection and the reply for ever: after {@code reply_timeout} it is cut off.
     */
    private void answer(ChannelHandlerContext ctx, Reply reply) {
        ChannelFuture written = ctx.writeAndFlush(new ReplyFrame(reply, ctx, ctx.pipeline().get(ChunkedWriteHandler.class)));
        ScheduledFuture<?> cutOff = ctx.executor().schedule(() -> {
            if (!written.isDone()) {
                log.warn("{} did not take its answer within reply_timeout ({} ms); closing", ctx.channel().remoteAddress(),
                        replyTimeout.toMillis());
                ctx.close();
            }
        }, replyTimeout.toNanos(), TimeUnit.NANOSECONDS);
        written.addListener(f -> cutOff.cancel(false));
        written.addListener(ChannelFutureListener.CLOSE);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt == RequestDeadline.Expired.INSTANCE) {
            refuse(ctx, "the request did not arrive completely within request_timeout", true);
        } else {
            ctx.fireUserEventTriggered(evt);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        Throwable c = cause instanceof DecoderException && cause.getCause() != null ? cause.getCause() : cause;
        if (c instanceof TooLongFrameException) {
            refuse(ctx, "request refused: " + c.getMessage() + " (max_request_bytes)", false);
        } else if (c instanceof WireException) {
            refuse(ctx, "request refused: " + c.getMessage(), false);
        } else {
            log.debug("connection {} failed: {}", ctx.channel().remoteAddress(), c.toString());
            ctx.close();
        }
    }

    private void refuse(ChannelHandlerContext ctx, String reason, boolean retryable) {
        if (answered) {
            ctx.close();
            return;
        }
        answered = true;
        log.info("{} from {}", reason, ctx.channel().remoteAddress());
        answer(ctx, Reply.rejected(reason, retryable));
    }
}
