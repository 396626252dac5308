package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.Released;
import org.alpsbridge.basil.model.Reserved;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.backend.Call;
import org.alpsbridge.proxy.backend.Caller;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A daemon whose backend is another daemon ({@code proxy:ADDRESS}) in front of the in-process emulator with the
 * drop-in's claims model ({@code emulator_paggs=host}): a job container's RELEASE while it lives is answered claims 1.
 */
@ExtendWith(ClientAuthOff.class)
class ChainedBackendsTest {

    private static final BasilCodec CODEC = BasilCodec.standard();

    @Test
    void aDaemonAsksAnotherAndTheInProcessEmulatorCountsALivingSessionAsAClaim() throws Exception {
        ProxyConfig alpsConfig = ProxyDaemonTest.lab("127.0.0.1:0").with(Map.of("emulator_paggs", "host"));
        try (ProxyDaemon alps = ProxyDaemon.builder().config(alpsConfig).backend(Backends.of("emulator:xc30:4", alpsConfig)).start()) {
            Backend front = Backends.of("proxy:" + alps.address().text(), ProxyDaemonTest.lab("127.0.0.1:0"));
            Process leader = new ProcessBuilder("setsid", "sleep", "300").start();
            try {
                long living = sessionOf(leader);
                long released = reserveConfirmRelease(front, 0, living);
                assertEquals(1L, released, "session " + living + " still runs: the reservation stays, claimed");
                assertEquals(0L, reserveConfirmRelease(front, 1, 999_999_999L), "no process has that session: gone at once");
            } finally {
                leader.destroyForcibly().waitFor();
            }
        }
    }

    @Test
    void withEmulatorUsersHostTheEmulatorWritesTheIdsTheProxysNameServiceLooksUp() throws Exception {
        ProxyConfig alpsConfig = ProxyDaemonTest.lab("127.0.0.1:0").with(Map.of("emulator_users", "host"));
        try (ProxyDaemon alps = ProxyDaemon.builder().config(alpsConfig).backend(Backends.of("emulator:xc30:4", alpsConfig)).start()) {
            Backend front = Backends.of("proxy:" + alps.address().text(), ProxyDaemonTest.lab("127.0.0.1:0"));
            BasilRequest reserve = BasilRequest.reserve("1.3", "root", "7", null, List.of(ReserveParam.builder().width(1L).build()));
            assertTrue(CODEC.readResponse(front.call(call(reserve))).responseData().isSuccess());
            String inventory = new String(front.call(call(BasilRequest.query("1.3", "INVENTORY"))), StandardCharsets.UTF_8);
            long[] looked = org.alpsbridge.proxy.policy.UserIds.nameService().lookup("root");
            assertTrue(inventory.contains("user_id=\"" + looked[0] + "\" group_id=\"" + looked[1] + "\""),
                    "root's reservation carries what the name service gives the proxy: " + inventory);
        }
        assertThrows(IllegalArgumentException.class, () -> ProxyConfig.defaults().with(Map.of("emulator_users", "ldap")));
    }

    @Test
    void aProxyBackendWithoutAnAddressIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Backends.of("proxy:", ProxyConfig.defaults()));
        assertThrows(IllegalArgumentException.class, () -> ProxyConfig.defaults().with(Map.of("emulator_paggs", "all")));
        assertThrows(IllegalArgumentException.class,
                () -> ProxyConfig.defaults().with(Map.of("emulator_latency_profile", "cray-1")));
    }

    private static long reserveConfirmRelease(Backend b, long nid, long pagg) throws Exception {
        BasilRequest reserve = BasilRequest.reserve("1.3", "alice", "10" + nid, null, List.of(ReserveParam.builder()
                .architecture("XT").width(32L).nppn(32).nodes(Long.toString(nid)).build()));
        long id = CODEC.readResponse(b.call(call(reserve))).responseData().content(Reserved.class).orElseThrow().reservationId();
        b.call(call(BasilRequest.confirm("1.3", id, pagg)));
        var answer = CODEC.readResponse(b.call(call(BasilRequest.release("1.3", id)))).responseData();
        assertTrue(answer.isSuccess(), answer.messageText());
        return answer.content(Released.class).orElseThrow().claims();
    }

    private static Call call(BasilRequest r) throws Exception {
        return new Call(CODEC.write(r), r.protocol(), r.methodText(), r.type(), Caller.UNAUTHENTICATED, null);
    }

    /**
     * The session a {@code setsid} child leads, once it leads it. The test makes its own session because the JVM's
     * may be invisible: under a container's PID namespace a leader outside it reads as session 0.
     */
    private static long sessionOf(Process leader) throws Exception {
        Path stat = Path.of("/proc", Long.toString(leader.pid()), "stat");
        for (int i = 0; i < 500; i++) {
            String s = Files.readString(stat);
            long session = Long.parseLong(s.substring(s.lastIndexOf(')') + 2).split(" ")[3]);
            if (session == leader.pid()) {
                return session;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("setsid did not make process " + leader.pid() + " a session leader");
    }
}
