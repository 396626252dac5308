package org.alpsbridge.proxy.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.Random;
import org.junit.jupiter.api.Test;

class Sha256Test {

    private static String hex(String text) {
        Sha256 sha = new Sha256();
        sha.update(text.getBytes(StandardCharsets.US_ASCII));
        return HexFormat.of().formatHex(sha.digest());
    }

    @Test
    void matchesThePublishedTestVectors() {
        assertEquals("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", hex(""));
        assertEquals("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", hex("abc"));
        assertEquals("248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1",
                hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"));
    }

    @Test
    void agreesWithTheJdkOnEveryLengthAroundTheBlockBoundaries() throws Exception {
        long seed = System.nanoTime();
        Random random = new Random(seed);
        for (int length = 0; length < 300; length++) {
            byte[] data = new byte[length + (length > 200 ? random.nextInt(5000) : 0)];
            random.nextBytes(data);
            Sha256 mine = new Sha256();
            mine.update(data);
            assertArrayEquals(MessageDigest.getInstance("SHA-256").digest(data), mine.digest(),
                    "length " + data.length + ", seed " + seed);
        }
    }

    @Test
    void theExchangeDigestBindsKindIdAndPayload() {
        byte[] payload = "<BasilRequest/>".getBytes(StandardCharsets.UTF_8);
        Exchange e = new Exchange(Exchange.Kind.BASIL, "id-1", "", payload);
        assertArrayEquals(e.digest(), e.withCredential("MUNGE:x:").digest(), "the credential is not part of it");
        org.junit.jupiter.api.Assertions.assertFalse(java.util.Arrays.equals(e.digest(),
                new Exchange(Exchange.Kind.BASIL, "id-2", "", payload).digest()));
        org.junit.jupiter.api.Assertions.assertFalse(java.util.Arrays.equals(e.digest(),
                new Exchange(Exchange.Kind.ADMIN, "id-1", "", payload).digest()));
    }
}
