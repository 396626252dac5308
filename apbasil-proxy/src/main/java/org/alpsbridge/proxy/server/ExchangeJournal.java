package org.alpsbridge.proxy.server;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The exchange memory on disk ({@code exchange_journal=FILE}), so that a restarted daemon still knows
 * every RESERVE/CONFIRM/RELEASE/SWITCH of the last {@code exchange_memory} seconds: a retry of a finished
 * one gets its first answer, and one that was running when the daemon died is reported (log, admin
 * command {@code interrupted}) instead of being run a second time.
 *
 * <p>One line per event, appended: {@code B millis uid id methodKey digestHex} before the backend is called
 * (forced to disk first), then {@code E millis uid id base64(answer)} or {@code F millis uid id 0|1
 * base64(message)} after. Rewritten without expired entries when opened and whenever it has grown by
 * {@value #COMPACT_AFTER_BYTES} bytes.
 */
final class ExchangeJournal implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(ExchangeJournal.class);
    private static final long COMPACT_AFTER_BYTES = 16L * 1024 * 1024;

    /** One exchange as the journal knows it. */
    record Entry(long startedMillis, int uid, String exchangeId, String methodKey, byte[] digest, byte[] answer,
            String failure, boolean failureTransient) {

        boolean finished() {
            return answer != null || failure != null;
        }
    }

    private final Path file;
    private final long keepMillis;
    private final Map<String, Entry> entries = new LinkedHashMap<>();
    private final List<Entry> interrupted = new ArrayList<>();
    private FileChannel out;
    private long appended;

    private ExchangeJournal(Path file, Duration keep) {
        this.file = file;
        this.keepMillis = keep.toMillis();
    }

    /** Opens (creating if needed) and compacts the journal; what it held is in {@link #entries()}. */
    static ExchangeJournal open(Path file, Duration keep) throws IOException {
        ExchangeJournal j = new ExchangeJournal(file, keep);
        if (Files.exists(file)) {
            j.load();
        }
        j.rewrite();
        return j;
    }

    /** Exchanges that were running when the previous daemon stopped: their outcome is unknown. */
    synchronized List<Entry> interrupted() {
        return List.copyOf(interrupted);
    }

    /** Entries still within the retention, oldest first. */
    synchronized List<Entry> entries() {
        return new ArrayList<>(entries.values());
    }

    /** Records that an exchange is about to run; on disk before this returns. */
    synchronized void begin(int uid, String exchangeId, String methodKey, byte[] digest) throws IOException {
        long now = System.currentTimeMillis();
        entries.put(key(uid, exchangeId), new Entry(now, uid, exchangeId, methodKey, digest, null, null, false));
        append("B " + now + " " + uid + " " + exchangeId + " " + methodKey + " " + HexFormat.of().formatHex(digest), true);
    }

    synchronized void finish(int uid, String exchangeId, byte[] answer) {
        Entry e = entries.get(key(uid, exchangeId));
        if (e != null) {
            entries.put(key(uid, exchangeId), new Entry(e.startedMillis, uid, exchangeId, e.methodKey, e.digest,
                    answer, null, false));
        }
        appendQuietly("E " + System.currentTimeMillis() + " " + uid + " " + exchangeId + " "
                + Base64.getEncoder().encodeToString(answer));
    }

    synchronized void fail(int uid, String exchangeId, String message, boolean retryable) {
        Entry e = entries.get(key(uid, exchangeId));
        if (e != null) {
            entries.put(key(uid, exchangeId), new Entry(e.startedMillis, uid, exchangeId, e.methodKey, e.digest,
                    null, message, retryable));
        }
        appendQuietly("F " + System.currentTimeMillis() + " " + uid + " " + exchangeId + " " + (retryable ? 1 : 0)
                + " " + Base64.getEncoder().encodeToString(message.getBytes(StandardCharsets.UTF_8)));
    }

    /** Drops expired entries and rewrites the file once it has grown enough. */
    synchronized void expire() {
        long cutoff = System.currentTimeMillis() - keepMillis;
        entries.values().removeIf(e -> e.startedMillis < cutoff && e.finished());
        if (appended > COMPACT_AFTER_BYTES) {
            try {
                rewrite();
            } catch (IOException e) {
                log.warn("could not compact the exchange journal {}: {}", file, e.getMessage());
            }
        }
    }

    @Override
    public synchronized void close() {
        try {
            if (out != null) {
                out.close();
            }
        } catch (IOException e) {
            log.warn("closing the exchange journal {}: {}", file, e.getMessage());
        }
    }

    private void load() throws IOException {
        long cutoff = System.currentTimeMillis() - keepMillis;
        int n = 0;
        for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
            n++;
            String[] f = line.split(" ");
            try {
                String key = key(Integer.parseInt(f[2]), f[3]);
                Entry e = entries.get(key);
                switch (f[0]) {
                    case "B" -> entries.put(key, new Entry(Long.parseLong(f[1]), Integer.parseInt(f[2]), f[3], f[4],
                            HexFormat.of().parseHex(f[5]), null, null, false));
                    case "E" -> {
                        if (e != null) {
                            entries.put(key, new Entry(e.startedMillis, e.uid, e.exchangeId, e.methodKey, e.digest,
                                    Base64.getDecoder().decode(f[4]), null, false));
                        }
                    }
                    case "F" -> {
                        if (e != null) {
                            entries.put(key, new Entry(e.startedMillis, e.uid, e.exchangeId, e.methodKey, e.digest,
                                    null, new String(Base64.getDecoder().decode(f[5]), StandardCharsets.UTF_8),
                                    f[4].equals("1")));
                        }
                    }
                    default -> throw new IllegalArgumentException("unknown record " + f[0]);
                }
            } catch (RuntimeException bad) {
                // A line cut short by a crash is expected at the end; anywhere else it is worth a warning.
                log.warn("{}:{}: skipping an unreadable exchange journal line ({})", file, n, bad.toString());
            }
        }
        entries.values().removeIf(e -> e.startedMillis < cutoff && e.finished());
        for (Map.Entry<String, Entry> me : entries.entrySet()) {
            Entry e = me.getValue();
            if (!e.finished()) {
                interrupted.add(e);
                me.setValue(new Entry(e.startedMillis, e.uid, e.exchangeId, e.methodKey, e.digest, null,
                        e.methodKey + " exchange " + e.exchangeId + " was running when the apbasil proxy stopped; "
                                + "its outcome is unknown, so it is not run again (a reservation it made, if any, "
                                + "is listed by the orphan scan)", true));
            }
        }
    }

    /** Writes the live entries to a new file and renames it over the old one. */
    private void rewrite() throws IOException {
        close();
        Path tmp = file.resolveSibling(file.getFileName() + ".new");
        StringBuilder text = new StringBuilder();
        for (Entry e : entries.values()) {
            text.append("B ").append(e.startedMillis).append(' ').append(e.uid).append(' ').append(e.exchangeId)
                    .append(' ').append(e.methodKey).append(' ').append(HexFormat.of().formatHex(e.digest)).append('\n');
            if (e.answer != null) {
                text.append("E ").append(e.startedMillis).append(' ').append(e.uid).append(' ').append(e.exchangeId)
                        .append(' ').append(Base64.getEncoder().encodeToString(e.answer)).append('\n');
            } else if (e.failure != null) {
                text.append("F ").append(e.startedMillis).append(' ').append(e.uid).append(' ').append(e.exchangeId)
                        .append(' ').append(e.failureTransient ? 1 : 0).append(' ')
                        .append(Base64.getEncoder().encodeToString(e.failure.getBytes(StandardCharsets.UTF_8)))
                        .append('\n');
            }
        }
        Files.writeString(tmp, text, StandardCharsets.UTF_8);
        try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
            ch.force(true);
        }
        Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        out = FileChannel.open(file, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        appended = 0;
    }

    private void append(String line, boolean force) throws IOException {
        byte[] b = (line + "\n").getBytes(StandardCharsets.UTF_8);
        ByteBuffer buf = ByteBuffer.wrap(b);
        while (buf.hasRemaining()) {
            out.write(buf);
        }
        if (force) {
            out.force(false);
        }
        appended += b.length;
    }

    private void appendQuietly(String line) {
        try {
            append(line, false);
        } catch (IOException e) {
            log.error("could not append to the exchange journal {}: {}", file, e.getMessage());
        }
    }

    private static String key(int uid, String exchangeId) {
        return uid + " " + exchangeId;
    }

    /** For logs and the {@code interrupted} command: one line per unfinished exchange. */
    static String describe(Entry e) {
        return Instant.ofEpochMilli(e.startedMillis) + " uid " + e.uid + " " + e.methodKey + " exchange " + e.exchangeId;
    }
}
