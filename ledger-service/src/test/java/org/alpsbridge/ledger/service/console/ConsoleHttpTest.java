package org.alpsbridge.ledger.service.console;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Map;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.service.api.RequestDigest;
import org.alpsbridge.ledger.service.server.RunningService;
import org.alpsbridge.munge.Munge;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The console's way in and its headers on the wire, without a browser: {@code POST /v1/web-login} for a
 * MUNGE-verified caller, the sign-in POST and its cookie, the page headers, and the allocation journal the
 * burn-down reads under the API's rules. This test runs as root (uid 0, gid 0).
 */
class ConsoleHttpTest {

    static final Instant FROM = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(1, ChronoUnit.DAYS);
    static final Instant TO = FROM.plus(90, ChronoUnit.DAYS);

    @TempDir
    Path dir;
    RunningService service;
    Munge munge;
    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    final ObjectMapper json = new ObjectMapper();

    void start(Map<String, String> settings) throws Exception {
        service = RunningService.start(dir, settings);
        munge = Munge.socket(service.mungeSocket());
        service.ledger().addProject("chem", 5001, "chem_acct");  // a group root is not in
        service.ledger().addProject("ops", 0, null);            // root's own group
        service.ledger().grant("chem", Resource.CPU, 6000, FROM, TO, null, null);
        service.ledger().grant("ops", Resource.CPU, 6000, FROM, TO, null, null);
    }

    @AfterEach
    void stop() throws Exception {
        if (service != null) {
            service.close();
        }
    }

    HttpResponse<String> signed(String method, String pathAndQuery) throws Exception {
        String cred = munge.encode(RequestDigest.of(method, pathAndQuery, new byte[0]), 0);
        return send(HttpRequest.newBuilder(URI.create(service.url() + pathAndQuery))
                .method(method, HttpRequest.BodyPublishers.noBody())
                .header(RequestDigest.HEADER, RequestDigest.SCHEME + " " + cred));
    }

