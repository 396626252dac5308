package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.time.Duration;
import java.util.Base64;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.alpsbridge.proxy.client.Apbasil;
import org.alpsbridge.proxy.client.ApbasilException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/** TLS on the TCP listener: tls_cert/tls_key on the daemon, tls_ca on the client. */
@ExtendWith(ClientAuthOff.class)
class TlsTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(20);

    @TempDir
    static Path keys;

    private static Path daemonCert;
    private static Path daemonKey;
    private static Path wrongHostCert;

    /** Self-signed certificates from the JDK's keytool, written as the PEM files the daemon reads. */
    @BeforeAll
    static void makeCertificates() throws Exception {
        writeCertificates(keys);
        daemonCert = keys.resolve("daemon.pem");
        daemonKey = keys.resolve("daemon.key");
        wrongHostCert = keys.resolve("elsewhere.pem");
    }

    /**
     * Writes daemon.pem/daemon.key (for 127.0.0.1 and localhost) and elsewhere.pem/elsewhere.key (for
     * elsewhere.example) into {@code into}; also used by the drop-in clients' conformance suite.
     */
    static void writeCertificates(Path into) throws Exception {
        pem(keytool(into, "daemon", "san=ip:127.0.0.1,dns:localhost"), into.resolve("daemon.pem"),
                into.resolve("daemon.key"));
        pem(keytool(into, "elsewhere", "san=dns:elsewhere.example"), into.resolve("elsewhere.pem"),
                into.resolve("elsewhere.key"));
    }

    private static Path keytool(Path keys, String alias, String san) throws Exception {
        Path store = keys.resolve(alias + ".p12");
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "keytool").toString(),
                "-genkeypair", "-keystore", store.toString(), "-storetype", "PKCS12", "-storepass", "changeit",
                "-alias", alias, "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "2",
                "-dname", "CN=" + alias, "-ext", san).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertTrue(p.waitFor(60, TimeUnit.SECONDS) && p.exitValue() == 0, "keytool: " + out);
        return store;
    }

    private static void pem(Path p12, Path cert, Path key) throws Exception {
        KeyStore ks = KeyStore.getInstance("PKCS12");
        try (InputStream in = Files.newInputStream(p12)) {
            ks.load(in, "changeit".toCharArray());
        }
        String alias = ks.aliases().nextElement();
        Base64.Encoder b64 = Base64.getMimeEncoder(64, "\n".getBytes());
        Files.writeString(cert, "-----BEGIN CERTIFICATE-----\n" + b64.encodeToString(ks.getCertificate(alias).getEncoded())
                + "\n-----END CERTIFICATE-----\n");
        Files.writeString(key, "-----BEGIN PRIVATE KEY-----\n"
                + b64.encodeToString(ks.getKey(alias, "changeit".toCharArray()).getEncoded()) + "\n-----END PRIVATE KEY-----\n");
    }

    private ProxyDaemon daemon;

    @AfterEach
    void stop() {
        System.clearProperty("apbasil.tls_ca");
        if (daemon != null) {
            daemon.close();
        }
    }

    private ProxyDaemon start(Path cert, Path key) throws Exception {
        ProxyConfig config = ProxyDaemonTest.lab("127.0.0.1:0").with(Map.of("tls_cert", cert.toString(),
                "tls_key", key.toString()));
        daemon = ProxyDaemon.builder().config(config).backend(new ProxyDaemonTest.Canned()).start();
        return daemon;
    }

    @Test
    void aClientTrustingTheDaemonsCertificateGetsItsAnswerOverTls() throws Exception {
        start(daemonCert, daemonKey);
        System.setProperty("apbasil.tls_ca", daemonCert.toString());
        assertArrayEquals(ProxyDaemonTest.ENGINE, Apbasil.call(daemon.address().text(), ProxyDaemonTest.QUERY_ENGINE, TIMEOUT));
    }

    @Test
    void aClientThatTrustsAnotherCaIsRefusedBeforeSendingAnything() throws Exception {
        start(daemonCert, daemonKey);
        System.setProperty("apbasil.tls_ca", wrongHostCert.toString());
        ApbasilException e = assertThrows(ApbasilException.class,
                () -> Apbasil.call(daemon.address().text(), ProxyDaemonTest.QUERY_ENGINE, TIMEOUT));
        assertTrue(!e.requestSent() && e.getMessage().contains("cannot connect"), e.getMessage());
    }

    @Test
    void aCertificateForAnotherHostIsRefused() throws Exception {
        start(wrongHostCert, keys.resolve("elsewhere.key"));
        System.setProperty("apbasil.tls_ca", wrongHostCert.toString());
        ApbasilException e = assertThrows(ApbasilException.class,
                () -> Apbasil.call(daemon.address().text(), ProxyDaemonTest.QUERY_ENGINE, TIMEOUT));
        assertTrue(!e.requestSent(), e.getMessage());
    }

    @Test
    void aPlainClientGetsNoAnswerFromATlsListener() throws Exception {
        ProxyDaemonTest.Canned backend = new ProxyDaemonTest.Canned();
        ProxyConfig config = ProxyDaemonTest.lab("127.0.0.1:0").with(Map.of("tls_cert", daemonCert.toString(),
                "tls_key", daemonKey.toString()));
        daemon = ProxyDaemon.builder().config(config).backend(backend).start();
        assertThrows(ApbasilException.class,
                () -> Apbasil.call(daemon.address().text(), ProxyDaemonTest.QUERY_ENGINE, Duration.ofSeconds(5)));
        assertEquals(0, backend.calls.get(), "nothing reached the backend");
    }
}
