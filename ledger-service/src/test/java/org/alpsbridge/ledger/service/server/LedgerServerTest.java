package org.alpsbridge.ledger.service.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.Reservation;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.State;
import org.alpsbridge.ledger.service.api.RequestDigest;
import org.alpsbridge.ledger.service.api.Route;
import org.alpsbridge.munge.Munge;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The service on the wire, against a real munged: who may call what, and what a credential is good for.
 * This test runs as root (uid 0, gid 0); the roles are moved around it with the settings.
 */
class LedgerServerTest {

    static final Instant FROM = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(1, ChronoUnit.DAYS);
    static final Instant TO = FROM.plus(90, ChronoUnit.DAYS);
    static final String RESERVE_ALICE = "{\"batchId\":\"77\",\"resId\":7,\"project\":\"chem\",\"owner\":\"alice\","
            + "\"nodes\":1,\"node\":{\"cores\":4,\"memGib\":0,\"gpus\":0},\"limitSeconds\":600,\"at\":\"" + Instant.now()
            + "\"}";

    @TempDir
    Path dir;

    final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
    RunningService service;
    Munge munge;

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

    String credential(String method, String pathAndQuery, String body) throws Exception {
        return munge.encode(RequestDigest.of(method, pathAndQuery, body.getBytes(StandardCharsets.UTF_8)), 0);
    }

