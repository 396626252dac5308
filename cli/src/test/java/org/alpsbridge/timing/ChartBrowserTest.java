package org.alpsbridge.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The chart as an operator sees it: rendered by a real browser (Debian's headless Chromium), every piece of text,
 * the title and the legend included, lies inside the picture. A page around the SVG measures each text's box
 * with the browser's own layout ({@code getBBox}) and writes what sticks out; the test reads the page back.
 */
class ChartBrowserTest {

    private static final String MEASURE = """
            <!DOCTYPE html><html><body>%s<pre id="result"></pre><script>
            const svg = document.querySelector('svg');
            const w = svg.width.baseVal.value, h = svg.height.baseVal.value;
            const out = [];
            for (const t of svg.querySelectorAll('text')) {
              const b = t.getBBox();
              if (b.x < 0 || b.y < 0 || b.x + b.width > w || b.y + b.height > h) {
                out.push('CUT ' + Math.round(b.x + b.width) + '>' + w + ' ' + t.textContent);
              }
            }
            document.getElementById('result').textContent = 'texts=' + svg.querySelectorAll('text').length
                + ' width=' + w + '\\n' + out.join('\\n');
            </script></body></html>
            """;

    @Test
    void theDemosTitleAndLegendFitTheChartWithFewMethods(@TempDir Path dir) throws Exception {
        Recorder on = new Recorder("on-system (straight into ALPS)");
        Recorder off = new Recorder("off-system (through the proxy)");
        for (int i = 1; i <= 50; i++) {
            on.record("QUERY/ENGINE", i * 1_000L, 300, false);
            off.record("QUERY/ENGINE", i * 3_000L, 300, false);
            on.record("RESERVE", i * 20_000L, 400, false);
            off.record("RESERVE", i * 25_000L, 400, false);
        }
        String page = measure(dir, new Report(List.of(on, off)),
                "BASIL calls, 1000 jobs, xc30:2256 (WWW MMM): on-system vs off-system");
        assertTrue(page.startsWith("texts="), page);
        assertEquals(1, page.strip().split("\n").length, "text outside the picture:\n" + page);
    }

    @Test
    void theMeasurementSeesTextThatIsCutOff(@TempDir Path dir) throws Exception {
        // The page itself must be able to fail: an SVG narrower than its title is reported.
        Path svg = dir.resolve("narrow.svg");
        Files.writeString(svg, "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"100\" height=\"40\">"
                + "<text x=\"10\" y=\"20\">a title much wider than one hundred pixels</text></svg>");
        String page = render(dir, Files.readString(svg));
        assertTrue(page.contains("CUT"), page);
    }

    private static String measure(Path dir, Report report, String title) throws Exception {
        Path svg = dir.resolve("chart.svg");
        Chart.writeSvg(report, title, svg);
        return render(dir, Files.readString(svg, StandardCharsets.UTF_8));
    }

    private static String render(Path dir, String svg) throws Exception {
        String chromium = chromium();
        Path html = dir.resolve("measure.html");
        Files.writeString(html, String.format(MEASURE, svg), StandardCharsets.UTF_8);
        Process p = new ProcessBuilder(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                "--user-data-dir=" + dir.resolve("profile"), "--virtual-time-budget=2000", "--dump-dom",
                html.toUri().toString())
                .redirectError(dir.resolve("chromium.log").toFile()).start();
        byte[] dom = p.getInputStream().readAllBytes();
        if (!p.waitFor(120, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            fail("chromium did not finish; see " + dir.resolve("chromium.log"));
        }
        Matcher m = Pattern.compile("<pre id=\"result\">(.*?)</pre>", Pattern.DOTALL)
                .matcher(new String(dom, StandardCharsets.UTF_8));
        assertTrue(m.find(), "no result in the page chromium rendered: " + Files.readString(dir.resolve("chromium.log")));
        return m.group(1);
    }

    private static String chromium() throws IOException {
        for (String name : List.of("/usr/bin/chromium", "/usr/bin/chromium-browser")) {
            if (Files.isExecutable(Path.of(name))) {
                return name;
            }
        }
        if ("1".equals(System.getenv("ALPSBRIDGE_REQUIRE_SERVICES"))) {
            fail("chromium is not installed, but ALPSBRIDGE_REQUIRE_SERVICES=1 (.ci/install-deps installs it)");
        }
        Assumptions.assumeTrue(false, "chromium is not installed (apt-get install chromium)");
        return null;
    }
}
