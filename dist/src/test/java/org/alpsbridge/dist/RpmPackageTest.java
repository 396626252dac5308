package org.alpsbridge.dist;

import static org.alpsbridge.dist.Built.PACKAGES;
import static org.alpsbridge.dist.Built.RPMS;
import static org.alpsbridge.dist.Built.SRC;
import static org.alpsbridge.dist.Built.TARGET;
import static org.alpsbridge.dist.Built.glob;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The RPMs a SLES or RHEL site builds with {@code rpmbuild -ta} (dist's build makes them from the tarball, release 1
 * and 2, dist/src/build/rpm.sh): rpmlint clean (PackageLayoutTest holds their files to the layout), their
 * requirements met by SLES 15 and RHEL 9, and an admin's life with them on this machine: installed with rpm (a
 * private database: Debian registers nothing in rpm's), the installed quick start's lab run as written with no
 * Java on PATH, an upgrade, {@code rpm -V}, and an erase that leaves what the document says. System-wide, as the
 * .deb tests (which run before or after this class, never beside it): it never touches an installed alpsbridge
 * and leaves the machine as it found it.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class RpmPackageTest {

    /** A PATH with every program of this machine but Java's (java, javac, jshell...: Debian has them in /usr/bin). */
    private static final String NO_JAVA_PATH = "/tmp/alpsbridge-rpm-test-path";

    private final Path db = TARGET.resolve("rpm-test-db");
    private boolean userExisted;
    /** Directories rpm makes for the packages' files but no package owns, removed after if this test made them. */
    private final List<String> madeDirs = new ArrayList<>();
    private boolean installed;

    @BeforeAll
    void rpmsBuiltAndAMachineWithoutAlpsbridge() throws Exception {
        InstallHost.require(Files.isDirectory(RPMS), "no RPMs in " + RPMS + " (the rpm profile builds them where"
                + " rpmbuild is installed: apt-get install rpm rpmlint)");
        InstallHost.requireRootDpkgAndNoAlpsbridge();
        InstallHost.require(!Files.exists(Path.of("/usr/share/alpsbridge")) && !Files.exists(Path.of("/etc/alpsbridge"))
                && !Files.exists(Path.of("/var/lib/alpsbridge")), "alpsbridge's files are on this machine; the RPM test"
                + " never touches a real installation");
        userExisted = Shell.run("getent", "passwd", "alpsbridge").status() == 0;
        for (String dir : List.of("/etc/sysconfig", "/usr/lib64/slurm", "/etc/slurm/plugstack.conf.d")) {
            if (!Files.exists(Path.of(dir))) {
                madeDirs.add(dir);
            }
        }
        Shell.run("rm", "-rf", db.toString(), NO_JAVA_PATH).ok();
        Files.createDirectories(db);
        assertEquals(1, noJava("command -v java").status(), "java is still on " + NO_JAVA_PATH);
    }

    @Test
    @Order(1)
    void rpmlintFindsNoErrors() throws Exception {
        List<String> argv = new ArrayList<>(List.of("rpmlint", "-c", SRC.resolve("rpm/rpmlint.toml").toString()));
        argv.addAll(rpms("1"));
        argv.addAll(glob(TARGET.resolve("rpmbuild/SRPMS"), "*-1.src.rpm"));
        Shell.Result r = Shell.run(argv.toArray(String[]::new));
        Files.writeString(TARGET.resolve("rpmlint.log"), r.out() + r.err());
        String summary = r.out().lines().filter(l -> l.contains("packages and")).findFirst().orElse(r.out() + r.err());
        System.out.println("rpmlint: " + summary);
        assertTrue(summary.matches(".* 0 errors, .*"), "rpmlint errors (target/rpmlint.log):\n" + r.out());
    }

    /**
     * Every requirement of the packages is met by a stock SLES 15 SP5 and RHEL 9 (the lists: what their base
     * repositories provide, each entry with where it comes from); none is a Debian-only name. The glibc symbol
     * versions: alpsbridge ships prebuilt native code (the runtime, from a JDK built for an old glibc by
     * runtime.sh's choice: Temurin's needs 2.17, where Debian 12's JDK would need 2.34), so it asks for none newer
     * than SLES 15's. The other packages are compiled by rpmbuild on the build host, and ask for that host's glibc:
     * 2.36 here, SLES 15's own on a SLES 15 build host; their glibc versions newer than SLES 15's are the one
     * exception allowed here.
     */
    @Test
    @Order(3)
    void theRequirementsAreMetBySles15AndRhel9() throws Exception {
        TreeSet<String> required = new TreeSet<>();
        List<String> unmetSles = new ArrayList<>();
        List<String> unmetRhel = new ArrayList<>();
        for (String rpm : rpms("1")) {
            boolean compiledHere = !Path.of(rpm).getFileName().toString().matches("alpsbridge-[0-9].*");
            for (String req : Shell.run("rpm", "-qp", "--requires", rpm).ok().out().lines().map(String::strip).toList()) {
                required.add(req);
                boolean buildHostsGlibc = compiledHere && req.matches("libc\\.so\\.6\\(GLIBC_2\\.3[2-9]\\)\\(64bit\\)");
                if (!Provided.bySles15(req) && !buildHostsGlibc) {
                    unmetSles.add(Path.of(rpm).getFileName() + ": " + req);
                }
                if (!Provided.byRhel9(req) && !buildHostsGlibc) {
                    unmetRhel.add(Path.of(rpm).getFileName() + ": " + req);
                }
            }
        }
        System.out.println("RPM requirements: " + required);
        assertEquals(List.of(), unmetRhel, "not provided by RHEL 9");
        assertEquals(List.of(), unmetSles, "not provided by SLES 15 SP5 (a GLIBC_2.32 or newer in alpsbridge: its"
                + " runtime was made from a JDK built for a newer glibc; runtime.sh says how to choose another)");
    }

    @Test
    @Order(4)
    void installedTheQuickStartRunsAsWrittenWithNoJava() throws Exception {
        List<String> install = new ArrayList<>(List.of("rpm", "--dbpath", db.toString(), "-i", "--nodeps"));
        install.addAll(rpms("1"));
        installed = true;
        Shell.Result r = Shell.run(install.toArray(String[]::new)).ok();
        assertTrue(Files.exists(Path.of("/var/cache/alpsbridge/apbasil.jsa")), "%post wrote the class archives: " + r.err());
        assertEquals("alpsbridge", Shell.run("stat", "-c", "%U", "/var/lib/alpsbridge").ok().out().strip());
        Shell.Result version = noJava("alpsbridge --version").ok();
        assertTrue(version.out().contains("0.1.0"), version.out());
        assertEquals("", version.err(), "the bundled runtime's JVM says nothing on stderr (runtime.sh --add-options)");
        // Each Java program starts on the bundled runtime (its modules are enough): the class archives %post wrote
        // come from a run of each, and each answers --help.
        for (String archive : List.of("apbasil.jsa", "ledger-hook.jsa", "raa-exec/raa-exec.jsa")) {
            assertTrue(Files.exists(Path.of("/var/cache/alpsbridge", archive)), archive + ": " + r.err());
        }
        noJava("raa-exec --help && /usr/lib/alpsbridge/ledger-hook-jvm prolog --help").ok();
        Path doc = Path.of("/usr/share/doc/alpsbridge/README.RPM");
        String script = QuickStartInstallTest.shellBlocks(Files.readString(doc, StandardCharsets.UTF_8));
        assertTrue(script.contains("alpsbridge proxy serve") && script.contains("alpsbridge ledger serve"), script);
        r = noJava("trap 'kill $(jobs -p) 2>/dev/null || true' EXIT\n" + script);
        Path log = TARGET.resolve("rpm-quick-start.log");
        Files.writeString(log, "$ " + script + "\n--- stdout\n" + r.out() + "\n--- stderr\n" + r.err());
        assertEquals(0, r.status(), "the walk-through failed (" + log + "):\n" + r.out() + r.err()
                + Shell.run("cat", "/tmp/alpsbridge-proxy.log", "/tmp/alpsbridge-ledger.log").out());
        assertTrue(r.out().contains("status=\"SUCCESS\"") && r.out().contains("\n16\n"), r.out());
        assertTrue(r.out().matches("(?s).*\"granted\":6000,.*"), "100 hours over HTTP: " + r.out());
        // Netty's sun.misc.Unsafe and JNA's and sqlite-jdbc's native calls: allowed in the image, so the JVM
        // (JDK 24 and newer) warns about neither in the daemons' output.
        for (String daemonLog : List.of("/tmp/alpsbridge-proxy.log", "/tmp/alpsbridge-ledger.log")) {
            String said = Files.readString(Path.of(daemonLog));
            assertFalse(said.contains("WARNING:"), daemonLog + ":\n" + said);
        }
    }

    @Test
    @Order(5)
    void anUpgradeKeepsTheSettingsAndVerifiesClean() throws Exception {
        long before = Files.getLastModifiedTime(Path.of("/var/cache/alpsbridge/apbasil.jsa")).toMillis();
        List<String> upgrade = new ArrayList<>(List.of("rpm", "--dbpath", db.toString(), "-U", "--nodeps"));
        upgrade.addAll(rpms("2"));
        Shell.run(upgrade.toArray(String[]::new)).ok();
        assertEquals(PACKAGES.size(), Shell.run("rpm", "--dbpath", db.toString(), "-qa").ok().out().lines()
                .filter(l -> l.endsWith("-2.x86_64")).count(), "every package at release 2");
        assertTrue(Files.readString(Path.of("/etc/alpsbridge/proxy.conf")).contains("backend=emulator:xc30:16"),
                "the admin's setting kept (%config(noreplace))");
        assertTrue(Files.getLastModifiedTime(Path.of("/var/cache/alpsbridge/apbasil.jsa")).toMillis() >= before);
        // The upgraded Java client on the bundled runtime: no proxy there, so the TRANSIENT failure BASIL expects.
        Shell.Result call = noJava("echo '<?xml version=\"1.0\"?><BasilRequest protocol=\"1.3\" method=\"QUERY\""
                + " type=\"ENGINE\"/>' | APBASIL_PROXY=127.0.0.1:1 APBASIL_RETRIES=0 APBASIL_AUTH=none"
                + " /usr/lib/alpsbridge/apbasil-jvm");
        assertEquals(1, call.status(), call.err());
        assertTrue(call.out().contains("FAILURE"), call.out());
        // rpm -V: only the settings the quick start changed, each a config file (c) of changed size, digest, time
        // (--nodeps: Debian registers nothing in this database; theRequirementsAreMetBySles15AndRhel9 checks them).
        Shell.Result v = Shell.run("rpm", "--dbpath", db.toString(), "-V", "--nodeps", "alpsbridge", "alpsbridge-apbasil",
                "alpsbridge-ledger-hooks", "alpsbridge-spank", "alpsbridge-slurmctld-plugins");
        List<String> changed = v.out().lines().map(String::strip).toList();
        assertEquals(List.of("S.5....T.  c /etc/alpsbridge/apbasil.conf", "S.5....T.  c /etc/alpsbridge/ledger.conf",
                "S.5....T.  c /etc/alpsbridge/proxy.conf"), changed.stream().sorted().toList(), v.out() + v.err());
    }

    @Test
    @Order(6)
    void eraseLeavesWhatTheDocumentSays() throws Exception {
        Shell.Result r = Shell.run("rpm", "--dbpath", db.toString(), "-e", "--nodeps", "alpsbridge-slurmctld-plugins",
                "alpsbridge-spank", "alpsbridge-ledger-hooks", "alpsbridge-apbasil", "alpsbridge").ok();
        installed = false;
        String doc = Files.readString(SRC.resolve("../../docs/install-rpm.md"));
        assertTrue(doc.contains("kept\nas `FILE.rpmsave`") || doc.contains("as `FILE.rpmsave`"), "the document says it");
        List<String> left = Shell.run("find", "/etc/alpsbridge", "/etc/sysconfig", "-name", "*alpsbridge*", "-o",
                "-path", "/etc/alpsbridge/*").out().lines().sorted().toList();
        assertEquals(List.of("/etc/alpsbridge", "/etc/alpsbridge/apbasil.conf.rpmsave",
                "/etc/alpsbridge/ledger.conf.rpmsave", "/etc/alpsbridge/proxy.conf.rpmsave"), left,
                "the changed settings as .rpmsave, the unchanged ones gone");
        assertTrue(Files.exists(Path.of("/var/lib/alpsbridge/ledger.db")), "the ledger's records kept");
        assertTrue(r.err().contains("kept /var/lib/alpsbridge") && r.err().contains("kept the system user"), r.err());
        for (String gone : List.of("/var/cache/alpsbridge", "/usr/bin/alpsbridge", "/usr/lib/alpsbridge",
                "/usr/share/alpsbridge", "/usr/bin/apbasil", "/usr/lib/systemd/system/alpsbridge-proxy.service")) {
            assertFalse(Files.exists(Path.of(gone)), gone + " left behind");
        }
    }

    /** The relocatable tarball: unpacked anywhere, its bin/alpsbridge runs with no Java on the host. */
    @Test
    @Order(7)
    void theTarballRunsUnpackedAnywhereWithNoJava() throws Exception {
        Path dir = Files.createTempDirectory("alpsbridge-tarball");
        try {
            String tarball = glob(TARGET, "alpsbridge-*.tar.gz").get(0);
            Shell.run("tar", "-xzf", tarball, "-C", dir.toString()).ok();
            String home = glob(dir, "alpsbridge-*").get(0);
            Shell.Result r = noJava(home + "/bin/alpsbridge --version && " + home + "/lib/alpsbridge/make-archives && "
                    + home + "/bin/alpsbridge affinity -n 2 -c 1 --layout 1x2x1");
            assertEquals(0, r.status(), r.err());
            assertTrue(r.out().contains("0.1.0"), r.out());
            assertEquals("", r.err(), "nothing on stderr from the tarball's runtime");
            assertTrue(Files.exists(Path.of(home, "cache/apbasil.jsa")), "the archives of the bundled runtime");
        } finally {
            Shell.run("rm", "-rf", dir.toString()).ok();
        }
    }

    @AfterAll
    void leaveTheMachineAsItWas() throws Exception {
        if (installed) {
            Shell.run("rpm", "--dbpath", db.toString(), "-e", "--nodeps", "--noscripts", "alpsbridge-slurmctld-plugins",
                    "alpsbridge-spank", "alpsbridge-ledger-hooks", "alpsbridge-apbasil", "alpsbridge");
        }
        Shell.run("rm", "-rf", "/etc/alpsbridge", "/var/lib/alpsbridge", "/var/cache/alpsbridge", db.toString(),
                NO_JAVA_PATH, "/tmp/alpsbridge-proxy.log", "/tmp/alpsbridge-ledger.log", "/tmp/alpsbridge-reserve.xml");
        Shell.run("bash", "-c", "rm -f /etc/systemd/system/*.wants/alpsbridge-*.service");
        for (String dir : madeDirs) {
            Shell.run("rmdir", "--ignore-fail-on-non-empty", dir);
        }
        if (!userExisted) {
            Shell.run("userdel", "alpsbridge");
            Shell.run("groupdel", "alpsbridge");
        }
    }

    /** Runs a script as root with no java on PATH (a PATH of links to this machine's programs, made anew for what
     *  the packages installed since, without Java's) and no JAVA_HOME or JAVA. */
    private static Shell.Result noJava(String script) throws Exception {
        Shell.run("bash", "-c", "rm -rf " + NO_JAVA_PATH + " && mkdir -p " + NO_JAVA_PATH + " && for d in /usr/sbin"
                + " /usr/bin /sbin /bin; do for f in \"$d\"/*; do n=${f##*/}; case $n in java*|jshell|jar|jlink|jdeps"
                + "|keytool) continue;; esac; [ -e " + NO_JAVA_PATH + "/$n ] || ln -s \"$f\" " + NO_JAVA_PATH + "/$n;"
                + " done; done").ok();
        return Shell.run(Map.of(), Path.of("/"), null, "env", "-u", "JAVA_HOME", "-u", "JAVA", "PATH=" + NO_JAVA_PATH,
                "LANG=C.UTF-8", "/bin/bash", "-euo", "pipefail", "-c", script);
    }

    private static List<String> rpms(String release) throws Exception {
        List<String> found = new ArrayList<>();
        for (String pkg : PACKAGES) {
            found.addAll(glob(RPMS, pkg + "-[0-9]*-" + release + ".x86_64.rpm"));
        }
        return found;
    }

    /** What a stock SLES 15 SP5 and RHEL 9 provide, for the requirements the packages have. */
    static final class Provided {

        private Provided() {
        }

        /** Both: rpm's own features (rpmlib), and the packages of this spec (alpsbridge(x86-64) = V-R...). */
        private static boolean common(String req) {
            return req.startsWith("rpmlib(") // rpm itself (4.14 on SLES 15, 4.16 on RHEL 9)
                    || req.matches("(alpsbridge|config\\(alpsbridge\\S*\\))(\\(x86-64\\))? = .*")
                    || req.matches("alpsbridge\\S*(\\(x86-64\\))? = .*")
                    || Stream.of("/bin/sh", "/bin/bash", "/usr/bin/bash", "/usr/bin/sh") // bash (both; /bin via usrmerge on RHEL 9)
                            .anyMatch(req::equals)
                    || Stream.of("/usr/sbin/useradd", "/usr/sbin/groupadd") // shadow (SLES), shadow-utils (RHEL)
                            .anyMatch(req::equals)
                    || req.equals("/usr/bin/getent") // glibc (both)
                    || req.equals("rtld(GNU_HASH)") // glibc (both)
                    || req.equals("slurm") // SLES 15: slurm (Package Hub / HPC module); RHEL 9: slurm (EPEL)
                    || req.matches("lib(c|m|dl|pthread|rt)\\.so\\.6\\(\\)\\(64bit\\)|libdl\\.so\\.2\\(\\)\\(64bit\\)"
                            + "|libpthread\\.so\\.0\\(\\)\\(64bit\\)|libm\\.so\\.6\\(\\)\\(64bit\\)|librt\\.so\\.1\\(\\)\\(64bit\\)"
                            + "|ld-linux-x86-64\\.so\\.2(\\(\\)\\(64bit\\)|\\(GLIBC_2\\.\\d+\\)\\(64bit\\))") // glibc
                    || req.matches("libz\\.so\\.1(\\(\\)\\(64bit\\)|\\(ZLIB_1\\.2\\.\\d+(\\.\\d+)?\\)\\(64bit\\))") // libz1 (SLES), zlib (RHEL)
                    || req.equals("libmunge.so.2()(64bit)") // libmunge2 (SLES: HPC module), munge-libs (RHEL 9: EPEL)
                    // the JVM's C++ runtime: libstdc++6 and libgcc_s1 (SLES 15, GCC 12/13 runtime), libstdc++ and
                    // libgcc (RHEL 9, GCC 11): CXXABI up to 1.3.13 and GLIBCXX up to 3.4.29 in both
                    || req.matches("libgcc_s\\.so\\.1(\\(\\)|\\(GCC_(3\\.0|3\\.3|4\\.\\d\\.\\d)\\))\\(64bit\\)")
                    || req.matches("libstdc\\+\\+\\.so\\.6(\\(\\)|\\(CXXABI_1\\.3(\\.([0-9]|1[0-3]))?\\)"
                            + "|\\(GLIBCXX_3\\.4(\\.([0-9]|1[0-9]|2[0-9]))?\\))\\(64bit\\)");
        }

        /** glibc 2.31 (SLES 15 SP3 to SP5). */
        static boolean bySles15(String req) {
            return common(req) || glibcUpTo(req, 31);
        }

        /** glibc 2.34 (RHEL 9.0 to 9.5). */
        static boolean byRhel9(String req) {
            return common(req) || glibcUpTo(req, 34);
        }

        private static boolean glibcUpTo(String req, int minor) {
            var m = java.util.regex.Pattern.compile("lib(c|m|dl|pthread|rt)\\.so\\.\\d\\(GLIBC_2\\.(\\d+)(\\.\\d+)?\\)\\(64bit\\)")
                    .matcher(req);
            return m.matches() && Integer.parseInt(m.group(2)) <= minor;
        }
    }
}
