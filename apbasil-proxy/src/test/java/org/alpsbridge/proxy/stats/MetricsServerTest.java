package org.alpsbridge.proxy.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.net.HttpURLConnection;
import java.net.InetSocketAddress;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class MetricsServerTest {

    /** In this module's loopback port range (19200-19299). */
    static final int PORT = 19251;

    @Test
    void metricsPathServesPrometheusTextAndOtherPathsAre404() throws Exception {
        Stats stats = new Stats();
        stats.counter(ProxyMetric.ORPHANS_FOUND).increment("job-gone");
        try (MetricsServer server = MetricsServer.start(new InetSocketAddress("127.0.0.1", PORT), () -> stats.snapshot().prometheus())) {
            HttpURLConnection ok = open(server, "/metrics");
            assertEquals(200, ok.getResponseCode());
            assertEquals(MetricsServer.CONTENT_TYPE, ok.getContentType());
            String body;
            try (InputStream in = ok.getInputStream()) {
                body = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            }
            assertTrue(body.contains("alpsbridge_proxy_orphans_found_total{reason=\"job-gone\"} 1"), body);

            assertEquals(404, open(server, "/").getResponseCode());
            HttpURLConnection post = open(server, "/metrics");
            post.setRequestMethod("POST");
            post.setDoOutput(true);
            post.getOutputStream().close();
            assertEquals(405, post.getResponseCode());
        }
    }

    @Test
    void anAddressInUseIsReportedByName() throws Exception {
        try (MetricsServer first = MetricsServer.start(new InetSocketAddress("127.0.0.1", PORT + 1), () -> "")) {
            IllegalStateException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalStateException.class,
                    () -> MetricsServer.start(new InetSocketAddress("127.0.0.1", PORT + 1), () -> ""));
            assertTrue(e.getMessage().contains(String.valueOf(PORT + 1)), e.getMessage());
        }
    }

    private static HttpURLConnection open(MetricsServer server, String path) throws Exception {
        HttpURLConnection c = (HttpURLConnection) new URL("http://127.0.0.1:" + server.address().getPort() + path).openConnection();
        c.setConnectTimeout(5000);
        c.setReadTimeout(5000);
        return c;
    }
}
