package org.alpsbridge.proxy.cli;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.alpsbridge.proxy.client.Apbasil;
import picocli.CommandLine.Option;

/** The options every operator command shares: where the daemon is and how long to wait (a picocli mixin). */
final class AdminConnection {

    @Option(names = "--connect", paramLabel = "HOST:PORT",
            description = "The daemon: host:port or unix:/path (default: $APBASIL_PROXY, else 127.0.0.1:6830).")
    String connect;

    @Option(names = "--timeout", defaultValue = "60", paramLabel = "SECONDS", description = "How long to wait (default ${DEFAULT-VALUE}).")
    long timeoutSeconds;

    /** Runs the named command on the daemon and returns its text output. */
    String run(String name, Map<String, String> args) throws IOException {
        String address = connect != null ? connect : System.getenv().getOrDefault("APBASIL_PROXY", "127.0.0.1:6830");
        try {
            return new String(Apbasil.admin(address, name, args, Duration.ofSeconds(timeoutSeconds)), StandardCharsets.UTF_8);
        } catch (IOException e) {
            if (e.getMessage() != null && e.getMessage().startsWith("cannot connect")) {
                throw new IOException(e.getMessage() + " (is the proxy running there, unit alpsbridge-proxy? The address"
                        + " comes from --connect, else env APBASIL_PROXY, else 127.0.0.1:6830)", e);
            }
            throw e;
        }
    }
}
