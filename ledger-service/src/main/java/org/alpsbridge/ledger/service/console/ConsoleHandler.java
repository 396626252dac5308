package org.alpsbridge.ledger.service.console;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import io.netty.util.concurrent.EventExecutor;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Takes the console's requests out of a connection's pipeline: every path but the API's ({@code /v1/...},
 * {@code /openapi.json}, {@code /metrics}) is the console's. The request is read on the I/O thread and answered on one worker
 * thread per connection (pages call the ledger, which blocks; one thread keeps a connection's answers in order).
 * Every answer carries the headers that keep a page to itself: a Content-Security-Policy allowing no script
 * and only this origin's style sheet, no framing, no referrer to other sites, no caching.
 */
final class ConsoleHandler extends ChannelInboundHandlerAdapter {

    static final String CSP = "default-src 'none'; style-src 'self'; img-src 'self'; form-action 'self';"
            + " frame-ancestors 'none'; base-uri 'none'";

    private final Site site;
    private final EventExecutor worker;
    private final boolean secure;

    ConsoleHandler(Site site, EventExecutor worker, boolean secure) {
        this.site = site;
        this.worker = worker;
        this.secure = secure;
    }

    static boolean owns(String uri) {
        int q = uri.indexOf('?');
        String path = q < 0 ? uri : uri.substring(0, q);
        return !path.startsWith("/v1/") && !path.equals("/v1") && !path.equals("/openapi.json")
                && !path.equals("/metrics");
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest http) || !owns(http.uri())) {
            ctx.fireChannelRead(msg);
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(http);
        WebRequest q;
        try {
            q = read(http);
        } catch (IllegalArgumentException e) {
            write(ctx, WebResponse.html(400, Html.page("Not a valid request", null, "<p>"
                    + Html.esc(e.getMessage()) + "</p>")), keepAlive);
            return;
        } finally {
            http.release();
        }
        worker.execute(() -> write(ctx, site.handle(q), keepAlive));
    }

    private WebRequest read(FullHttpRequest http) {
        if (!http.decoderResult().isSuccess()) {
            throw new IllegalArgumentException("malformed HTTP request");
        }
        QueryStringDecoder uri = new QueryStringDecoder(http.uri());
        Map<String, String> query = last(uri.parameters());
        Map<String, String> form = Map.of();
        String type = http.headers().get(HttpHeaderNames.CONTENT_TYPE, "");
        if (http.method().name().equals("POST") && type.startsWith("application/x-www-form-urlencoded")) {
            form = last(new QueryStringDecoder(http.content().toString(StandardCharsets.UTF_8), StandardCharsets.UTF_8,
                    false).parameters());
        }
        String cookie = null;
        String header = http.headers().get(HttpHeaderNames.COOKIE);
        if (header != null) {
            for (Cookie c : ServerCookieDecoder.STRICT.decodeAll(header)) {
                if (c.name().equals(site.cookieName())) {
                    cookie = c.value();
                }
            }
        }
        String host = http.headers().get(HttpHeaderNames.HOST);
        HttpHeaders h = http.headers();
        return new WebRequest(http.method().name(), uri.path(), query, form, cookie, h.get(HttpHeaderNames.ORIGIN),
                h.get("Sec-Fetch-Site"), host == null ? null : (secure ? "https://" : "http://") + host);
    }

    private static Map<String, String> last(Map<String, List<String>> parameters) {
        Map<String, String> out = new HashMap<>();
        parameters.forEach((k, v) -> out.put(k, v.get(v.size() - 1)));
        return out;
    }

    private static void write(ChannelHandlerContext ctx, WebResponse r, boolean keepAlive) {
        FullHttpResponse http = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.valueOf(r.status()),
                Unpooled.wrappedBuffer(r.body()));
        HttpHeaders h = http.headers();
        h.set(HttpHeaderNames.CONTENT_TYPE, r.contentType());
        h.set(HttpHeaderNames.CONTENT_SECURITY_POLICY, CSP);
        h.set("X-Content-Type-Options", "nosniff");
        h.set("X-Frame-Options", "DENY");
        h.set("Referrer-Policy", "same-origin"); // no-referrer would make Chrome send "Origin: null" on our own POSTs
        h.set("Cross-Origin-Opener-Policy", "same-origin");
        h.set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        if (r.location() != null) {
            h.set(HttpHeaderNames.LOCATION, r.location());
        }
        if (r.setCookie() != null) {
            h.set(HttpHeaderNames.SET_COOKIE, r.setCookie());
        }
        HttpUtil.setContentLength(http, r.body().length);
        HttpUtil.setKeepAlive(http, keepAlive);
        if (keepAlive) {
            ctx.writeAndFlush(http);
        } else {
            ctx.writeAndFlush(http).addListener(ChannelFutureListener.CLOSE);
        }
    }
}
