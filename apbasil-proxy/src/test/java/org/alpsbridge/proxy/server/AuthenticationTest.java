package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.alpsbridge.munge.Munge;
import org.alpsbridge.munge.MungeDaemon;
import org.alpsbridge.proxy.client.Apbasil;
import org.alpsbridge.proxy.client.ProxyConnection;
import org.alpsbridge.proxy.wire.Exchange;
import org.alpsbridge.proxy.wire.Reply;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The daemon with auth=munge against a real munged: every way a credential can be missing, wrong,
 * stale, reused or lifted onto another request, and authorisation by uid.
 */
class AuthenticationTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);
    private static final byte[] RELEASE = Fixtures.basil("release-1.3.xml");

    private static MungeDaemon munged;
    private ProxyDaemon daemon;
    private ProxyDaemonTest.Canned backend;
    private Munge munge;

    @BeforeAll
    static void startMunged() throws Exception {
        munged = MungeDaemon.start();
    }

    @AfterAll
    static void stopMunged() throws Exception {
        if (munged != null) {
            munged.close();
        }
    }

    @BeforeEach
    void startDaemon() throws Exception {
        System.setProperty("apbasil.auth", "munge");
        System.setProperty("apbasil.munge_socket", munged.socket().toString());
        munge = Munge.library(munged.socket());
        backend = new ProxyDaemonTest.Canned();
        daemon = daemon(Map.of());
    }

    private ProxyDaemon daemon(Map<String, String> settings) throws Exception {
        ProxyConfig config = ProxyConfig.defaults().with(Map.of("listen", "127.0.0.1:0", "auth", "munge",
                "munge_socket", munged.socket().toString(), "allow_reserve", "root," + uid(), "allow_admin",
                "root," + uid())).with(settings);
        return ProxyDaemon.builder().config(config).backend(backend).start();
    }

    @AfterEach
    void stopDaemon() {
        daemon.close();
        System.clearProperty("apbasil.auth");
        System.clearProperty("apbasil.munge_socket");
    }

    private Reply send(Exchange e) throws Exception {
        return ProxyConnection.roundTrip(daemon.address(), e, TIMEOUT, null, 1 << 20);
    }

    private static String text(Reply r) {
        return new String(r.payload(), StandardCharsets.UTF_8);
    }

    private static void assertFailure(Reply r, String errorClass, String reason) {
        String doc = text(r);
        assertTrue(r.isOk(), "a BASIL failure travels as an OK frame: " + r.status());
        assertTrue(doc.contains("status=\"FAILURE\""), doc);
        assertTrue(doc.contains("error_class=\"" + errorClass + "\""), doc);
        assertTrue(doc.contains(reason), doc);
        assertTrue(doc.contains("protocol=\"1.3\""), "answered in the caller's protocol: " + doc);
    }

    @Test
    void aProperlySignedRequestReachesTheBackendWithTheCallersUid() throws Exception {
        assertArrayEquals(ProxyDaemonTest.ENGINE, Apbasil.call(daemon.address().text(), RELEASE, TIMEOUT));
        assertEquals(uid(), backend.seen.get(0).caller().uid());
    }

    @Test
    void aRequestWithoutACredentialIsRefused() throws Exception {
        assertFailure(send(new Exchange(Exchange.Kind.BASIL, "id-1", "", RELEASE)), "PERMANENT",
                "carries no MUNGE credential");
        assertEquals(0, backend.calls.get());
    }

    @Test
    void aForgedCredentialIsRefused() throws Exception {
        assertFailure(send(new Exchange(Exchange.Kind.BASIL, "id-1", "MUNGE:AwQFAABInp+f7rpqVrm5WIoRLD7ihE:", RELEASE)),
                "PERMANENT", "authentication failed");
        assertEquals(0, backend.calls.get());
    }

    @Test
    void anExpiredCredentialIsRefusedAsTransient() throws Exception {
        Exchange e = new Exchange(Exchange.Kind.BASIL, "id-1", "", RELEASE);
        String cred = munge.encode(e.digest(), 1);
        Thread.sleep(2100);
        assertFailure(send(e.withCredential(cred)), "TRANSIENT", "xpired");
        assertEquals(0, backend.calls.get());
    }

    @Test
    void aReplayedCredentialIsRefused() throws Exception {
        Exchange e = new Exchange(Exchange.Kind.BASIL, "id-1", "", RELEASE);
        Exchange signed = e.withCredential(munge.encode(e.digest(), 0));
        assertArrayEquals(ProxyDaemonTest.ENGINE, send(signed).payload());
        assertFailure(send(signed), "PERMANENT", "eplayed");
        assertEquals(1, backend.calls.get());
    }

    @Test
    void aCredentialLiftedOntoAnotherRequestIsRefused() throws Exception {
        Exchange original = new Exchange(Exchange.Kind.BASIL, "id-1", "", Fixtures.basil("query-engine-1.0.xml"));
        String cred = munge.encode(original.digest(), 0);
        Exchange forged = new Exchange(Exchange.Kind.BASIL, "id-1", cred, RELEASE);
        assertFailure(send(forged), "PERMANENT", "was made for a different request");
        assertEquals(0, backend.calls.get());
    }

    @Test
    void aCallerNotInAllowReserveMayQueryButNotRelease() throws Exception {
        daemon.close();
        daemon = daemon(Map.of("allow_reserve", "4242", "allow_query", "*"));
        assertArrayEquals(ProxyDaemonTest.ENGINE,
                Apbasil.call(daemon.address().text(), Fixtures.basil("query-engine-1.0.xml"), TIMEOUT));
        byte[] answer = Apbasil.call(daemon.address().text(), RELEASE, TIMEOUT);
        Reply r = Reply.ok(answer);
        assertFailure(r, "PERMANENT", "may not send RELEASE (rule allow_reserve=4242)");
        assertEquals(1, backend.calls.get());
    }

    @Test
    void adminCommandsNeedAllowAdmin() throws Exception {
        daemon.close();
        daemon = ProxyDaemon.builder().config(ProxyConfig.defaults().with(Map.of("listen", "127.0.0.1:0",
                "munge_socket", munged.socket().toString(), "allow_admin", "4242")))
                .backend(backend).admin("stats", (args, caller) -> new byte[0]).start();
        Exception e = org.junit.jupiter.api.Assertions.assertThrows(Exception.class,
                () -> Apbasil.admin(daemon.address().text(), "stats", Map.of(), TIMEOUT));
        assertTrue(e.getMessage().contains("may not send admin command 'stats' (rule allow_admin=4242)"),
                e.getMessage());
    }

    static int uid() {
        try {
            Process p = new ProcessBuilder("id", "-u").start();
            return Integer.parseInt(new String(p.getInputStream().readAllBytes()).strip());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
