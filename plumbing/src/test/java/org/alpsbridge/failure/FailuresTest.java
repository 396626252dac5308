package org.alpsbridge.failure;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ConnectException;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import org.junit.jupiter.api.Test;

/** A command's error line says what went wrong and what to do, never only a path or a class name. */
class FailuresTest {

    @Test
    void aMissingFileIsNamedWithWhatToCheck() {
        assertEquals("cannot use /etc/alpsbridge/prxy.conf: no such file or directory; check the path (a typo?) or create it",
                Failures.describe(new NoSuchFileException("/etc/alpsbridge/prxy.conf")));
    }

    @Test
    void aWrapperThatRepeatsItsCauseIsSeenThrough() {
        IOException cause = new AccessDeniedException("/var/spool/alpsbridge");
        String described = Failures.describe(new UncheckedIOException(cause.toString(), cause));
        assertEquals("cannot use /var/spool/alpsbridge: permission denied; run as a user who may use it (now: "
                + System.getProperty("user.name") + "), or change its permissions", described);
        assertEquals(described, Failures.describe(new IOException("/var/spool/alpsbridge", cause)));
    }

    @Test
    void aRefusedConnectionSaysSoAndWhatToDo() {
        assertEquals("connection refused (nothing listens there); start the service or correct its address",
                Failures.describe(new IOException(new ConnectException())));
    }

    @Test
    void aNameThatDoesNotResolveIsAnUnknownHost() {
        ConnectException e = new ConnectException();
        e.initCause(new java.nio.channels.UnresolvedAddressException());
        assertEquals("unknown host (the name does not resolve); check the host name", Failures.describe(e));
    }

    @Test
    void aPortInUseSaysWhoToAskAndWhatToSet() {
        assertEquals("cannot listen on 127.0.0.1:6830: bind(..) failed: Address already in use; another process listens"
                + " there (ss -ltnp shows which): stop it, or set another address (listen= or --listen)",
                Failures.listen("127.0.0.1:6830", new IOException("bind(..) failed: Address already in use")));
    }

    @Test
    void aMessageThatSaysSomethingIsKept() {
        assertEquals("proxy.conf:3: unknown key 'lisen'", Failures.describe(
                new IllegalArgumentException("proxy.conf:3: unknown key 'lisen'", new NoSuchFileException("x"))));
    }

    @Test
    void anEmptyMessageBecomesWordsNotAClassName() {
        assertEquals("illegal state", Failures.describe(new IllegalStateException()));
    }
}
