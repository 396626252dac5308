package org.alpsbridge.proxy.policy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.alpsbridge.proxy.stats.ProxyMetric;
import org.junit.jupiter.api.Test;

/** The refresh reasons operators read in the metrics are the ones the proxy's internals page (docs/proxy-internals.md) explains. */
class RefreshReasonTest {

    @Test
    void theReadmeExplainsEveryRefreshReasonAndNoOther() throws Exception {
        String readme = Files.readString(Path.of("../docs/proxy-internals.md"));
        int from = readme.indexOf("`alpsbridge_proxy_policy_refreshes_total{reason=...}`:");
        int to = readme.indexOf("Selective inventories", from);
        assertTrue(from >= 0 && to > from, "docs/proxy-internals.md's list of refresh reasons is where this test looks for it");
        // the reasons are the labels outside parentheses; within them, the page explains (`claims`, ...)
        StringBuilder outside = new StringBuilder();
        int depth = 0;
        for (char c : readme.substring(from, to).toCharArray()) {
            depth += c == '(' ? 1 : c == ')' ? -1 : 0;
            outside.append(depth == 0 ? c : ' ');
        }
        Set<String> listed = new TreeSet<>();
        Matcher label = Pattern.compile("`([a-z]+(?:-[a-z]+)*)`").matcher(outside);
        while (label.find()) {
            listed.add(label.group(1));
        }
        Set<String> counted = Arrays.stream(RefreshReason.values()).map(RefreshReason::label)
                .collect(Collectors.toCollection(TreeSet::new));
        assertEquals(counted, listed);
    }

    @Test
    void everyRefreshReasonIsDeclaredWithTheMetricInItsOrder() {
        assertEquals(Arrays.stream(RefreshReason.values()).map(RefreshReason::label).toList(),
                ProxyMetric.POLICY_REFRESHES.metric().values().get("reason"));
    }
}
