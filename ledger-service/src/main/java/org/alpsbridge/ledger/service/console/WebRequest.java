package org.alpsbridge.ledger.service.console;

import java.util.Map;

/**
 * A browser's request as the console reads it: path, query and form fields (last value wins), the console's
 * cookie, and the headers the CSRF check looks at.
 *
 * @param origin the {@code Origin} header, or null
 * @param fetchSite the {@code Sec-Fetch-Site} header, or null (older and terminal browsers send none)
 * @param self this service's own origin as the browser addressed it ({@code http://HOST:PORT})
 */
record WebRequest(String method, String path, Map<String, String> query, Map<String, String> form, String cookie,
                  String origin, String fetchSite, String self) {

    WebRequest {
        query = Map.copyOf(query);
        form = Map.copyOf(form);
    }

    boolean post() {
        return method.equals("POST");
    }

    String param(String name) {
        String v = query.get(name);
        return v == null || v.isBlank() ? null : v.strip();
    }

    String field(String name) {
        String v = form.get(name);
        return v == null || v.isBlank() ? null : v.strip();
    }
}
