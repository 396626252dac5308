package org.alpsbridge.basil.model;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import jakarta.xml.bind.JAXBContext;
import jakarta.xml.bind.Marshaller;
import java.io.StringWriter;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import javax.xml.transform.dom.DOMSource;
import org.alpsbridge.basil.inventory.Corpus;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;
import org.xmlunit.builder.DiffBuilder;
import org.xmlunit.diff.DefaultNodeMatcher;
import org.xmlunit.diff.Diff;
import org.xmlunit.diff.ElementSelectors;

/** Every Inventory and System element of the corpus survives unmarshal → marshal (XMLUnit-similar). */
class InventoryModelRoundTripTest {

    @BeforeAll
    static void corpusPresent() {
        assumeTrue(Corpus.directory().isPresent(), "shared/basil/corpus not found; set ALPSBRIDGE_CORPUS");
    }

    static List<Path> corpus() throws Exception {
        return Corpus.directory().isPresent() ? Corpus.documents() : List.of();
    }

    @ParameterizedTest
    @MethodSource("corpus")
    void inventoryContentRoundTripsSimilar(Path file) throws Exception {
        DocumentBuilderFactory dbf = DocumentBuilderFactory.newInstance();
        dbf.setNamespaceAware(true);
        Document doc = dbf.newDocumentBuilder().parse(file.toFile());
        NodeList inventories = doc.getElementsByTagName("Inventory");
        for (int i = 0; i < inventories.getLength(); i++) {
            Element original = (Element) inventories.item(i);
            if (!"ResponseData".equals(original.getParentNode().getNodeName())) {
                continue;
            }
            JAXBContext ctx = JAXBContext.newInstance(Inventory.class);
            Inventory inventory = ctx.createUnmarshaller().unmarshal(new DOMSource(original), Inventory.class)
                    .getValue();
            StringWriter out = new StringWriter();
            Marshaller m = ctx.createMarshaller();
            m.setProperty(Marshaller.JAXB_FRAGMENT, true);
            m.marshal(inventory, out);
            Diff diff = DiffBuilder.compare(original).withTest(out.toString())
                    .ignoreWhitespace().normalizeWhitespace()
                    .withNodeMatcher(new DefaultNodeMatcher(ElementSelectors.byName))
                    .checkForSimilar().build();
            assertFalse(diff.hasDifferences(), file.getFileName() + ": " + diff);
        }
    }
}
