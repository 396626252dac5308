package org.alpsbridge.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;

/**
 * A daemon's metrics table in the operator's guide held equal to its declarations, for the tests of each daemon that
 * exports metrics. {@code -Dalpsbridge.docs.write=true} rewrites the table from the declarations first: how the guide
 * follows a metric declared, renamed or re-worded.
 */
public final class MetricsGuide {

    /** docs/operator-guide.md, from a module's directory (where its tests run). */
    public static final Path OPERATOR_GUIDE = Path.of("../docs/operator-guide.md");

    private MetricsGuide() {
    }

    /** Fails when the section {@code name} of {@code guide} is not {@link MetricsDocs#table} of {@code declared}. */
    public static void assertTableIsTheDeclarations(Path guide, String name, List<Metric> declared) throws IOException {
        String table = MetricsDocs.table(declared);
        if (Boolean.getBoolean("alpsbridge.docs.write")) {
            MetricsDocs.write(guide, name, table);
        }
        assertEquals(table, MetricsDocs.section(guide, name), guide + ": the table metrics:" + name
                + " differs from its declarations: run this test with -Dalpsbridge.docs.write=true");
    }
}
