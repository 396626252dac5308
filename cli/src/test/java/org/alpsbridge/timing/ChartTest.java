package org.alpsbridge.timing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;

class ChartTest {

    private static Report twoTargets() {
        Recorder a = new Recorder("direct");
        Recorder b = new Recorder("proxy <lab>");
        for (int i = 1; i <= 100; i++) {
            a.record("QUERY/INVENTORY", i * 1_000_000L, 12_000_000, false);
            b.record("QUERY/INVENTORY", i * 1_500_000L, 12_000_000, false);
            a.record("RESERVE", i * 10_000L, 200, i == 1);
            b.record("RESERVE", i * 30_000L, 200, false);
        }
        return new Report(java.util.List.of(a, b));
    }

    @Test
    void theChartIsWellFormedSvgWithOneBarPerMethodAndTarget(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("out/chart.svg");
        Chart.writeSvg(twoTargets(), "title & <more>", file);
        assertEquals(4, bars(parse(file)).size());
    }

    @Test
    void theBarsShareTheWholeWidthUnderALongTitleAndTheTimeAxisIsNamed(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("chart.svg");
        Chart.writeSvg(twoTargets(), "BASIL calls, 1000 jobs, xc30:2256 (modelled latency): on-system vs off-system", file);
        Document doc = parse(file);
        double width = Double.parseDouble(doc.getDocumentElement().getAttribute("width"));
        double rightmost = bars(doc).stream()
                .mapToDouble(r -> Double.parseDouble(r.getAttribute("x")) + Double.parseDouble(r.getAttribute("width")))
                .max().orElse(0);
        assertTrue(rightmost > 0.75 * width, "bars end at " + rightmost + " of " + width);
        assertTrue(doc.getDocumentElement().getTextContent().contains("latency of one call (log scale)"));
    }

    private static Document parse(Path file) throws Exception {
        DocumentBuilderFactory f = DocumentBuilderFactory.newInstance();
        f.setNamespaceAware(true);
        return f.newDocumentBuilder().parse(file.toFile());
    }

    /** The bars: the rectangles with a tooltip (the background and the legend's swatches have none). */
    private static java.util.List<org.w3c.dom.Element> bars(Document doc) {
        java.util.List<org.w3c.dom.Element> out = new java.util.ArrayList<>();
        var rects = doc.getElementsByTagNameNS("http://www.w3.org/2000/svg", "rect");
        for (int i = 0; i < rects.getLength(); i++) {
            if (rects.item(i).getFirstChild() != null) {
                out.add((org.w3c.dom.Element) rects.item(i));
            }
        }
        return out;
    }

    @Test
    void theTableShowsTheMedianRatioAgainstTheFirstTarget() {
        StringWriter out = new StringWriter();
        twoTargets().printTable(new PrintWriter(out));
        assertTrue(out.toString().contains("x1.50"), out::toString);
        assertTrue(out.toString().contains("x3.00"), out::toString);
    }

    @Test
    void jsonCarriesPercentilesPerMethod() {
        StringWriter out = new StringWriter();
        twoTargets().printJson(new PrintWriter(out), java.util.Map.of("note", "a \"quoted\" word"));
        String json = out.toString();
        assertTrue(json.contains("\"RESERVE\":{\"count\":100,\"errors\":1"), json);
        assertTrue(json.contains("\"note\":\"a \\\"quoted\\\" word\""), json);
    }
}
