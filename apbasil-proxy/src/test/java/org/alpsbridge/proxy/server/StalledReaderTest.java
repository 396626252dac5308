package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import org.alpsbridge.emulator.Emulator;
import org.alpsbridge.proxy.client.Apbasil;
import org.alpsbridge.proxy.policy.InventoryPolicy;
import org.alpsbridge.proxy.policy.PolicySettings;
import org.alpsbridge.proxy.stats.Stats;
import org.alpsbridge.proxy.wire.Exchange;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A client that stops reading an INVENTORY answered from the policy's cache on a large machine (xc30:2256, an answer
 * of about 11 MB: more than the sockets buffer) holds up nobody: with a single worker, the other clients' ENGINE,
 * RESERVE, RELEASE and INVENTORY are answered while it sits half-way, and it still gets its whole document when it
 * reads on.
 */
@ExtendWith(ClientAuthOff.class)
class StalledReaderTest {

    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final String MACHINE = "xc30:2256";

    @Test
    void othersAreAnsweredWhileAClientHoldsACachedInventoryHalfRead() throws Exception {
        Emulator alps = Emulator.create(MACHINE);
        InventoryPolicy policy = new InventoryPolicy(PolicySettings.DEFAULTS.withRefreshInterval(Duration.ofHours(1)),
                alps::userIds, new Stats());
        ProxyConfig config = ProxyConfig.defaults().with(Map.of("listen", "127.0.0.1:0", "auth", "none", "workers", "1"));
        try (ProxyDaemon daemon = ProxyDaemon.builder().config(config).backend(new EmulatorBackend(MACHINE, alps))
                .decorate(policy::decorate).start()) {
            String address = daemon.address().text();
            assertTrue(Basil.success(call(address, Basil.inventory("1.3"))), "the cache is full");
            long first = Basil.reservationId(call(address, Basil.reserve("1.3", "1", 32)));

            InetSocketAddress at = (InetSocketAddress) daemon.address().socketAddress();
            try (Socket stalled = new Socket()) {
                stalled.setReceiveBufferSize(16 * 1024);
                stalled.connect(new InetSocketAddress(at.getHostString(), at.getPort()));
                byte[] body = new Exchange(Exchange.Kind.BASIL, "stalled", "", Basil.inventory("1.3")).encode();
                DataOutputStream out = new DataOutputStream(stalled.getOutputStream());
                out.writeInt(body.length);
                out.write(body);
                out.flush();
                DataInputStream in = new DataInputStream(stalled.getInputStream());
                int length = in.readInt();
                byte[] reply = new byte[length];
                in.readFully(reply, 0, 16 * 1024);
                assertTrue(length > 8 * 1024 * 1024, "an answer larger than what the sockets buffer: " + length + " bytes");

                // Meanwhile, with the one worker and the policy free:
                assertTrue(Basil.success(call(address, Basil.engine("1.3"))), "ENGINE");
                assertTrue(Basil.success(call(address, Basil.release("1.3", first))), "RELEASE");
                long second = Basil.reservationId(call(address, Basil.reserve("1.3", "2", 32)));
                String now = new String(call(address, Basil.inventory("1.3")), StandardCharsets.US_ASCII);
                assertTrue(now.contains("reservation_id=\"" + second + "\"") && !now.contains("reservation_id=\"" + first + "\""),
                        "a cached INVENTORY answered meanwhile shows the changes made meanwhile");
                String alpsNow = withoutStamps(new String(alps.handle(Basil.inventory("1.3")), StandardCharsets.US_ASCII));
                assertTrue(alpsNow.equals(withoutStamps(now)), () -> "and is ALPS's answer (its times aside): "
                        + firstDifference(alpsNow, withoutStamps(now)));

                in.readFully(reply, 16 * 1024, length - 16 * 1024);
                String held = new String(reply, 5, length - 5, StandardCharsets.US_ASCII);
                assertTrue(held.startsWith("<?xml") && held.endsWith("</BasilResponse>\n"), "the stalled client's answer is whole");
                assertTrue(held.contains("reservation_id=\"" + first + "\"") && !held.contains("reservation_id=\"" + second + "\""),
                        "and shows the state it was asked in");
                assertEquals(-1, in.read(), "then the connection closes");
            }
        }
    }

    private static byte[] call(String address, byte[] request) throws Exception {
        return Apbasil.call(address, request, TIMEOUT);
    }

    /** Without the inventory's and the reservations' times: ALPS's clock and the test's cross seconds apart. */
    private static String withoutStamps(String inventory) {
        return inventory.replaceAll(" time_?stamp=\"\\d+\"", "");
    }

    private static String firstDifference(String a, String b) {
        int i = 0;
        while (i < Math.min(a.length(), b.length()) && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        int from = Math.max(0, i - 200);
        return "ALPS ..." + a.substring(from, Math.min(a.length(), i + 200)) + "\nserved ..."
                + b.substring(from, Math.min(b.length(), i + 200));
    }
}
