package org.alpsbridge.proxy.auth;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Both MUNGE implementations against a real munged, and against each other. */
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
        return List.of("library", "programs");
    }

    private static Munge munge(String which) throws MungeException {
        return which.equals("library") ? Munge.library(munged.socket()) : Munge.programs(munged.socket());
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
        Munge m = which.equals("library") ? Munge.library(munged.socket().resolveSibling("absent.sock"))
                : Munge.programs(munged.socket().resolveSibling("absent.sock"));
        MungeException e = assertThrows(MungeException.class, () -> m.encode(new byte[] {1}, 0));
        assertTrue(e.isServiceFailure(), e.code() + " " + e.getMessage());
    }

    private static int currentUid() throws Exception {
        Process p = new ProcessBuilder("id", "-u").start();
        return Integer.parseInt(new String(p.getInputStream().readAllBytes()).strip());
    }
}
