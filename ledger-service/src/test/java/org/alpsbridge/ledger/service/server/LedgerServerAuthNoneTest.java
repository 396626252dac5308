package org.alpsbridge.ledger.service.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import org.alpsbridge.ledger.Ledger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code auth=none}: for loopback labs only, where every caller is a superuser. No munged involved. */
class LedgerServerAuthNoneTest {

    @TempDir
    Path dir;

    static ServiceSettings none(String listen) {
        return ServiceSettings.defaults().with(ServiceSettings.Key.AUTH, "none").with(ServiceSettings.Key.LISTEN, listen);
    }

    @Test
    void isRefusedOnAnAddressOtherHostsCanReach() {
        try (Ledger ledger = Ledger.open("sqlite:" + dir.resolve("l.db"))) {
            IOException e = assertThrows(IOException.class, () -> LedgerServer.start(ledger, none("0.0.0.0:0"), "t"));
            assertTrue(e.getMessage().contains("loopback"), e.getMessage());
        }
    }

    @Test
    void onLoopbackTakesEveryCallerWithoutACredentialForASuperuser() throws Exception {
        try (Ledger ledger = Ledger.open("sqlite:" + dir.resolve("l.db"));
             LedgerServer server = LedgerServer.start(ledger, none("localhost:0"), "t")) {
            HttpResponse<String> who = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://" + server.addresses().get(0) + "/v1/whoami")).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, who.statusCode(), who.body());
            assertTrue(who.body().contains("\"role\":\"superuser\""), who.body());
        }
    }
}
