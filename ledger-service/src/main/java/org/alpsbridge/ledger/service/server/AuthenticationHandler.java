package org.alpsbridge.ledger.service.server;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.MessageToMessageDecoder;
import java.security.MessageDigest;
import java.util.List;
import java.util.Set;
import org.alpsbridge.ledger.service.api.RequestDigest;
import org.alpsbridge.ledger.service.api.Route;
import org.alpsbridge.munge.Munge;
import org.alpsbridge.munge.MungeCredential;
import org.alpsbridge.munge.MungeException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who sent a request: its MUNGE credential decoded by munged (which refuses forged, expired and replayed
 * credentials), its payload compared with the request's own digest (method, path and query, body), the
 * uid's name, groups and role looked up. A request that fails is answered 401 here and goes no further.
 * munged and id(1) block, so this handler runs on the worker threads.
 */
final class AuthenticationHandler extends MessageToMessageDecoder<ApiRequest> {

    private static final Logger log = LoggerFactory.getLogger(AuthenticationHandler.class);
    /** With {@code auth=none} every caller is this one (loopback labs). */
    static final Caller UNAUTHENTICATED = new Caller(-1, -1, "unauthenticated", Set.of(), Role.SUPERUSER);

    private final Munge munge;
    private final Directory directory;
    private final Roles roles;

    /** {@code munge} null = authentication off. */
    AuthenticationHandler(Munge munge, Directory directory, Roles roles) {
        this.munge = munge;
        this.directory = directory;
        this.roles = roles;
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ApiRequest q, List<Object> out) {
        if (q.route().access() == Route.Access.ANYONE) {
            out.add(q);
            return;
        }
        if (munge == null) {
            out.add(q.as(UNAUTHENTICATED));
            return;
        }
        try {
            out.add(q.as(authenticate(q)));
        } catch (Refusal e) {
            log.info("{} {}: {}", q.route().method(), q.pathAndQuery(), e.getMessage());
            ctx.writeAndFlush(Problems.of(401, e.getMessage(), q.keepAlive()));
        }
    }

    private Caller authenticate(ApiRequest q) {
        if (q.credential() == null) {
            throw new Refusal(401, null, "authentication failed: the request carries no '" + RequestDigest.HEADER
                    + ": " + RequestDigest.SCHEME + " <credential>' header, and this service runs with auth=munge");
        }
        MungeCredential cred;
        try {
            cred = munge.decode(q.credential());
        } catch (MungeException e) {
            String why = e.code() == MungeException.REPLAYED ? "the credential was already used (replayed)"
                    : e.code() == MungeException.EXPIRED ? "the credential expired" : e.getMessage();
            throw new Refusal(401, null, "authentication failed: " + why);
        }
        byte[] digest = RequestDigest.of(q.route().method(), q.pathAndQuery(), q.body());
        if (!MessageDigest.isEqual(cred.payload(), digest)) {
            throw new Refusal(401, null, "authentication failed: the MUNGE credential (uid " + cred.uid()
                    + ") was made for a different request");
        }
        return directory.caller(cred.uid(), cred.gid(), roles);
    }
}
