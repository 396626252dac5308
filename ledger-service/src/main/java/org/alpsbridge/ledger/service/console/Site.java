package org.alpsbridge.ledger.service.console;

import static org.alpsbridge.ledger.service.console.Html.esc;

import java.io.IOException;
import java.io.InputStream;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.Optional;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.service.api.Requests;
import org.alpsbridge.ledger.service.api.Route;
import org.alpsbridge.ledger.service.server.LocalApi;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's pages by path, behind its gate: every page but sign-in and the style sheet needs a live
 * session; every POST needs the session's CSRF token and, when the browser says where it comes from
 * ({@code Origin}, {@code Sec-Fetch-Site}), this very origin. Whatever the API refuses shows as a page with the
 * API's status and reason.
 */
final class Site {

    private static final Logger log = LoggerFactory.getLogger(Site.class);
    private static final byte[] CSS = resource("console.css");
    /** The console's icon: a falling balance line, in the burn-down's blue. */
    private static final byte[] ICON = ("<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 16 16\">"
            + "<rect width=\"16\" height=\"16\" rx=\"3\" fill=\"#0b5cad\"/>"
            + "<path d=\"M3 4H7V8H10V12H13\" fill=\"none\" stroke=\"#fff\" stroke-width=\"2\"/></svg>")
            .getBytes(java.nio.charset.StandardCharsets.US_ASCII);

    private final LocalApi api;
    private final Sessions sessions;
    private final boolean secure;
    private final Clock clock;
    private final SecureRandom random = new SecureRandom();

    Site(LocalApi api, Sessions sessions, boolean secure, Clock clock) {
        this.api = api;
        this.sessions = sessions;
        this.secure = secure;
        this.clock = clock;
    }

    /** The cookie's name: under TLS with the {@code __Host-} prefix, which browsers bind to this origin. */
    String cookieName() {
        return secure ? "__Host-alpsbridge-console" : "alpsbridge-console";
    }

    WebResponse handle(WebRequest q) {
        Html.Frame frame = null;
        try {
            if (q.path().equals("/console.css") && !q.post()) {
                return new WebResponse(200, "text/css; charset=utf-8", CSS, null, null);
            }
            if ((q.path().equals("/favicon.svg") || q.path().equals("/favicon.ico")) && !q.post()) {
                // public like the style sheet: a browser asks for it before signing in, and a 401 there is noise
                return new WebResponse(200, "image/svg+xml", ICON, null, null);
            }
            if (q.path().equals("/sign-in")) {
                return signIn(q);
            }
            if (q.path().equals("/signed-out") && !q.post()) {
                return signedOut(200, "You are signed out.");
            }
            Optional<Sessions.Session> found = sessions.find(q.cookie());
            if (found.isEmpty()) {
                return signedOut(401, q.post() ? "Your session has ended; nothing was done." : "Please sign in.");
            }
            Sessions.Session s = found.get();
            if (q.post() && !(sameOrigin(q) && Sessions.csrfMatches(s, q.field("csrf")))) {
                log.warn("console: refused a POST to {} without this session's CSRF token or from another origin"
                        + " (Origin {}, Sec-Fetch-Site {}) for uid {}", q.path(), q.origin(), q.fetchSite(), s.who.uid());
                return WebResponse.html(403, Html.page("Refused", null, "<p>This form did not come from this"
                        + " console's own page (missing or wrong form token, or another site's page). Nothing was"
                        + " done. <a href=\"/\">Back to the console</a></p>"));
            }
            Calls calls = new Calls(api, s.who);
            Requests.Identity me = calls.get(Route.WHOAMI, Requests.Identity.class);
            String section = q.path().startsWith("/book") || q.path().equals("/done") ? "/book"
                    : q.path().equals("/project") ? "/" : q.path();
            frame = new Html.Frame(me.user(), me.role(), s.csrf, section);
            return route(q, s, calls, frame);
        } catch (Calls.Refused e) {
            return WebResponse.html(e.status, Html.page(title(e.status), frame, "<p class=\"error\" role=\"alert\">"
                    + esc(e.getMessage()) + "</p><p>Nothing was changed.</p>"));
        } catch (LedgerException e) {
            return WebResponse.html(422, Html.page(title(422), frame, "<p class=\"error\" role=\"alert\">"
                    + esc(e.getMessage()) + "</p><p>Nothing was changed.</p>"));
        } catch (RuntimeException e) {
            log.error("console: {} {} failed", q.method(), q.path(), e);
            return WebResponse.html(500, Html.page("Failed", frame, "<p class=\"error\" role=\"alert\">The console"
                    + " failed; the service log says why.</p>"));
        }
    }