    HttpResponse<String> send(String method, String pathAndQuery, String body, String credential) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(URI.create(service.url() + pathAndQuery))
                .method(method, body.isEmpty() ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(body));
        if (credential != null) {
            b.header(RequestDigest.HEADER, RequestDigest.SCHEME + " " + credential);
        }
        return http.send(b.build(), HttpResponse.BodyHandlers.ofString());
    }

    HttpResponse<String> signed(String method, String pathAndQuery, String body) throws Exception {
        return send(method, pathAndQuery, body, credential(method, pathAndQuery, body));
    }

    @Test
    void aRequestWithoutACredentialIsRefusedAs401() throws Exception {
        start(Map.of());
        HttpResponse<String> r = send("GET", "/v1/projects", "", null);
        assertEquals(401, r.statusCode(), r.body());
        assertTrue(r.body().contains("carries no 'Authorization: MUNGE"), r.body());
    }

    @Test
    void aReplayedCredentialIsRefusedTheSecondTime() throws Exception {
        start(Map.of());
        String cred = credential("GET", "/v1/balances?project=chem", "");
        assertEquals(200, send("GET", "/v1/balances?project=chem", "", cred).statusCode());
        HttpResponse<String> again = send("GET", "/v1/balances?project=chem", "", cred);
        assertEquals(401, again.statusCode(), again.body());
        assertTrue(again.body().contains("replayed"), again.body());
    }

    @Test
    void aCredentialIsGoodOnlyForTheMethodPathAndBodyItWasMadeFor() throws Exception {
        start(Map.of());
        HttpResponse<String> otherPath = send("GET", "/v1/balances?project=ops", "",
                credential("GET", "/v1/balances?project=chem", ""));
        assertEquals(401, otherPath.statusCode(), otherPath.body());
        assertTrue(otherPath.body().contains("made for a different request"), otherPath.body());
        String tampered = RESERVE_ALICE.replace("\"nodes\":1", "\"nodes\":2");
        HttpResponse<String> otherBody = send("POST", "/v1/reserve", tampered,
                credential("POST", "/v1/reserve", RESERVE_ALICE));
        assertEquals(401, otherBody.statusCode(), otherBody.body());
        assertTrue(service.ledger().holds(null).isEmpty(), "the tampered RESERVE must not have been carried out");
    }

    @Test
    void rootIsSuperuserByDefaultAndMayChargeForAnotherUser() throws Exception {
        start(Map.of());
        HttpResponse<String> r = signed("POST", "/v1/reserve", RESERVE_ALICE);
        assertEquals(200, r.statusCode(), r.body());
        assertTrue(r.body().contains("\"decision\":\"OK\""), r.body());
        assertEquals("alice", service.ledger().holds("chem").get(0).owner());
        HttpResponse<String> who = signed("GET", "/v1/whoami", "");
        assertTrue(who.body().contains("\"uid\":0") && who.body().contains("\"role\":\"superuser\""), who.body());
    }

    @Test
    void aChargerAsksForAQuoteAndIsAnsweredAsTheReserveWouldWithNothingWritten() throws Exception {
        start(Map.of("superuser_uids", "4242", "charger_uids", "0"));
        String big = RESERVE_ALICE.replace("\"limitSeconds\":600", "\"limitSeconds\":360000"); // 4 x 6000 min
        HttpResponse<String> fits = signed("POST", "/v1/quote", RESERVE_ALICE);
        assertEquals(200, fits.statusCode(), fits.body());
        assertTrue(fits.body().contains("\"decision\":\"OK\"") && fits.body().contains("\"hold\":40")
                && fits.body().contains("\"available\":6000"), fits.body());
        HttpResponse<String> no = signed("POST", "/v1/quote", big);
        assertEquals(200, no.statusCode(), no.body());
        assertTrue(no.body().contains("\"decision\":\"DENIED\"") && no.body().contains("INSUFFICIENT_BALANCE")
                && no.body().contains("costs up to 24000") && no.body().contains("short by 18000"), no.body());
        assertEquals(List.of(), service.ledger().failures(null, 10), "a quote records no denial");
        assertEquals(List.of(), service.ledger().holds(null), "and holds nothing");
    }

    @Test
    void aStandardUserMayNotAskForAQuoteOfAnotherUsersJob() throws Exception {
        start(Map.of("superuser_uids", "4242"));  // root is now a standard user: alice's job is not its own
        HttpResponse<String> standard = signed("POST", "/v1/quote", RESERVE_ALICE);
        assertEquals(403, standard.statusCode(), standard.body());
        assertTrue(standard.body().contains("\"rule\":\"job-events-need-admin\""), standard.body());
    }

    @Test
    void aStandardUserReadsOnlyTheProjectsOfItsGroupsAndChangesNothing() throws Exception {
        start(Map.of("superuser_uids", "4242"));  // root is now an ordinary user in group 0
        HttpResponse<String> other = signed("GET", "/v1/balances?project=chem", "");
        assertEquals(403, other.statusCode(), other.body());
        assertTrue(other.body().contains("\"rule\":\"standard-reads-own-groups\""), other.body());
        HttpResponse<String> own = signed("GET", "/v1/balances?project=ops", "");
        assertEquals(200, own.statusCode(), own.body());
        HttpResponse<String> all = signed("GET", "/v1/balances", "");
        assertTrue(all.body().contains("\"ops\"") && !all.body().contains("\"chem\""), all.body());
        HttpResponse<String> projects = signed("GET", "/v1/projects", "");
        assertTrue(projects.body().contains("\"ops\"") && !projects.body().contains("\"chem\""), projects.body());
        String grant = "{\"project\":\"ops\",\"resource\":\"CPU\",\"minutes\":60,\"from\":\"" + TO + "\",\"to\":\""
                + TO.plus(1, ChronoUnit.DAYS) + "\"}";
        HttpResponse<String> g = signed("POST", "/v1/grant", grant);
        assertEquals(403, g.statusCode(), g.body());
        assertTrue(g.body().contains("\"rule\":\"superuser-only\""), g.body());
        HttpResponse<String> reserve = signed("POST", "/v1/reserve", RESERVE_ALICE);
        assertEquals(403, reserve.statusCode(), reserve.body());
        assertTrue(reserve.body().contains("\"rule\":\"job-events-need-admin\""), reserve.body());
        assertEquals(1, service.ledger().balances("ops").size(), "the refused grant changed nothing");
    }

    @Test
    void aStandardUserAllowedJobEventsSendsThemOnlyForItsOwnJobs() throws Exception {
        start(Map.of("superuser_uids", "4242", "standard_job_events", "true"));
        HttpResponse<String> forAlice = signed("POST", "/v1/reserve", RESERVE_ALICE.replace("chem", "ops"));
        assertEquals(403, forAlice.statusCode(), forAlice.body());
        assertTrue(forAlice.body().contains("\"rule\":\"standard-own-job-events\""), forAlice.body());
        HttpResponse<String> own = signed("POST", "/v1/reserve",
                RESERVE_ALICE.replace("chem", "ops").replace("alice", "root"));
        assertEquals(200, own.statusCode(), own.body());
    }

    @Test
    void anAdminReadsEverythingAndChargesForAnyUserButMovesNoCredit() throws Exception {
        start(Map.of("superuser_uids", "4242", "admin_uids", "0"));
        assertEquals(200, signed("GET", "/v1/balances?project=chem", "").statusCode());
        assertEquals(200, signed("GET", "/v1/check", "").statusCode());
        assertEquals(200, signed("POST", "/v1/reserve", RESERVE_ALICE).statusCode());
        HttpResponse<String> credit = signed("POST", "/v1/credit", "{\"project\":\"chem\",\"resource\":\"CPU\","
                + "\"at\":\"" + Instant.now() + "\",\"minutes\":60}");
        assertEquals(403, credit.statusCode(), credit.body());
        assertTrue(credit.body().contains("\"rule\":\"superuser-only\""), credit.body());
    }

    @Test
    void aChargerSendsJobEventsForAnyUserAndOtherwiseReadsLikeAStandardUser() throws Exception {
        start(Map.of("superuser_uids", "4242", "charger_uids", "0"));
        HttpResponse<String> reserve = signed("POST", "/v1/reserve", RESERVE_ALICE);
        assertEquals(200, reserve.statusCode(), reserve.body());
        HttpResponse<String> job = signed("GET", "/v1/reservation?res_id=7&batch_id=77", "");
        assertEquals(200, job.statusCode(), "the hooks read the runs they settle: " + job.body());
        HttpResponse<String> chem = signed("GET", "/v1/balances?project=chem", "");
        assertEquals(403, chem.statusCode(), chem.body());
        assertTrue(chem.body().contains("\"rule\":\"standard-reads-own-groups\""), chem.body());
        assertEquals(200, signed("GET", "/v1/balances?project=ops", "").statusCode(), "its own group's project");
        HttpResponse<String> check = signed("GET", "/v1/check", "");
        assertEquals(403, check.statusCode(), check.body());
        assertTrue(check.body().contains("\"rule\":\"admin-only\""), check.body());
        HttpResponse<String> credit = signed("POST", "/v1/credit", "{\"project\":\"chem\",\"resource\":\"CPU\","
                + "\"at\":\"" + Instant.now() + "\",\"minutes\":60}");
        assertEquals(403, credit.statusCode(), credit.body());
        assertTrue(credit.body().contains("\"rule\":\"superuser-only\""), credit.body());
    }

    @Test
    void aStartHoldsAndConfirmsInOneRequestAndItsRetryRepeatsNothing() throws Exception {
        start(Map.of("superuser_uids", "4242", "charger_uids", "0"));  // the hooks' least privilege
        HttpResponse<String> started = signed("POST", "/v1/start", RESERVE_ALICE);
        assertEquals(200, started.statusCode(), started.body());
        assertTrue(started.body().contains("\"decision\":\"OK\"") && started.body().contains("\"replayed\":false"),
                started.body());
        Reservation r = service.ledger().holds("chem").get(0);
        assertEquals(State.CONFIRMED, r.state(), "held and running: " + r);
        HttpResponse<String> again = signed("POST", "/v1/start", RESERVE_ALICE);
        assertEquals(200, again.statusCode(), again.body());
        assertTrue(again.body().contains("\"replayed\":true"), again.body());
        assertEquals(List.of(r), service.ledger().holds("chem"), "the retry held nothing more");
        assertEquals(List.of(), service.ledger().check());

        service.ledger().addProject("poor", 5002, null);  // no allocation: denied, and nothing confirmed
        HttpResponse<String> denied = signed("POST", "/v1/start", RESERVE_ALICE.replace("chem", "poor")
                .replace("\"batchId\":\"77\"", "\"batchId\":\"78\""));
        assertEquals(200, denied.statusCode(), denied.body());
        assertTrue(denied.body().contains("\"decision\":\"DENIED\"") && denied.body().contains("NO_ACTIVE_ALLOCATION"),
                denied.body());
        assertEquals(State.DENIED, service.ledger().reservations(null, "78").get(0).state());

        HttpResponse<String> token = signed("POST", "/v1/start", RESERVE_ALICE.replace("\"resId\":7", "\"resId\":0,"
                + "\"token\":\"t1\"").replace("\"batchId\":\"77\"", "\"batchId\":\"79\""));
        assertEquals(400, token.statusCode(), token.body());
        assertTrue(token.body().contains("not by a token"), token.body());
        assertTrue(service.ledger().reservations(null, "79").isEmpty(), "the refused START changed nothing");
    }

    @Test
    void severalStartsInOneRequestAreEachAStartAnsweredInOrder() throws Exception {
        start(Map.of("superuser_uids", "4242", "charger_uids", "0"));
        service.ledger().addProject("poor", 5002, null); // no allocation: its start is denied
        String first = RESERVE_ALICE;
        String denied = RESERVE_ALICE.replace("chem", "poor").replace("\"batchId\":\"77\"", "\"batchId\":\"78\"");
        String third = RESERVE_ALICE.replace("\"batchId\":\"77\"", "\"batchId\":\"79\"");
        HttpResponse<String> started = signed("POST", "/v1/starts", "{\"starts\":[" + first + "," + denied + "," + third
                + "]}");
        assertEquals(200, started.statusCode(), started.body());
        List<String> decisions = new java.util.ArrayList<>();
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("\"decision\":\"(\\w+)\"").matcher(started.body());
        while (m.find()) {
            decisions.add(m.group(1));
        }
        assertEquals(List.of("OK", "DENIED", "OK"), decisions, "in the order of the starts: " + started.body());
        for (String job : List.of("77", "79")) {
            assertEquals(State.CONFIRMED, service.ledger().reservations(null, job).get(0).state(), "job " + job);
        }
        assertEquals(State.DENIED, service.ledger().reservations(null, "78").get(0).state());
        HttpResponse<String> again = signed("POST", "/v1/start", third);
        assertTrue(again.body().contains("\"replayed\":true"), "a START sent again alone: " + again.body());

        HttpResponse<String> token = signed("POST", "/v1/starts", "{\"starts\":[" + RESERVE_ALICE.replace(
                "\"batchId\":\"77\"", "\"batchId\":\"80\"") + "," + RESERVE_ALICE.replace("\"resId\":7",
                "\"resId\":0,\"token\":\"t1\"").replace("\"batchId\":\"77\"", "\"batchId\":\"81\"") + "]}");
        assertEquals(400, token.statusCode(), "one bad start refuses the request: " + token.body());
        assertTrue(service.ledger().reservations(null, "80").isEmpty(), "checked before any start is made");
        assertEquals(400, signed("POST", "/v1/starts", "{\"starts\":[]}").statusCode());
        assertEquals(List.of(), service.ledger().check());
    }

    @Test
    void badRequestsAreNamedAndChangeNothing() throws Exception {
        start(Map.of());
        assertEquals(404, signed("GET", "/v1/nothing", "").statusCode());
        assertEquals(405, signed("DELETE", "/v1/projects", "").statusCode());
        HttpResponse<String> typo = signed("POST", "/v1/reserve", RESERVE_ALICE.replace("\"nodes\"", "\"nodez\""));
        assertEquals(400, typo.statusCode(), typo.body());
        HttpResponse<String> refused = signed("POST", "/v1/reserve", RESERVE_ALICE.replace("\"nodes\":1",
                "\"nodes\":0"));
        assertEquals(422, refused.statusCode(), refused.body());
        assertTrue(refused.body().contains("at least 1 node"), refused.body());
        assertTrue(service.ledger().holds(null).isEmpty());
    }

    @Test
    void theOpenApiDescriptionNeedsNoCredentialAndNamesEveryRoute() throws Exception {
        start(Map.of());
        HttpResponse<String> r = send("GET", "/openapi.json", "", null);
        assertEquals(200, r.statusCode());
        for (Route route : Route.values()) {
            assertTrue(r.body().contains("\"" + route.path() + "\""), route + " missing from " + r.body());
        }
    }
}
