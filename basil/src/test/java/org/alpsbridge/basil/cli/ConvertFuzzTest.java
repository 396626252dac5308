package org.alpsbridge.basil.cli;

import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryFile;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.Arrays;
import org.alpsbridge.basil.codec.BasilException;

/**
 * Coverage-guided fuzzing of {@code basil convert}: whatever document goes in, either a refusal naming the
 * problem, or a document in the target version that {@code basil check} accepts. Seeds: the fixtures (the
 * first byte picks the target version, the rest is the document).
 */
class ConvertFuzzTest {

    private static final String[] VERSIONS = {"1.0", "1.1", "1.2", "1.3", "1.4", "1.7"};

    @FuzzTest
    @DictionaryFile(resourcePath = "/org/alpsbridge/basil/codec/basil.dict")
    void whatConvertWritesBasilCheckAccepts(FuzzedDataProvider data) throws IOException {
        String target = VERSIONS[data.consumeInt(0, VERSIONS.length - 1)];
        byte[] document = data.consumeRemainingAsBytes();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        try {
            new Converter(target).convert(Arrays.copyOf(document, Math.min(document.length, 64 * 1024)),
                    () -> new ByteArrayInputStream(document), out);
        } catch (BasilException refused) {
            assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank(), "a refusal names the problem");
            return;
        }
        try {
            String described = Documents.describe(out.toByteArray());
            assertTrue(described.contains(target), "converted to " + target + ": " + described);
        } catch (BasilException e) {
            throw new AssertionError("basil check refuses what basil convert wrote (" + target + "): " + e.getMessage()
                    + "\n" + out.toString(java.nio.charset.StandardCharsets.US_ASCII), e);
        }
    }
}
