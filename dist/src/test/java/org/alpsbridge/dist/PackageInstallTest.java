package org.alpsbridge.dist;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.alpsbridge.munge.MungeDaemon;
import org.alpsbridge.slurm.harness.Programs;
import org.alpsbridge.slurm.harness.SlurmCluster;
import org.alpsbridge.slurm.harness.SlurmInstallation;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The packages this build made, installed on this machine as a site would: {@code dpkg -i} of a previous
 * version, the site's edits, the upgrade to this one, the programs used as installed, then {@code dpkg
 * --purge}. Needs root and dpkg (CI runs as root); skipped with the reason otherwise, failed instead under
 * {@code ALPSBRIDGE_REQUIRE_SERVICES=1}. Never touches an alpsbridge the machine already has installed,
 * and leaves nothing behind but what Debian policy keeps (see {@link #purgeRemovesAllButTheLedgersRecordsAndTheUser}).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class PackageInstallTest {

    private static final Path TARGET = Path.of("target");
    private static final int PROXY_PORT = 19811;
    private static final int LEDGER_PORT = 19812;
    private static final String FROM = Instant.now().truncatedTo(ChronoUnit.DAYS).minus(1, ChronoUnit.DAYS).toString();
    private static final String TO = Instant.now().truncatedTo(ChronoUnit.DAYS).plus(30, ChronoUnit.DAYS).toString();
    /** The service environment systemd gives a unit: nothing of the caller's. */
    private static final Map<String, String> UNIT_ENV = Map.of("PATH", "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin",
            "LANG", "C.UTF-8");

    private Path deb;
    private Path hooksDeb;
    private Path apbasilDeb;
    private Path spankDeb;
    private Path pluginsDeb;
    private boolean userExisted;
    private boolean installed;
    private String balanceBeforeUpgrade;

    @BeforeAll
    void installThePreviousVersionEditItAndUpgrade() throws Exception {
        InstallHost.requireRootDpkgAndNoAlpsbridge();
        deb = only("alpsbridge_*_all.deb");
        // dist's pom builds the hooks' C client on every amd64 Linux build (profile ledger-hooks)
        hooksDeb = System.getProperty("os.name").equals("Linux") && System.getProperty("os.arch").equals("amd64")
                ? only("alpsbridge-ledger-hooks_*_amd64.deb") : null;
        // and the native apbasil client (profile native-apbasil)
        apbasilDeb = hooksDeb == null ? null : only("alpsbridge-apbasil_*_amd64.deb");
        spankDeb = Files.exists(Path.of("/usr/include/slurm/spank.h")) ? only("alpsbridge-spank_*_amd64.deb") : null;
        // where Debian's slurmctld is installed (profile slurmctld-plugins)
        pluginsDeb = Files.exists(Path.of("/usr/sbin/slurmctld")) ? only("alpsbridge-slurmctld-plugins_*_amd64.deb") : null;
        userExisted = Shell.run("getent", "passwd", "alpsbridge").status() == 0;

        Path old = previousVersion(deb, "0.0.9");
        installed = true;
        Shell.run("dpkg", "-i", old.toString()).ok();
        // The site's edits: a shared ledger, a proxy in front of an emulated machine, clients that find it.
        append("/etc/alpsbridge/ledger.conf", "db=sqlite:/var/lib/alpsbridge/ledger.db\n");
        append("/etc/alpsbridge/proxy.conf", "backend=emulator:xc30:16\nlisten=127.0.0.1:" + PROXY_PORT + "\nauth=none\n");
        append("/etc/alpsbridge/apbasil.conf", "proxy=127.0.0.1:" + PROXY_PORT + "\nauth=none\n");
        alpsbridge("ledger", "project", "add", "chem", "--gid", "0", "--account", "chem_acct").ok();
        alpsbridge("ledger", "grant", "chem", "--resource", "cpu", "--hours", "100", "--from", FROM, "--to", TO).ok();
        balanceBeforeUpgrade = alpsbridge("ledger", "balance", "chem", "--json").ok().out();
        assertTrue(balanceBeforeUpgrade.contains("\"granted\":6000"), balanceBeforeUpgrade);

        // As `apt install ./alpsbridge_*_all.deb ./alpsbridge-ledger-hooks_*_amd64.deb ...` may order it: the hooks'
        // C client first, taking over /usr/bin/ledger-prolog and ledger-epilog from the earlier alpsbridge (Replaces);
        // the native apbasil after alpsbridge, since it Breaks the alpsbridge that had /usr/bin/apbasil (apt unpacks
        // the upgrade of alpsbridge first for it).
        List<String> upgrade = new ArrayList<>(List.of("dpkg", "-i"));
        if (hooksDeb != null) {
            upgrade.add(hooksDeb.toString());
        }
        upgrade.add(deb.toString());
        if (apbasilDeb != null) {
            upgrade.add(apbasilDeb.toString());
        }
        if (pluginsDeb != null) {
            upgrade.add(pluginsDeb.toString()); // new: it depends on this alpsbridge and the installed slurmctld
        }
        Shell.run(upgrade.toArray(String[]::new)).ok();
    }

    @Test
    @Order(1)
    void theUpgradeKeptTheSitesEditedSettingsAndItsLedger() throws Exception {
        assertTrue(Files.readString(Path.of("/etc/alpsbridge/ledger.conf")).contains("db=sqlite:/var/lib/alpsbridge/ledger.db"));
        assertTrue(Files.readString(Path.of("/etc/alpsbridge/proxy.conf")).contains("backend=emulator:xc30:16"));
        assertEquals(balanceBeforeUpgrade, alpsbridge("ledger", "balance", "chem", "--json").ok().out());
        assertTrue(Shell.run("dpkg-query", "-W", "-f=${Version}", "alpsbridge").out().contains("SNAPSHOT")
                || !Shell.run("dpkg-query", "-W", "-f=${Version}", "alpsbridge").out().equals("0.0.9"));
    }

    @Test
    @Order(2)
    void versionNamesTheVersionAndTheCommit() throws Exception {
        String out = Shell.run(UNIT_ENV, null, null, "/usr/bin/alpsbridge", "--version").ok().out();
        assertTrue(out.matches("alpsbridge \\d+\\.\\d+\\.\\d+(-SNAPSHOT)? \\(commit \\S+\\)\\R"), out);
    }

    @Test
    @Order(2)
    void theAlertRulesTheDashboardAndTheOperatorsGuideAreInstalledAsShipped() throws Exception {
        for (String[] shipped : new String[][] {
                {"/usr/share/alpsbridge/prometheus/alpsbridge-rules.yml", "src/prometheus/alpsbridge-rules.yml"},
                {"/usr/share/alpsbridge/prometheus/alpsbridge-dashboard.json", "src/prometheus/alpsbridge-dashboard.json"},
                {"/usr/share/doc/alpsbridge/operator-guide.md", "../docs/operator-guide.md"}}) {
            assertEquals(Files.readString(Path.of(shipped[1])), Files.readString(Path.of(shipped[0])), shipped[0]);
        }
    }

    @Test
    @Order(3)
    void theClassArchivesWereWrittenAtInstallOutsideTheReadOnlyJarDirectory() throws Exception {
        Path jar = Path.of("/usr/share/alpsbridge/alpsbridge.jar");
        for (String archive : List.of("/var/cache/alpsbridge/apbasil.jsa", "/var/cache/alpsbridge/ledger-hook.jsa",
                "/var/cache/alpsbridge/raa-exec/raa-exec.jsa",
                "/var/cache/alpsbridge/raa-exec/libjnidispatch.so")) {
            Path p = Path.of(archive);
            assertTrue(Files.isRegularFile(p), archive);
            assertTrue(Files.getLastModifiedTime(p).compareTo(Files.getLastModifiedTime(jar)) > 0, archive + " newer than the jar");
        }
        // The Slurm hooks run from /usr/bin by the name they are called with (the C client runs the JVM hook for
        // --help), and the JVM hook by its own name with the hook first, with their archive.
        List<List<String>> hooks = new ArrayList<>(List.of(List.of("/usr/lib/alpsbridge/ledger-hook-jvm", "prolog", "--help")));
        if (hooksDeb != null) {
            hooks.add(List.of("/usr/bin/ledger-prolog", "--help"));
            hooks.add(List.of("/usr/bin/ledger-epilog", "--help"));
        }
        for (List<String> hook : hooks) {
            Shell.Result r = Shell.run(hook.toArray(String[]::new));
            assertEquals(0, r.status(), hook + ": " + r.err());
            assertTrue(r.out().contains("PrologSlurmctld"), r.out());
        }
        Shell.run("java", "-Xshare:on", "-XX:SharedArchiveFile=/var/cache/alpsbridge/ledger-hook.jsa",
                "-cp", jar.toString(), "org.alpsbridge.ledger.service.hook.SlurmHook", "prolog", "--help").ok();
        // The JVM takes the apbasil archive (it would say so otherwise with -Xshare:on).
        Shell.run(UNIT_ENV, null, null, "java", "-Xshare:on", "-XX:SharedArchiveFile=/var/cache/alpsbridge/apbasil.jsa",
                "-cp", jar.toString(), "-version").ok();
        try (Stream<Path> files = Files.walk(Path.of("/usr/share/alpsbridge"))) {
            assertTrue(files.noneMatch(f -> f.toString().endsWith(".jsa")), "nothing written next to the jars");
        }
    }

    @Test
    @Order(4)
    void theHooksPackageMakesTheHooksTheCClientWhichHandsCallsToTheAgentOrElseRunsTheJvmHook() throws Exception {
        require(hooksDeb != null, "not amd64 Linux, so the build made no alpsbridge-ledger-hooks package");
        Path prolog = Path.of("/usr/bin/ledger-prolog");
        assertArrayEquals(new byte[] {0x7f, 'E', 'L', 'F'}, Arrays.copyOf(Files.readAllBytes(prolog), 4),
                "the C client, not the JVM hook's script");
        assertEquals(prolog.toRealPath(), Path.of("/usr/bin/ledger-epilog").toRealPath(), "one binary, three names");
        assertEquals(prolog.toRealPath(), Path.of("/usr/bin/ledger-submit").toRealPath(), "one binary, three names");
        // slurmctld's job_submit.lua, which a site links beside slurm.conf, runs the installed ledger-submit
        Path lua = Path.of("/usr/share/alpsbridge-ledger-hooks/job_submit.lua");
        assertTrue(Files.readString(lua).contains("local LEDGER_SUBMIT = \"/usr/bin/ledger-submit\""), lua.toString());
        assertEquals("alpsbridge-ledger-hooks: " + lua, Shell.run("dpkg", "-S", lua.toString()).ok().out().strip());
        assertEquals("alpsbridge-ledger-hooks: " + prolog, Shell.run("dpkg", "-S", prolog.toString()).ok().out().strip());
        assertFalse(Shell.run("readelf", "-S", prolog.toString()).ok().out().contains(".symtab"), "stripped");
        Path dir = Files.createTempDirectory("alpsbridge-hooks");
        try {
            Path socket = dir.resolve("agent.sock");
            Path conf = dir.resolve("ledger-hook.conf");
            Files.writeString(conf, "db=http://127.0.0.1:1\ntimeout=1\nlog_file=none\nagent_socket=" + socket
                    + "\nspool=" + dir.resolve("spool") + "\nslurm_conf=" + dir.resolve("no-slurm.conf") + "\n");
            // As slurmctld runs them, but with no job: without an agent the client says it runs the JVM hook in its
            // place, which finds no job record in the environment (exit 4, as documented).
            for (String hook : List.of("prolog", "epilog")) {
                Shell.Result r = hook(conf, "/usr/bin/ledger-" + hook);
                assertEquals(4, r.status(), r.out() + r.err());
                assertTrue(r.err().contains("ledger-" + hook + ": no hook agent answers on " + socket + " (No such file or "
                        + "directory); this call runs the JVM hook /usr/lib/alpsbridge/ledger-hook-jvm instead"), r.err());
                assertTrue(r.err().contains("SLURM_JOB_ID is not set"), r.err());
            }
            // A submission never starts a JVM: without an agent the ledger cannot say, and the job is accepted
            Shell.Result submit = hook(conf, "/usr/bin/ledger-submit");
            assertEquals(0, submit.status(), submit.out() + submit.err());
            assertTrue(submit.err().contains("the job is accepted (submit_when_unavailable=allow)"), submit.err());
            assertFalse(submit.err().contains("JVM hook"), submit.err());
            // With the installed agent listening, the client hands it the call and exits with its answer.
            ProcessBuilder pb = new ProcessBuilder("/usr/bin/alpsbridge", "ledger", "hook-agent", "--config", conf.toString());
            pb.environment().put("ALPSBRIDGE_LEDGER_AUTH", "none");
            pb.redirectErrorStream(true).redirectOutput(TARGET.resolve("hook-agent.log").toFile());
            Process agent = pb.start();
            try {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (!Files.exists(socket) && agent.isAlive() && System.nanoTime() < deadline) {
                    Thread.sleep(100);
                }
                assertTrue(Files.exists(socket), "the agent listens: " + Files.readString(TARGET.resolve("hook-agent.log")));
                Shell.Result r = hook(conf, prolog.toString());
                assertEquals(4, r.status(), r.out() + r.err());
                assertTrue(r.err().contains("SLURM_JOB_ID is not set"), r.err());
                assertFalse(r.err().contains("JVM hook"), r.err());
            } finally {
                agent.destroy();
                assertTrue(agent.waitFor(45, TimeUnit.SECONDS), "the agent stops on SIGTERM");
            }
        } finally {
            Shell.run("rm", "-rf", dir.toString()).ok();
        }
    }

    @Test
    @Order(5)
    void theProxyStartedAsItsUnitWouldAnswersTheInstalledApbasilAndStopsCleanlyOnSigterm() throws Exception {
        Map<String, String> unit = unitSettings(Path.of("/lib/systemd/system/alpsbridge-proxy.service"));
        assertEquals("root", unit.get("User"));
        Map<String, String> env = new LinkedHashMap<>(UNIT_ENV);
        env.putAll(environmentFile(Path.of(unit.get("EnvironmentFile").replaceFirst("^-", ""))));
        List<String> argv = execStart(unit.get("ExecStart"), env);
        ProcessBuilder pb = new ProcessBuilder(argv).directory(Path.of(unit.get("WorkingDirectory")).toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.redirectErrorStream(true).redirectOutput(TARGET.resolve("proxy-unit.log").toFile());
        Process daemon = pb.start();
        try {
            awaitListening(PROXY_PORT, daemon, TARGET.resolve("proxy-unit.log"));
            byte[] request = "<?xml version=\"1.0\"?>\n<BasilRequest protocol=\"1.3\" method=\"QUERY\" type=\"ENGINE\"/>\n"
                    .getBytes(StandardCharsets.UTF_8);
            Shell.Result r = Shell.run(UNIT_ENV, Path.of("/"), request, "/usr/bin/apbasil").ok();
            assertTrue(r.out().contains("status=\"SUCCESS\"") && r.out().contains("<Engine"), r.out() + r.err());
            assertEquals("", r.err());
            // The Java client, kept as the reference and fallback, answers the same bytes.
            Shell.Result jvm = Shell.run(UNIT_ENV, Path.of("/"), request, "/usr/lib/alpsbridge/apbasil-jvm").ok();
            assertEquals(r.out(), jvm.out(), jvm.err());
            if (apbasilDeb != null) {
                Path apbasil = Path.of("/usr/bin/apbasil");
                assertArrayEquals(new byte[] {0x7f, 'E', 'L', 'F'}, Arrays.copyOf(Files.readAllBytes(apbasil), 4),
                        "the native client, not the JVM one's script");
                assertEquals("alpsbridge-apbasil: " + apbasil, Shell.run("dpkg", "-S", apbasil.toString()).ok().out().strip());
                assertFalse(Shell.run("readelf", "-S", apbasil.toString()).ok().out().contains(".symtab"), "stripped");
                // No proxy there: the same TRANSIENT failure document from both, exit 1 from both.
                Map<String, String> down = new LinkedHashMap<>(UNIT_ENV);
                down.put("APBASIL_PROXY", "127.0.0.1:1");
                down.put("APBASIL_RETRIES", "0");
                Shell.Result nat = Shell.run(down, Path.of("/"), request, "/usr/bin/apbasil");
                Shell.Result java = Shell.run(down, Path.of("/"), request, "/usr/lib/alpsbridge/apbasil-jvm");
                assertEquals(1, nat.status(), nat.err());
                assertEquals(java.status(), nat.status());
                assertEquals(java.out(), nat.out());
                assertTrue(nat.out().contains("error_class=\"TRANSIENT\""), nat.out());
            }
        } finally {
            daemon.destroy(); // SIGTERM, as systemctl stop sends it
            assertTrue(daemon.waitFor(40, TimeUnit.SECONDS), "stops within TimeoutStopSec");
        }
        assertEquals(143, daemon.exitValue(), Files.readString(TARGET.resolve("proxy-unit.log")));
        assertTrue(Files.exists(Path.of("/var/lib/alpsbridge/proxy-exchanges.journal")),
                "the unit's journal lives in its ReadWritePaths");
    }

    @Test
    @Order(6)
    void theLedgerServiceStartedAsItsUnitWouldServesTheCommandsTheSitesLedger() throws Exception {
        Map<String, String> unit = unitSettings(Path.of("/lib/systemd/system/alpsbridge-ledger.service"));
        assertEquals("alpsbridge", unit.get("User"));
        // The site moves the ledger its commands wrote as root behind the service, which owns it from now on.
        Shell.run("bash", "-c", "chown alpsbridge:alpsbridge /var/lib/alpsbridge/ledger.db*").ok();
        try (MungeDaemon munge = MungeDaemon.start()) {
            // The default auth=munge: root's credential makes it a superuser (the default superuser_uids=0).
            append("/etc/alpsbridge/ledger-service.conf", "listen=127.0.0.1:" + LEDGER_PORT + "\nmunge_socket="
                    + munge.socket() + "\n");
            Map<String, String> env = new LinkedHashMap<>(UNIT_ENV);
            String[] fixed = unit.get("Environment").split("=", 2);
            env.put(fixed[0], fixed[1]);
            env.putAll(environmentFile(Path.of(unit.get("EnvironmentFile").replaceFirst("^-", ""))));
            List<String> argv = new ArrayList<>(List.of("setpriv", "--reuid=" + unit.get("User"),
                    "--regid=" + unit.get("Group"), "--init-groups", "--"));
            argv.addAll(execStart(unit.get("ExecStart"), env));
            Path log = TARGET.resolve("ledger-unit.log");
            ProcessBuilder pb = new ProcessBuilder(argv).directory(Path.of(unit.get("WorkingDirectory")).toFile());
            pb.environment().clear();
            pb.environment().putAll(env);
            pb.redirectErrorStream(true).redirectOutput(log.toFile());
            Process service = pb.start();
            Map<String, String> client = new LinkedHashMap<>(UNIT_ENV);
            client.put("ALPSBRIDGE_MUNGE_SOCKET", munge.socket().toString());
            String at = "http://127.0.0.1:" + LEDGER_PORT;
            try {
                awaitListening(LEDGER_PORT, service, log);
                assertEquals(balanceBeforeUpgrade, alpsbridge(client, "ledger", "--db", at, "balance", "chem", "--json")
                        .ok().out());
                // A job held and settled through the service: the alpsbridge user writes the ledger.
                alpsbridge(client, "ledger", "--db", at, "reserve", "--id", "11", "--batch-id", "4242", "--project",
                        "chem", "--user", "alice", "--nodes", "1", "--cores-per-node", "32", "--time-limit", "60").ok();
                alpsbridge(client, "ledger", "--db", at, "release", "--id", "11", "--elapsed", "600").ok();
                String after = alpsbridge(client, "ledger", "--db", at, "balance", "chem", "--json").ok().out();
                assertTrue(after.contains("\"used\":320"), "1 node x 32 cores x 10 min: " + after);
            } finally {
                service.destroy(); // SIGTERM, as systemctl stop sends it
                assertTrue(service.waitFor(40, TimeUnit.SECONDS), "stops within TimeoutStopSec");
            }
            String output = Files.readString(log);
            assertTrue(service.exitValue() == 0 || service.exitValue() == 143, service.exitValue() + ": " + output);
            assertFalse(output.contains("Exception"), output);
        }
        assertEquals(List.of(), Shell.run("find", "/var/lib/alpsbridge", "-name", "ledger.db*", "!", "-user", "alpsbridge")
                .ok().out().lines().toList(), "the service's files are the alpsbridge user's");
        alpsbridge("ledger", "check").ok();
    }

    @Test
    @Order(7)
    void systemdFindsNothingWrongWithTheUnits() throws Exception {
        for (String unit : List.of("alpsbridge-proxy.service", "alpsbridge-ledger.service",
                "alpsbridge-ledger-hook-agent.service", "alpsbridge-affinity-agent.service")) {
            Shell.Result r = Shell.run("systemd-analyze", "verify", "/lib/systemd/system/" + unit);
            assertEquals(0, r.status(), unit + ": " + r.out() + r.err());
            assertEquals("", r.err().strip(), unit);
        }
    }

    @Test
    @Order(8)
    void manFindsAPageForEveryCommandAndBashCompletesAlpsbridge() throws Exception {
        for (String page : List.of("alpsbridge", "alpsbridge-proxy-serve", "alpsbridge-ledger-serve", "alpsbridge-ledger-balance",
                "apbasil", "raa-exec", "ledger-prolog", "ledger-epilog", "ledger-submit")) {
            Shell.Result r = Shell.run("man", "-w", page);
            assertEquals(0, r.status(), page + ": " + r.err());
            // ledger-epilog's page is a .so of ledger-prolog's (one page documents both hooks): man follows it
            String shown = page.equals("ledger-epilog") || page.equals("ledger-submit") ? "ledger-prolog" : page;
            assertTrue(r.out().strip().startsWith("/usr/share/man/man1/" + shown + ".1"), page + ": " + r.out());
        }
        Shell.Result lint = Shell.run("bash", "-c", "LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=100 man --warnings "
                + "/usr/share/man/man1/alpsbridge-proxy-serve.1.gz 2>&1 >/dev/null");
        assertEquals("", lint.out(), "groff warnings");
        Shell.Result complete = Shell.run("bash", "-c",
                ". /usr/share/bash-completion/completions/alpsbridge && complete -p alpsbridge");
        assertEquals(0, complete.status(), complete.err());
        assertTrue(complete.out().contains("alpsbridge"), complete.out());
    }

    @Test
    @Order(9)
    void theAffinityAgentStartedAsItsUnitWouldAnswersOnThePluginsDefaultSocketAndStopsCleanly() throws Exception {
        Map<String, String> unit = unitSettings(Path.of("/lib/systemd/system/alpsbridge-affinity-agent.service"));
        assertEquals("alpsbridge", unit.get("User"));
        Map<String, String> env = new LinkedHashMap<>(UNIT_ENV);
        String[] fixed = unit.get("Environment").replaceAll("^\"|\"$", "").split("=", 2); // "NAME=a b": one assignment
        env.put(fixed[0], fixed[1]);
        // RuntimeDirectory=alpsbridge-affinity, RuntimeDirectoryMode=0700, as systemd makes it for the unit's user
        Path dir = Path.of("/run", unit.get("RuntimeDirectory"));
        Shell.run("install", "-d", "-o", "alpsbridge", "-g", "alpsbridge", "-m", "0" + unit.get("RuntimeDirectoryMode").replaceFirst("^0", ""),
                dir.toString()).ok();
        Path socket = dir.resolve("agent.sock");
        List<String> argv = new ArrayList<>(List.of("setpriv", "--reuid=" + unit.get("User"), "--regid=" + unit.get("Group"),
                "--init-groups", "--"));
        argv.addAll(execStart(unit.get("ExecStart"), env));
        assertTrue(argv.contains(socket.toString()), "the unit's socket is the plugin's default: " + argv);
        Path log = TARGET.resolve("affinity-agent-unit.log");
        ProcessBuilder pb = new ProcessBuilder(argv).directory(Path.of("/").toFile());
        pb.environment().clear();
        pb.environment().putAll(env);
        pb.redirectErrorStream(true).redirectOutput(log.toFile());
        Process agent = pb.start();
        try {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (!Files.exists(socket) && agent.isAlive() && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }
            assertTrue(Files.exists(socket), "the agent listens: " + Files.readString(log));
            assertEquals("alpsbridge rw-------", Shell.run("stat", "-c", "%U %A", socket.toString()).ok().out().strip()
                    .replace("srw", "rw"));
            // root (as slurmstepd) asks as the plugin does: v=1, then the generator's arguments
            String items = "v=1\0arg=--topology\0arg=sysfs\0arg=-n\0arg=1\0arg=--format\0arg=tasks\0";
            byte[] body = items.getBytes(StandardCharsets.UTF_8);
            try (java.nio.channels.SocketChannel c = java.nio.channels.SocketChannel.open(java.net.UnixDomainSocketAddress.of(socket))) {
                c.write(java.nio.ByteBuffer.allocate(4 + body.length).putInt(body.length).put(body).flip());
                c.shutdownOutput();
                String reply = new String(java.nio.channels.Channels.newInputStream(c).readAllBytes(), StandardCharsets.UTF_8);
                assertTrue(reply.substring(4).startsWith("exit=0\0out=0 "), reply);
            }
        } finally {
            agent.destroy(); // SIGTERM, as systemctl stop sends it
            assertTrue(agent.waitFor(20, TimeUnit.SECONDS), "stops within TimeoutStopSec");
            Shell.run("rm", "-rf", dir.toString()).ok();
        }
        assertTrue(agent.exitValue() == 0 || agent.exitValue() == 143, agent.exitValue() + ": " + Files.readString(log));
        assertTrue(Files.readString(log).contains("affinity agent: listening on " + socket), Files.readString(log));
    }

    @Test
    @Order(10)
    void theSpankPackageInstallsThePluginAndItsPlugstackLine() throws Exception {
        require(spankDeb != null, "Slurm's headers are absent, so the build made no SPANK package");
        Shell.run("dpkg", "-i", spankDeb.toString()).ok();
        Path so = Path.of("/usr/lib/x86_64-linux-gnu/slurm-wlm/reduced_auto_affinity.so");
        assertTrue(Files.isRegularFile(so));
        assertTrue(Shell.run("nm", "-D", "--defined-only", so.toString()).ok().out().contains("slurm_spank_init"));
        assertTrue(Files.readString(Path.of("/etc/slurm/plugstack.conf.d/reduced-auto-affinity.conf"))
                .contains(so + " generator=/usr/bin/raa-exec"));
        Shell.run("dpkg", "--purge", "alpsbridge-spank").ok();
        assertFalse(Files.exists(so));
        assertFalse(Files.exists(Path.of("/etc/slurm/plugstack.conf.d/reduced-auto-affinity.conf")));
    }

    @Test
    @Order(10)
    void theSlurmctldPluginsPackageIsPinnedToItsSlurmctldWhichLoadsThePluginsFromWhereThePackagePutThem() throws Exception {
        require(pluginsDeb != null, "slurmctld is not installed, so the build made no alpsbridge-slurmctld-plugins package");
        String slurmctld = Shell.run("dpkg-query", "-W", "-f=${Version}", "slurmctld").ok().out().strip();
        String depends = Shell.run("dpkg-deb", "-f", pluginsDeb.toString(), "Depends").ok().out();
        assertTrue(depends.contains("slurmctld (= " + slurmctld + ")"), "exactly the slurmctld built against: " + depends);
        assertTrue(Shell.run("dpkg-deb", "-f", pluginsDeb.toString(), "Description").ok().out()
                .contains("built for slurmctld " + slurmctld), "the description says which");
        Path dir = Path.of("/usr/lib/x86_64-linux-gnu/slurm-wlm");
        for (String so : List.of("prep_ledger.so", "site_factor_ledger.so")) {
            Path plugin = dir.resolve(so);
            assertEquals("alpsbridge-slurmctld-plugins: " + plugin, Shell.run("dpkg", "-S", plugin.toString()).ok().out().strip());
            assertFalse(Shell.run("ldd", plugin.toString()).ok().out().contains("not found"), so + ": every library found");
        }
        assertTrue(Files.readString(Path.of("/usr/share/doc/alpsbridge-slurmctld-plugins/README.Debian"))
                .contains("Built for: Debian's slurmctld " + slurmctld), "README.Debian says which");

        // A real slurmctld from Debian, with no PluginDir line: it finds both where the package put them.
        SlurmCluster.Spec spec = SlurmCluster.Spec.inTemporaryDirectory(SlurmInstallation.system(), "alpsbridge-plugins");
        Path factors = spec.dir().resolve("site-factors");
        Files.writeString(factors, "# ACCOUNT SCALED, as alpsbridge ledger site-factor --slurm-file writes it\nchem 4321\n");
        spec.set("PrEpPlugins", "prep/ledger").set("PriorityType", "priority/multifactor")
                .set("PrioritySiteFactorPlugin", "site_factor/ledger").set("PrioritySiteFactorParameters", "file=" + factors)
                .line("NodeName=" + Programs.hostname() + " NodeAddr=127.0.0.1 CPUs=1 State=UNKNOWN",
                        "PartitionName=debug Nodes=ALL Default=YES MaxTime=INFINITE State=UP");
        try (SlurmCluster slurm = SlurmCluster.configure(spec)) {
            slurm.startController();
            // prep/ledger's init: the installed settings (ledger-hook.conf) read, its workers started
            assertTrue(slurm.read("slurmctld.log").contains("prep/ledger: 4 workers, hook agent /run/alpsbridge/ledger-hook.sock"),
                    slurm.tail("slurmctld.log"));
            // site_factor/ledger at submission: the file's factor for chem's job, 0 for an account it does not name
            // (no slurmd: the jobs stay pending, so no prolog runs)
            String chem = slurm.submit("-A", "chem", "-t", "1", "--wrap", "true");
            String other = slurm.submit("-A", "other", "-t", "1", "--wrap", "true");
            String sprio = slurm.run("sprio", "-h", "-o", "%i %S").out();
            assertTrue(sprio.lines().map(String::strip).toList().containsAll(List.of(chem + " 4321", other + " 0")),
                    "sprio: " + sprio + "; " + slurm.tail("slurmctld.log"));
        }
    }

    @Test
    @Order(10)
    void theShippedSourcesRebuildThePluginsAgainstAConfiguredSlurmTree() throws Exception {
        require(pluginsDeb != null, "slurmctld is not installed, so the build made no alpsbridge-slurmctld-plugins package");
        Path rebuild = Path.of("/usr/share/alpsbridge-slurmctld-plugins/rebuild");
        Shell.Result help = Shell.run(rebuild.toString(), "--help").ok();
        assertTrue(help.out().contains("Usage: rebuild SLURM_SRC [OUT_DIR]"), help.out());
        Shell.Result bad = Shell.run(rebuild.toString(), "/usr/share");
        assertEquals(2, bad.status(), bad.err());
        assertTrue(bad.err().contains("/usr/share is not a configured Slurm source tree"), bad.err());
        // the tree the package was built against, as .ci/slurm-plugin-source left it (cached: no fetch)
        String tree = Shell.run("bash", Path.of("../.ci/slurm-plugin-source").toAbsolutePath().normalize().toString())
                .ok().out().strip();
        Path out = Files.createTempDirectory("alpsbridge-rebuild");
        try {
            Shell.Result r = Shell.run(rebuild.toString(), tree, out.toString()).ok();
            assertTrue(r.out().contains("built for Slurm "), r.out());
            for (String so : List.of("prep_ledger.so", "site_factor_ledger.so")) {
                assertEquals(exported(Path.of("/usr/lib/x86_64-linux-gnu/slurm-wlm", so)), exported(out.resolve(so)), so);
            }
        } finally {
            Shell.run("rm", "-rf", out.toString()).ok();
        }
    }

    @Test
    @Order(11)
    void lintianFindsNoErrorsAndNoUnjustifiedWarnings() throws Exception {
        require(Files.isExecutable(Path.of("/usr/bin/lintian")), "lintian is not installed (.ci/install-deps installs it)");
        List<String> args = new ArrayList<>(List.of("lintian", "--fail-on", "error,warning", deb.toString()));
        if (hooksDeb != null) {
            args.add(hooksDeb.toString());
        }
        if (apbasilDeb != null) {
            args.add(apbasilDeb.toString());
        }
        if (spankDeb != null) {
            args.add(spankDeb.toString());
        }
        if (pluginsDeb != null) {
            args.add(pluginsDeb.toString());
        }
        Shell.Result r = Shell.run(args.toArray(String[]::new));
        assertEquals(0, r.status(), r.out() + r.err());
    }

    @Test
    @Order(12)
    void purgeRemovesAllButTheLedgersRecordsAndTheUser() throws Exception {
        if (pluginsDeb != null) {
            Shell.run("dpkg", "--purge", "alpsbridge-slurmctld-plugins").ok();
            for (String gone : List.of("/usr/lib/x86_64-linux-gnu/slurm-wlm/prep_ledger.so",
                    "/usr/lib/x86_64-linux-gnu/slurm-wlm/site_factor_ledger.so", "/usr/share/alpsbridge-slurmctld-plugins",
                    "/usr/share/doc/alpsbridge-slurmctld-plugins")) {
                assertFalse(Files.exists(Path.of(gone)), gone + " is gone");
            }
        }
        if (hooksDeb != null) {
            Shell.run("dpkg", "--purge", "alpsbridge-ledger-hooks").ok();
            for (String gone : List.of("/usr/bin/ledger-prolog", "/usr/bin/ledger-epilog", "/usr/bin/ledger-submit",
                    "/usr/share/alpsbridge-ledger-hooks", "/usr/share/doc/alpsbridge-ledger-hooks")) {
                assertFalse(Files.exists(Path.of(gone), java.nio.file.LinkOption.NOFOLLOW_LINKS), gone + " is gone");
            }
        }
        if (apbasilDeb != null) {
            Shell.run("dpkg", "--purge", "alpsbridge-apbasil").ok();
            assertFalse(Files.exists(Path.of("/usr/share/doc/alpsbridge-apbasil")), "its doc directory is gone");
        }
        Shell.Result r = Shell.run("dpkg", "--purge", "alpsbridge").ok();
        installed = false;
        for (String gone : List.of("/usr/bin/alpsbridge", "/usr/bin/apbasil", "/usr/bin/raa-exec", "/usr/bin/ledger-prolog",
                "/usr/bin/ledger-epilog", "/usr/share/alpsbridge",
                "/usr/lib/alpsbridge", "/etc/alpsbridge", "/etc/default/alpsbridge-proxy", "/var/cache/alpsbridge",
                "/lib/systemd/system/alpsbridge-proxy.service", "/lib/systemd/system/alpsbridge-ledger.service",
                "/lib/systemd/system/alpsbridge-ledger-hook-agent.service",
                "/lib/systemd/system/alpsbridge-affinity-agent.service",
                "/etc/default/alpsbridge-ledger", "/usr/share/man/man1/alpsbridge.1.gz",
                "/usr/share/bash-completion/completions/alpsbridge", "/usr/share/doc/alpsbridge")) {
            assertFalse(Files.exists(Path.of(gone)), gone + " is gone");
        }
        // Accounting records are kept, and said so; the system user stays (Debian policy).
        assertTrue(Files.exists(Path.of("/var/lib/alpsbridge/ledger.db")));
        assertTrue(r.err().contains("kept /var/lib/alpsbridge"), r.err());
        assertEquals(0, Shell.run("getent", "passwd", "alpsbridge").status());
    }

    @AfterAll
    void leaveTheMachineAsItWas() throws Exception {
        if (deb == null) {
            return;
        }
        if (installed) {
            Shell.run("dpkg", "--purge", "alpsbridge-spank", "alpsbridge-slurmctld-plugins", "alpsbridge-ledger-hooks",
                    "alpsbridge-apbasil", "alpsbridge");
        }
        Shell.run("rm", "-rf", "/var/lib/alpsbridge");
        if (!userExisted) {
            Shell.run("deluser", "--system", "--quiet", "alpsbridge");
            Shell.run("delgroup", "--system", "--quiet", "alpsbridge");
        }
    }

    // --- helpers -------------------------------------------------------------------------------------------

    private static void require(boolean condition, String reason) {
        InstallHost.require(condition, reason);
    }

    private static Path only(String glob) throws IOException {
        try (var found = Files.newDirectoryStream(TARGET, glob)) {
            List<Path> all = new ArrayList<>();
            found.forEach(all::add);
            assertEquals(1, all.size(), "exactly one " + glob + " in target/: " + all + " (run mvn package first)");
            return all.get(0).toAbsolutePath();
        }
    }

    /**
     * The package as an earlier release would have been: same content, a lower version, the JVM hook as
     * /usr/bin/ledger-prolog and ledger-epilog (before alpsbridge-ledger-hooks took those names) and the Java
     * client as /usr/bin/apbasil (before alpsbridge-apbasil took it).
     */
    private static Path previousVersion(Path deb, String version) throws Exception {
        Path dir = TARGET.resolve("previous-version").toAbsolutePath();
        Shell.run("rm", "-rf", dir.toString()).ok();
        Files.createDirectories(dir);
        Shell.run("dpkg-deb", "-R", deb.toString(), dir.resolve("tree").toString()).ok();
        Path control = dir.resolve("tree/DEBIAN/control");
        Files.writeString(control, Files.readString(control).replaceFirst("(?m)^Version: .*$", "Version: " + version));
        for (String hook : List.of("ledger-prolog", "ledger-epilog")) {
            Shell.run("install", "-m", "0755", dir.resolve("tree/usr/lib/alpsbridge/ledger-hook-jvm").toString(),
                    dir.resolve("tree/usr/bin/" + hook).toString()).ok();
        }
        Shell.run("install", "-m", "0755", dir.resolve("tree/usr/lib/alpsbridge/apbasil-jvm").toString(),
                dir.resolve("tree/usr/bin/apbasil").toString()).ok();
        Path old = dir.resolve("alpsbridge_" + version + "_all.deb");
        Shell.run("dpkg-deb", "--root-owner-group", "-b", dir.resolve("tree").toString(), old.toString()).ok();
        return old;
    }

    /** A plugin's defined dynamic symbols, names only: what slurmctld looks up in it. */
    private static List<String> exported(Path so) throws Exception {
        return Shell.run("nm", "-D", "--defined-only", so.toString()).ok().out().lines()
                .map(line -> line.substring(line.lastIndexOf(' ') + 1)).sorted().toList();
    }

    /** A hook as slurmctld runs it (nothing of the caller's environment, so no job), with the given settings. */
    private static Shell.Result hook(Path conf, String program) throws Exception {
        return Shell.run("env", "-i", "PATH=/usr/bin:/bin", "ALPSBRIDGE_LEDGER_HOOK_CONFIG=" + conf, program);
    }

    private static void append(String file, String lines) throws IOException {
        Files.writeString(Path.of(file), Files.readString(Path.of(file)) + lines);
    }

    private static Shell.Result alpsbridge(String... args) throws Exception {
        return alpsbridge(UNIT_ENV, args);
    }

    private static Shell.Result alpsbridge(Map<String, String> env, String... args) throws Exception {
        String[] argv = new String[args.length + 1];
        argv[0] = "/usr/bin/alpsbridge";
        System.arraycopy(args, 0, argv, 1, args.length);
        return Shell.run(env, Path.of("/"), null, argv);
    }

    /** The [Service] and [Unit] settings of a unit file, one value per key (the last, as systemd takes it). */
    static Map<String, String> unitSettings(Path unit) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(unit)) {
            int eq = line.indexOf('=');
            if (!line.startsWith("#") && !line.startsWith("[") && eq > 0) {
                out.put(line.substring(0, eq).strip(), line.substring(eq + 1).strip());
            }
        }
        return out;
    }

    /** KEY=value lines of an EnvironmentFile, with the quotes systemd removes removed. */
    static Map<String, String> environmentFile(Path file) throws IOException {
        Map<String, String> out = new LinkedHashMap<>();
        for (String line : Files.readAllLines(file)) {
            String t = line.strip();
            int eq = t.indexOf('=');
            if (t.isEmpty() || t.startsWith("#") || eq <= 0) {
                continue;
            }
            String v = t.substring(eq + 1).strip();
            if (v.length() >= 2 && (v.startsWith("\"") && v.endsWith("\"") || v.startsWith("'") && v.endsWith("'"))) {
                v = v.substring(1, v.length() - 1);
            }
            out.put(t.substring(0, eq).strip(), v);
        }
        return out;
    }

    /** ExecStart's words, {@code $VAR} split into words and {@code ${VAR}} kept whole, as systemd expands them. */
    static List<String> execStart(String line, Map<String, String> env) {
        List<String> argv = new ArrayList<>();
        for (String word : line.split("\\s+")) {
            if (word.startsWith("${") && word.endsWith("}")) {
                argv.add(env.getOrDefault(word.substring(2, word.length() - 1), ""));
            } else if (word.startsWith("$")) {
                String v = env.getOrDefault(word.substring(1), "").strip();
                if (!v.isEmpty()) {
                    argv.addAll(List.of(v.split("\\s+")));
                }
            } else {
                argv.add(word);
            }
        }
        return argv;
    }

    private static void awaitListening(int port, Process daemon, Path log) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!daemon.isAlive()) {
                throw new AssertionError("the daemon exited " + daemon.exitValue() + ":\n" + Files.readString(log));
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException e) {
                Thread.sleep(100);
            }
        }
        throw new AssertionError("the daemon did not listen on " + port + " within 60 s");
    }
}
