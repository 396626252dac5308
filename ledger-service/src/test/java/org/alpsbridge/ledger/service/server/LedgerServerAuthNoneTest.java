package org.alpsbridge.ledger.service.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.service.console.Console;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code auth=none}: for loopback labs only, where every caller is a superuser. No munged involved. */
class LedgerServerAuthNoneTest {

    @TempDir
    Path dir;

    static ServiceSettings none(String listen) {
        return ServiceSettings.defaults().with(ServiceSettings.Key.AUTH, "none").with(ServiceSettings.Key.LISTEN, listen);
    }

    /** The service as {@code ledger serve} assembles it: its console before the API. */
    static LedgerServer start(Ledger ledger, ServiceSettings settings) throws IOException {
        return LedgerServer.start(ledger, settings, "t", Console.of(settings));
    }

    @Test
    void isRefusedOnAnAddressOtherHostsCanReach() {
        try (Ledger ledger = Ledger.open("sqlite:" + dir.resolve("l.db"))) {
            IOException e = assertThrows(IOException.class, () -> start(ledger, none("0.0.0.0:0")));
            assertTrue(e.getMessage().contains("loopback"), e.getMessage());
        }
    }

    @Test
    void onLoopbackTakesEveryCallerWithoutACredentialForASuperuser() throws Exception {
        try (Ledger ledger = Ledger.open("sqlite:" + dir.resolve("l.db"));
             LedgerServer server = start(ledger, none("localhost:0"))) {
            HttpResponse<String> who = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://" + server.addresses().get(0) + "/v1/whoami")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, who.statusCode(), who.body());
            assertTrue(who.body().contains("\"role\":\"superuser\""), who.body());
        }
    }

    @Test
    void listensOnAUnixSocketToo() throws Exception {
        Path socket = dir.resolve("ledger.sock");
        try (Ledger ledger = Ledger.open("sqlite:" + dir.resolve("l.db"));
             LedgerServer server = start(ledger, none("unix:" + socket));
             SocketChannel ch = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            assertEquals(List.of("unix:" + socket), server.addresses());
            ch.write(ByteBuffer.wrap("GET /v1/whoami HTTP/1.1\r\nHost: ledger\r\nConnection: close\r\n\r\n"
                    .getBytes(StandardCharsets.US_ASCII)));
            String answer = new String(Channels.newInputStream(ch).readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(answer.startsWith("HTTP/1.1 200 OK"), answer);
            assertTrue(answer.contains("\"role\":\"superuser\""), answer);
        }
    }
}
