package org.alpsbridge.affinity.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.alpsbridge.affinity.exec.MaskGenerator;
import org.alpsbridge.affinity.topology.Numbering;
import org.alpsbridge.affinity.topology.Topology;

/**
 * Coverage-guided fuzzing of what a caller of the affinity agent controls, the request frame and so the
 * generator's arguments: any bytes are either refused with a reason (the agent tells the caller unserved) or
 * answered as raa-exec answers, exit 0, 1 or 2 with the reason on stderr, in a reply the plugin can read back.
 * Seeds: requests the plugin sends (src/test/resources/.../AgentFuzzTestInputs).
 */
class AgentFuzzTest {

    private static final Topology NODE = Topology.synthetic("2x8x2", Numbering.of("intel"));

    @FuzzTest
    void requestsAreAnsweredOrRefusedWithAReason(byte[] frame) throws IOException {
        String[] args;
        try {
            args = AgentCodec.request(AgentCodec.readFrame(new ByteArrayInputStream(frame), AgentCodec.MAX_REQUEST));
        } catch (IllegalArgumentException | EOFException refused) {
            assertTrue(refused.getMessage() != null && !refused.getMessage().isBlank(), "a refusal names the problem");
            return;
        }
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int exit = MaskGenerator.run(args, () -> NODE, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertTrue(exit >= 0 && exit <= 2, "exit " + exit);
        AgentCodec.Answer answer = new AgentCodec.Answer(exit, out.toString(StandardCharsets.UTF_8), err.toString(StandardCharsets.UTF_8));
        if (exit != 0) {
            assertFalse(answer.err().isBlank(), "a rejection or usage error says why");
        }
        StringBuilder unserved = new StringBuilder();
        assertEquals(answer, AgentCodec.reply(AgentCodec.readFrame(new ByteArrayInputStream(AgentCodec.reply(answer)),
                AgentCodec.MAX_REPLY), unserved), "the reply reads back as sent");
    }
}
