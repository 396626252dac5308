package org.alpsbridge.affinity.spank;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The SPANK plugin's fuzz targets (spank/fuzz: the user's option words, the agent's reply, the generator's task
 * lines) replayed over their committed corpus, built with gcc under AddressSanitizer and UndefinedBehaviorSanitizer,
 * so the default run needs no clang. The campaigns themselves (libFuzzer, clang) run from .ci/fuzz-campaigns; an
 * input they find goes into the corpus once fixed, and from then on every test run replays it here.
 */
class SpankFuzzCorpusTest {

    @ParameterizedTest
    @ValueSource(strings = {"words", "reply", "tasks"})
    void theCorpusReplaysCleanly(String target) throws Exception {
        Path out = Path.of("target", "spank-fuzz").toAbsolutePath();
        assertEquals("", run("make", "-s", "-C", "spank", "OUT=" + out, "replay").replaceAll("(?m)^make.*\n", ""));
        Path corpus = Path.of("spank/fuzz/corpus", target);
        long inputs;
        try (var files = Files.list(corpus)) {
            inputs = files.count();
        }
        assertTrue(inputs >= 5, "a corpus for " + target);
        String report = run(out.resolve("fuzz-replay-" + target).toString(), corpus.toString());
        assertTrue(report.contains("replayed " + inputs + " inputs"), report);
    }

    private static String run(String... argv) throws Exception {
        Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(300, TimeUnit.SECONDS), String.join(" ", argv) + " finishes");
        assertEquals(0, p.exitValue(), String.join(" ", argv) + ":\n" + out);
        return out;
    }
}
