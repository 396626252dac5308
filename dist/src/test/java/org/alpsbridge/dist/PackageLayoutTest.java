package org.alpsbridge.dist;

import static org.alpsbridge.dist.Built.PACKAGES;
import static org.alpsbridge.dist.Built.RPMS;
import static org.alpsbridge.dist.Built.SRC;
import static org.alpsbridge.dist.Built.TARGET;
import static org.alpsbridge.dist.Built.glob;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.function.Predicate;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * The one declaration of what goes where (dist/src/layout) is what both kinds of package hold, no more: every file
 * of a built .deb or RPM is declared for that package, and every declaration is held. The .debs are made from the
 * layout (dist/src/build/deb-data.sh), so they are held to its kinds too: the modes and owner each kind gives, and
 * conffiles exactly its {@code conf} paths. Reads the built packages only (dpkg-deb, rpm -qp): no root, no install.
 */
class PackageLayoutTest {

    /** The modes a .deb entry of each kind may have (dpkg-deb -c's first column); directories are all 0755. */
    private static final Map<String, Predicate<String>> DEB_MODES = Map.of(
            "bin", "-rwxr-xr-x"::equals,
            "file", "-rw-r--r--"::equals,
            "conf", "-rw-r--r--"::equals,
            "license", "-rw-r--r--"::equals,
            "doc", "-rw-r--r--"::equals,
            "link", m -> m.startsWith("l"),
            "tree", m -> m.equals("-rw-r--r--") || m.equals("-rwxr-xr-x") || m.startsWith("l"),
            "dir", "drwxr-xr-x"::equals);

    @Test
    void theDebsHoldWhatTheLayoutDeclaresWithTheModesOwnerAndConffilesOfItsKinds() throws Exception {
        assertFalse(glob(TARGET, "alpsbridge_*.deb").isEmpty(), "no alpsbridge .deb in " + TARGET + " (mvn package)");
        for (String pkg : PACKAGES) {
            List<String> debs = glob(TARGET, pkg + "_*.deb");
            if (debs.isEmpty()) {
                continue; // its profile is off on this machine (dist's pom says when each is built)
            }
            String deb = debs.get(0);
            List<DebEntry> entries = Shell.run("dpkg-deb", "-c", deb).ok().out().lines().map(DebEntry::parse).toList();
            List<String> declared = declared("deb", pkg);
            // Every file (and link) declared; a directory only as the parent of one, or declared itself.
            List<String> files = entries.stream().filter(e -> !e.isDirectory()).map(DebEntry::path).toList();
            List<String> dirs = entries.stream().filter(DebEntry::isDirectory).map(DebEntry::path).toList();
            agree(pkg + " .deb", declared, files, dirs);
            for (DebEntry e : entries) {
                assertEquals("root/root", e.owner(), pkg + " .deb: " + e.path());
                String kind = e.isDirectory() ? "dir" : kindOf(declared, e.path());
                assertTrue(DEB_MODES.get(kind).test(e.mode()), pkg + " .deb: " + e.path() + " is " + e.mode()
                        + ", not what the layout's kind " + kind + " gives");
            }
            TreeSet<String> conf = new TreeSet<>();
            for (String line : declared) {
                if (line.startsWith("conf ")) {
                    PathMatcher glob = matcher(line.substring(5));
                    conf.addAll(files.stream().filter(f -> glob.matches(Path.of(f))).toList());
                }
            }
            Shell.Result conffiles = Shell.run("dpkg-deb", "-I", deb, "conffiles");
            TreeSet<String> marked = new TreeSet<>(conffiles.status() == 0 ? conffiles.out().lines().toList() : List.of());
            assertEquals(conf, marked, pkg + " .deb: its conffiles are the layout's conf paths");
        }
    }

    @Test
    void theRpmsHoldWhatTheLayoutDeclares() throws Exception {
        Assumptions.assumeTrue(Files.isDirectory(RPMS), "no RPMs in " + RPMS + " (the rpm profile builds them where"
                + " rpmbuild is installed)");
        for (String pkg : PACKAGES) {
            List<String> rpm = glob(RPMS, pkg + "-[0-9]*-1.x86_64.rpm");
            if (!rpm.isEmpty()) {
                agree(pkg + " RPM", declared("rpm", pkg), Shell.run("rpm", "-qlp", rpm.get(0)).ok().out().lines().toList(),
                        List.of());
            }
        }
    }

    /** One line of {@code dpkg-deb -c}: mode, owner/group, size, date, time, ./path [-> target]. */
    private record DebEntry(String mode, String owner, String path) {

        static DebEntry parse(String line) {
            String[] f = line.split("\\s+", 6);
            String path = f[5].replaceFirst(" -> .*$", "").substring(1);
            return new DebEntry(f[0], f[1], path.endsWith("/") ? path.substring(0, path.length() - 1) : path);
        }

        boolean isDirectory() {
            return mode.startsWith("d");
        }
    }

    /** KIND PATH lines of one package's declared paths (dist/src/rpm/layout-files --paths). */
    private static List<String> declared(String kind, String pkg) throws Exception {
        return Shell.run("bash", SRC.resolve("rpm/layout-files").toString(), "--paths", SRC.resolve("layout").toString(),
                kind, pkg).ok().out().lines().toList();
    }

    /** The kind of the declaration a held path comes from (a tree: the directory and all below it). */
    private static String kindOf(List<String> declared, String path) {
        for (String line : declared) {
            String kind = line.substring(0, line.indexOf(' '));
            String pattern = line.substring(line.indexOf(' ') + 1);
            if (matcher(pattern).matches(Path.of(path)) || kind.equals("tree") && path.startsWith(pattern + "/")) {
                return kind;
            }
        }
        throw new AssertionError(path + " is declared by none of " + declared);
    }

    /**
     * Every path held is declared, and every declaration (a tree: the directory and all below it) holds one;
     * {@code alsoHeld}: what may be held without a declaration of its own (a .deb's parent directories).
     */
    private static void agree(String what, List<String> declared, List<String> held, List<String> alsoHeld) {
        List<String> undeclared = new ArrayList<>(held);
        List<String> all = new ArrayList<>(held);
        all.addAll(alsoHeld);
        for (String line : declared) {
            String kind = line.substring(0, line.indexOf(' '));
            String path = line.substring(line.indexOf(' ') + 1);
            PathMatcher glob = matcher(path);
            List<String> matched = all.stream().filter(h -> glob.matches(Path.of(h))
                    || kind.equals("tree") && h.startsWith(path + "/")).toList();
            assertFalse(matched.isEmpty(), what + " lacks the declared " + line + "; it holds " + held);
            undeclared.removeAll(matched);
        }
        assertEquals(List.of(), undeclared, what + " holds paths the layout does not declare");
    }

    private static PathMatcher matcher(String glob) {
        return FileSystems.getDefault().getPathMatcher("glob:" + glob);
    }
}
