package org.alpsbridge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A site admin's first day, as the packages leave it: fresh packages installed on this machine, the installed
 * quick start ({@code /usr/share/doc/alpsbridge/README.Debian}) followed as written, its lab walk-through's
 * shell blocks run in order from the installed file itself, and the mistakes a newcomer makes answered with
 * what is wrong and what to do. Root and dpkg, as {@link PackageInstallTest}; never touches an installed
 * alpsbridge, and leaves the machine as it found it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class QuickStartInstallTest {

    private static final Path TARGET = Path.of("target");
    private static final Path QUICK_START = Path.of("/usr/share/doc/alpsbridge/README.Debian");

    private final List<String> packages = new ArrayList<>();
    private boolean userExisted;
    private boolean installed;

    @BeforeAll
    void installTheFreshPackages() throws Exception {
        InstallHost.requireRootDpkgAndNoAlpsbridge();
        require(!Files.exists(Path.of("/var/lib/alpsbridge")), "/var/lib/alpsbridge exists: a real ledger may be there");
        userExisted = Shell.run("getent", "passwd", "alpsbridge").status() == 0;
        List<String> install = new ArrayList<>(List.of("dpkg", "-i"));
        // The walk-through's apbasil is the native client's package (the Java one is /usr/lib/alpsbridge/apbasil-jvm).
        for (String glob : List.of("alpsbridge_*_all.deb", "alpsbridge-apbasil_*_amd64.deb",
                "alpsbridge-ledger-hooks_*_amd64.deb")) {
            try (var found = Files.newDirectoryStream(TARGET, glob)) {
                for (Path deb : found) {
                    install.add(deb.toAbsolutePath().toString());
                }
            }
        }
        require(install.stream().anyMatch(deb -> deb.contains("alpsbridge-apbasil_")),
                "no alpsbridge-apbasil package in target/ (run mvn -DskipTests package first, on amd64 with libmunge-dev)");
        installed = true;
        Shell.run(install.toArray(String[]::new)).ok();
        packages.addAll(List.of("alpsbridge-ledger-hooks", "alpsbridge-apbasil", "alpsbridge"));
    }

    @Test
    @Order(1)
    void theShippedSettingsAndTheNewcomersMistakesAreAnsweredWithWhatToDo() throws Exception {
        // The shipped proxy settings on a host without Cray's apbasil: the key to set, not a call of itself.
        Shell.Result r = alpsbridge("proxy", "serve", "--config", "/etc/alpsbridge/proxy.conf");
        assertEquals(1, r.status(), r.err());
        assertTrue(r.err().contains("/opt/cray/alps/default/bin/apbasil is not an executable file (no such file);"
                + " set backend= in the proxy's settings (/etc/alpsbridge/proxy.conf)"), r.err());
        // A proxy pointed at itself: its own client, by path and through a link.
        Path dir = Files.createTempDirectory("alpsbridge-quick-start");
        try {
            Path link = Files.createSymbolicLink(dir.resolve("apbasil"), Path.of("/usr/bin/apbasil"));
            for (String client : List.of("/usr/bin/apbasil", link.toString())) {
                r = alpsbridge("proxy", "serve", "--config", "/etc/alpsbridge/proxy.conf", "--auth", "none",
                        "--backend", "exec:" + client);
                assertEquals(1, r.status(), r.err());
                assertTrue(r.err().contains("proxy serve: backend exec:" + client + " is refused: it is"), r.err());
                assertTrue(r.err().contains("this proxy would call itself"), r.err());
            }
            // A bad path: the exchange journal under a file.
            r = alpsbridge("proxy", "serve", "--backend", "emulator:xc30:16", "--auth", "none", "--listen",
                    "127.0.0.1:0", "--set", "exchange_journal=/etc/alpsbridge/proxy.conf/journal");
            assertEquals(1, r.status(), r.err());
            assertTrue(r.err().contains("proxy serve: the exchange journal (exchange_journal=/etc/alpsbridge/proxy.conf/"
                    + "journal): cannot use /etc/alpsbridge/proxy.conf/journal"), r.err());
        } finally {
            Shell.run("rm", "-rf", dir.toString()).ok();
        }
        // Missing files: what is missing and where the package's file is.
        r = alpsbridge("proxy", "serve", "--config", "/etc/alpsbridge/prxy.conf");
        assertEquals("proxy serve: the proxy's settings file: cannot use /etc/alpsbridge/prxy.conf: no such file or"
                + " directory; check the path (a typo?) or create it (the package installs /etc/alpsbridge/proxy.conf;"
                + " without --config every key is at its default)\n", r.err());
        r = alpsbridge("ledger", "serve", "--config", "/etc/alpsbridge/ledger-srvice.conf");
        assertTrue(r.err().startsWith("ledger serve: the ledger service's settings file: cannot use"
                + " /etc/alpsbridge/ledger-srvice.conf: no such file or directory"), r.err());
        // The ledger commands with the shipped ledger.conf: no ledger is an error naming the three ways.
        r = alpsbridge("ledger", "balance");
        assertEquals(1, r.status(), r.err());
        assertEquals("ledger balance: no ledger given: give --db URL, set env ALPSBRIDGE_LEDGER=URL, or set db=URL in"
                + " /etc/alpsbridge/ledger.conf (URL: sqlite:PATH, jdbc:postgresql://HOST:PORT/DB?user=U&password=P, or"
                + " http(s)://HOST:PORT for a ledger service)\n", r.err());
        assertTrue(Shell.run("find", "/root/.local/share/alpsbridge", "-name", "ledger.db").out().isEmpty(),
                "no private ledger made");
        r = alpsbridge("ledger", "--db", "/var/lib/alpsbridge/ledger.db", "balance");
        assertTrue(r.err().startsWith("ledger balance: --db /var/lib/alpsbridge/ledger.db: not a ledger URL; did you"
                + " mean sqlite:/var/lib/alpsbridge/ledger.db?"), r.err());
        // The hooks' agent with the shipped ledger-hook.conf names the key of the file it reads.
        r = alpsbridge("ledger", "hook-agent", "--config", "/etc/alpsbridge/ledger-hook.conf");
        assertTrue(r.err().contains("no ledger service: set db=http://HOST:PORT in /etc/alpsbridge/ledger-hook.conf"),
                r.err());
        // Unreachable services: refused, in words, and which setting names the address.
        r = alpsbridge(Map.of("ALPSBRIDGE_LEDGER_AUTH", "none"), "ledger", "--db", "http://127.0.0.1:1", "balance");
        assertTrue(r.err().startsWith("ledger balance: ledger service http://127.0.0.1:1 cannot be reached: connection"
                + " refused"), r.err());
        assertTrue(r.err().contains("its address comes from --db, env ALPSBRIDGE_LEDGER or db="), r.err());
        r = alpsbridge(Map.of("APBASIL_AUTH", "none", "APBASIL_PROXY", "127.0.0.1:1"), "proxy", "stats");
        assertTrue(r.err().startsWith("proxy stats: cannot connect to the apbasil proxy at 127.0.0.1:1"), r.err());
        assertTrue(r.err().contains("is the proxy running there"), r.err());
    }

    /** The pages written by hand (the launcher's are generated from its commands) name only options the programs take. */
    @Test
    @Order(2)
    void theHandWrittenManualPagesAgreeWithThePrograms() throws Exception {
        Map<String, List<String>> pages = Map.of("raa-exec", List.of("/usr/bin/raa-exec", "--help"),
                "ledger-prolog", List.of("/usr/lib/alpsbridge/ledger-hook-jvm", "prolog", "--help"));
        for (Map.Entry<String, List<String>> page : pages.entrySet()) {
            String troff = Shell.run("bash", "-c", "zcat /usr/share/man/man1/" + page.getKey() + ".1.gz").ok().out();
            String help = Shell.run(page.getValue().toArray(String[]::new)).ok().out();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("\\\\fB((?:\\\\-|[a-z0-9])+)").matcher(troff);
            int options = 0;
            while (m.find()) {
                String option = m.group(1).replace("\\-", "-");
                if (option.startsWith("--") && option.length() > 2) {
                    options++;
                    assertTrue(help.contains(option), option + " of man " + page.getKey() + " is not in its --help:\n" + help);
                }
            }
            assertTrue(options > 2, "options found on the page of " + page.getKey() + ": " + options);
        }
    }

    @Test
    @Order(3)
    void theLabWalkThroughOfTheInstalledQuickStartWorksAsWritten() throws Exception {
        String script = shellBlocks(Files.readString(QUICK_START, StandardCharsets.UTF_8));
        assertTrue(script.contains("alpsbridge proxy serve"), script);
        Path log = TARGET.resolve("quick-start.log");
        // The document's daemons run in the background of its shell; a step that fails must not leave them
        // listening (a later run would talk to a daemon of a purged installation).
        Shell.Result r = Shell.run(Map.of(), Path.of("/"), null, "bash", "-euo", "pipefail", "-c",
                "trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + script);
        Files.writeString(log, "$ " + script + "\n--- stdout\n" + r.out() + "\n--- stderr\n" + r.err());
        assertEquals(0, r.status(), "the walk-through failed (" + log + "):\n" + r.out() + r.err()
                + readIfThere("/tmp/alpsbridge-proxy.log") + readIfThere("/tmp/alpsbridge-ledger.log"));
        assertTrue(r.out().contains("status=\"SUCCESS\"") && r.out().contains("<Engine"), r.out());
        assertTrue(r.out().contains("\n16\n"), "the emulated XC30's 16 nodes in the inventory: " + r.out());
        assertTrue(r.out().contains("reservation_id="), "a RESERVE through the proxy and its ledger: " + r.out());
        assertTrue(r.out().matches("(?s).*\"granted\":6000,.*"), "100 hours over HTTP: " + r.out());
        assertTrue(r.out().contains("0-1"), "task masks: " + r.out());
    }

    @Test
    @Order(4)
    void purgeSaysWhatItKeeps() throws Exception {
        Shell.run("dpkg", "--purge", "alpsbridge-ledger-hooks", "alpsbridge-apbasil").ok();
        Shell.Result r = Shell.run("dpkg", "--purge", "alpsbridge").ok();
        installed = false;
        assertTrue(r.err().contains("kept /var/lib/alpsbridge"), r.err());
        assertTrue(r.err().contains("kept the system user alpsbridge"), r.err());
    }

    @AfterAll
    void leaveTheMachineAsItWas() throws Exception {
        if (!installed && packages.isEmpty()) {
            return;
        }
        if (installed) {
            Shell.run("dpkg", "--purge", "alpsbridge-ledger-hooks", "alpsbridge-apbasil", "alpsbridge");
        }
        Shell.run("rm", "-rf", "/var/lib/alpsbridge", "/tmp/alpsbridge-proxy.log", "/tmp/alpsbridge-ledger.log",
                "/tmp/alpsbridge-reserve.xml");
        if (!userExisted) {
            Shell.run("deluser", "--system", "--quiet", "alpsbridge");
            Shell.run("delgroup", "--system", "--quiet", "alpsbridge");
        }
    }

    /** The document's ```sh blocks, in order, as one script (the lab's shell carries its variables across them). */
    static String shellBlocks(String document) {
        StringBuilder script = new StringBuilder();
        boolean inside = false;
        for (String line : document.split("\n", -1)) {
            if (!inside && line.strip().equals("```sh")) {
                inside = true;
            } else if (inside && line.strip().equals("```")) {
                inside = false;
            } else if (inside) {
                script.append(line).append('\n');
            }
        }
        assertTrue(!inside, "an unclosed ```sh block");
        return script.toString();
    }

    private static String readIfThere(String file) throws IOException {
        Path p = Path.of(file);
        return Files.exists(p) ? "\n--- " + file + "\n" + Files.readString(p) : "";
    }

    private static void require(boolean condition, String reason) {
        InstallHost.require(condition, reason);
    }

    private static Shell.Result alpsbridge(String... args) throws Exception {
        return alpsbridge(Map.of(), args);
    }

    private static Shell.Result alpsbridge(Map<String, String> env, String... args) throws Exception {
        Map<String, String> all = new LinkedHashMap<>(Map.of("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
                "LANG", "C.UTF-8"));
        all.putAll(env);
        List<String> argv = new ArrayList<>(List.of("/usr/bin/alpsbridge"));
        argv.addAll(List.of(args));
        return Shell.run(all, Path.of("/"), null, argv.toArray(String[]::new));
    }
}
