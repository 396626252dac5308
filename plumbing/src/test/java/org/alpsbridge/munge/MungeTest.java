package org.alpsbridge.munge;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** The MUNGE implementations against a real munged, and against each other. */
class MungeTest {

    private static MungeDaemon munged;

    @BeforeAll
    static void startMunged() throws Exception {
        munged = MungeDaemon.start();
    }

    @AfterAll
    static void stopMunged() throws Exception {
        if (munged != null) {
            munged.close();
        }
    }

    static List<String> implementations() {
        return List.of("library", "programs", "socket");
    }

    private static Munge munge(String which) throws MungeException {
        return at(which, munged.socket());
    }

    private static Munge at(String which, Path socket) throws MungeException {
        switch (which) {
            case "library":
                return Munge.library(socket);
            case "programs":
                return Munge.programs(socket);
            default:
                return Munge.socket(socket);
        }
    }

    private static Munge other(String which) throws MungeException {
        return munge(which.equals("library") ? "programs" : "library");
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void aCredentialDecodesToTheEncodersUidGidAndPayload(String which) throws Exception {
        byte[] payload = "digest-bytes".getBytes(StandardCharsets.UTF_8);
        String cred = munge(which).encode(payload, 0);
        assertTrue(cred.startsWith("MUNGE:"), cred);
        MungeCredential c = other(which).decode(cred);
        assertEquals(currentUid(), c.uid());
        assertArrayEquals(payload, c.payload());
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void aCredentialDecodesOnceThenIsReportedAsReplayed(String which) throws Exception {
        String cred = munge(which).encode(new byte[] {1, 2, 3}, 0);
        munge(which).decode(cred);
        MungeException e = assertThrows(MungeException.class, () -> munge(which).decode(cred));
        assertEquals(MungeException.REPLAYED, e.code(), e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void anExpiredCredentialIsRefused(String which) throws Exception {
        String cred = munge(which).encode(new byte[] {1}, 1);
        Thread.sleep(2100);
        MungeException e = assertThrows(MungeException.class, () -> munge(which).decode(cred));
        assertEquals(MungeException.EXPIRED, e.code(), e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void garbageIsNotACredential(String which) {
        MungeException e = assertThrows(MungeException.class, () -> munge(which).decode("MUNGE:bm90IGEgY3JlZA==:"));
        assertTrue(e.code() == MungeException.BAD_CREDENTIAL || e.code() == MungeException.INVALID
                || e.code() == 9, e.code() + " " + e.getMessage());
    }

    @ParameterizedTest
    @MethodSource("implementations")
    void aMissingMungedIsAServiceFailure(String which) throws Exception {
        Munge m = at(which, munged.socket().resolveSibling("absent.sock"));
        MungeException e = assertThrows(MungeException.class, () -> m.encode(new byte[] {1}, 0));
        assertTrue(e.isServiceFailure(), e.code() + " " + e.getMessage());
    }

    @Test
    void theSocketClientLeavesAMungedOfAnotherMessageVersionToTheProgram(@TempDir Path dir) throws Exception {
        Path fake = dir.resolve("other-version.sock");
        try (ServerSocketChannel server = ServerSocketChannel.open(StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(fake));
            Thread answerer = new Thread(() -> {
                try {
                    while (true) {
                        try (SocketChannel c = server.accept()) {
                            c.read(ByteBuffer.allocate(4096));
                            // a well-formed header of message version 9
                            c.write(ByteBuffer.wrap(new byte[] {0, 0x60, 0x6D, 0x4B, 9, 3, 0, 0, 0, 0, 0}));
                        }
                    }
                } catch (Exception closed) {
                    // the test is over
                }
            });
            answerer.setDaemon(true);
            answerer.start();
            MungeException e = assertThrows(MungeException.class, () -> Munge.socket(fake).encode(new byte[] {1}, 0));
            assertTrue(e.getMessage().startsWith("munge failed: munge:"), "the munge program was asked: " + e.getMessage());
        }
    }

    private static int currentUid() throws Exception {
        Process p = new ProcessBuilder("id", "-u").start();
        return Integer.parseInt(new String(p.getInputStream().readAllBytes()).strip());
    }
}
