package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The agent's wire format: what a frame holds, and every way a frame can be wrong, named. */
class AgentCodecTest {

    private static byte[] payload(String... items) {
        StringBuilder b = new StringBuilder();
        for (String i : items) {
            b.append(i).append('\0');
        }
        return b.toString().getBytes(StandardCharsets.UTF_8);
    }

    private static String refusal(byte[] payload) {
        return assertThrows(IllegalArgumentException.class, () -> AgentCodec.request(payload)).getMessage();
    }

    @Test
    void aRequestIsItsModeOptionsAndEnvironment() throws Exception {
        AgentRequest r = AgentCodec.request(payload("v=1", "mode=epilog", "arg=--retry-for", "arg=0",
                "env=SLURM_JOB_ID=42", "env=SLURM_JOB_USER=a=b c", "at=2026-03-01T10:00:00.5Z"));
        assertEquals(false, r.prolog());
        assertEquals(List.of("--retry-for", "0"), r.options());
        assertEquals(Map.of("SLURM_JOB_ID", "42", "SLURM_JOB_USER", "a=b c"), r.env());
        assertEquals(Instant.parse("2026-03-01T10:00:00.5Z"), r.at());
        byte[] framed = AgentCodec.frame(r);
        assertEquals(framed.length - 4, ((framed[2] & 0xff) << 8) | (framed[3] & 0xff));
        assertEquals(r, AgentCodec.request(AgentCodec.readFrame(new ByteArrayInputStream(framed))));
    }

    /** Seeded random requests and replies survive the round trip through one encoder and one decoder. */
    @Test
    void anyTextSurvivesTheRoundTrip() throws Exception {
        long seed = Long.getLong("seed", System.nanoTime());
        System.out.println("AgentCodecTest seed " + seed + " (-Dseed=" + seed + " repeats it)");
        Random random = new Random(seed);
        for (int n = 0; n < 300; n++) {
            Map<String, String> env = new LinkedHashMap<>();
            for (int i = random.nextInt(12); i > 0; i--) {
                env.put("SLURM_" + text(random).replace("=", ""), text(random));
            }
            List<String> options = Arrays.asList(text(random), text(random));
            boolean prolog = random.nextBoolean();
            Instant at = random.nextBoolean() ? null : Instant.ofEpochMilli(random.nextLong() >>> 24);
            String spooled = !prolog && at != null && random.nextBoolean()
                    ? "job-" + random.nextInt(1_000_000) + "-run-" + (1 + random.nextInt(9)) + ".epilog" : null;
            AgentRequest r = new AgentRequest(prolog, options, env, at, spooled);
            assertEquals(r, AgentCodec.request(AgentCodec.readFrame(new ByteArrayInputStream(AgentCodec.frame(r)))),
                    "seed " + seed);
            AgentReply a = new AgentReply(random.nextInt(5), List.of(text(random), text(random)));
            assertEquals(a, AgentCodec.reply(AgentCodec.readFrame(new ByteArrayInputStream(AgentCodec.frame(a)))),
                    "seed " + seed);
        }
    }

    /** Any char but NUL (which ends an item) and lone surrogates (not UTF-8). */
    private static String text(Random random) {
        StringBuilder b = new StringBuilder();
        for (int n = random.nextInt(20); n > 0; n--) {
            b.append((char) (random.nextBoolean() ? 1 + random.nextInt(0x7f) : 1 + random.nextInt(0xd7ff)));
        }
        return b.toString();
    }

    @Test
    void badRequestsAreRefusedNamingTheFault() {
        assertTrue(refusal(payload("v=2", "mode=prolog")).contains("v=1"));
        assertTrue(refusal(payload("v=1")).contains("names no mode"));
        assertTrue(refusal(payload("v=1", "mode=settle")).contains("prolog or epilog"));
        assertTrue(refusal(payload("v=1", "mode=prolog", "mode=epilog")).contains("once"));
        assertTrue(refusal(payload("v=1", "mode=prolog", "colour=blue")).contains("unknown request item 'colour=blue'"));
        assertTrue(refusal(payload("v=1", "mode=prolog", "env=SLURM_JOB_ID")).contains("env=NAME=VALUE"));
        assertTrue(refusal(payload("v=1", "mode=prolog", "arg")).contains("not key=value"));
        assertTrue(refusal(payload("v=1", "mode=epilog", "at=yesterday")).contains("ISO instant"));
        String at = "at=2026-11-26T12:00:00.123456Z";
        assertTrue(refusal(payload("v=1", "mode=epilog", at, "spooled=../../etc/passwd")).contains("does not name a spooled"));
        assertTrue(refusal(payload("v=1", "mode=epilog", at, "spooled=.tmp-job-1-run-1.epilog")).contains("does not name"));
        assertTrue(refusal(payload("v=1", "mode=prolog", at, "spooled=job-1-run-1.epilog")).contains("only an epilog"));
        assertTrue(refusal(payload("v=1", "mode=epilog", "spooled=job-1-run-1.epilog")).contains("only an epilog"));
        assertTrue(refusal("v=1\0mode=prolog".getBytes(StandardCharsets.UTF_8)).contains("NUL"));
        assertTrue(refusal(new byte[] {'v', '=', (byte) 0xff, 0}).contains("UTF-8"));
        assertThrows(IllegalArgumentException.class, () -> AgentCodec.reply(payload("say=hello")));
        assertThrows(IllegalArgumentException.class, () -> AgentCodec.reply(payload("exit=0", "shout=hello")));
    }

    @Test
    void anOversizedFrameIsRefusedBeforeItIsRead() {
        byte[] head = {0, 1, 0, 1}; // 65537 bytes announced, none sent
        String m = assertThrows(IllegalArgumentException.class,
                () -> AgentCodec.readFrame(new ByteArrayInputStream(head))).getMessage();
        assertTrue(m.contains("65537") && m.contains("65536"), m);
        byte[] huge = {(byte) 0xff, (byte) 0xff, (byte) 0xff, (byte) 0xff};
        assertThrows(IllegalArgumentException.class, () -> AgentCodec.readFrame(new ByteArrayInputStream(huge)));
        Map<String, String> env = Map.of("SLURM_BIG", "x".repeat(AgentCodec.MAX_FRAME));
        assertThrows(IllegalArgumentException.class, () -> AgentCodec.frame(new AgentRequest(true, List.of(), env, null)));
    }

    @Test
    void aShortFrameIsAnEndOfStream() {
        assertThrows(EOFException.class, () -> AgentCodec.readFrame(new ByteArrayInputStream(new byte[] {0, 0})));
        assertThrows(EOFException.class, () -> AgentCodec.readFrame(new ByteArrayInputStream(new byte[] {0, 0, 0, 9, 'v'})));
        assertArrayEquals(new byte[0], assertDoesNotFail(new byte[] {0, 0, 0, 0}));
    }

    private static byte[] assertDoesNotFail(byte[] frame) {
        try {
            return AgentCodec.readFrame(new ByteArrayInputStream(frame));
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
