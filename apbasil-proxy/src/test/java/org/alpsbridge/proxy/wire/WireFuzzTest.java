package org.alpsbridge.proxy.wire;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.ByteBuffer;

/**
 * Coverage-guided fuzzing of the proxy's wire format as the daemon (exchanges) and the client (replies) read
 * it from the network: a message or one {@link WireException} naming what is wrong, never another exception;
 * what is read encodes and reads back the same.
 */
class WireFuzzTest {

    @FuzzTest
    void exchangeFramesDecodeOrAreRefused(byte[] frame) {
        Exchange e;
        try {
            e = Exchange.decode(ByteBuffer.wrap(frame));
        } catch (WireException refused) {
            assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank());
            return;
        }
        Exchange again = Exchange.decode(ByteBuffer.wrap(e.encode()));
        assertEquals(e.kind(), again.kind());
        assertEquals(e.exchangeId(), again.exchangeId());
        assertEquals(e.credential(), again.credential());
        assertArrayEquals(e.payload(), again.payload());
        assertArrayEquals(e.digest(), again.digest(), "the digest MUNGE signs is a function of what was read");
        if (e.kind() == Exchange.Kind.ADMIN) {
            try {
                AdminCommand c = e.command();
                assertTrue(c.name() != null && c.args() != null);
            } catch (WireException refused) {
                assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank());
            }
        }
    }

    @FuzzTest
    void repliesDecodeOrAreRefused(byte[] frame) {
        Reply r;
        try {
            r = Reply.decode(ByteBuffer.wrap(frame));
        } catch (WireException refused) {
            assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank());
            return;
        }
        Reply again = Reply.decode(ByteBuffer.wrap(r.encode()));
        assertEquals(r.status(), again.status());
        assertArrayEquals(r.payload(), again.payload());
        if (!r.isOk()) {
            assertEquals(r.reason(), again.reason());
        }
    }
}
