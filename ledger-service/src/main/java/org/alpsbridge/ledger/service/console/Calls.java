package org.alpsbridge.ledger.service.console;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JavaType;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.service.api.ApiJson;
import org.alpsbridge.ledger.service.api.Requests;
import org.alpsbridge.ledger.service.api.Route;
import org.alpsbridge.ledger.service.server.LocalApi;

/**
 * The API as one signed-in browser's uid calls it: every page reads and writes through here, so the API's
 * access rules decide what a page shows and what a form may do. A refusal comes back as {@link Refused}.
 */
final class Calls {

    /** The API refused or failed: its status and message (with the access rule for a 403). */
    static final class Refused extends RuntimeException {
        final int status;

        Refused(int status, String message) {
            super(message, null, false, false);
            this.status = status;
        }
    }

    private static final ObjectMapper JSON = ApiJson.mapper(false);

    private final LocalApi api;
    private final Sessions.Identity who;

    Calls(LocalApi api, Sessions.Identity who) {
        this.api = api;
        this.who = who;
    }

    <T> T get(Route route, Class<T> type, String... query) {
        return call(route, null, JSON.constructType(type), query);
    }

    <T> List<T> list(Route route, Class<T> item, String... query) {
        return call(route, null, JSON.getTypeFactory().constructCollectionType(List.class, item), query);
    }

    <T> T post(Route route, Object body, Class<T> type) {
        return call(route, body, JSON.constructType(type));
    }

    <T> List<T> postForList(Route route, Object body, Class<T> item) {
        return call(route, body, JSON.getTypeFactory().constructCollectionType(List.class, item));
    }

    private <T> T call(Route route, Object body, JavaType answer, String... query) {
        Map<String, String> q = new LinkedHashMap<>();
        for (int i = 0; i + 1 < query.length; i += 2) {
            if (query[i + 1] != null) {
                q.put(query[i], query[i + 1]);
            }
        }
        byte[] bytes;
        try {
            bytes = body == null ? new byte[0] : JSON.writeValueAsBytes(body);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + route + "'s body", e);
        }
        LocalApi.Answer a = api.call(who.uid(), who.gid(), route, q, bytes);
        try {
            if (!a.ok()) {
                throw new Refused(a.status(), JSON.readValue(a.json(), Requests.Problem.class).error());
            }
            return JSON.readValue(a.json(), answer);
        } catch (IOException e) {
            throw new IllegalStateException("the API answered " + route + " with something not its JSON", e);
        }
    }
}
