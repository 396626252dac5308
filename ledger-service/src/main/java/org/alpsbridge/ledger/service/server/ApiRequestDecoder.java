package org.alpsbridge.ledger.service.server;

import io.netty.buffer.ByteBufUtil;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.service.api.RequestDigest;
import org.alpsbridge.ledger.service.api.Route;

/**
 * An aggregated HTTP request to an {@link ApiRequest}: its route, query and credential. A request to no
 * route of the API is answered here (404, or 405 for a known path with another method) and goes no further.
 */
final class ApiRequestDecoder extends MessageToMessageDecoder<FullHttpRequest> {

    @Override
    protected void decode(ChannelHandlerContext ctx, FullHttpRequest http, List<Object> out) {
        boolean keepAlive = HttpUtil.isKeepAlive(http);
        if (!http.decoderResult().isSuccess()) {
            ctx.writeAndFlush(Problems.of(400, "malformed HTTP request: " + http.decoderResult().cause(), keepAlive));
            return;
        }
        QueryStringDecoder uri = new QueryStringDecoder(http.uri());
        String path;
        Map<String, List<String>> parameters;
        try {
            path = uri.path();
            parameters = uri.parameters();
        } catch (IllegalArgumentException e) {
            // A bad %-escape: without this answer the exception ended the pipeline and the caller waited for ever
            // (found by ApiFuzzTest).
            ctx.writeAndFlush(Problems.of(400, "malformed request URI: " + e.getMessage(), keepAlive));
            return;
        }
        Route route = Route.of(http.method().name(), path);
        if (route == null) {
            boolean known = Route.knownPath(path);
            ctx.writeAndFlush(Problems.of(known ? 405 : 404, (known ? "method " + http.method() + " not allowed on "
                    : "no such API path: ") + path + " (GET /openapi.json describes the API)", keepAlive));
            return;
        }
        Map<String, String> query = new HashMap<>();
        parameters.forEach((k, v) -> query.put(k, v.get(v.size() - 1)));
        String auth = http.headers().get(RequestDigest.HEADER);
        String credential = auth != null && auth.startsWith(RequestDigest.SCHEME + " ")
                ? auth.substring(RequestDigest.SCHEME.length() + 1).strip() : null;
        out.add(new ApiRequest(route, http.uri(), query, ByteBufUtil.getBytes(http.content()), credential, null,
                keepAlive));
    }
}
