package org.alpsbridge.slurm.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * The shared replayer (plumbing's src/test/c/fuzz-replay.c) with a target that crashes on two inputs
 * (src/test/c/fuzz-target-crashes.c), built as the C directories build theirs (gcc, ASan+UBSan): a clean corpus
 * passes, and a corpus with a crashing input fails naming that input, whether the target aborts or AddressSanitizer
 * stops it.
 */
class FuzzCorpusTest {

    @TempDir
    static Path build;

    private static Path replayer;

    @BeforeAll
    static void buildTheReplayer() throws Exception {
        replayer = build.resolve("fuzz-replay-crashes");
        Process cc = new ProcessBuilder("cc", "-O1", "-g", "-Wall", "-Wextra", "-Werror", "-std=gnu11",
                "-fsanitize=address,undefined", "-fno-sanitize-recover=all", "-o", replayer.toString(),
                "../plumbing/src/test/c/fuzz-replay.c", "src/test/c/fuzz-target-crashes.c").redirectErrorStream(true).start();
        String said = new String(cc.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(cc.waitFor(120, TimeUnit.SECONDS), "cc finishes");
        assertEquals(0, cc.exitValue(), said);
    }

    @Test
    void aCorpusItTakesReplaysCleanly(@TempDir Path corpus) throws Exception {
        seeds(corpus);
        FuzzCorpus.assertReplaysCleanly(replayer, corpus);
    }

    /** The target aborting on its own, or AddressSanitizer stopping it (its report then in the failure). */
    @ParameterizedTest
    @CsvSource({"abort, crash-abort", "overflow, heap-buffer-overflow"})
    void anInputThatCrashesTheTargetFailsTheReplayNamed(String input, String alsoSaid, @TempDir Path corpus)
            throws Exception {
        seeds(corpus);
        Files.writeString(corpus.resolve("crash-" + input), input);
        AssertionError failure = assertThrows(AssertionError.class,
                () -> FuzzCorpus.assertReplaysCleanly(replayer, corpus));
        assertTrue(failure.getMessage().contains("crashed on " + corpus.resolve("crash-" + input)), failure.getMessage());
        assertTrue(failure.getMessage().contains(alsoSaid), failure.getMessage());
    }

    @Test
    void aCorpusWithoutItsSeedsFails(@TempDir Path corpus) throws Exception {
        Files.writeString(corpus.resolve("only"), "one input");
        AssertionError failure = assertThrows(AssertionError.class,
                () -> FuzzCorpus.assertReplaysCleanly(replayer, corpus));
        assertTrue(failure.getMessage().contains("at least " + FuzzCorpus.SMALLEST + " inputs"), failure.getMessage());
    }

    private static void seeds(Path corpus) throws Exception {
        for (String input : new String[] {"", "a", "abor", "abortx", "overflo", "overflows"}) {
            Files.writeString(corpus.resolve("seed-" + input.length()), input);
        }
    }
}
