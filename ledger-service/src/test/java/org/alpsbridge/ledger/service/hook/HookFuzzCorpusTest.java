package org.alpsbridge.ledger.service.hook;

import java.nio.file.Path;
import org.alpsbridge.slurm.harness.FuzzCorpus;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ledger hooks' fuzz targets (src/main/c/fuzz: hook-core's settings and reply readers, site_factor's file reader)
 * replayed over their committed corpus under AddressSanitizer and UndefinedBehaviorSanitizer (gcc, no libFuzzer):
 * every input a campaign (.ci/fuzz-campaigns) found, once fixed and committed, runs again in every test run.
 */
class HookFuzzCorpusTest {

    @ParameterizedTest
    @ValueSource(strings = {"settings", "reply", "site-factors"})
    void theCorpusReplaysCleanly(String target) throws Exception {
        FuzzCorpus.assertReplaysCleanly(Path.of("src/main/c"), Path.of("target/c"), target);
    }
}
