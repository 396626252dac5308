package org.alpsbridge.proxy.client;

import java.nio.file.Path;
import org.alpsbridge.slurm.harness.FuzzCorpus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The native client's fuzz targets (src/main/c/fuzz: the settings reader, the reply reader) replayed over their
 * committed corpus under AddressSanitizer and UndefinedBehaviorSanitizer (gcc, no libFuzzer): every input a campaign
 * (.ci/fuzz-campaigns) found, once fixed and committed, runs again in every test run.
 */
class NativeFuzzCorpusTest {

    @ParameterizedTest
    @ValueSource(strings = {"settings", "reply"})
    void theCorpusReplaysCleanly(String target) throws Exception {
        FuzzCorpus.assertReplaysCleanly(Path.of("src/main/c"), Path.of("target/c"), target);
    }
}
