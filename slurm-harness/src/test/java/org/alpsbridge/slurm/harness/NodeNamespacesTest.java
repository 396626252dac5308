package org.alpsbridge.slurm.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * Nodes as hosts of their own: each namespace holds its node's address, a program it launches reaches slurmctld's
 * address on the host, and nothing of it is left after close.
 */
class NodeNamespacesTest {

    @Test
    void eachNodeHasItsAddressReachesTheControllerAndIsGoneAfterClose() throws Exception {
        String controller;
        try (NodeNamespaces n = NodeNamespaces.create(2);
             ServerSocket ctld = new ServerSocket(0, 4, InetAddress.getByName(n.controllerAddress()))) {
            controller = n.controllerAddress();
            assertEquals(List.of("n1", "n2"), n.nodes());
            assertTrue(ipv4().contains(controller + "/24"), "the bridge holds slurmctld's address");
            for (String node : n.nodes()) {
                CompletableFuture<String> heard = CompletableFuture.supplyAsync(() -> {
                    try (Socket s = ctld.accept()) {
                        return new String(s.getInputStream().readAllBytes()).strip();
                    } catch (java.io.IOException e) {
                        throw new java.io.UncheckedIOException(e);
                    }
                });
                List<String> argv = new ArrayList<>(n.launcher(node));
                argv.addAll(List.of("bash", "-c", "ip -4 -o addr show dev eth0; echo " + node + " > /dev/tcp/"
                        + controller + "/" + ctld.getLocalPort()));
                Programs.Result r = Programs.run(argv, Map.of(), Duration.ofSeconds(20));
                assertEquals(0, r.exit(), r.err());
                assertTrue(r.out().contains(" " + n.address(node) + "/24 "), "its own address inside: " + r.out());
                assertEquals(node, heard.get(20, TimeUnit.SECONDS), "slurmctld's address reached from " + node);
            }
        }
        assertFalse(ipv4().contains(controller + "/"), "the bridge is gone");
    }

    @Test
    void slurmConfGetsOneNodeSizePerNamespace() throws Exception {
        try (NodeNamespaces n = NodeNamespaces.create(2)) {
            SlurmCluster.Spec spec = new SlurmCluster.Spec(SlurmInstallation.selected(), Path.of("/nonexistent"));
            assertThrows(IllegalArgumentException.class, () -> n.addTo(spec, 4));
            assertEquals(List.of("n1", "n2"), n.addTo(spec, 4, 4));
        }
    }

    private static String ipv4() throws Exception {
        return Programs.run(List.of(Programs.find("ip").toString(), "-4", "-o", "addr", "show"), Map.of(),
                Duration.ofSeconds(20)).out();
    }
}
