package org.alpsbridge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The Java side of the relocatable tarball (and so of the alpsbridge RPM, whose runtime and jars are the tarball's)
 * runs on SLES 15, the Cray service nodes' OS (CLE 7): no native code it carries asks for a glibc symbol version
 * newer than SLES 15's. That is every ELF file of the bundled runtime (lib/alpsbridge/runtime: the JVM, the
 * launcher, the JDK's libraries) and every Linux x86-64 library inside the shipped jars, which JNA, sqlite-jdbc and
 * Netty extract and load at run time, and the two C programs in bin/ (the native apbasil client and the ledger
 * hooks' client), which the build compiles a second time for the tarball against glibc's old symbol versions
 * (dist/src/build/glibc-compat.sh). Read with {@code objdump -T} (binutils), as the dynamic linker reads them.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TarballGlibcFloorTest {

    /**
     * The newest glibc the packages may need: 2.31, the glibc of SLES 15 SP3 to SP5 (SUSE moved SLE 15 from 2.26
     * to 2.31 in SP3). RHEL 9 has 2.34 and Rocky or Alma 8 has 2.28: the newest version asked for, printed, tells
     * whether the same packages run there too.
     */
    static final int[] SLES15_GLIBC = {2, 31};

    /** Where the jars keep their Linux x86-64 libraries (not the musl, 32-bit or other systems' ones). */
    private static final Pattern LINUX_X86_64_LIBRARY = Pattern.compile(
            "com/sun/jna/linux-x86-64/[^/]+\\.so|org/sqlite/native/Linux/x86_64/[^/]+\\.so"
                    + "|META-INF/native/lib[^/]*x86_64\\.so");
    private static final Pattern GLIBC_VERSION = Pattern.compile("\\(GLIBC_(2\\.\\d+(?:\\.\\d+)?)\\)\\s+(\\S+)");

    private Path unpacked;
    private Path home;

    @BeforeAll
    void theTarballUnpacked() throws Exception {
        List<String> tarballs = Built.glob(Built.TARGET, "alpsbridge-*.tar.gz");
        InstallHost.require(tarballs.size() == 1, "no tarball in " + Built.TARGET + " (mvn -pl dist package makes it)");
        InstallHost.require(Shell.run("objdump", "--version").status() == 0, "objdump (binutils) reads the libraries");
        unpacked = Files.createTempDirectory("alpsbridge-glibc");
        Shell.run("tar", "-xzf", tarballs.get(0), "-C", unpacked.toString()).ok();
        try (Stream<Path> s = Files.list(unpacked)) {
            home = s.findFirst().orElseThrow();
        }
    }

    @Test
    void nothingNativeItShipsNeedsAGlibcNewerThanSles15s() throws Exception {
        Map<String, Path> scanned = new TreeMap<>();
        try (Stream<Path> s = Files.walk(home.resolve("lib/alpsbridge/runtime"))) {
            for (Path p : s.filter(Files::isRegularFile).toList()) {
                if (isElf(p)) {
                    scanned.put(home.relativize(p).toString(), p);
                }
            }
        }
        // The C programs: native wherever the build compiled them (amd64 Linux), which is where this test runs.
        for (String program : List.of("bin/apbasil", "bin/ledger-prolog")) {
            Path p = home.resolve(program);
            if (Files.isRegularFile(p) && isElf(p)) {
                scanned.put(program, p);
            }
        }
        Path extracted = Files.createDirectory(unpacked.resolve("from-jars"));
        try (Stream<Path> s = Files.walk(home.resolve("share"))) {
            for (Path jar : s.filter(p -> p.toString().endsWith(".jar")).toList()) {
                scanned.putAll(linuxLibrariesIn(jar, extracted));
            }
        }
        // Not vacuous: the JVM and each library the programs load at run time are among what was read.
        for (String needed : List.of("bin/apbasil", "bin/ledger-prolog", "runtime/bin/java", "runtime/lib/server/libjvm.so", "runtime/lib/libnio.so",
                "linux-x86-64/libjnidispatch.so", "Linux/x86_64/libsqlitejdbc.so", "libnetty_transport_native_epoll")) {
            assertTrue(scanned.keySet().stream().anyMatch(k -> k.contains(needed)), needed + " not among " + scanned.keySet());
        }
        List<String> tooNew = new ArrayList<>();
        String floor = "2.0";
        String floorFile = "";
        for (Map.Entry<String, Path> e : scanned.entrySet()) {
            Shell.Result r = Shell.run("objdump", "-T", e.getValue().toString()).ok();
            Matcher m = GLIBC_VERSION.matcher(r.out());
            while (m.find()) {
                if (newer(m.group(1), floor)) {
                    floor = m.group(1);
                    floorFile = e.getKey();
                }
                if (newer(m.group(1), SLES15_GLIBC[0] + "." + SLES15_GLIBC[1])) {
                    tooNew.add(e.getKey() + ": " + m.group(2) + "@GLIBC_" + m.group(1));
                }
            }
        }
        System.out.println("glibc: " + scanned.size() + " native files read, the newest version asked for is GLIBC_"
                + floor + " (" + floorFile + "); bin/apbasil needs " + newestOf(home.resolve("bin/apbasil"))
                + ", bin/ledger-prolog " + newestOf(home.resolve("bin/ledger-prolog")));
        assertEquals(List.of(), tooNew, "native code in the tarball that SLES 15's glibc " + SLES15_GLIBC[0] + "."
                + SLES15_GLIBC[1] + " cannot load (the runtime comes from the JDK runtime.sh chose: set"
                + " ALPSBRIDGE_RUNTIME_JDK to one built against an older glibc, e.g. Temurin's; the C programs come from"
                + " dist/src/build/glibc-compat.sh)");
    }

    /**
     * The C programs, built against glibc's old symbol versions with their own start-up (glibc-compat.h), still start
     * here and run as the packages' copies do: the usage on stdout, exit 0.
     */
    @Test
    void theTarballsCProgramsStartOnTheBuildHost() throws Exception {
        for (String program : List.of("bin/apbasil", "bin/ledger-prolog")) {
            Path p = home.resolve(program);
            InstallHost.require(Files.isRegularFile(p) && isElf(p), program + " is native only on amd64 Linux builds");
            Shell.Result r = Shell.run(p.toString(), "--help");
            assertEquals(0, r.status(), program + ": " + r.err());
            assertTrue(r.out().startsWith("Usage: " + p.getFileName()), program + ": " + r.out());
        }
    }

    @AfterAll
    void removeTheCopy() throws Exception {
        if (unpacked != null) {
            Shell.run("rm", "-rf", unpacked.toString()).ok();
        }
    }

    /** The jar's Linux x86-64 libraries, copied out under DIR, by "JAR!ENTRY". */
    private static Map<String, Path> linuxLibrariesIn(Path jar, Path dir) throws IOException {
        Map<String, Path> found = new TreeMap<>();
        try (ZipFile zip = new ZipFile(jar.toFile())) {
            for (ZipEntry entry : zip.stream().filter(e -> LINUX_X86_64_LIBRARY.matcher(e.getName()).matches()).toList()) {
                Path copy = dir.resolve(jar.getFileName() + "-" + entry.getName().replace('/', '_'));
                try (InputStream in = zip.getInputStream(entry)) {
                    Files.copy(in, copy);
                }
                found.put(jar.getFileName() + "!" + entry.getName(), copy);
            }
        }
        return found;
    }

    private static boolean isElf(Path p) throws IOException {
        try (InputStream in = Files.newInputStream(p)) {
            byte[] magic = in.readNBytes(4);
            return magic.length == 4 && magic[0] == 0x7f && magic[1] == 'E' && magic[2] == 'L' && magic[3] == 'F';
        }
    }

    private static String newestOf(Path elf) throws Exception {
        if (!Files.exists(elf) || !isElf(elf)) {
            return "(not a native file here)";
        }
        String newest = "2.0";
        Matcher m = GLIBC_VERSION.matcher(Shell.run("objdump", "-T", elf.toString()).ok().out());
        while (m.find()) {
            newest = newer(m.group(1), newest) ? m.group(1) : newest;
        }
        return "GLIBC_" + newest;
    }

    /** Whether glibc version A (2.N or 2.N.M) is newer than B. */
    static boolean newer(String a, String b) {
        String[] x = a.split("\\.");
        String[] y = b.split("\\.");
        for (int i = 0; i < Math.max(x.length, y.length); i++) {
            int xi = i < x.length ? Integer.parseInt(x[i]) : 0;
            int yi = i < y.length ? Integer.parseInt(y[i]) : 0;
            if (xi != yi) {
                return xi > yi;
            }
        }
        return false;
    }
}
