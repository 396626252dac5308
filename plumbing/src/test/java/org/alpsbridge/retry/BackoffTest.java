package org.alpsbridge.retry;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class BackoffTest {

    @Test
    void doublingPausesGrowToTheirCapAndNeverOverflow() {
        Backoff b = Backoff.doubling(200, 5_000);
        List<Long> pauses = new ArrayList<>();
        for (int attempt = 2; attempt <= 8; attempt++) {
            pauses.add(b.pauseBefore(attempt));
        }
        assertEquals(List.of(200L, 400L, 800L, 1_600L, 3_200L, 5_000L, 5_000L), pauses);
        assertEquals(5_000L, b.pauseBefore(Integer.MAX_VALUE));
        assertEquals(1L << 62, Backoff.doubling(1, Long.MAX_VALUE).pauseBefore(64));
        assertEquals(Long.MAX_VALUE, Backoff.doubling(1, Long.MAX_VALUE).pauseBefore(65));
    }

    @Test
    void linearAndConstantPauses() {
        assertEquals(List.of(50L, 100L, 150L, 200L),
                List.of(Backoff.linear(50).pauseBefore(2), Backoff.linear(50).pauseBefore(3),
                        Backoff.linear(50).pauseBefore(4), Backoff.linear(50).pauseBefore(5)));
        assertTrue(Backoff.linear(50).pauseBefore(Integer.MAX_VALUE) > 0, "no overflow to a negative pause");
        assertEquals(1_000L, Backoff.constant(1_000).pauseBefore(7));
    }

    @Test
    void theAttemptLimitCountsTheFirstAttempt() {
        Attempts a = Backoff.constant(0).attempts(3).start();
        assertTrue(a.pauseForNext());
        assertTrue(a.pauseForNext());
        assertEquals(3, a.attempt());
        assertFalse(a.pauseForNext(), "a fourth attempt is one too many");
        assertEquals(3, a.attempt());
    }

    @Test
    void aPauseThatWouldEndPastTheBudgetIsNotTaken() {
        long before = System.nanoTime();
        Attempts a = Backoff.constant(10_000).within(5_000).start();
        assertFalse(a.pauseForNext());
        assertTrue(System.nanoTime() - before < 5_000_000_000L, "said no at once rather than sleeping");
        Attempts b = Backoff.constant(1).within(1_000).start();
        assertTrue(b.pauseForNext());
    }

    @Test
    void anInterruptedPauseEndsTheSeriesAndKeepsTheFlag() {
        Thread.currentThread().interrupt();
        try {
            assertFalse(Backoff.constant(1_000).start().pauseForNext());
            assertTrue(Thread.currentThread().isInterrupted());
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void nonsenseIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> Backoff.constant(-1));
        assertThrows(IllegalArgumentException.class, () -> Backoff.doubling(10, 5));
        assertThrows(IllegalArgumentException.class, () -> Backoff.constant(1).attempts(0));
    }
}