    private WebResponse route(WebRequest q, Sessions.Session s, Calls calls, Html.Frame frame) {
        String path = q.path();
        if (q.post()) {
            if (path.equals("/sign-out")) {
                sessions.end(q.cookie());
                return WebResponse.seeOther("/signed-out").withCookie(cookie("", 0));
            }
            if (path.startsWith("/book/")) {
                Bookkeeping.Op op = Bookkeeping.Op.of(path.substring("/book/".length()));
                if (op != null) {
                    return apply(q, s, calls, op);
                }
            }
            return notFound(frame);
        }
        switch (path) {
            case "/":
                return WebResponse.html(200, Reports.projects(calls, q, frame, clock.instant()));
            case "/project":
                return WebResponse.html(200, Reports.project(calls, q, frame, clock.instant()));
            case "/holds":
                return WebResponse.html(200, Reports.holds(calls, frame));
            case "/failures":
                return WebResponse.html(200, Reports.failures(calls, frame));
            case "/alerts":
                return WebResponse.html(200, Reports.alerts(calls, frame));
            case "/job":
                return WebResponse.html(200, Reports.job(calls, q, frame));
            case "/done":
                return done(q, s, frame);
            default:
                break;
        }
        if (path.equals("/book") || path.startsWith("/book/")) {
            if (!frame.superuser()) {
                throw new Calls.Refused(403, "bookkeeping is for superusers; you are " + frame.role()
                        + " (rule superuser-only)");
            }
            if (path.equals("/book")) {
                return WebResponse.html(200, Bookkeeping.index(frame));
            }
            String rest = path.substring("/book/".length());
            boolean confirm = rest.endsWith("/confirm");
            Bookkeeping.Op op = Bookkeeping.Op.of(confirm ? rest.substring(0, rest.length() - "/confirm".length())
                    : rest);
            if (op != null) {
                return WebResponse.html(200, confirm ? Bookkeeping.confirm(calls, op, q, frame)
                        : Bookkeeping.form(calls, op, q, frame, newRequestId(), clock.instant()));
            }
        }
        return notFound(frame);
    }

    /** A confirmed form: applied once per request id, then the result page (303, so a reload does not post again). */
    private WebResponse apply(WebRequest q, Sessions.Session s, Calls calls, Bookkeeping.Op op) {
        String id = q.field("request");
        if (id == null || !id.matches("[A-Za-z0-9_-]{22}")) {
            throw new Calls.Refused(400, "the form carries no valid request id; open the form again");
        }
        synchronized (s) { // a double click sends two POSTs at once: the second waits and finds the first's answer
            if (!s.done.containsKey(id)) {
                String result = Bookkeeping.apply(calls, op, q.form(), id);
                log.info("console: uid {} ({}) {}: {}", s.who.uid(), s.who.user(), op.slug, result);
                s.done.put(id, result);
            }
        }
        return WebResponse.seeOther("/done?request=" + id);
    }

    private WebResponse done(WebRequest q, Sessions.Session s, Html.Frame frame) {
        String result = q.param("request") == null ? null : s.done.get(q.param("request"));
        if (result == null) {
            throw new Calls.Refused(404, "this session applied no request with that id");
        }
        return WebResponse.html(200, Html.page("Done", frame, "<p class=\"done\" role=\"status\">" + esc(result)
                + "</p><p>Sending the same form again changes nothing. <a href=\"/book\">Bookkeeping</a> \u00b7"
                + " <a href=\"/\">Projects</a></p>"));
    }

    /**
     * GET shows a button and changes nothing (a link previewer or mail scanner that fetches the link does not use
     * it up); the POST uses the token and opens a session under a new id.
     */
    private WebResponse signIn(WebRequest q) {
        if (!q.post()) {
            String token = q.param("token");
            if (token == null) {
                return signedOut(200, "Please sign in.");
            }
            return WebResponse.html(200, Html.page("Sign in", null, "<form method=\"post\" action=\"/sign-in\">"
                    + "<input type=\"hidden\" name=\"token\" value=\"" + esc(token) + "\"><p>This link signs you in"
                    + " once. <button type=\"submit\" id=\"sign-in\">Sign in to the ledger console</button></p></form>"));
        }
        if (!sameOrigin(q)) {
            return signedOut(403, "That sign-in came from another site's page; nothing was done.");
        }
        Optional<Sessions.Opened> opened = sessions.redeem(q.field("token"));
        if (opened.isEmpty()) {
            return signedOut(401, "That sign-in link was used already or has expired.");
        }
        Sessions.Session s = opened.get().session();
        log.info("console: uid {} ({}) signed in", s.who.uid(), s.who.user());
        return WebResponse.seeOther("/").withCookie(cookie(opened.get().cookie(), sessions.secondsLeft(s)));
    }

    private WebResponse signedOut(int status, String why) {
        return WebResponse.html(status, Html.page("Sign in", null, "<p>" + esc(why) + "</p><p>To sign in, run this"
                + " on a cluster host and open the link it prints (it works once, within "
                + sessions.linkLife().toSeconds() + " seconds):</p><pre>alpsbridge ledger web-login</pre>"));
    }

    private WebResponse notFound(Html.Frame frame) {
        return WebResponse.html(404, Html.page("Not found", frame, "<p>No such page. <a href=\"/\">Projects</a></p>"));
    }

    /** POSTs from this origin only, where the browser says where it comes from (terminal browsers do not). */
    private static boolean sameOrigin(WebRequest q) {
        if (q.fetchSite() != null && !q.fetchSite().equals("same-origin")) {
            return false;
        }
        return q.origin() == null || q.origin().equals(q.self());
    }

    private String cookie(String value, long maxAge) {
        return cookieName() + "=" + value + "; Path=/; Max-Age=" + maxAge + "; HttpOnly; SameSite=Strict"
                + (secure ? "; Secure" : "");
    }

    private String newRequestId() {
        byte[] b = new byte[16];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static String title(int status) {
        return switch (status) {
            case 400 -> "Not a valid request";
            case 403 -> "Not allowed";
            case 404 -> "Not found";
            case 422 -> "Refused by the ledger";
            default -> "Refused";
        };
    }

    private static byte[] resource(String name) {
        try (InputStream in = Site.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IllegalStateException(name + " is missing from the class path");
            }
            return in.readAllBytes();
        } catch (IOException e) {
            throw new IllegalStateException("cannot read " + name, e);
        }
    }
}
