package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.alpsbridge.metrics.MetricsDocs;
import org.alpsbridge.metrics.MetricsGuide;
import org.alpsbridge.slurm.harness.Programs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The hook agent's {@code /metrics} ({@code agent_metrics=HOST:PORT}): declared, in the operator's guide, and what
 * the spool and prolog alerts read. {@code -Dalpsbridge.docs.write=true} rewrites the table.
 */
class AgentMetricsTest {

    @TempDir
    Path dir;

    @Test
    void theGuidesTableIsTheDeclarations() throws Exception {
        MetricsGuide.assertTableIsTheDeclarations(MetricsGuide.OPERATOR_GUIDE, "hook-agent", AgentMetrics.declared());
    }

    @Test
    void aPrologIsCountedByItsOutcomeAndTheScrapeIsDeclared() throws Exception {
        int port = Programs.freePort();
        // no slurmctld to read the job's time limit from: the prolog fails (exit 4) and is counted so
        Files.write(dir.resolve("hook.conf"), List.of("db=http://127.0.0.1:1", "timeout=1", "prolog_retry_for=1",
                "log_file=none", "agent_socket=" + dir.resolve("agent.sock"), "spool=" + dir.resolve("spool"),
                "slurm_conf=" + dir.resolve("no-slurm.conf"), "agent_metrics=127.0.0.1:" + port));
        Map<String, String> env = Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", dir.resolve("hook.conf").toString(),
                "ALPSBRIDGE_LEDGER_AUTH", "none");
        try (HookAgent agent = HookAgent.start(env, new PrintStream(new ByteArrayOutputStream(), true))) {
            Map<String, String> job = Map.of("SLURM_JOB_ID", "7", "SLURM_JOB_ACCOUNT", "chem", "SLURM_JOB_UID", "1001",
                    "SLURM_JOB_USER", "alice", "SLURM_JOB_PARTITION", "debug", "SLURM_JOB_NUM_NODES", "1",
                    "SLURM_JOB_CPUS_PER_NODE", "2", "SLURM_CLUSTER_NAME", "lab");
            try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(agent.socket()))) {
                c.write(ByteBuffer.wrap(AgentCodec.frame(new AgentRequest(true, List.of(), job, null))));
                assertEquals(SlurmHook.NO_JOB, AgentCodec.reply(AgentCodec.readFrame(Channels.newInputStream(c))).exit());
            }
            String text = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertEquals(List.of(), MetricsDocs.undeclared(text, AgentMetrics.declared()), text);
            assertTrue(text.contains("\nalpsbridge_ledger_hook_agent_prologs_total{outcome=\"failed\"} 1\n"), text);
            assertTrue(text.contains("\nalpsbridge_ledger_hook_agent_prologs_total{outcome=\"ok\"} 0\n"), text);
            assertTrue(text.contains("\nalpsbridge_ledger_hook_agent_spool_pending 0\n"), text);
        }
    }

    @Test
    void everyDeclaredOutcomeIsAtZeroFromTheStartAndAnUndeclaredOneIsRefused() {
        AgentMetrics metrics = new AgentMetrics(() -> 0);
        String text = metrics.prometheus();
        for (org.alpsbridge.metrics.Metric family : List.of(AgentMetrics.PROLOGS, AgentMetrics.SETTLEMENTS,
                AgentMetrics.SUBMISSIONS)) {
            for (List<String> series : family.series()) {
                assertTrue(text.contains("\n" + family.name() + "{outcome=\"" + series.get(0) + "\"} 0\n"), text);
            }
        }
        assertEquals(List.of(), MetricsDocs.undeclared(text, AgentMetrics.declared()), text);
        // an epilog is never denied: a settlement counted so would be a series the guide does not list
        assertThrows(IllegalArgumentException.class, () -> metrics.count(AgentMetrics.SETTLEMENTS, SlurmHook.DENIED));
    }

    @Test
    void aPrologTheLedgerDidNotAnswerInTimeIsUnavailableTheTimeoutsAlertCounts() {
        assertEquals("unavailable", AgentMetrics.outcome(SlurmHook.UNAVAILABLE));
        assertEquals("denied", AgentMetrics.outcome(SlurmHook.DENIED));
        assertEquals("ok", AgentMetrics.outcome(SlurmHook.OK));
        assertEquals("failed", AgentMetrics.outcome(SlurmHook.NO_JOB));
    }

    @Test
    void aBadAddressIsRefusedNamingTheKey() throws Exception {
        Files.write(dir.resolve("hook.conf"), List.of("db=http://127.0.0.1:1", "agent_socket=" + dir.resolve("agent.sock"),
                "spool=" + dir.resolve("spool"), "agent_metrics=nowhere"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> HookAgent.start(
                Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", dir.resolve("hook.conf").toString()),
                new PrintStream(new ByteArrayOutputStream(), true)));
        assertTrue(e.getMessage().contains("agent_metrics=nowhere"), e.getMessage());
    }
}
