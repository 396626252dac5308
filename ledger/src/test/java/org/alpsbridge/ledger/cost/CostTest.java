package org.alpsbridge.ledger.cost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.Random;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.Weights;
import org.junit.jupiter.api.Test;

/** The worked examples of SPEC §4, rounding once per job, and overflow that is refused, never wrapped. */
class CostTest {

    @Test
    void exclusiveCpuTwoNodesOfThirtyTwoCoresForTwoHours() {
        long rate = Cost.rate(Resource.CPU, 2, NodeShape.cores(32), Weights.UNIT);
        assertEquals(7_680, Cost.worst(rate, 7_200));
        assertEquals(5_323, Cost.actual(rate, 4_990, 7_200));
        assertEquals(2_357, Cost.worst(rate, 7_200) - Cost.actual(rate, 4_990, 7_200));
    }

    @Test
    void maxTresBillsTheMemoryWhenItIsTheLargerShare() {
        Weights darwinStandard = new Weights(1000, Weights.milli("0.125"), 1000, 1000);
        long rate = Cost.rate(Resource.CPU, 1, new NodeShape(4, 64, 0), darwinStandard);
        assertEquals(4_800, Cost.worst(rate, 36_000));
        assertEquals(1_201, Cost.actual(rate, 9_001, 36_000));
    }

    @Test
    void gpuAllocationsAreChargedInGpuMinutes() {
        long rate = Cost.rate(Resource.GPU, 1, new NodeShape(64, 0, 4), Weights.UNIT);
        assertEquals(720, Cost.worst(rate, 10_800));
    }

    @Test
    void partitionMultiplierAppliesOnceToTheWholeJob() {
        Weights w = new Weights(1000, 0, 1000, Weights.milli("1.5"));
        long rate = Cost.rate(Resource.CPU, 3, NodeShape.cores(24), w);
        assertEquals(3_240, Cost.worst(rate, 1_800));
        assertEquals(110, Cost.actual(rate, 61, 1_800));
    }

    @Test
    void roundingIsPerJobNotPerNode() {
        long rate = Cost.rate(Resource.CPU, 3, NodeShape.cores(24), Weights.UNIT);
        assertEquals(74, Cost.actual(rate, 61, 3_600));
        long perNode = Cost.actual(Cost.rate(Resource.CPU, 1, NodeShape.cores(24), Weights.UNIT), 61, 3_600);
        assertEquals(75, 3 * perNode);
    }

    @Test
    void grantsInHoursAreExactMinutes() {
        assertEquals(60_000, Cost.hoursToMinutes(1_000));
    }

    @Test
    void usagePastTheTimeLimitIsCappedAtTheWorstCase() {
        long rate = Cost.rate(Resource.CPU, 2, NodeShape.cores(32), Weights.UNIT);
        assertEquals(Cost.worst(rate, 7_200), Cost.actual(rate, 99_999, 7_200));
    }

    @Test
    void aZeroSecondJobCostsNothing() {
        assertEquals(0, Cost.actual(Cost.rate(Resource.CPU, 1, NodeShape.cores(1), Weights.UNIT), 0, 60));
    }

    @Test
    void hugeProductsAreRejectedNotWrapped() {
        Weights heavy = new Weights(1_000_000_000L, 0, 1000, 1_000_000L);
        assertThrows(LedgerException.class, () -> Cost.rate(Resource.CPU, 100_000, NodeShape.cores(1_000), heavy));
        long bigRate = Cost.rate(Resource.CPU, 100_000, NodeShape.cores(1_000), new Weights(1_000_000, 0, 0, 1000));
        assertThrows(LedgerException.class, () -> Cost.worst(bigRate, Long.MAX_VALUE / 2));
    }

    @Test
    void badShapesAndLimitsAreRejected() {
        assertThrows(LedgerException.class, () -> Cost.rate(Resource.CPU, 0, NodeShape.cores(1), Weights.UNIT));
        assertThrows(LedgerException.class, () -> NodeShape.cores(0));
        assertThrows(LedgerException.class, () -> Cost.worst(1000, 0));
        assertThrows(LedgerException.class, () -> Cost.actual(1000, -1, 60));
        assertThrows(LedgerException.class, () -> Cost.rate(Resource.GPU, 1, NodeShape.cores(8), Weights.UNIT));
        assertThrows(LedgerException.class, () -> Weights.milli("0.0001"));
        assertThrows(LedgerException.class, () -> Weights.milli("-1"));
    }

    @Test
    void costsMatchExactRationalArithmeticOnRandomInputs() {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int i = 0; i < 10_000; i++) {
            int nodes = 1 + random.nextInt(10_000);
            int cores = 1 + random.nextInt(256);
            long q = 1 + random.nextInt(5_000);
            long limit = 1 + random.nextInt(7 * 86_400);
            long elapsed = random.nextInt((int) limit + 1);
            long rate = Cost.rate(Resource.CPU, nodes, NodeShape.cores(cores), new Weights(1000, 0, 1000, q));
            BigInteger exact = BigInteger.valueOf(nodes).multiply(BigInteger.valueOf(cores))
                    .multiply(BigInteger.valueOf(1000 * q)).multiply(BigInteger.valueOf(elapsed));
            BigInteger[] qr = exact.divideAndRemainder(BigInteger.valueOf(60_000_000));
            long expected = qr[0].longValueExact() + (qr[1].signum() > 0 ? 1 : 0);
            long actual = Cost.actual(rate, elapsed, limit);
            assertEquals(expected, actual, "seed " + seed + " case " + i);
            assertTrue(actual <= Cost.worst(rate, limit), "seed " + seed);
        }
    }
}
