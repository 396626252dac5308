package org.alpsbridge.basil.cli;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.Probe;
import org.alpsbridge.basil.inventory.Corpus;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;
import org.xmlunit.builder.DiffBuilder;
import org.xmlunit.diff.DefaultNodeMatcher;
import org.xmlunit.diff.Diff;
import org.xmlunit.diff.ElementSelectors;

/** Every document of shared/basil/corpus passes {@code basil check} and round-trips XMLUnit-similar. */
class CorpusWalkTest {

    @BeforeAll
    static void corpusPresent() {
        assumeTrue(Corpus.directory().isPresent(), "shared/basil/corpus not found; set ALPSBRIDGE_CORPUS");
    }

    static List<Path> corpus() throws Exception {
        return Corpus.directory().isPresent() ? Corpus.documents() : List.of();
    }

    @ParameterizedTest
    @MethodSource("corpus")
    void passesCheck(Path file) throws Exception {
        String line = Documents.describe(Files.readAllBytes(file));
        assertTrue(line.startsWith("protocol="), line);
    }

    @ParameterizedTest
    @MethodSource("corpus")
    void roundTripsSimilarIgnoringWhitespaceAndAttributeOrder(Path file) throws Exception {
        byte[] original = Files.readAllBytes(file);
        BasilCodec codec = BasilCodec.standard();
        byte[] written = Probe.of(original).request() ? codec.write(codec.readRequest(original))
                : codec.write(codec.readResponse(original));
        Diff diff = DiffBuilder.compare(original).withTest(written)
                .ignoreWhitespace().normalizeWhitespace().ignoreComments()
                .withNodeMatcher(new DefaultNodeMatcher(ElementSelectors.byName))
                .checkForSimilar().build();
        assertFalse(diff.hasDifferences(), file.getFileName() + ": " + diff + "\n" + new String(written));
    }
}
