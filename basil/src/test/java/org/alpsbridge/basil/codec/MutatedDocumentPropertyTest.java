package org.alpsbridge.basil.codec;

import static org.junit.jupiter.api.Assertions.assertFalse;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import org.alpsbridge.basil.cli.CheckAccess;
import org.alpsbridge.basil.fixtures.Fixtures;
import org.alpsbridge.basil.inventory.Corpus;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.nodes.Seeds;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Every way in reads a damaged document to a result or to one {@link BasilException}, never to an unchecked
 * exception or an error: each trial takes a real document (the fixtures, and the shared corpus when present),
 * damages it (truncation, a byte overwritten, a slice deleted or repeated, a hostile or stray token inserted) and
 * feeds it to the full codec, {@link Probe}, the streaming {@link InventoryReader} and {@code basil check}.
 * A failure prints the seed; replay it with {@code -Dalpsbridge.seed=N}.
 */
class MutatedDocumentPropertyTest {

    private static final List<byte[]> DOCUMENTS = documents();

    private static final String[] TOKENS = {
        "<!DOCTYPE x [<!ENTITY e SYSTEM \"file:///etc/passwd\">]>", "&e;", "&amp;", "&#0;", "&#xFFFFFFFF;", "<",
        ">", "</", "/>", "\"", "'", "=", "<![CDATA[x]]>", "]]>", "<!-- c -->", "<?xml version=\"1.0\"?>", "<?pi x?>",
        "\u00e9", "\uFFFD", "\0", "<Node node_id=\"-1\"/>", "<Processor ordinal=\"99999999999999999999\"/>",
        " node_id=\"x\"", " xmlns:a=\"urn:a\"", "<a:Node/>", "<BasilResponse protocol=\"1.3\">", "</ResponseData>",
    };

    @Test
    void damagedDocumentsAreReadOrRefusedWithOneCheckedException() {
        Seeds.check(1500, MutatedDocumentPropertyTest::trial);
    }

    @Test
    @Tag("long")
    void manyMoreDamagedDocuments() {
        Seeds.check(200_000, MutatedDocumentPropertyTest::trial);
    }

    private static void trial(SplittableRandom random) {
        byte[] original = DOCUMENTS.get(random.nextInt(DOCUMENTS.size()));
        StringBuilder how = new StringBuilder();
        byte[] damaged = original;
        for (int i = 0, n = 1 + random.nextInt(3); i < n; i++) {
            damaged = damage(damaged, random, how);
        }
        byte[] doc = damaged;
        String what = how.toString();
        BasilCodec codec = BasilCodec.standard();
        only("readDocument", what, () -> codec.readDocument(new ByteArrayInputStream(doc)));
        only("Probe.of", what, () -> Probe.of(doc));
        only("check", what, () -> CheckAccess.describe(doc));
        only("InventoryReader", what, () -> {
            try (InventoryReader r = InventoryReader.open(new ByteArrayInputStream(doc))) {
                while (r.nextNode() != null) {
                    // drain
                }
                while (r.nextReservation() != null) {
                    // drain
                }
                r.finish();
            }
            return null;
        });
    }

    /** One kind of damage, described in {@code how}. */
    private static byte[] damage(byte[] doc, SplittableRandom random, StringBuilder how) {
        int at = doc.length == 0 ? 0 : random.nextInt(doc.length + 1);
        switch (random.nextInt(5)) {
            case 0 -> {
                how.append("truncated at ").append(at).append("; ");
                return java.util.Arrays.copyOf(doc, at);
            }
            case 1 -> {
                if (doc.length == 0) {
                    return doc;
                }
                byte[] copy = doc.clone();
                int i = Math.min(at, doc.length - 1);
                copy[i] = (byte) random.nextInt(256);
                how.append("byte ").append(i).append(" := ").append(copy[i] & 0xff).append("; ");
                return copy;
            }
            case 2 -> {
                int end = Math.min(doc.length, at + random.nextInt(64));
                how.append("deleted ").append(at).append("..").append(end).append("; ");
                return concat(slice(doc, 0, at), slice(doc, end, doc.length));
            }
            case 3 -> {
                int end = Math.min(doc.length, at + random.nextInt(200));
                int to = random.nextInt(doc.length + 1);
                how.append("copied ").append(at).append("..").append(end).append(" to ").append(to).append("; ");
                return concat(concat(slice(doc, 0, to), slice(doc, at, end)), slice(doc, to, doc.length));
            }
            default -> {
                String token = TOKENS[random.nextInt(TOKENS.length)];
                how.append("inserted ").append(token.replace("\0", "\\0")).append(" at ").append(at).append("; ");
                byte[] bytes = token.getBytes(random.nextBoolean() ? StandardCharsets.UTF_8 : StandardCharsets.ISO_8859_1);
                return concat(concat(slice(doc, 0, at), bytes), slice(doc, at, doc.length));
            }
        }
    }

    private interface Read {
        Object read() throws Exception;
    }

    /** A result or a BasilException are both fine; anything else names the way in and the damage. */
    private static void only(String way, String how, Read read) {
        try {
            read.read();
        } catch (BasilException expected) {
            assertFalse(expected.getMessage() == null || expected.getMessage().isBlank(), way + ": empty message after " + how);
        } catch (Throwable t) {
            throw new AssertionError(way + " threw " + t + " after: " + how, t);
        }
    }

    private static byte[] slice(byte[] b, int from, int to) {
        return java.util.Arrays.copyOfRange(b, from, Math.max(from, to));
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    private static List<byte[]> documents() {
        List<byte[]> docs = new ArrayList<>();
        try {
            for (Path p : Fixtures.allButHostile()) {
                docs.add(Files.readAllBytes(p));
            }
            if (Corpus.directory().isPresent()) {
                for (Path p : Corpus.documents()) {
                    docs.add(Files.readAllBytes(p));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException("cannot read the fixtures", e);
        }
        return docs;
    }
}
