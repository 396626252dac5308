package org.alpsbridge.emulator;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Random;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.emulator.LatencyProfile.Load;
import org.junit.jupiter.api.Test;

class LatencyProfileTest {

    private static final LatencyProfile XC30 = LatencyProfile.named("xc30-2256");
    private static final int NODES = LatencyProfile.DESIGN_NODES;
    private static final int MAX_RESERVATIONS = NODES / LatencyProfile.NODES_PER_RESERVATION;

    @Test
    void theRelationsOfTheSeedsXc30HoldEverywhereInTheDesignEnvelope() {
        long seed = new Random().nextLong();
        System.out.println("LatencyProfileTest relations seed " + seed);
        Random r = new Random(seed);
        for (int i = 0; i < 10_000; i++) {
            int reservations = r.nextInt(MAX_RESERVATIONS + 1);
            int reservedNodes = 1 + r.nextInt(512);
            Load machine = new Load(NODES, reservations, 0);
            Load job = new Load(NODES, reservations, reservedNodes);
            String at = " (seed " + seed + ", " + reservations + " reservations, " + reservedNodes + " nodes reserved)";
            double summary = XC30.medianMillis("QUERY/SUMMARY", machine);
            double inventory = XC30.medianMillis("QUERY/INVENTORY", machine);
            assertTrue(XC30.medianMillis("CONFIRM", job) > inventory, "CONFIRM takes longer than INVENTORY" + at);
            assertTrue(XC30.medianMillis("RESERVE", job) >= 8 * summary, "RESERVE much longer than SUMMARY" + at);
            assertTrue(XC30.medianMillis("RELEASE", job) >= 8 * summary, "RELEASE much longer than SUMMARY" + at);
            assertTrue(inventory >= 5 * summary, "a full INVENTORY costs ALPS far more than a SUMMARY" + at);
            for (String m : XC30.methods()) {
                double p99 = XC30.medianMillis(m, job) * XC30.term(m).tail();
                assertTrue(p99 < 5000, m + " p99 " + p99 + " ms stays under Slurm's 5-second 'slow apbasil' mark" + at);
            }
        }
    }

    @Test
    void inventoryGrowsWithTheMachineAndItsReservationsWhileSummaryHardlyDoes() {
        assertTrue(XC30.medianMillis("QUERY/INVENTORY", new Load(4512, 0, 0)) > 1.5 * XC30.medianMillis("QUERY/INVENTORY", new Load(NODES, 0, 0)));
        assertTrue(XC30.medianMillis("QUERY/INVENTORY", new Load(NODES, 200, 0)) > XC30.medianMillis("QUERY/INVENTORY", new Load(NODES, 0, 0)));
        assertTrue(XC30.medianMillis("QUERY/SUMMARY", new Load(4512, 0, 0)) < 1.5 * XC30.medianMillis("QUERY/SUMMARY", new Load(NODES, 0, 0)));
        assertTrue(XC30.medianMillis("RELEASE", new Load(NODES, 0, 128)) > XC30.medianMillis("RELEASE", new Load(NODES, 0, 1)));
    }

    @Test
    void drawsFollowTheModelsMedianAndTailAndNeverGoNegative() {
        long seed = new Random().nextLong();
        System.out.println("LatencyProfileTest draws seed " + seed);
        Random r = new Random(seed);
        Load load = new Load(NODES, 40, 64);
        for (String m : XC30.methods()) {
            long[] draws = new long[20_001];
            for (int i = 0; i < draws.length; i++) {
                draws[i] = XC30.drawNanos(m, load, r);
            }
            Arrays.sort(draws);
            double median = XC30.medianMillis(m, load) * 1e6;
            double p99 = median * XC30.term(m).tail();
            String at = m + " (seed " + seed + ")";
            assertTrue(draws[0] > 0, at);
            assertEquals(median, draws[draws.length / 2], 0.05 * median, "median of " + at);
            assertEquals(p99, draws[(int) (draws.length * 0.99)], 0.12 * p99, "p99 of " + at);
            assertTrue(draws[draws.length - 1] <= median * Math.pow(XC30.term(m).tail(), 3.0902 / 2.3263) * 1.0001,
                    "no draw beyond the 99.9th percentile's cut: " + at);
        }
    }

    @Test
    void theSameSeedDrawsTheSameLatencies() {
        Load load = new Load(NODES, 10, 8);
        long[] a = new long[50];
        long[] b = new long[50];
        Random ra = new Random(42);
        Random rb = new Random(42);
        for (int i = 0; i < a.length; i++) {
            a[i] = XC30.drawNanos("CONFIRM", load, ra);
            b[i] = XC30.drawNanos("CONFIRM", load, rb);
        }
        assertArrayEquals(a, b);
    }

