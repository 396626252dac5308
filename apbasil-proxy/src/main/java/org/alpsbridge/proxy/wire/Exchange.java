package org.alpsbridge.proxy.wire;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;

/**
 * One request from a client to the daemon: a BASIL document or an operator command, with the
 * client's exchange id and its MUNGE credential.
 *
 * <p>Body layout (the 4-byte big-endian length prefix around it belongs to the framing, not here):
 * <pre>
 *   'A' 'P' 'B' version(1)       4 bytes
 *   kind                         1 byte: 1 BASIL, 2 ADMIN
 *   exchange id                  u16 length + UTF-8
 *   credential                   u16 length + US-ASCII (empty when authentication is off)
 *   payload                      the rest: the BASIL request, or the admin command (see {@link #admin})
 * </pre>
 * Plain JDK only: the drop-in client loads this class at every call.
 */
public final class Exchange {

    /** What an exchange carries. */
    public enum Kind {
        BASIL(1), ADMIN(2);

        final int code;

        Kind(int code) {
            this.code = code;
        }

        static Kind of(int code) {
            for (Kind k : values()) {
                if (k.code == code) {
                    return k;
                }
            }
            throw new WireException("unknown exchange kind " + code);
        }
    }

    static final byte[] MAGIC = {'A', 'P', 'B', 1};
    static final int MAX_SHORT_FIELD = 0xFFFF;

    private final Kind kind;
    private final String exchangeId;
    private final String credential;
    private final byte[] payload;

    public Exchange(Kind kind, String exchangeId, String credential, byte[] payload) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.exchangeId = Objects.requireNonNull(exchangeId, "exchangeId");
        this.credential = Objects.requireNonNull(credential, "credential");
        this.payload = Objects.requireNonNull(payload, "payload");
    }

    /** An operator command: the payload holds the name then alternating keys and values. */
    public static Exchange admin(String exchangeId, String credential, String name, Map<String, String> args) {
        return new Exchange(Kind.ADMIN, exchangeId, credential, encodeCommand(name, args));
    }

    public Kind kind() {
        return kind;
    }

    public String exchangeId() {
        return exchangeId;
    }

    public String credential() {
        return credential;
    }

    /** The payload; callers must not modify it. */
    public byte[] payload() {
        return payload;
    }

    /** The same exchange with a credential attached. */
    public Exchange withCredential(String newCredential) {
        return new Exchange(kind, exchangeId, newCredential, payload);
    }

    /**
     * What the MUNGE credential carries: a SHA-256 over kind, exchange id and payload. The daemon
     * recomputes it, so a credential lifted onto another request (or another id) does not match.
     */
    public byte[] digest() {
        Sha256 sha = new Sha256();
        sha.update((byte) kind.code);
        byte[] id = exchangeId.getBytes(StandardCharsets.UTF_8);
        sha.update(ByteBuffer.allocate(4).putInt(id.length).array());
        sha.update(id);
        sha.update(payload);
        return sha.digest();
    }

    /** For {@link Kind#ADMIN}: the operator command this exchange carries. */
    public AdminCommand command() {
        if (kind != Kind.ADMIN) {
            throw new IllegalStateException("not an admin exchange");
        }
        ByteBuffer in = ByteBuffer.wrap(payload);
        try {
            String name = text("admin command name", shortField(in), StandardCharsets.UTF_8);
            Map<String, String> args = new LinkedHashMap<>();
            while (in.hasRemaining()) {
                args.put(text("admin argument", shortField(in), StandardCharsets.UTF_8),
                        text("admin argument", shortField(in), StandardCharsets.UTF_8));
            }
            return new AdminCommand(name, args);
        } catch (BufferUnderflowException e) {
            throw new WireException("truncated admin command");
        }
    }

    public byte[] encode() {
        byte[] id = exchangeId.getBytes(StandardCharsets.UTF_8);
        byte[] cred = credential.getBytes(StandardCharsets.US_ASCII);
        checkShort("exchange id", id.length);
        checkShort("credential", cred.length);
        ByteBuffer out = ByteBuffer.allocate(MAGIC.length + 1 + 2 + id.length + 2 + cred.length + payload.length);
        out.put(MAGIC).put((byte) kind.code);
        out.putShort((short) id.length).put(id);
        out.putShort((short) cred.length).put(cred);
        out.put(payload);
        return out.array();
    }

    /** Reads a body written by {@link #encode()}; throws {@link WireException} naming what is wrong. */
    public static Exchange decode(ByteBuffer body) {
        try {
            checkMagic(body);
            Kind kind = Kind.of(body.get() & 0xFF);
            String id = text("exchange id", shortField(body), StandardCharsets.UTF_8);
            String cred = text("credential", shortField(body), StandardCharsets.US_ASCII);
            byte[] payload = new byte[body.remaining()];
            body.get(payload);
            return new Exchange(kind, id, cred, payload);
        } catch (BufferUnderflowException e) {
            throw new WireException("truncated exchange frame");
        }
    }

    static void checkMagic(ByteBuffer body) {
        byte[] magic = new byte[MAGIC.length];
        body.get(magic);
        if (!Arrays.equals(magic, MAGIC)) {
            throw new WireException("not an alpsbridge proxy frame (bad magic or version)");
        }
    }

    /**
     * A text field, refused when its bytes are not in its charset: decoded leniently, a credential with a stray
     * byte became U+FFFD here and '?' when encoded again, so the daemon would have checked (and answered for)
     * a different exchange than the one sent (found by WireFuzzTest).
     */
    static String text(String what, byte[] bytes, java.nio.charset.Charset charset) {
        try {
            return charset.newDecoder().onMalformedInput(java.nio.charset.CodingErrorAction.REPORT)
                    .onUnmappableCharacter(java.nio.charset.CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes)).toString();
        } catch (java.nio.charset.CharacterCodingException e) {
            throw new WireException(what + " is not " + charset.name() + " text");
        }
    }

    static byte[] shortField(ByteBuffer body) {
        byte[] b = new byte[body.getShort() & 0xFFFF];
        body.get(b);
        return b;
    }

    private static void checkShort(String what, int length) {
        if (length > MAX_SHORT_FIELD) {
            throw new WireException(what + " of " + length + " bytes is longer than " + MAX_SHORT_FIELD);
        }
    }

    private static byte[] encodeCommand(String name, Map<String, String> args) {
        ByteBuffer out;
        int size = 2 + utf8(name).length;
        for (Map.Entry<String, String> e : args.entrySet()) {
            size += 4 + utf8(e.getKey()).length + utf8(e.getValue()).length;
        }
        out = ByteBuffer.allocate(size);
        putString(out, name);
        for (Map.Entry<String, String> e : args.entrySet()) {
            putString(out, e.getKey());
            putString(out, e.getValue());
        }
        return out.array();
    }

    private static void putString(ByteBuffer out, String s) {
        byte[] b = utf8(s);
        checkShort("admin command field", b.length);
        out.putShort((short) b.length).put(b);
    }

    private static byte[] utf8(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
