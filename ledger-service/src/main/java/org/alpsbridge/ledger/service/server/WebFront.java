package org.alpsbridge.ledger.service.server;

import io.netty.channel.ChannelHandler;
import io.netty.util.concurrent.EventExecutor;

/**
 * What serves browsers in front of the API (the web console), given to {@link LedgerServer#start} by whoever
 * assembles the service: it answers its own paths on each connection, calling the API in-process through
 * {@link LocalApi}, passes the API's paths on, and issues the sign-in links of {@code POST /v1/web-login}.
 */
public interface WebFront extends SignIns {

    /**
     * A new connection's handler, run on {@code worker}.
     *
     * @param tls whether this connection speaks TLS (a unix socket does not, even when TCP does)
     */
    ChannelHandler handler(LocalApi api, EventExecutor worker, boolean tls);
}
