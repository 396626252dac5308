package org.alpsbridge.ledger.service.server;

import java.util.Map;
import org.alpsbridge.ledger.service.api.Route;

/**
 * A request of the API as the pipeline passes it on: its route, query, body and credential, and once
 * authenticated, its caller (null before, and for routes that need none).
 */
record ApiRequest(Route route, String pathAndQuery, Map<String, String> query, byte[] body, String credential,
                  Caller caller, boolean keepAlive) {

    ApiRequest {
        query = Map.copyOf(query);
    }

    ApiRequest as(Caller who) {
        return new ApiRequest(route, pathAndQuery, query, body, credential, who, keepAlive);
    }

    String param(String name) {
        String v = query.get(name);
        return v == null || v.isEmpty() ? null : v;
    }
}
