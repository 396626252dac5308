package org.alpsbridge.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** An agent's socket, callers and frames, with an agent that echoes its request's items in upper case. */
class AgentServerTest {

    @TempDir
    Path dir;

    private final ByteArrayOutputStream journal = new ByteArrayOutputStream();

    private static final AgentServer.Limits LIMITS = new AgentServer.Limits("echo agent", "echo agent", 64, 2, 4, 2_000, 0);

    private static final class Echo implements AgentServer.Calls<List<String>> {
        /** Each answer's request and whether it reached its caller. */
        final java.util.concurrent.BlockingQueue<String> answered = new java.util.concurrent.LinkedBlockingQueue<>();
        /** Answers wait for this (a caller may go meanwhile). */
        volatile java.util.concurrent.CountDownLatch go = new java.util.concurrent.CountDownLatch(0);

        @Override
        public List<String> request(byte[] payload) {
            return Frames.versionOne(payload);
        }

        @Override
        public byte[] answer(List<String> items, String who) {
            try {
                go.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Frames.frame(items.stream().map(s -> s.toUpperCase(java.util.Locale.ROOT)).toList(), 64);
        }

        @Override
        public void answered(List<String> items, boolean reached) {
            answered.add(items + (reached ? " reached" : " not heard"));
        }

        @Override
        public byte[] refused(String who, String self) {
            return Frames.frame(List.of("refused=" + who), 64);
        }

        @Override
        public byte[] badRequest(String reason) {
            return Frames.frame(List.of("bad=" + reason), 256);
        }
    }

    private final Echo echo = new Echo();

    private AgentServer start(Path socket) throws IOException {
        return AgentServer.start(socket, LIMITS, echo, new PrintStream(journal, true, StandardCharsets.UTF_8));
    }

    private static List<String> call(Path socket, byte[] frame) throws IOException {
        try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            c.write(ByteBuffer.wrap(frame));
            return Frames.items(Frames.read(Channels.newInputStream(c), 1024));
        }
    }

    @Test
    void answersAFrameOnASocketOnlyItsUserMayReach() throws Exception {
        Path socket = dir.resolve("run/agent.sock");
        try (AgentServer server = start(socket)) {
            assertEquals(List.of("A=1", "B=Ü"), call(socket, Frames.frame(List.of("v=1", "a=1", "b=ü"), 64)));
            assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket)));
            assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(socket.getParent())));
        }
        assertTrue(Files.notExists(socket), "close removes the socket");
    }

    @Test
    void anAgentLearnsWhetherItsAnswerReachedTheCallerOrTheCallerWasGone() throws Exception {
        Path socket = dir.resolve("agent.sock");
        try (AgentServer server = start(socket)) {
            assertEquals(List.of("A=1"), call(socket, Frames.frame(List.of("v=1", "a=1"), 64)));
            assertEquals("[a=1] reached", echo.answered.poll(10, java.util.concurrent.TimeUnit.SECONDS));
            // a caller that sent its request, half-closed as the C clients do, and was killed before the answer
            echo.go = new java.util.concurrent.CountDownLatch(1);
            try (SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
                c.write(ByteBuffer.wrap(Frames.frame(List.of("v=1", "b=2"), 64)));
                c.shutdownOutput();
            }
            echo.go.countDown();
            assertEquals("[b=2] not heard", echo.answered.poll(10, java.util.concurrent.TimeUnit.SECONDS));
        }
    }

    @Test
    void aBadOrOversizedRequestIsAnsweredWithItsReasonAndLogged() throws Exception {
        Path socket = dir.resolve("agent.sock");
        try (AgentServer server = start(socket)) {
            assertEquals(List.of("bad=the request does not start with v=1 (the version this agent speaks), but 'v=2'"),
                    call(socket, Frames.frame(List.of("v=2"), 64)));
            byte[] unended = {0, 0, 0, 3, 'v', '=', '1'};
            assertEquals(List.of("bad=the frame's last item is not ended by a NUL byte"), call(socket, unended));
            byte[] huge = {0, 0, 1, 0};
            assertEquals(List.of("bad=a frame of 256 bytes is over the limit of 64"), call(socket, huge));
        }
        assertTrue(journal.toString(StandardCharsets.UTF_8).contains("echo agent: bad request from "
                + System.getProperty("user.name") + ": a frame of 256 bytes is over the limit of 64"), journal.toString());
    }

    @Test
    void aCallerTooSlowToSendItsRequestIsHungUpOn() throws Exception {
        Path socket = dir.resolve("agent.sock");
        try (AgentServer server = start(socket);
             SocketChannel c = SocketChannel.open(UnixDomainSocketAddress.of(socket))) {
            c.write(ByteBuffer.wrap(new byte[] {0, 0}));
            long t = System.nanoTime();
            assertEquals(-1, c.read(ByteBuffer.allocate(16)), "hung up on without an answer");
            assertTrue(System.nanoTime() - t > 1e9, "after its request limit");
        }
    }

    @Test
    void aSocketLeftByAKilledAgentIsReplacedButNotOneThatAnswersNorAFile() throws Exception {
        Path socket = dir.resolve("agent.sock");
        try (ServerSocketChannel left = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            left.bind(UnixDomainSocketAddress.of(socket));
        }
        try (AgentServer server = start(socket)) {
            IOException e = assertThrows(IOException.class, () -> start(socket));
            assertEquals("another echo agent answers on " + socket, e.getMessage());
            assertEquals(List.of("X=Y"), call(socket, Frames.frame(List.of("v=1", "x=y"), 64)));
        }
        Path file = dir.resolve("file");
        Files.writeString(file, "not a socket");
        IOException e = assertThrows(IOException.class, () -> start(file));
        assertEquals(file + " exists and is not a socket; remove it or choose another --socket", e.getMessage());
        assertEquals("not a socket", Files.readString(file));
    }

    @Test
    void framesRefuseANulInAnItemAndALengthOverTheirLimit() {
        assertEquals("an item holds a NUL byte: 'a?b'",
                assertThrows(IllegalArgumentException.class, () -> Frames.frame(List.of("a\0b"), 64)).getMessage());
        assertEquals("a frame of 9 bytes is over the limit of 8",
                assertThrows(IllegalArgumentException.class, () -> Frames.frame(List.of("12345678"), 8)).getMessage());
        assertEquals("the frame is not UTF-8 text",
                assertThrows(IllegalArgumentException.class, () -> Frames.items(new byte[] {(byte) 0xff, 0})).getMessage());
    }
}
