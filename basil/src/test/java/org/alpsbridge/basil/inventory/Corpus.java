package org.alpsbridge.basil.inventory;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;

/**
 * The shared corpus of real and fixture BASIL documents ({@code shared/basil/corpus}). It lives beside the
 * repository, not in it (some sources' licences forbid copying); found through {@code ALPSBRIDGE_CORPUS} or by
 * looking upwards from the working directory.
 */
public final class Corpus {

    private Corpus() {
    }

    public static Optional<Path> directory() {
        String env = System.getenv("ALPSBRIDGE_CORPUS");
        if (env != null && !env.isEmpty()) {
            return Optional.of(Paths.get(env)).filter(Files::isDirectory);
        }
        for (Path p = Paths.get("").toAbsolutePath(); p != null; p = p.getParent()) {
            Path candidate = p.resolve("shared/basil/corpus");
            if (Files.isDirectory(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }

    /** Every {@code .xml} document of the corpus, sorted by name. */
    public static List<Path> documents() throws IOException {
        Path dir = directory().orElseThrow();
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.toString().endsWith(".xml")).sorted().toList();
        }
    }

    public static Path document(String name) {
        return directory().orElseThrow().resolve(name);
    }
}
