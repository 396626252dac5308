package org.alpsbridge.slurm.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * A C directory's libFuzzer corpora replayed in the default test run, so that an input a campaign found (and that
 * was fixed and committed) is run again by every build. The directory's Makefile builds, on {@code make replay},
 * one {@code OUT/fuzz-replay-TARGET} a target: the target's body linked with plumbing's
 * {@code src/test/c/fuzz-replay.c} by gcc under AddressSanitizer and UndefinedBehaviorSanitizer, so the default run
 * needs no clang; the committed corpus is {@code fuzz/corpus/TARGET} beside the Makefile. The campaigns themselves
 * (libFuzzer, clang) run from {@code .ci/fuzz-campaigns}.
 */
public final class FuzzCorpus {

    /** Fewer inputs than this and a target's corpus is missing its seeds (each reader has more kinds of input). */
    static final int SMALLEST = 5;
    /** A build or a replay taking longer has hung: it is killed, with its children, and the test fails. */
    private static final Duration LIMIT = Duration.ofSeconds(300);

    private FuzzCorpus() {
    }

    /**
     * Builds the replayers of the C directory {@code cDir} into {@code out} and replays {@code TARGET}'s committed
     * corpus; fails the calling test on a build that fails or prints anything, a corpus under {@link #SMALLEST}
     * inputs, an input that cannot be read, and an input that crashes the target (named, with the sanitizer's
     * report); a build or replay past {@link #LIMIT} is killed with its children ({@link Programs#run}) and throws.
     */
    public static void assertReplaysCleanly(Path cDir, Path out, String target) throws IOException, InterruptedException {
        Path absoluteOut = out.toAbsolutePath();
        Programs.Result make = Programs.run(List.of("make", "-s", "-C", cDir.toString(), "OUT=" + absoluteOut, "replay"),
                Map.of(), LIMIT);
        String said = (make.out() + make.err()).replaceAll("(?m)^make.*\n", "");
        assertEquals(0, make.exit(), "make -C " + cDir + " replay:\n" + said);
        assertEquals("", said, "make -C " + cDir + " replay builds without a word");
        assertReplaysCleanly(absoluteOut.resolve("fuzz-replay-" + target), cDir.resolve("fuzz/corpus").resolve(target));
    }

    /** Runs one replayer over one corpus directory; fails as {@link #assertReplaysCleanly(Path, Path, String)}. */
    static void assertReplaysCleanly(Path replayer, Path corpus) throws IOException, InterruptedException {
        long inputs;
        try (var files = Files.list(corpus)) {
            inputs = files.filter(f -> !f.getFileName().toString().startsWith(".")).count();
        }
        assertTrue(inputs >= SMALLEST, corpus + ": a corpus of at least " + SMALLEST + " inputs, not " + inputs);
        Programs.Result replay = Programs.run(List.of(replayer.toString(), corpus.toString()), Map.of(), LIMIT);
        String report = "replayed " + inputs + " inputs";
        if (!replay.out().contains("replayed ")) {
            // it stopped before its summary: the input it named last is the one that crashed it
            String err = replay.err();
            int last = err.lastIndexOf("Running: ");
            String input = last < 0 ? "(none named)" : err.substring(last + 9, lineEnd(err, last));
            fail(replayer.getFileName() + " crashed on " + input + " (exit " + replay.exit() + "):\n"
                    + (last < 0 ? err : err.substring(lineEnd(err, last))).strip());
        }
        assertEquals(0, replay.exit(), replayer.getFileName() + " could not read every input:\n"
                + replay.err().replaceAll("(?m)^Running: .*\n", ""));
        assertTrue(replay.out().contains(report), replayer.getFileName() + ": " + report + ", not " + replay.out());
    }

    private static int lineEnd(String text, int from) {
        int end = text.indexOf('\n', from);
        return end < 0 ? text.length() : end;
    }
}
