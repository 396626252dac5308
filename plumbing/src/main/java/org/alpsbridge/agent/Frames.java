package org.alpsbridge.agent;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * The unix-socket agents' framing, both ways (the affinity agent and its SPANK plugin, the ledger hook agent and
 * its C client): a frame is a 4-byte big-endian length, then that many bytes of UTF-8 {@code key=value} items,
 * each ended by a NUL byte. NUL occurs in no argument, environment value or generator output, so nothing needs
 * quoting. What the items mean is each agent's own codec; a fault is an {@link IllegalArgumentException} naming it.
 */
public final class Frames {

    private Frames() {
    }

    /**
     * The next frame's payload; a frame longer than {@code limit} is refused before it is read.
     *
     * @throws EOFException when the stream ends before a whole frame
     * @throws IllegalArgumentException when the frame is longer than {@code limit}
     */
    public static byte[] read(InputStream in, int limit) throws IOException {
        byte[] head = in.readNBytes(4);
        if (head.length < 4) {
            throw new EOFException("the stream ended after " + head.length + " of a frame's 4 length bytes");
        }
        long length = ((head[0] & 0xffL) << 24) | ((head[1] & 0xff) << 16) | ((head[2] & 0xff) << 8) | (head[3] & 0xff);
        if (length > limit) {
            throw new IllegalArgumentException("a frame of " + length + " bytes is over the limit of " + limit);
        }
        byte[] payload = in.readNBytes((int) length);
        if (payload.length < length) {
            throw new EOFException("the stream ended after " + payload.length + " of a frame's " + length + " bytes");
        }
        return payload;
    }

    /** {@code items} as one frame, length included; refused when an item holds a NUL or the frame is over {@code limit}. */
    public static byte[] frame(List<String> items, int limit) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.writeBytes(new byte[4]);
        for (String item : items) {
            if (item.indexOf('\0') >= 0) {
                throw new IllegalArgumentException("an item holds a NUL byte: '" + item.replace('\0', '?') + "'");
            }
            b.writeBytes(item.getBytes(StandardCharsets.UTF_8));
            b.write(0);
        }
        byte[] out = b.toByteArray();
        int length = out.length - 4;
        if (length > limit) {
            throw new IllegalArgumentException("a frame of " + length + " bytes is over the limit of " + limit);
        }
        out[0] = (byte) (length >>> 24);
        out[1] = (byte) (length >>> 16);
        out[2] = (byte) (length >>> 8);
        out[3] = (byte) length;
        return out;
    }

    /** The NUL-ended items of a payload, strictly UTF-8. */
    public static List<String> items(byte[] payload) {
        if (payload.length > 0 && payload[payload.length - 1] != 0) {
            throw new IllegalArgumentException("the frame's last item is not ended by a NUL byte");
        }
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(payload)).toString();
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("the frame is not UTF-8 text");
        }
        List<String> items = new ArrayList<>();
        int from = 0;
        for (int i = 0; i < text.length(); i++) {
            if (text.charAt(i) == '\0') {
                items.add(text.substring(from, i));
                from = i + 1;
            }
        }
        return items;
    }

    /**
     * The first item when it is {@code v=1}, the version both agents speak; else the refusal naming what came.
     */
    public static List<String> versionOne(byte[] payload) {
        List<String> items = items(payload);
        if (items.isEmpty() || !items.get(0).equals("v=1")) {
            throw new IllegalArgumentException("the request does not start with v=1 (the version this agent speaks), but '"
                    + (items.isEmpty() ? "" : items.get(0)) + "'");
        }
        return items.subList(1, items.size());
    }
}
