package org.alpsbridge.ledger.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.alpsbridge.ledger.LedgerException;
import org.junit.jupiter.api.Test;

/** The golden table of SPEC §5 and the sigmoid's edges. */
class SiteFactorTest {

    private static final double[][] GOLDEN = {
        // x, S_c (l=5, x0=0.25), S_t (l=50, x0=0.75)
        {0.00, 0.000000, 0.000000},
        {0.05, 0.061302, 0.000000},
        {0.10, 0.130079, 0.000000},
        {0.20, 0.285188, 0.000000},
        {0.25, 0.367614, 0.000000},
        {0.30, 0.450041, 0.000000},
        {0.50, 0.735229, 0.000004},
        {0.70, 0.904057, 0.075858},
        {0.74, 0.925150, 0.377542},
        {0.75, 0.929896, 0.500002},
        {0.76, 0.934446, 0.622462},
        {0.80, 0.950804, 0.924145},
        {0.90, 0.980977, 0.999451},
        {1.00, 1.000000, 1.000000},
    };

    @Test
    void seedSigmoidsMatchTheGoldenTable() {
        SiteFactor.Sigmoid credit = new SiteFactor.Sigmoid(5, 0.25);
        SiteFactor.Sigmoid time = new SiteFactor.Sigmoid(50, 0.75);
        for (double[] row : GOLDEN) {
            assertEquals(row[1], credit.apply(row[0]), 1e-6, "S_c(" + row[0] + ")");
            assertEquals(row[2], time.apply(row[0]), 1e-6, "S_t(" + row[0] + ")");
        }
    }

    @Test
    void endpointsAreExactAndZeroIsPositiveZero() {
        SiteFactor.Sigmoid s = new SiteFactor.Sigmoid(5, 0.25);
        assertEquals(0.0, s.apply(0.0));
        assertEquals(Double.doubleToRawLongBits(0.0), Double.doubleToRawLongBits(s.apply(-0.0)));
        assertEquals(1.0, s.apply(1.0));
    }

    @Test
    void aGentleSigmoidTendsToTheIdentity() {
        SiteFactor.Sigmoid s = new SiteFactor.Sigmoid(1e-6, 0.3);
        for (double x = 0; x <= 1; x += 0.05) {
            assertEquals(x, s.apply(x), 1e-5);
        }
    }

    @Test
    void aSteepSigmoidNeverGivesNaN() {
        SiteFactor.Sigmoid s = new SiteFactor.Sigmoid(5_000, 0.5);
        for (double x = 0; x <= 1.0001; x += 0.001) {
            double v = s.apply(x);
            assertFalse(Double.isNaN(v), "x=" + x);
            assertTrue(v >= 0 && v <= 1, "x=" + x + " gave " + v);
        }
        assertEquals(0.0, s.apply(0.49), 1e-12);
        assertEquals(1.0, s.apply(0.51), 1e-12);
    }

    @Test
    void sigmoidIncreasesStrictlyWhereItIsResolvable() {
        SiteFactor.Sigmoid s = new SiteFactor.Sigmoid(5, 0.25);
        double previous = -1;
        for (int i = 0; i <= 100; i++) {
            double v = s.apply(i / 100.0);
            assertTrue(v > previous, "not increasing at " + i);
            previous = v;
        }
    }

    @Test
    void powerRuleMatchesItsTable() {
        assertEquals(0.316228, new SiteFactor.Power(0.5).apply(0.10), 1e-6);
        assertEquals(0.866025, new SiteFactor.Power(0.5).apply(0.75), 1e-6);
        assertEquals(0.0625, new SiteFactor.Power(2).apply(0.25), 1e-12);
        assertEquals(0.5625, new SiteFactor.Power(2).apply(0.75), 1e-12);
    }

    @Test
    void factorCombinesCreditLeftWithTimeElapsed() {
        SiteFactor seed = SiteFactor.seed();
        SiteFactor.Value lateWithCredit = seed.of(900, 1000, 90, 100);
        assertEquals(0.9, lateWithCredit.creditFraction(), 1e-12);
        assertEquals(0.9, lateWithCredit.timeFraction(), 1e-12);
        assertEquals(0.980977 * 0.999451, lateWithCredit.factor(), 1e-6);
        assertEquals(980, lateWithCredit.scaled());
        assertEquals(0, seed.of(900, 1000, 10, 100).scaled(), "early in the period: no boost");
        assertEquals(0, seed.of(-50, 1000, 90, 100).scaled(), "overdrawn counts as no credit");
        assertEquals(0, seed.of(0, 0, 90, 100).scaled(), "no credit at all");
    }

    @Test
    void badParametersAreRejected() {
        assertThrows(LedgerException.class, () -> new SiteFactor.Sigmoid(0, 0.5));
        assertThrows(LedgerException.class, () -> new SiteFactor.Sigmoid(5, 1.5));
        assertThrows(LedgerException.class, () -> new SiteFactor.Power(-1));
        assertThrows(LedgerException.class, () -> new SiteFactor.Power(Double.NaN));
    }
}
