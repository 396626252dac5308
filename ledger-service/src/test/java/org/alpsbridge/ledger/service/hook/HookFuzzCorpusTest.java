package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.alpsbridge.slurm.harness.Programs;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The ledger hooks' fuzz targets (src/main/c/fuzz: hook-core's settings and reply readers, site_factor's file reader)
 * replayed over their committed corpus, built with gcc under AddressSanitizer and UndefinedBehaviorSanitizer, so the
 * default run needs no clang. The campaigns (libFuzzer, clang) run from .ci/fuzz-campaigns; an input they find goes
 * into the corpus once fixed, and from then on every test run replays it here.
 */
class HookFuzzCorpusTest {

    @ParameterizedTest
    @ValueSource(strings = {"settings", "reply", "site-factors"})
    void theCorpusReplaysCleanly(String target) throws Exception {
        if (Programs.find("make") == null || Programs.find("cc") == null) {
            Programs.unavailable("make and cc are not installed: the hooks' fuzz targets cannot be built");
        }
        Path out = Path.of("target", "c").toAbsolutePath();
        Programs.Result make = Programs.run(List.of("make", "-s", "-C", "src/main/c", "OUT=" + out, "replay"), Map.of(),
                Duration.ofMinutes(5));
        assertEquals(0, make.exit(), make.out() + make.err());
        Path corpus = Path.of("src/main/c/fuzz/corpus", target);
        long inputs;
        try (var files = Files.list(corpus)) {
            inputs = files.count();
        }
        assertTrue(inputs >= 5, "a corpus for " + target);
        Programs.Result replay = Programs.run(List.of(out.resolve("fuzz-replay-" + target).toString(), corpus.toString()),
                Map.of(), Duration.ofMinutes(5));
        assertEquals(0, replay.exit(), replay.out() + replay.err());
        assertTrue(replay.out().contains("replayed " + inputs + " inputs"), replay.out());
    }
}
