package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.OutputStream;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.ResponseData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The drop-in client as the scheduler runs it: a separate JVM, the request on stdin, the answer on
 * stdout, apbasil's exit status, never a stack trace.
 */
@ExtendWith(ClientAuthOff.class)
class DropInClientTest {

    private record Run(int status, byte[] stdout, String stderr) {
    }

    private static Run apbasil(Map<String, String> env, byte[] request) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        ProcessBuilder pb = new ProcessBuilder(java.toString(), "-cp", System.getProperty("java.class.path"),
                "org.alpsbridge.proxy.client.Apbasil");
        pb.environment().keySet().removeIf(k -> k.startsWith("APBASIL_"));
        pb.environment().put("APBASIL_CONFIG", "/dev/null");
        pb.environment().putAll(env);
        Process p = pb.start();
        CompletableFuture<byte[]> err = CompletableFuture.supplyAsync(() -> {
            try {
                return p.getErrorStream().readAllBytes();
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        try (OutputStream in = p.getOutputStream()) {
            in.write(request);
        }
        byte[] out = p.getInputStream().readAllBytes();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "apbasil exits");
        return new Run(p.exitValue(), out, new String(err.get(), StandardCharsets.UTF_8));
    }

    @Test
    void printsTheDaemonsAnswerAndExitsZero() throws Exception {
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(ProxyDaemonTest.lab("127.0.0.1:0"))
                .backend(new ProxyDaemonTest.Canned()).start()) {
            Run r = apbasil(Map.of("APBASIL_PROXY", daemon.address().text(), "APBASIL_AUTH", "none"),
                    ProxyDaemonTest.QUERY_ENGINE);
            assertEquals(0, r.status(), r.stderr());
            assertArrayEquals(ProxyDaemonTest.ENGINE, r.stdout());
            assertEquals("", r.stderr());
        }
    }

    @Test
    void anUnreachableProxyGivesATransientFailureInTheRequestsProtocolOnStdoutAndNoStackTrace() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Run r = apbasil(Map.of("APBASIL_PROXY", "127.0.0.1:" + closedPort, "APBASIL_AUTH", "none",
                "APBASIL_RETRIES", "1"), Basil.release("1.3", 42));
        assertEquals(1, r.status());
        ResponseData d = Basil.data(r.stdout());
        String text = new String(r.stdout(), StandardCharsets.UTF_8);
        assertTrue(text.contains("protocol=\"1.3\""), text);
        assertFalse(d.isSuccess(), text);
        assertEquals(ErrorClass.TRANSIENT, d.errorClass(), text);
        assertTrue(text.contains("cannot connect to the apbasil proxy at 127.0.0.1:" + closedPort), text);
        assertTrue(r.stderr().startsWith("apbasil: cannot connect"), r.stderr());
        assertFalse(r.stderr().contains("\tat "), "no stack trace: " + r.stderr());
    }

    @Test
    void aBadSettingIsAFailureDocumentToo() throws Exception {
        Run r = apbasil(Map.of("APBASIL_AUTH", "kerberos"), Basil.engine("1.0"));
        assertEquals(1, r.status());
        String text = new String(r.stdout(), StandardCharsets.UTF_8);
        assertFalse(Basil.data(r.stdout()).isSuccess(), text);
        assertTrue(text.contains("auth=kerberos: expected munge or none"), text);
        assertFalse(r.stderr().contains("\tat "), "no stack trace: " + r.stderr());
    }

    @Test
    void aClientLeftOnMungeInFrontOfAnAuthNoneDaemonIsToldThatNotToStartMunged() throws Exception {
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(ProxyDaemonTest.lab("127.0.0.1:0"))
                .backend(new ProxyDaemonTest.Canned()).start()) {
            // No munged at this socket: the lab machine has none, as a new user's has not.
            Run r = apbasil(Map.of("APBASIL_PROXY", daemon.address().text(), "APBASIL_MUNGE_SOCKET",
                    "/nonexistent/munge.socket"), ProxyDaemonTest.QUERY_ENGINE);
            assertEquals(1, r.status());
            assertTrue(r.stderr().contains("APBASIL_AUTH is munge (the default) but the apbasil proxy at "
                    + daemon.address().text() + " runs with auth=none: set APBASIL_AUTH=none"), r.stderr());
            assertFalse(r.stderr().contains("is munged running?"), r.stderr());
        }
    }

    @Test
    void withNoMungedAndNoDaemonTheMungeErrorStands() throws Exception {
        int closedPort;
        try (ServerSocket s = new ServerSocket(0)) {
            closedPort = s.getLocalPort();
        }
        Run r = apbasil(Map.of("APBASIL_PROXY", "127.0.0.1:" + closedPort, "APBASIL_MUNGE_SOCKET",
                "/nonexistent/munge.socket"), ProxyDaemonTest.QUERY_ENGINE);
        assertEquals(1, r.status());
        assertTrue(r.stderr().contains("is munged running?"), r.stderr());
    }

    @Test
    void aTypoInTheSettingsFileIsRefusedWithFileLineAndTheKnownKeys(@TempDir Path dir) throws Exception {
        Path conf = dir.resolve("apbasil.conf");
        Files.writeString(conf, "# lab\nproxy = 127.0.0.1:1\nretires=3\n");
        Run r = apbasil(Map.of("APBASIL_CONFIG", conf.toString()), Basil.engine("1.0"));
        assertEquals(1, r.status());
        assertTrue(r.stderr().contains(conf + ":3: unknown key 'retires' (known keys: proxy, auth, munge, "
                + "munge_socket, timeout, retries, tls_ca)"), r.stderr());

        Files.writeString(conf, "auth=mung\n");
        r = apbasil(Map.of("APBASIL_CONFIG", conf.toString()), Basil.engine("1.0"));
        assertTrue(r.stderr().contains(conf + ":1: auth=mung: expected munge or none"), r.stderr());
        assertFalse(Basil.data(r.stdout()).isSuccess());
    }
}
