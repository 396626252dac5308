package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.alpsbridge.agent.Frames;

/**
 * The agent's wire format, both ways (the C client {@code ledger-hook-client.c} speaks the same): {@link Frames} of
 * NUL-ended UTF-8 {@code key=value} items (the affinity agent uses the same framing).
 *
 * <pre>
 * request: v=1 NUL  mode=prolog|epilog|submit NUL  (arg=OPTION NUL)*  (env=NAME=VALUE NUL)*  [at=ISO-INSTANT NUL]
 *          [spooled=FILE NUL]
 * reply:   exit=N NUL  (say=LINE NUL)*
 * </pre>
 *
 * {@code at} is the epilog's time, in the spool; {@code spooled} names the spool's file the C client wrote
 * the epilog into itself (the same frame without {@code spooled}), sent without waiting for a reply. A frame longer than {@link #MAX_FRAME} is
 * refused before it is read; every other fault is an {@link IllegalArgumentException} naming it.
 */
final class AgentCodec {

    /** The largest frame (64 KiB): slurmctld's SLURM_* environment of a job is a few hundred bytes. */
    static final int MAX_FRAME = 64 * 1024;

    private AgentCodec() {
    }

    /** The next frame's payload ({@link Frames#read}, at most {@link #MAX_FRAME}). */
    static byte[] readFrame(InputStream in) throws IOException {
        return Frames.read(in, MAX_FRAME);
    }

    static AgentRequest request(byte[] payload) {
        String mode = null;
        List<String> options = new ArrayList<>();
        Map<String, String> env = new LinkedHashMap<>();
        Instant at = null;
        String spooled = null;
        for (String item : Frames.versionOne(payload)) {
            int eq = item.indexOf('=');
            String key = eq < 0 ? item : item.substring(0, eq);
            String value = eq < 0 ? null : item.substring(eq + 1);
            switch (key) {
                case "mode" -> {
                    if (mode != null || !(AgentRequest.PROLOG.equals(value) || AgentRequest.EPILOG.equals(value)
                            || AgentRequest.SUBMIT.equals(value))) {
                        throw new IllegalArgumentException("mode must be given once, as prolog or epilog (or submit),"
                                + " not '" + item + "'");
                    }
                    mode = value;
                }
                case "arg" -> options.add(value);
                case "env" -> {
                    int e = value == null ? -1 : value.indexOf('=');
                    if (e < 1) {
                        throw new IllegalArgumentException("env item '" + item + "' is not env=NAME=VALUE");
                    }
                    env.put(value.substring(0, e), value.substring(e + 1));
                }
                case "at" -> {
                    try {
                        at = Instant.parse(value == null ? "" : value);
                    } catch (DateTimeParseException ex) {
                        throw new IllegalArgumentException("at item '" + item + "' is not an ISO instant");
                    }
                }
                case "spooled" -> {
                    if (value == null || !EpilogSpool.isSpoolName(value)) {
                        throw new IllegalArgumentException("spooled item '" + item + "' does not name a spooled epilog"
                                + " (job-ID-run-N[-CLUSTER].epilog)");
                    }
                    spooled = value;
                }
                default -> throw new IllegalArgumentException("unknown request item '" + item
                        + "' (v, mode, arg, env, at, spooled)");
            }
            if (value == null) {
                throw new IllegalArgumentException("request item '" + item + "' is not key=value");
            }
        }
        if (mode == null) {
            throw new IllegalArgumentException("the request names no mode (mode=prolog, mode=epilog or mode=submit)");
        }
        if (spooled != null && (!AgentRequest.EPILOG.equals(mode) || at == null)) {
            throw new IllegalArgumentException("only an epilog with its time (at) can have been spooled");
        }
        return new AgentRequest(mode, options, env, at, spooled);
    }

    static byte[] frame(AgentRequest r) {
        List<String> items = new ArrayList<>(List.of("v=1", "mode=" + r.mode()));
        for (String o : r.options()) {
            items.add("arg=" + o);
        }
        for (Map.Entry<String, String> e : r.env().entrySet()) {
            items.add("env=" + e.getKey() + "=" + e.getValue());
        }
        if (r.at() != null) {
            items.add("at=" + r.at());
        }
        if (r.spooled() != null) {
            items.add("spooled=" + r.spooled());
        }
        return Frames.frame(items, MAX_FRAME);
    }

    static AgentReply reply(byte[] payload) {
        List<String> items = Frames.items(payload);
        if (items.isEmpty() || !items.get(0).matches("exit=[0-9]{1,3}")) {
            throw new IllegalArgumentException("the reply does not start with exit=N");
        }
        List<String> lines = new ArrayList<>();
        for (String item : items.subList(1, items.size())) {
            if (!item.startsWith("say=")) {
                throw new IllegalArgumentException("unknown reply item '" + item + "' (exit, say)");
            }
            lines.add(item.substring(4));
        }
        return new AgentReply(Integer.parseInt(items.get(0).substring(5)), lines);
    }

    static byte[] frame(AgentReply r) {
        List<String> items = new ArrayList<>(List.of("exit=" + r.exit()));
        for (String line : r.lines()) {
            items.add("say=" + line.replace('\0', ' '));
        }
        return Frames.frame(items, MAX_FRAME);
    }
}
