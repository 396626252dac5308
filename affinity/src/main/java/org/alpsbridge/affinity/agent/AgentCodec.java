package org.alpsbridge.affinity.agent;

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
 * The affinity agent's wire format, both ways (the SPANK plugin {@code affinity/spank/reduced_auto_affinity.c}
 * speaks the same; the ledger's hook agent uses the same framing): a frame is a 4-byte big-endian length, then
 * that many bytes of UTF-8 {@code key=value} items, each ended by a NUL byte (NUL occurs in no argument and in no
 * generator output, so nothing needs quoting).
 *
 * <pre>
 * request: v=1 NUL  (arg=ARG NUL)*                 the arguments of `raa-exec affinity ARGS...`
 * reply:   exit=N NUL  out=TEXT NUL  err=TEXT NUL  what raa-exec affinity would exit with and print
 *      or: unserved=REASON NUL                     the agent does not answer this call (the plugin then starts
 *                                                  the generator itself)
 * </pre>
 *
 * A request longer than {@link #MAX_REQUEST} is refused before it is read; every other fault is an
 * {@link IllegalArgumentException} naming it.
 */
final class AgentCodec {

    /** The largest request: the plugin's arguments are a few hundred bytes (a CPU list of 1024 CPUs is 4 KiB). */
    static final int MAX_REQUEST = 64 * 1024;
    /** The largest reply: the plugin keeps at most 1 MiB of each stream. */
    static final int MAX_REPLY = 4 * 1024 * 1024;

    private AgentCodec() {
    }

    /**
     * The next frame's payload.
     *
     * @throws EOFException when the stream ends before a whole frame
     * @throws IllegalArgumentException when the frame is longer than {@code limit}
     */
    static byte[] readFrame(InputStream in, int limit) throws IOException {
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

    /** The arguments of a request. */
    static String[] request(byte[] payload) {
        List<String> items = items(payload);
        if (items.isEmpty() || !items.get(0).equals("v=1")) {
            throw new IllegalArgumentException("the request does not start with v=1 (the version this agent speaks), but '"
                    + (items.isEmpty() ? "" : items.get(0)) + "'");
        }
        List<String> args = new ArrayList<>();
        for (String item : items.subList(1, items.size())) {
            if (!item.startsWith("arg=")) {
                throw new IllegalArgumentException("unknown request item '" + item + "' (v, arg)");
            }
            args.add(item.substring(4));
        }
        return args.toArray(String[]::new);
    }

    static byte[] request(List<String> args) {
        List<String> items = new ArrayList<>(List.of("v=1"));
        for (String a : args) {
            items.add("arg=" + a);
        }
        return frame(items, MAX_REQUEST);
    }

    /** What the generator would have done: its exit code and both streams. */
    record Answer(int exit, String out, String err) {
    }

    static byte[] reply(Answer a) {
        return frame(List.of("exit=" + a.exit(), "out=" + a.out(), "err=" + a.err()), MAX_REPLY);
    }

    static byte[] unserved(String reason) {
        return frame(List.of("unserved=" + reason.replace('\0', ' ')), MAX_REPLY);
    }

    /**
     * A reply: the answer, or null with {@code unserved} holding the agent's reason.
     */
    static Answer reply(byte[] payload, StringBuilder unserved) {
        List<String> items = items(payload);
        if (items.size() == 1 && items.get(0).startsWith("unserved=")) {
            unserved.append(items.get(0).substring(9));
            return null;
        }
        if (items.size() != 3 || !items.get(0).matches("exit=[0-9]{1,3}") || !items.get(1).startsWith("out=")
                || !items.get(2).startsWith("err=")) {
            throw new IllegalArgumentException("the reply is neither exit=N out=TEXT err=TEXT nor unserved=REASON");
        }
        return new Answer(Integer.parseInt(items.get(0).substring(5)), items.get(1).substring(4), items.get(2).substring(4));
    }

    private static byte[] frame(List<String> items, int limit) {
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
    private static List<String> items(byte[] payload) {
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
}
