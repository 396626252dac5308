package org.alpsbridge.affinity.policy;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.util.Random;

/**
 * Coverage-guided fuzzing of the reduced policy's rules ({@link PolicyPropertiesTest#reducedRound}): the node
 * (sockets, cores, threads, numbering, offline CPUs, NUMA) and the request are drawn from the fuzzer's bytes
 * rather than a seeded generator, so the fuzzer steers towards the shapes that reach new code.
 */
class PolicyFuzzTest {

    @FuzzTest
    void reducedPlacesExactlyWhenAPlacementExists(FuzzedDataProvider data) {
        PolicyPropertiesTest.reducedRound(new FuzzedRandom(data), "fuzz input");
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
