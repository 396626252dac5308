package org.alpsbridge.dist;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The shipped alert rules ({@code src/prometheus/alpsbridge-rules.yml}) as the real Prometheus reads them:
 * {@code promtool check rules}, then {@code promtool test rules} on {@code src/test/prometheus}, where every alert
 * has a case where it fires and one where it stays quiet; every runbook link lands on a section of the operator's
 * guide, and every metric the rules and the dashboard read is one the guide's tables (generated from the
 * declarations) list.
 */
class AlertRulesTest {

    static final Path RULES = Path.of("src/prometheus/alpsbridge-rules.yml");
    static final Path TESTS = Path.of("src/test/prometheus/alpsbridge-rules.test.yml");
    static final Path DASHBOARD = Path.of("src/prometheus/alpsbridge-dashboard.json");
    static final Path GUIDE = Path.of("../docs/operator-guide.md");

    @BeforeEach
    void promtool() {
        InstallHost.require(Files.isExecutable(Path.of("/usr/bin/promtool")),
                "promtool is not installed (Debian package prometheus; .ci/install-deps installs it)");
    }

    static Set<String> alerts() throws Exception {
        return all(Pattern.compile("(?m)^\\s*- alert: (\\w+)$"), Files.readString(RULES));
    }

    @Test
    void promtoolChecksTheRules() throws Exception {
        Shell.Result r = Shell.run("promtool", "check", "rules", RULES.toString());
        assertEquals(0, r.status(), r.out() + r.err());
        assertTrue(r.out().contains("SUCCESS: " + alerts().size() + " rules found"), r.out());
    }

    @Test
    void promtoolRunsEveryAlertsTestsAndTheyPass() throws Exception {
        Shell.Result r = Shell.run("promtool", "test", "rules", TESTS.toString());
        assertEquals(0, r.status(), r.out() + r.err());
    }

    @Test
    void everyAlertHasACaseWhereItFiresAndOneWhereItStaysQuiet() throws Exception {
        String tests = Files.readString(TESTS);
        Set<String> firing = all(Pattern.compile("(?m)alertname: (\\w+)\\n\\s+exp_alerts:\\n\\s+- exp_labels"), tests);
        Set<String> quiet = all(Pattern.compile("(?m)alertname: (\\w+)\\n\\s+exp_alerts: \\[\\]"), tests);
        assertEquals(alerts(), firing, "alerts with a firing case");
        assertEquals(alerts(), quiet, "alerts with a quiet case");
    }

    @Test
    void everyAlertHasASeverityASummaryAndARunbookSectionInTheGuide() throws Exception {
        String rules = Files.readString(RULES);
        Set<String> anchors = new TreeSet<>();
        for (String line : Files.readAllLines(GUIDE)) {
            if (line.startsWith("#")) {
                anchors.add(line.replaceFirst("^#+ ", "").toLowerCase(Locale.ROOT).replaceAll("[^a-z0-9 _-]", "")
                        .replace(' ', '-'));
            }
        }
        for (String block : rules.split("(?m)^\\s*- alert: ")) {
            if (!block.startsWith("Alpsbridge")) {
                continue;
            }
            String alert = block.substring(0, block.indexOf('\n'));
            assertTrue(block.matches("(?s).*labels: \\{severity: (critical|warning|info)\\b.*"), alert + ": severity");
            assertTrue(block.contains("summary: \""), alert + ": summary");
            Matcher link = Pattern.compile("runbook_url: /usr/share/doc/alpsbridge/operator-guide.md#(\\S+)").matcher(block);
            assertTrue(link.find(), alert + ": runbook_url");
            assertEquals(alert.toLowerCase(Locale.ROOT), link.group(1), alert + ": its runbook is its own section");
            assertTrue(anchors.contains(link.group(1)), alert + ": no section #" + link.group(1) + " in " + GUIDE);
        }
    }

    @Test
    void theRulesAndTheDashboardReadOnlyDocumentedMetrics() throws Exception {
        Set<String> documented = all(Pattern.compile("(?m)^\\| `(alpsbridge_[a-z_]+)` \\|"), Files.readString(GUIDE));
        assertTrue(documented.size() > 30, "the guide's metrics tables: " + documented);
        Pattern used = Pattern.compile("alpsbridge_[a-z_]+");
        for (Path file : new Path[] {RULES, DASHBOARD}) {
            for (String name : all(used, Files.readString(file))) {
                String family = name.replaceFirst("_(sum|count|bucket)$", "");
                // a regular expression's alternation (alpsbridge_(proxy|ledger_service)_...) is not a name
                if (!name.endsWith("_")) {
                    assertTrue(documented.contains(name) || documented.contains(family), file + " reads " + name
                            + ", which docs/operator-guide.md does not list");
                }
            }
        }
    }

    private static Set<String> all(Pattern p, String text) {
        Set<String> out = new TreeSet<>();
        Matcher m = p.matcher(text);
        while (m.find()) {
            out.add(m.group(m.groupCount() == 0 ? 0 : 1));
        }
        return out;
    }
}
