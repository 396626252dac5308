package org.alpsbridge.ledger.service.client;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.util.Base64;
import java.util.List;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.service.console.Console;
import org.alpsbridge.ledger.service.server.LedgerServer;
import org.alpsbridge.ledger.service.server.ServiceSettings;
import org.alpsbridge.ledger.service.server.ServiceSettings.Key;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** HTTPS: with tls_cert and tls_key the service speaks TLS on TCP, and the client trusts it by its CA. */
class HttpsTest {

    @TempDir
    static Path keys;
    static Path cert;
    static Path key;
    @TempDir
    Path dir;

    /** A self-signed certificate for 127.0.0.1 by the JDK's keytool; the key taken out of its PKCS#12 store. */
    @BeforeAll
    static void certificate() throws Exception {
        Path store = keys.resolve("service.p12");
        cert = keys.resolve("service.pem");
        key = keys.resolve("service.key");
        String keytool = Path.of(System.getProperty("java.home"), "bin", "keytool").toString();
        run(keytool, "-genkeypair", "-keystore", store.toString(), "-storetype", "PKCS12", "-storepass", "secret",
                "-alias", "ledger", "-keyalg", "EC", "-groupname", "secp256r1", "-validity", "1", "-dname", "CN=ledger",
                "-ext", "san=ip:127.0.0.1");
        run(keytool, "-exportcert", "-rfc", "-keystore", store.toString(), "-storepass", "secret", "-alias", "ledger",
                "-file", cert.toString());
        KeyStore ks = KeyStore.getInstance("PKCS12");
        ks.load(Files.newInputStream(store), "secret".toCharArray());
        byte[] pkcs8 = ks.getKey("ledger", "secret".toCharArray()).getEncoded();
        Files.writeString(key, "-----BEGIN PRIVATE KEY-----\n" + Base64.getMimeEncoder().encodeToString(pkcs8)
                + "\n-----END PRIVATE KEY-----\n");
    }

    static void run(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        assertEquals(0, p.waitFor(), String.join(" ", argv) + ": " + out);
    }

    @Test
    void aClientTrustingTheServicesCaReadsOverHttpsAndPlainHttpGetsNoAnswer() throws Exception {
        ServiceSettings s = ServiceSettings.defaults().with(Key.AUTH, "none").with(Key.LISTEN, "127.0.0.1:0")
                .with(Key.TLS_CERT, cert.toString()).with(Key.TLS_KEY, key.toString());
        try (Ledger ledger = Ledger.open("sqlite:" + dir.resolve("l.db"));
             LedgerServer server = LedgerServer.start(ledger, s, "t", Console.of(s))) {
            ledger.addProject("chem", 5001, null);
            String at = server.addresses().get(0);
            Ledger https = RemoteLedger.connect("https://" + at, null, false, cert);
            assertEquals(List.of("chem"), https.projects().stream().map(p -> p.name()).toList());
            Ledger plain = RemoteLedger.connect("http://" + at, null, false, null);
            LedgerException e = assertThrows(LedgerException.class, plain::projects);
            assertTrue(e.getMessage().contains("http://" + at), e.getMessage());
        }
    }

    @Test
    void underTlsTheConsolesSignInLinkIsHttpsAndItsCookieSecureAndBoundToTheHost() throws Exception {
        ServiceSettings s = ServiceSettings.defaults().with(Key.AUTH, "none").with(Key.LISTEN, "127.0.0.1:0")
                .with(Key.TLS_CERT, cert.toString()).with(Key.TLS_KEY, key.toString());
        try (Ledger ledger = Ledger.open("sqlite:" + dir.resolve("l.db"));
             LedgerServer server = LedgerServer.start(ledger, s, "t", Console.of(s))) {
            String base = "https://" + server.addresses().get(0);
            String link = RemoteLedger.connect(base, null, false, cert).webLogin().url();
            assertTrue(link.startsWith(base + "/sign-in?token="), link);
            java.net.http.HttpClient http = java.net.http.HttpClient.newBuilder().sslContext(Trust.of(cert)).build();
            java.net.http.HttpResponse<String> in = http.send(java.net.http.HttpRequest.newBuilder(
                    java.net.URI.create(base + "/sign-in")).header("Origin", base)
                    .header("Content-Type", "application/x-www-form-urlencoded")
                    .POST(java.net.http.HttpRequest.BodyPublishers.ofString("token="
                            + link.substring(link.indexOf('=') + 1))).build(),
                    java.net.http.HttpResponse.BodyHandlers.ofString());
            assertEquals(303, in.statusCode(), in.body());
            String cookie = in.headers().firstValue("Set-Cookie").orElseThrow();
            assertTrue(cookie.startsWith("__Host-alpsbridge-console=") && cookie.endsWith("; HttpOnly; SameSite=Strict;"
                    + " Secure") && cookie.contains("; Path=/;") && !cookie.contains("Domain"), cookie);
        }
    }

    @Test
    void aCertificateWithoutItsKeyIsRefusedAtStart() {
        ServiceSettings s = ServiceSettings.defaults().with(Key.AUTH, "none").with(Key.LISTEN, "127.0.0.1:0")
                .with(Key.TLS_CERT, cert.toString());
        try (Ledger ledger = Ledger.open("sqlite:" + dir.resolve("l.db"))) {
            IOException e = assertThrows(IOException.class, () -> LedgerServer.start(ledger, s, "t", Console.of(s)));
            assertTrue(e.getMessage().contains("give both or neither"), e.getMessage());
        }
    }
}