    HttpResponse<String> send(HttpRequest.Builder b) throws Exception {
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> signInPost(String token, String origin) throws Exception {
        return send(HttpRequest.newBuilder(URI.create(service.url() + "/sign-in"))
                .header("Content-Type", "application/x-www-form-urlencoded").header("Origin", origin)
                .POST(HttpRequest.BodyPublishers.ofString("token=" + token, StandardCharsets.UTF_8)));
    }

    @Test
    void webLoginGivesAMungeVerifiedCallerASingleUseLink() throws Exception {
        start(Map.of());
        HttpResponse<String> r = signed("POST", "/v1/web-login");
        assertEquals(200, r.statusCode(), r.body());
        JsonNode link = json.readTree(r.body());
        assertEquals("root", link.get("user").asText());
        assertEquals("superuser", link.get("role").asText());
        assertTrue(link.get("path").asText().startsWith("/sign-in?token="), r.body());
        assertTrue(link.get("url").isNull(), "no console_url: the client puts its own address in front");
        Instant expires = Instant.parse(link.get("expires").asText());
        assertTrue(expires.isAfter(Instant.now().plusSeconds(50)) && expires.isBefore(Instant.now().plusSeconds(61)));

        HttpResponse<String> unsigned = send(HttpRequest.newBuilder(URI.create(service.url() + "/v1/web-login"))
                .POST(HttpRequest.BodyPublishers.noBody()));
        assertEquals(401, unsigned.statusCode(), unsigned.body());

        String token = link.get("path").asText().substring("/sign-in?token=".length());
        HttpResponse<String> foreign = signInPost(token, "http://evil.example");
        assertEquals(403, foreign.statusCode(), "a sign-in posted from another site's page");
        HttpResponse<String> in = signInPost(token, service.url());
        assertEquals(303, in.statusCode(), in.body());
        String cookie = in.headers().firstValue("Set-Cookie").orElseThrow();
        assertTrue(cookie.matches("alpsbridge-console=[A-Za-z0-9_-]{43}; Path=/; Max-Age=28[78]\\d\\d; HttpOnly;"
                + " SameSite=Strict"), cookie);
        assertEquals(401, signInPost(token, service.url()).statusCode(), "the link works once");

        HttpResponse<String> page = send(HttpRequest.newBuilder(URI.create(service.url() + "/"))
                .header("Cookie", cookie.substring(0, cookie.indexOf(';'))));
        assertEquals(200, page.statusCode());
        assertTrue(page.body().contains("root (superuser)"), page.body());
        assertEquals(ConsoleHandler.CSP, page.headers().firstValue("Content-Security-Policy").orElseThrow());
        assertEquals("nosniff", page.headers().firstValue("X-Content-Type-Options").orElseThrow());
        assertEquals("DENY", page.headers().firstValue("X-Frame-Options").orElseThrow());
        assertEquals("no-store", page.headers().firstValue("Cache-Control").orElseThrow());
        assertFalse(page.body().contains("<script") || page.body().contains("style=\""), "no inline script or style");
    }

    @Test
    void withoutASessionThePagesAskToSignInAndTheApiStaysJson() throws Exception {
        start(Map.of());
        HttpResponse<String> page = send(HttpRequest.newBuilder(URI.create(service.url() + "/project?name=chem")));
        assertEquals(401, page.statusCode());
        assertTrue(page.body().contains("alpsbridge ledger web-login") && !page.body().contains("chem_acct"));
        HttpResponse<String> post = send(HttpRequest.newBuilder(URI.create(service.url() + "/book/credit"))
                .header("Content-Type", "application/x-www-form-urlencoded")
                .POST(HttpRequest.BodyPublishers.ofString("project=chem&hours=1")));
        assertEquals(401, post.statusCode());
        HttpResponse<String> css = send(HttpRequest.newBuilder(URI.create(service.url() + "/console.css")));
        assertEquals(200, css.statusCode());
        assertTrue(css.headers().firstValue("Content-Type").orElseThrow().startsWith("text/css"));
        for (String icon : java.util.List.of("/favicon.ico", "/favicon.svg")) {
            // a browser asks for the icon before anyone signs in: an icon, not a 401 page
            HttpResponse<String> answer = send(HttpRequest.newBuilder(URI.create(service.url() + icon)));
            assertEquals(200, answer.statusCode(), icon);
            assertEquals("image/svg+xml", answer.headers().firstValue("Content-Type").orElseThrow(), icon);
            assertTrue(answer.body().startsWith("<svg"), answer.body());
        }
        HttpResponse<String> api = send(HttpRequest.newBuilder(URI.create(service.url() + "/v1/nothing")));
        assertEquals(404, api.statusCode());
        assertTrue(api.body().startsWith("{\"error\""), api.body());
        // the service's own paths outside /v1 stay the service's: an operator's scrape, the API description
        HttpResponse<String> metrics = send(HttpRequest.newBuilder(URI.create(service.url() + "/metrics")));
        assertEquals(200, metrics.statusCode(), metrics.body());
        assertTrue(metrics.headers().firstValue("Content-Type").orElseThrow().startsWith("text/plain"));
        assertEquals(200, send(HttpRequest.newBuilder(URI.create(service.url() + "/openapi.json"))).statusCode());
    }

    @Test
    void withTheConsoleOffThereIsNeitherPageNorLink() throws Exception {
        start(Map.of("console", "false"));
        HttpResponse<String> r = signed("POST", "/v1/web-login");
        assertEquals(404, r.statusCode(), r.body());
        assertTrue(r.body().contains("console=false"), r.body());
        assertEquals(404, send(HttpRequest.newBuilder(URI.create(service.url() + "/"))).statusCode());
    }

    @Test
    void anAllocationsJournalIsReadUnderTheProjectRule() throws Exception {
        start(Map.of("superuser_uids", "4242"));  // root is now an ordinary user in group 0
        long ops = service.ledger().balances("ops").get(0).allocationId();
        long chem = service.ledger().balances("chem").get(0).allocationId();
        HttpResponse<String> own = signed("GET", "/v1/journal?allocation=" + ops);
        assertEquals(200, own.statusCode(), own.body());
        assertTrue(own.body().contains("\"kind\":\"CREDIT\"") && own.body().contains("\"amount\":6000"), own.body());
        HttpResponse<String> other = signed("GET", "/v1/journal?allocation=" + chem);
        assertEquals(403, other.statusCode(), other.body());
        assertTrue(other.body().contains("\"rule\":\"standard-reads-own-groups\""), other.body());
        assertEquals(404, signed("GET", "/v1/journal?allocation=999999").statusCode());
        assertEquals(400, signed("GET", "/v1/journal?allocation=x").statusCode());
    }
}
