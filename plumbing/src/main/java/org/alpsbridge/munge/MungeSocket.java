package org.alpsbridge.munge;

import java.io.IOException;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.Timer;
import java.util.TimerTask;

/**
 * Encodes credentials by asking munged directly over its unix socket, in munged's client message format
 * (version 4: MUNGE 0.5.x). The drop-in client uses it because starting the {@code munge} program from a
 * JVM a few milliseconds old costs 15-60 ms per call, while munged answers in about one. munged learns
 * the caller's uid/gid from the socket itself (SO_PEERCRED), exactly as for libmunge.
 *
 * <p>Plain JDK only. Decoding, and encoding when munged speaks another message version, go to
 * {@code fallback} (the programs): the message format is munged's, not a published interface, so this
 * class never guesses.
 */
final class MungeSocket implements Munge {

    /** libmunge's default socket when none is configured. */
    static final Path DEFAULT_SOCKET = Path.of("/run/munge/munge.socket.2");

    private static final int MAGIC = 0x00606D4B;
    private static final byte VERSION = 4;
    private static final byte ENCODE_REQUEST = 2;
    private static final byte ENCODE_RESPONSE = 3;
    private static final int HEADER_BYTES = 11;
    private static final byte DAEMON_DEFAULT = 1; // cipher, mac and zip chosen by munged
    private static final int ANY_ID = -1;         // no restriction on who may decode
    private static final int MAX_RESPONSE_BYTES = 1 << 20;
    private static final long TIMEOUT_MILLIS = 5_000;

    private final Path socket;
    private final Munge fallback;

    MungeSocket(Path socket, Munge fallback) {
        this.socket = socket == null ? DEFAULT_SOCKET : socket;
        this.fallback = fallback;
    }

    /** Thrown when munged's answer is not in the format this class speaks. */
    private static final class OtherFormat extends Exception {
        OtherFormat(String message) {
            super(message);
        }
    }

    @Override
    public String encode(byte[] payload, int ttlSeconds) throws MungeException {
        try {
            return encodeHere(payload, ttlSeconds);
        } catch (OtherFormat e) {
            return fallback.encode(payload, ttlSeconds);
        }
    }

    private String encodeHere(byte[] payload, int ttlSeconds) throws MungeException, OtherFormat {
        ByteBuffer body = ByteBuffer.allocate(3 + 1 + 4 * 4 + payload.length);
        body.put(DAEMON_DEFAULT).put(DAEMON_DEFAULT).put(DAEMON_DEFAULT).put((byte) 0) // no realm
                .putInt(ttlSeconds).putInt(ANY_ID).putInt(ANY_ID).putInt(payload.length).put(payload).flip();
        ByteBuffer header = ByteBuffer.allocate(HEADER_BYTES);
        header.putInt(MAGIC).put(VERSION).put(ENCODE_REQUEST).put((byte) 0).putInt(body.remaining()).flip();
        SocketChannel ch;
        try {
            ch = SocketChannel.open(UnixDomainSocketAddress.of(socket));
        } catch (IOException e) {
            throw new MungeException(MungeException.SOCKET, "munge failed: cannot connect to munged at " + socket
                    + " (" + e.getMessage() + "); is munged running?");
        }
        Timer watchdog = new Timer("munge-timeout", true);
        watchdog.schedule(new CloseOnTimeout(ch), TIMEOUT_MILLIS);
        try (ch) {
            ch.write(new ByteBuffer[] {header, body});
            ByteBuffer reply = read(ch, HEADER_BYTES);
            if (reply.getInt() != MAGIC || reply.get() != VERSION || reply.get() != ENCODE_RESPONSE) {
                throw new OtherFormat("munged answered in another message format");
            }
            reply.get(); // retry count
            int length = reply.getInt();
            if (length < 6 || length > MAX_RESPONSE_BYTES) {
                throw new OtherFormat("munged's answer has an unexpected length " + length);
            }
            return credential(read(ch, length));
        } catch (IOException e) {
            throw new MungeException(MungeException.SOCKET, "munge failed: munged at " + socket + " did not answer"
                    + " within " + TIMEOUT_MILLIS + " ms or closed the connection (" + e.getMessage() + ")");
        } finally {
            watchdog.cancel();
        }
    }

    private static String credential(ByteBuffer body) throws MungeException, OtherFormat {
        try {
            int error = body.get() & 0xFF;
            byte[] message = new byte[body.get() & 0xFF];
            body.get(message);
            byte[] data = new byte[body.getInt()];
            body.get(data);
            if (body.hasRemaining()) {
                throw new OtherFormat("munged's answer is longer than its fields");
            }
            if (error != 0) {
                throw new MungeException(error, "munge failed: " + cString(message));
            }
            return cString(data);
        } catch (java.nio.BufferUnderflowException | NegativeArraySizeException e) {
            throw new OtherFormat("munged's answer is shorter than its fields");
        }
    }

    /** munged's strings carry their terminating NUL. */
    private static String cString(byte[] b) {
        int n = b.length;
        while (n > 0 && b[n - 1] == 0) {
            n--;
        }
        return new String(b, 0, n, StandardCharsets.US_ASCII);
    }

    private static ByteBuffer read(SocketChannel ch, int n) throws IOException {
        ByteBuffer b = ByteBuffer.allocate(n);
        while (b.hasRemaining()) {
            if (ch.read(b) < 0) {
                throw new IOException("connection closed after " + b.position() + " of " + n + " bytes");
            }
        }
        return b.flip();
    }

    @Override
    public MungeCredential decode(String credential) throws MungeException {
        return fallback.decode(credential);
    }

    @Override
    public String describe() {
        return "munged's socket " + socket + " (decoding: " + fallback.describe() + ")";
    }

    /** Closing the channel unblocks a read stuck on a munged that stopped answering. */
    private static final class CloseOnTimeout extends TimerTask {
        private final SocketChannel ch;

        CloseOnTimeout(SocketChannel ch) {
            this.ch = ch;
        }

        @Override
        public void run() {
            try {
                ch.close();
            } catch (IOException ignored) {
                // the read that was waiting reports the failure
            }
        }
    }
}
