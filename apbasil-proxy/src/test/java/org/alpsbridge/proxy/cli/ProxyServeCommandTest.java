package org.alpsbridge.proxy.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.proxy.client.Apbasil;
import org.alpsbridge.proxy.server.ProxyDaemon;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class ProxyServeCommandTest {

    @TempDir
    Path dir;

    private ProxyServeCommand parse(String... args) {
        ProxyServeCommand cmd = new ProxyServeCommand();
        new CommandLine(cmd).parseArgs(args);
        return cmd;
    }

    @Test
    void flagsOverrideTheConfigFile() throws Exception {
        Path apbasil = dir.resolve("apbasil");
        Files.writeString(apbasil, "#!/bin/sh\nexit 1\n");
        apbasil.toFile().setExecutable(true);
        Path conf = dir.resolve("proxy.conf");
        Files.writeString(conf, "# lab proxy\nListen = 127.0.0.1:1\nbackend=exec:/nonexistent\nauth=none\n");
        Path sock = dir.resolve("p.sock");
        try (ProxyDaemon daemon = parse("--config", conf.toString(), "--listen", "unix:" + sock,
                "--backend", "exec:" + apbasil, "--set", "apbasil_timeout=5").start()) {
            assertEquals("unix:" + sock, daemon.address().text());
            assertEquals("exec:" + apbasil, daemon.backend().describe());
            System.setProperty("apbasil.auth", "none");
            try {
                Apbasil.admin(daemon.address().text(), "nothing", Map.of(), Duration.ofSeconds(5));
            } catch (java.io.IOException e) {
                assertTrue(e.getMessage().contains("unknown admin command"), e.getMessage());
            } finally {
                System.clearProperty("apbasil.auth");
            }
        }
    }

    @Test
    void aBackendThatCannotRunIsRefusedAtStartWithTheReason() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("--listen", "127.0.0.1:0", "--backend", "exec:/nonexistent/apbasil", "--auth", "none").start());
        assertTrue(e.getMessage().contains("/nonexistent/apbasil is not an executable file"), e.getMessage());
    }

    @Test
    void aMissingSettingsFileSaysSoAndWhereThePackagesOneIs() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("--config", "/etc/alpsbridge/prxy.conf").start());
        assertEquals("the proxy's settings file: cannot use /etc/alpsbridge/prxy.conf: no such file or directory; check the"
                + " path (a typo?) or create it (the package installs /etc/alpsbridge/proxy.conf; without --config every key"
                + " is at its default)", e.getMessage());
    }

    @Test
    void anUnwritableExchangeJournalNamesItsKey() throws Exception {
        Path notADirectory = Files.writeString(dir.resolve("file"), "");
        java.io.IOException e = assertThrows(java.io.IOException.class, () -> parse("--listen", "127.0.0.1:0",
                "--backend", "emulator:xc30:16", "--auth", "none", "--set",
                "exchange_journal=" + notADirectory.resolve("journal")).start());
        assertTrue(e.getMessage().startsWith("the exchange journal (exchange_journal=" + notADirectory.resolve("journal")
                + "): cannot use " + notADirectory.resolve("journal")), e.getMessage());
    }

    @Test
    void anUnknownBackendKindIsRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> parse("--listen", "127.0.0.1:0", "--backend", "ssh:sdb", "--auth", "none").start());
        assertTrue(e.getMessage().contains("expected exec:/path/to/apbasil, emulator:SPEC or proxy:ADDRESS"), e.getMessage());
    }

    @Test
    void aReserveTheLedgerRefusesIsTimedAndCountedByProxyStats() throws Exception {
        Path ledger = dir.resolve("ledger.db");
        try (ProxyDaemon daemon = parse("--listen", "127.0.0.1:0", "--backend", "emulator:xc30:16", "--auth", "none",
                "--ledger", "sqlite:" + ledger, "--ledger-time-limits", "none").start()) {
            System.setProperty("apbasil.auth", "none");
            try {
                byte[] reserve = BasilCodec.standard().write(BasilRequest.reserve("1.3", "alice", "42", "nobody",
                        List.of(ReserveParam.builder().width(16).nppn(16).build())));
                String answer = new String(Apbasil.call(daemon.address().text(), reserve, Duration.ofSeconds(30)),
                        StandardCharsets.US_ASCII);
                assertTrue(answer.contains("status=\"FAILURE\"") && answer.contains("no project or account 'nobody'"), answer);

                String stats = new String(Apbasil.admin(daemon.address().text(), "stats", Map.of("format", "json"),
                        Duration.ofSeconds(10)), StandardCharsets.UTF_8);
                assertTrue(stats.matches("(?s).*\"RESERVE\"\\s*:\\s*\\{[^}]*\"requests\"\\s*:\\s*1\\b.*"), stats);
            } finally {
                System.clearProperty("apbasil.auth");
            }
        }
    }
}
