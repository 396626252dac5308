package org.alpsbridge.metrics;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class MetricsGuideTest {

    private static final List<Metric> DECLARED = List.of(Metric.gauge("x_up", "Up."));

    @TempDir
    Path dir;

    @Test
    void aGuideWhoseTableIsTheDeclarationsPasses() throws Exception {
        Path guide = Files.writeString(dir.resolve("guide.md"),
                "# Metrics\n<!-- metrics:x -->\n" + MetricsDocs.table(DECLARED) + "<!-- /metrics:x -->\n");
        MetricsGuide.assertTableIsTheDeclarations(guide, "x", DECLARED);
    }

    @Test
    void aGuideBehindItsDeclarationsFailsSayingHowToRewriteIt() throws Exception {
        Path guide = Files.writeString(dir.resolve("guide.md"),
                "# Metrics\n<!-- metrics:x -->\n" + MetricsDocs.table(List.of()) + "<!-- /metrics:x -->\n");
        AssertionError failure = assertThrows(AssertionError.class,
                () -> MetricsGuide.assertTableIsTheDeclarations(guide, "x", DECLARED));
        assertTrue(failure.getMessage().contains("metrics:x differs from its declarations: run this test with"
                + " -Dalpsbridge.docs.write=true"), failure.getMessage());
    }
}