    @Test
    void noneModelsNothingAndUnknownMethodsCostNothing() {
        LatencyProfile none = LatencyProfile.named("none");
        assertTrue(none.isNone());
        assertEquals(0, none.drawNanos("QUERY/INVENTORY", new Load(NODES, 0, 0), new Random(1)));
        assertEquals(0, XC30.drawNanos("QUERY/NO-SUCH", new Load(NODES, 0, 0), new Random(1)));
        assertEquals("xc30-2256", LatencyProfile.named(" XC30-2256 ").name());
    }

    @Test
    void anUnknownProfileIsRefusedNamingTheProfilesThereAre() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LatencyProfile.named("xc40"));
        assertTrue(e.getMessage().contains("'xc40'") && e.getMessage().contains("xc30-2256") && e.getMessage().contains("none"),
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LatencyProfile.named(null));
    }

    @Test
    void anEmulatorWithTheProfileBooksEachCallsModelledLatencyAndRepeatsWithItsSeed() {
        long[] first = modelledInventoryThenConfirm(7);
        long[] again = modelledInventoryThenConfirm(7);
        assertArrayEquals(first, again, "same seed, same latencies");
        double inventory = XC30.medianMillis("QUERY/INVENTORY", new Load(64, 0, 0)) * 1e6;
        assertTrue(first[0] > 0 && first[0] < inventory * 5, "INVENTORY booked " + first[0] + " ns");
        assertTrue(first[2] == 0, "nothing booked twice: " + first[2]);
    }

    @Test
    void anInventoryOfTheReservationsAloneWalksNoNodeSoItsPerNodeTermCountsNone() {
        Emulator e = Emulator.create("knl:4392");
        BasilRequest full = BasilRequest.query("1.3", "INVENTORY");
        BasilRequest reservationsOnly = BasilRequest.inventorySince("1.3", null, true);
        assertEquals(new Load(4392, 0, 0), e.load(full));
        assertEquals(new Load(0, 0, 0), e.load(reservationsOnly));
        assertTrue(XC30.medianMillis("QUERY/INVENTORY", e.load(reservationsOnly)) * 5
                < XC30.medianMillis("QUERY/INVENTORY", e.load(full)), "at knl:4392 a reservations check costs a fraction");
        assertEquals(new Load(4392, 0, 0), e.load(BasilRequest.query("1.3", "SUMMARY")), "other queries as before");
    }

    @Test
    void latencyProfileNoneSwitchesTheModelOffAndABadSleepShareIsRefused() {
        Emulator e = Emulator.create("xc30:16");
        e.control().latencyProfile(XC30, 1, 0);
        assertEquals("xc30-2256", e.control().latencyProfile().name());
        e.control().latencyProfile(LatencyProfile.named("none"), 1, 0);
        e.handle(request("<BasilRequest protocol=\"1.3\" method=\"QUERY\" type=\"INVENTORY\"/>"));
        assertEquals(0, e.control().takeModelledNanos());
        assertEquals("none", e.control().latencyProfile().name());
        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> e.control().latencyProfile(XC30, 1, 1.5));
        assertTrue(bad.getMessage().contains("1.5"), bad.getMessage());
        assertThrows(IllegalArgumentException.class, () -> e.control().latencyProfile(XC30, 1, Double.NaN));
    }

    @Test
    void aFullySleptProfileWaitsTheLatencyAndBooksNothing() {
        Emulator e = Emulator.create("xc30:16");
        e.control().latencyProfile(XC30, 3, 1);
        long start = System.nanoTime();
        e.handle(request("<BasilRequest protocol=\"1.3\" method=\"QUERY\" type=\"ENGINE\"/>"));
        long elapsed = System.nanoTime() - start;
        assertEquals(0, e.control().takeModelledNanos());
        // The least an ENGINE draw can be: its median over the cut tail factor.
        double least = XC30.medianMillis("QUERY/ENGINE", new Load(16, 0, 0)) * 1e6 / Math.pow(2.0, 3.0902 / 2.3263);
        assertTrue(elapsed >= least, "waited " + elapsed + " ns, at least " + least);
    }

    private static long[] modelledInventoryThenConfirm(long seed) {
        Emulator e = Emulator.create("xc30:64");
        e.control().latencyProfile(XC30, seed, 0);
        e.handle(request("<BasilRequest protocol=\"1.3\" method=\"QUERY\" type=\"INVENTORY\"/>"));
        long inventory = e.control().takeModelledNanos();
        String reserved = new String(e.handle(request("<BasilRequest protocol=\"1.3\" method=\"RESERVE\"><ReserveParamArray user_name=\"u\" "
                + "batch_id=\"1\"><ReserveParam architecture=\"XT\" width=\"32\" nppn=\"16\"/></ReserveParamArray></BasilRequest>")),
                StandardCharsets.UTF_8);
        assertTrue(reserved.contains("SUCCESS"), reserved);
        long reserve = e.control().takeModelledNanos();
        long none = e.control().takeModelledNanos();
        return new long[] {inventory, reserve, none};
    }

    private static byte[] request(String xml) {
        return ("<?xml version=\"1.0\"?>\n" + xml).getBytes(StandardCharsets.UTF_8);
    }
}
