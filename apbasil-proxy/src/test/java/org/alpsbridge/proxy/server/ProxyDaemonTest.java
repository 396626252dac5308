package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.client.Apbasil;
import org.alpsbridge.proxy.client.ApbasilException;
import org.alpsbridge.address.ProxyAddress;
import org.alpsbridge.proxy.client.ProxyConnection;
import org.alpsbridge.proxy.wire.Exchange;
import org.alpsbridge.proxy.wire.Reply;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

@ExtendWith(ClientAuthOff.class)
class ProxyDaemonTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    static ProxyConfig lab(String listen) {
        return ProxyConfig.defaults().with(Map.of("listen", listen, "auth", "none"));
    }

    /** Answers every request with the ENGINE fixture and keeps what it was sent. */
    static final class Canned implements Backend {
        final AtomicInteger calls = new AtomicInteger();
        final java.util.List<Call> seen = java.util.Collections.synchronizedList(new java.util.ArrayList<>());

        @Override
        public byte[] call(Call call) {
            calls.incrementAndGet();
            seen.add(call);
            return ENGINE;
        }

        @Override
        public String describe() {
            return "canned";
        }
    }

    static final byte[] QUERY_ENGINE = Fixtures.basil("query-engine-1.0.xml");
    static final byte[] ENGINE = Fixtures.basil("engine-response-1.0.xml");

    @Test
    void answersOneRequestPerConnectionOverTcp() throws Exception {
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(lab("127.0.0.1:0")).backend(new Canned()).start()) {
            assertArrayEquals(ENGINE, Apbasil.call(daemon.address().text(), QUERY_ENGINE, TIMEOUT));
        }
    }

    @Test
    void answersOverAUnixSocketAndRemovesItOnClose(@TempDir Path dir) throws Exception {
        Path sock = dir.resolve("apbasil.sock");
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(lab("unix:" + sock)).backend(new Canned()).start()) {
            assertArrayEquals(ENGINE, Apbasil.call("unix:" + sock, QUERY_ENGINE, TIMEOUT));
        }
        assertFalse(sock.toFile().exists());
    }

    @Test
    void decoratorsApplyInOrderInnermostFirst() throws Exception {
        StringBuilder order = new StringBuilder();
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(lab("127.0.0.1:0")).backend(new Canned())
                .decorate(inner -> tagging(inner, "1", order))
                .decorate(inner -> tagging(inner, "2", order))
                .start()) {
            Apbasil.call(daemon.address().text(), QUERY_ENGINE, TIMEOUT);
            assertEquals("21", order.toString());
            assertEquals("2(1(canned))", daemon.backend().describe());
        }
    }

    private static Backend tagging(Backend inner, String tag, StringBuilder order) {
        return new Backend() {
            @Override
            public byte[] call(Call call) throws org.alpsbridge.proxy.backend.BackendException {
                order.append(tag);
                return inner.call(call);
            }

            @Override
            public String describe() {
                return tag + "(" + inner.describe() + ")";
            }
        };
    }

    @Test
    void adminCommandsReachTheirHandlerAndUnknownOnesAreNamed() throws Exception {
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(lab("127.0.0.1:0")).backend(new Canned())
                .admin("echo", (args, caller) -> args.toString().getBytes(StandardCharsets.UTF_8))
                .start()) {
            byte[] out = Apbasil.admin(daemon.address().text(), "echo", Map.of("k", "v"), TIMEOUT);
            assertEquals("{k=v}", new String(out, StandardCharsets.UTF_8));
            ApbasilException e = org.junit.jupiter.api.Assertions.assertThrows(ApbasilException.class,
                    () -> Apbasil.admin(daemon.address().text(), "nope", Map.of(), TIMEOUT));
            assertTrue(e.getMessage().contains("unknown admin command 'nope'"), e.getMessage());
        }
    }

    @Test
    void anOverLimitRequestIsRefusedWithTheReasonBeforeItIsRead() throws Exception {
        ProxyConfig config = lab("127.0.0.1:0").with(ProxyConfig.Key.MAX_REQUEST_BYTES, "1024");
        Canned mirror = new Canned();
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(config).backend(mirror).start()) {
            Exchange big = new Exchange(Exchange.Kind.BASIL, "id", "", new byte[4 * 1024 * 1024]);
            Reply reply = ProxyConnection.roundTrip(daemon.address(), big, TIMEOUT, null, 1 << 20);
            assertFalse(reply.isOk());
            assertTrue(reply.reason().contains("max_request_bytes"), reply.reason());
            assertEquals(0, mirror.calls.get());
        }
    }

    @Test
    void aRefusedConnectionIsReportedAsNotSentAndTransient() throws Exception {
        ProxyAddress nowhere;
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(lab("127.0.0.1:0")).backend(new Canned()).start()) {
            nowhere = daemon.address();
        }
        ApbasilException e = org.junit.jupiter.api.Assertions.assertThrows(ApbasilException.class,
                () -> Apbasil.call(nowhere.text(), new byte[] {1}, Duration.ofSeconds(2)));
        assertFalse(e.requestSent());
        assertTrue(e.isTransient());
        assertTrue(e.getMessage().contains("cannot connect"), e.getMessage());
    }

    @Test
    void theBackendSeesTheRequestByteForByteWithItsMethodProtocolAndExchangeId() throws Exception {
        Canned canned = new Canned();
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(lab("127.0.0.1:0")).backend(canned).start()) {
            Apbasil.call(daemon.address().text(), QUERY_ENGINE, TIMEOUT);
        }
        Call call = canned.seen.get(0);
        assertArrayEquals(QUERY_ENGINE, call.request());
        assertEquals("QUERY/ENGINE", call.methodKey());
        assertEquals("1.0", call.protocol());
        assertTrue(call.exchangeId().matches("[0-9a-f]+-[0-9a-f]+-[0-9a-f]+"), call.exchangeId());
    }

    @Test
    void aDocumentThatIsNotABasilRequestIsRefusedByTheProxyItselfWithoutReachingTheBackend() throws Exception {
        Canned canned = new Canned();
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(lab("127.0.0.1:0")).backend(canned).start()) {
            for (String document : new String[] {"<html/>",
                    "<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.3\" method=\"QUERY\" type=\"ENGINE\">\n<x>"}) {
                // Not a BASIL answer (which would read as ALPS's): a rejection, which the client reports as the proxy's.
                Reply reply = ProxyConnection.roundTrip(daemon.address(), new Exchange(Exchange.Kind.BASIL, "id-" + document.length(),
                        "", document.getBytes(StandardCharsets.UTF_8)), TIMEOUT, null, 1 << 20);
                assertEquals(Reply.Status.REJECTED, reply.status(), reply.reason());
                assertTrue(reply.reason().startsWith("unreadable request: ") || reply.reason().contains("root element is <html>"),
                        reply.reason());
                ApbasilException e = assertThrows(ApbasilException.class, () -> Apbasil.call(daemon.address().text(),
                        document.getBytes(StandardCharsets.UTF_8), TIMEOUT));
                assertTrue(e.getMessage().startsWith("the apbasil proxy at " + daemon.address().text()
                        + " refused the request: "), e.getMessage());
                assertFalse(e.isTransient());
            }
        }
        assertEquals(0, canned.calls.get());
    }

    @Test
    void aClientThatStopsReadingItsAnswerIsCutOffAfterTheReplyTimeout() throws Exception {
        byte[] huge = new byte[48 << 20]; // more than the loopback socket buffers hold
        CountDownLatch answered = new CountDownLatch(1);
        Backend backend = new Backend() {
            @Override
            public byte[] call(Call call) {
                answered.countDown();
                return huge;
            }

            @Override
            public String describe() {
                return "huge";
            }
        };
        ProxyConfig config = lab("127.0.0.1:0").with(ProxyConfig.Key.REPLY_TIMEOUT, "0.3");
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(config).backend(backend).start()) {
            InetSocketAddress at = (InetSocketAddress) daemon.address().socketAddress();
            try (Socket s = new Socket(at.getHostString(), at.getPort())) {
                byte[] body = new Exchange(Exchange.Kind.BASIL, "stalled", "", QUERY_ENGINE).encode();
                DataOutputStream out = new DataOutputStream(s.getOutputStream());
                out.writeInt(body.length);
                out.write(body);
                out.flush();
                assertTrue(answered.await(30, TimeUnit.SECONDS));
                Thread.sleep(1500); // the client reads nothing for five reply_timeouts
                DataInputStream in = new DataInputStream(s.getInputStream());
                byte[] reply = new byte[in.readInt()];
                assertThrows(IOException.class, () -> in.readFully(reply), "the daemon cut the stalled client off");
            }
        }
    }
}
