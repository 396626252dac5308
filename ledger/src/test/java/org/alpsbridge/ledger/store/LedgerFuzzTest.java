package org.alpsbridge.ledger.store;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Coverage-guided fuzzing of the ledger's event sequences: reserves, duplicates, conflicting repeats,
 * confirms, releases, voids, refunds, credits and withdrawals with ids, sizes, times and amounts drawn from
 * the fuzzer's bytes, run on the SQLite store and the {@link ReferenceModel} side by side
 * ({@link ReferenceModelTest#compare}): every outcome and balance equal (so never an overdraft and the
 * conservation invariant kept), and the journal replays to the same books.
 */
class LedgerFuzzTest {

    private static final Path DIR = directory();
    private static final AtomicLong RUN = new AtomicLong();

    @FuzzTest
    void anySequenceOfEventsKeepsTheBooksOfTheModel(FuzzedDataProvider data) throws IOException {
        long run = RUN.incrementAndGet();
        Path db = DIR.resolve("fuzz-" + run + ".db");
        Path replay = DIR.resolve("replay-" + run + ".db");
        try {
            ReferenceModelTest.compare("sqlite:" + db, "sqlite:" + replay, new FuzzedRandom(data), "fuzz input",
                    data.consumeInt(1, 60));
        } finally {
            for (Path p : new Path[] {db, replay}) {
                Files.deleteIfExists(p);
                Files.deleteIfExists(Path.of(p + "-wal"));
                Files.deleteIfExists(Path.of(p + "-shm"));
            }
        }
    }

    private static Path directory() {
        try {
            Path d = Files.createTempDirectory("ledger-fuzz");
            d.toFile().deleteOnExit();
            return d;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** A {@link Random} whose every draw comes from the fuzzer's bytes (zeros once they run out). */
    private static final class FuzzedRandom extends Random {
        private static final long serialVersionUID = 1L;
        private final transient FuzzedDataProvider data;

        FuzzedRandom(FuzzedDataProvider data) {
            this.data = data;
        }

        @Override
        protected int next(int bits) {
            return data.consumeInt() >>> (32 - bits);
        }
    }
}
