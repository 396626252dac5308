package org.alpsbridge.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** What dist's build leaves for the package tests to read: where, the packages' names, and a file glob. */
final class Built {

    static final Path TARGET = Path.of("target").toAbsolutePath();
    static final Path RPMS = TARGET.resolve("rpmbuild/RPMS/x86_64");
    static final Path SRC = Path.of("src").toAbsolutePath();
    /** Every package the build makes where its profile is on (dist's pom says when each is built). */
    static final List<String> PACKAGES = List.of("alpsbridge", "alpsbridge-apbasil", "alpsbridge-ledger-hooks",
            "alpsbridge-spank", "alpsbridge-slurmctld-plugins");

    private Built() {
    }

    /** The files of {@code dir} that {@code pattern} (a glob within one path component) names, sorted. */
    static List<String> glob(Path dir, String pattern) throws IOException {
        List<String> found = new ArrayList<>();
        try (var paths = Files.newDirectoryStream(dir, pattern)) {
            paths.forEach(p -> found.add(p.toString()));
        }
        return found.stream().sorted().toList();
    }
}
