package org.alpsbridge.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The documentation a site reads holds: every link in every Markdown file resolves (file and heading), the guides'
 * {@code ```sh} blocks run here as written, no user-facing page names an issue number, and the README's first screen
 * has the picture and the two commands.
 *
 * <p>A guide's {@code ```sh} block is a promise that it runs on a fresh machine with {@code alpsbridge} on the PATH; a
 * command that needs a site (root, systemd, a Cray, another host) is fenced {@code ```shell} instead and not run. A
 * guide's blocks run in order as one script (its variables carry across), in an empty directory that is also
 * {@code $HOME}, after the guide's set-up script under {@code src/test/resources/guides/} if it has one (the state a
 * reader would already have, e.g. a ledger with a project).
 */
class GuidesTest {

    private static final Path ROOT = Path.of(System.getProperty("user.dir")).getParent();
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");
    private static final Pattern HEADING = Pattern.compile("^#+\\s+(.*)$");
    private static final Pattern ISSUE_NUMBER = Pattern.compile("\\b[Ii]ssues? #?\\d+");
    /** Installed quick starts: their blocks need the installed packages, and the packages' install tests run them. */
    private static final Set<String> RUN_BY_INSTALL_TESTS = Set.of("install-rpm.md");

    @TempDir
    Path work;

    @Test
    void everyLinkInEveryMarkdownFileResolvesToAFileAndHeading() throws IOException {
        List<String> broken = new ArrayList<>();
        for (Path md : markdownFiles()) {
            List<String> lines = Files.readAllLines(md);
            boolean fence = false;
            for (int i = 0; i < lines.size(); i++) {
                String line = lines.get(i);
                if (line.startsWith("```")) {
                    fence = !fence;
                    continue;
                }
                if (fence) {
                    continue;
                }
                Matcher m = LINK.matcher(line);
                while (m.find()) {
                    String target = m.group(1);
                    if (target.matches("[a-z]+:.*")) {
                        continue; // http:, https:, mailto: — not followed (no network here)
                    }
                    int hash = target.indexOf('#');
                    String file = hash < 0 ? target : target.substring(0, hash);
                    Path to = file.isEmpty() ? md : md.getParent().resolve(file).normalize();
                    String where = ROOT.relativize(md) + ":" + (i + 1) + ": " + target;
                    if (!Files.exists(to)) {
                        broken.add(where + " (no such file)");
                    } else if (hash >= 0 && to.toString().endsWith(".md")
                            && !anchors(to).contains(target.substring(hash + 1))) {
                        broken.add(where + " (no such heading)");
                    }
                }
            }
        }
        assertEquals(List.of(), broken);
    }

    @Test
    void noUserFacingPageNamesAnIssueNumber() throws IOException {
        List<String> found = new ArrayList<>();
        for (Path md : markdownFiles()) {
            List<String> lines = Files.readAllLines(md);
            for (int i = 0; i < lines.size(); i++) {
                if (ISSUE_NUMBER.matcher(lines.get(i)).find()) {
                    found.add(ROOT.relativize(md) + ":" + (i + 1) + ": " + lines.get(i).strip());
                }
            }
        }
        try (Stream<Path> docs = Files.list(ROOT.resolve("dist/src/doc"))) {
            for (Path doc : (Iterable<Path>) docs::iterator) {
                if (ISSUE_NUMBER.matcher(Files.readString(doc)).find()) {
                    found.add(ROOT.relativize(doc).toString());
                }
            }
        }
        assertEquals(List.of(), found);
    }

    @Test
    void theReadmesFirstScreenHasThePictureTheTwoCommandsAndTheGuides() throws IOException {
        List<String> first = Files.readAllLines(ROOT.resolve("README.md")).subList(0, 40);
        String screen = String.join("\n", first);
        assertTrue(screen.contains("bin/alpsbridge demo"), screen);
        assertTrue(screen.contains("mvn -B verify"), screen);
        assertTrue(screen.contains("slurmctld") && screen.contains("srun") && screen.contains("ledger service"),
                "the picture of the parts and their data flow: " + screen);
        for (String guide : List.of("admin-guide", "operator-guide", "user-guide", "architecture", "benchmarks")) {
            assertTrue(screen.contains("docs/" + guide + ".md"), guide + " linked from the first screen");
        }
        assertTrue(!Pattern.compile("\\bCI\\b").matcher(screen).find(), "no CI and its timings on the first screen");
    }

    @Test
    void everyRunnableBlockOfTheGuidesRunsAsWritten() throws Exception {
        Path bin = Files.createDirectories(work.resolve("bin"));
        launcher(bin.resolve("alpsbridge"));
        int guides = 0;
        int blocks = 0;
        try (Stream<Path> docs = Files.list(ROOT.resolve("docs"))) {
            for (Path guide : docs.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> !RUN_BY_INSTALL_TESTS.contains(p.getFileName().toString())).sorted().toList()) {
                List<String> script = shBlocks(guide);
                if (script.isEmpty()) {
                    continue;
                }
                guides++;
                blocks += script.size();
                String name = guide.getFileName().toString().replace(".md", "");
                Path home = Files.createDirectories(work.resolve("home-" + name));
                StringBuilder all = new StringBuilder("set -euo pipefail\n");
                Path setup = Path.of("src/test/resources/guides/" + name + ".setup.sh").toAbsolutePath();
                if (Files.exists(setup)) {
                    all.append("source '").append(setup).append("'\n");
                }
                script.forEach(b -> all.append(b).append('\n'));
                ProcessBuilder pb = new ProcessBuilder("bash", "-c", all.toString())
                        .directory(home.toFile()).redirectErrorStream(true);
                pb.environment().keySet().removeIf(k -> k.startsWith("ALPSBRIDGE_") || k.startsWith("APBASIL_"));
                pb.environment().put("HOME", home.toString());
                pb.environment().put("PATH", bin + ":/usr/bin:/bin");
                Process p = pb.start();
                p.getOutputStream().close();
                byte[] out = p.getInputStream().readAllBytes();
                assertTrue(p.waitFor(5, TimeUnit.MINUTES), name);
                assertEquals(0, p.exitValue(), "the ```sh blocks of docs/" + name + ".md, run in order:\n" + all
                        + "\nprinted:\n" + new String(out, StandardCharsets.UTF_8));
            }
        }
        assertTrue(guides >= 2 && blocks >= 3, "guides with runnable blocks: " + guides + ", blocks: " + blocks);
    }

    /** An {@code alpsbridge} on the PATH that runs this build's classes, as the installed launcher runs the jar. */
    private static void launcher(Path at) throws IOException {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        Files.writeString(at, "#!/bin/sh\nexec '" + java + "' -XX:TieredStopAtLevel=1 -Xshare:auto -cp '"
                + System.getProperty("java.class.path") + "' org.alpsbridge.cli.Main \"$@\"\n");
        Files.setPosixFilePermissions(at, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static List<String> shBlocks(Path md) throws IOException {
        List<String> blocks = new ArrayList<>();
        StringBuilder block = null;
        for (String line : Files.readAllLines(md)) {
            if (block == null && line.equals("```sh")) {
                block = new StringBuilder();
            } else if (block != null && line.startsWith("```")) {
                blocks.add(block.toString());
                block = null;
            } else if (block != null) {
                block.append(line).append('\n');
            }
        }
        return blocks;
    }

    /** The ids GitHub gives a file's headings: lower case, punctuation dropped, spaces as '-', repeats numbered. */
    private static Set<String> anchors(Path md) throws IOException {
        Set<String> ids = new HashSet<>();
        boolean fence = false;
        for (String line : Files.readAllLines(md)) {
            if (line.startsWith("```")) {
                fence = !fence;
            }
            Matcher m = HEADING.matcher(line);
            if (!fence && m.matches()) {
                String id = m.group(1).strip().toLowerCase().replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
                String unique = id;
                for (int n = 1; !ids.add(unique); n++) {
                    unique = id + "-" + n;
                }
            }
        }
        return ids;
    }

    private static List<Path> markdownFiles() {
        try (Stream<Path> all = Files.walk(ROOT)) {
            return all.filter(p -> p.toString().endsWith(".md"))
                    .filter(p -> {
                        Path rel = ROOT.relativize(p);
                        for (Path part : rel) {
                            String s = part.toString();
                            if (s.equals("target") || s.startsWith(".") || s.equals("node_modules")) {
                                return false;
                            }
                        }
                        return true;
                    })
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
