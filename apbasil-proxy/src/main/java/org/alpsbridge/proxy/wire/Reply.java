package org.alpsbridge.proxy.wire;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;

/**
 * The daemon's answer to one {@link Exchange}.
 *
 * <p>Body layout: {@code 'A' 'P' 'B' version(1)}, a status byte, then the payload. For a BASIL exchange
 * the daemon answers {@link Status#OK} with a BASIL response document (a BASIL FAILURE is still OK
 * on the wire). {@link Status#REJECTED} carries a UTF-8 message and means the daemon could not even
 * read the exchange (bad frame, over-limit request, busy) or an admin command failed; the client
 * turns it into a BASIL FAILURE for its caller. {@link Status#NOT_ACTIVE} comes from the standby of a pair of
 * proxies: nothing was run, and the client tries the next proxy it knows.
 */
public final class Reply {

    /** Whether the payload is an answer or a reason. */
    public enum Status {
        OK(0), REJECTED(1), REJECTED_TRANSIENT(2),
        /**
         * This proxy is the standby of a pair (or lost its lease) and ran nothing; the payload is a UTF-8
         * reason that ends with {@code " (active: HOST:PORT)"} when it knows the active proxy's address.
         */
        NOT_ACTIVE(3);

        final int code;

        Status(int code) {
            this.code = code;
        }

        static Status of(int code) {
            for (Status s : values()) {
                if (s.code == code) {
                    return s;
                }
            }
            throw new WireException("unknown reply status " + code);
        }
    }

    private final Status status;
    private final byte[] payload;

    public Reply(Status status, byte[] payload) {
        this.status = Objects.requireNonNull(status, "status");
        this.payload = Objects.requireNonNull(payload, "payload");
    }

    public static Reply ok(byte[] payload) {
        return new Reply(Status.OK, payload);
    }

    /** A refusal; {@code retryable} when the same exchange may succeed later (daemon busy, shutting down). */
    public static Reply rejected(String reason, boolean retryable) {
        return new Reply(retryable ? Status.REJECTED_TRANSIENT : Status.REJECTED,
                reason.getBytes(StandardCharsets.UTF_8));
    }

    /** The answer of a standby proxy; see {@link Status#NOT_ACTIVE}. */
    public static Reply notActive(String reason) {
        return new Reply(Status.NOT_ACTIVE, reason.getBytes(StandardCharsets.UTF_8));
    }

    public Status status() {
        return status;
    }

    public boolean isOk() {
        return status == Status.OK;
    }

    /** The payload; callers must not modify it. */
    public byte[] payload() {
        return payload;
    }

    /** For a rejection, its reason. */
    public String reason() {
        return new String(payload, StandardCharsets.UTF_8);
    }

    public byte[] encode() {
        return ByteBuffer.allocate(Exchange.MAGIC.length + 1 + payload.length).put(prefix()).put(payload).array();
    }

    /** What the body carries before the payload: the magic and the status ({@link #encode()} is the two joined). */
    public byte[] prefix() {
        return ByteBuffer.allocate(Exchange.MAGIC.length + 1).put(Exchange.MAGIC).put((byte) status.code).array();
    }

    public static Reply decode(ByteBuffer body) {
        try {
            Exchange.checkMagic(body);
            Status status = Status.of(body.get() & 0xFF);
            byte[] payload = new byte[body.remaining()];
            body.get(payload);
            return new Reply(status, payload);
        } catch (BufferUnderflowException e) {
            throw new WireException("truncated reply frame");
        }
    }
}
