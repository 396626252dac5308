package org.alpsbridge.ledger.service.console;

import java.nio.charset.StandardCharsets;

/**
 * What the console answers: a status, a body of a type, and optionally a redirect and a cookie to set
 * (the whole {@code Set-Cookie} value).
 */
record WebResponse(int status, String contentType, byte[] body, String location, String setCookie) {

    static WebResponse html(int status, String page) {
        return new WebResponse(status, "text/html; charset=utf-8", page.getBytes(StandardCharsets.UTF_8), null, null);
    }

    /** 303 See Other: after a POST the browser GETs {@code location}, so a reload repeats nothing. */
    static WebResponse seeOther(String location) {
        return new WebResponse(303, "text/plain; charset=utf-8", new byte[0], location, null);
    }

    WebResponse withCookie(String cookie) {
        return new WebResponse(status, contentType, body, location, cookie);
    }
}
