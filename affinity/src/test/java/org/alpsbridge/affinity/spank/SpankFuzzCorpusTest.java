package org.alpsbridge.affinity.spank;

import java.nio.file.Path;
import org.alpsbridge.slurm.harness.FuzzCorpus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The SPANK plugin's fuzz targets (spank/fuzz: the user's option words, the agent's reply, the generator's task
 * lines) replayed over their committed corpus under AddressSanitizer and UndefinedBehaviorSanitizer (gcc, no
 * libFuzzer): every input a campaign (.ci/fuzz-campaigns) found, once fixed and committed, runs again in every test
 * run.
 */
class SpankFuzzCorpusTest {

    @ParameterizedTest
    @ValueSource(strings = {"words", "reply", "tasks"})
    void theCorpusReplaysCleanly(String target) throws Exception {
        FuzzCorpus.assertReplaysCleanly(Path.of("spank"), Path.of("target/spank-fuzz"), target);
    }
}
