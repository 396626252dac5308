package org.alpsbridge.proxy.server;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import java.time.Duration;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.proxy.wire.Exchange;

/**
 * The whole request must arrive within {@code request_timeout} of connecting. A read-idle timer alone
 * would let a slow loris trickle one byte per interval forever; this is one deadline per connection.
 * Removes itself once the request is complete: the backend's own limits apply after that.
 */
final class RequestDeadline extends ChannelDuplexHandler {

    private final Duration limit;
    private ScheduledFuture<?> timer;

    RequestDeadline(Duration limit) {
        this.limit = limit;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        timer = ctx.executor().schedule(() -> {
            ctx.fireUserEventTriggered(Expired.INSTANCE);
        }, limit.toNanos(), TimeUnit.NANOSECONDS);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof Exchange) {
            cancel();
            ctx.pipeline().remove(this);
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    private void cancel() {
        if (timer != null) {
            timer.cancel(false);
            timer = null;
        }
    }

    /** Fired when the request did not arrive in time. */
    enum Expired {
        INSTANCE
    }
}
