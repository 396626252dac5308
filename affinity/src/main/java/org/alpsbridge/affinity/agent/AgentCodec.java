package org.alpsbridge.affinity.agent;

import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import org.alpsbridge.agent.Frames;

/**
 * The affinity agent's wire format, both ways (the SPANK plugin {@code affinity/spank/reduced_auto_affinity.c}
 * speaks the same): {@link Frames} of NUL-ended UTF-8 {@code key=value} items (the ledger's hook agent uses the
 * same framing).
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

    /** The next frame's payload ({@link Frames#read}). */
    static byte[] readFrame(InputStream in, int limit) throws IOException {
        return Frames.read(in, limit);
    }

    /** The arguments of a request. */
    static String[] request(byte[] payload) {
        List<String> args = new ArrayList<>();
        for (String item : Frames.versionOne(payload)) {
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
        return Frames.frame(items, MAX_REQUEST);
    }

    /** What the generator would have done: its exit code and both streams. */
    record Answer(int exit, String out, String err) {
    }

    static byte[] reply(Answer a) {
        return Frames.frame(List.of("exit=" + a.exit(), "out=" + a.out(), "err=" + a.err()), MAX_REPLY);
    }

    static byte[] unserved(String reason) {
        return Frames.frame(List.of("unserved=" + reason.replace('\0', ' ')), MAX_REPLY);
    }

    /**
     * A reply: the answer, or null with {@code unserved} holding the agent's reason.
     */
    static Answer reply(byte[] payload, StringBuilder unserved) {
        List<String> items = Frames.items(payload);
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
}
