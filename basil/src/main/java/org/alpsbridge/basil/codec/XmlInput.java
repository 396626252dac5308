package org.alpsbridge.basil.codec;

import com.ctc.wstx.api.WstxInputProperties;
import com.ctc.wstx.stax.WstxInputFactory;
import java.io.FilterInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayDeque;
import java.util.HashSet;
import java.util.Set;
import javax.xml.stream.Location;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import javax.xml.stream.util.StreamReaderDelegate;

/**
 * Hardened Woodstox readers: no DTD processing, no external entities, the {@link Limits} enforced by the
 * parser itself, and the DOCTYPE event refused outright, so hostile input fails before it costs anything.
 */
final class XmlInput {

    private final XMLInputFactory factory;
    private final Limits limits;

    XmlInput(Limits limits) {
        this.limits = limits;
        WstxInputFactory f = new WstxInputFactory();
        f.setProperty(XMLInputFactory.SUPPORT_DTD, false);
        f.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
        // Left at true on purpose: with false, an undeclared entity in an attribute value binds silently as an
        // empty string (shared/engineering/XMLPERF.md finding 4); with true Woodstox refuses it.
        f.setProperty(XMLInputFactory.IS_REPLACING_ENTITY_REFERENCES, true);
        f.setProperty(XMLInputFactory.IS_NAMESPACE_AWARE, true);
        f.setProperty(XMLInputFactory.IS_COALESCING, false);
        f.setProperty(WstxInputProperties.P_MAX_ELEMENT_DEPTH, limits.maxDepth());
        f.setProperty(WstxInputProperties.P_MAX_ATTRIBUTES_PER_ELEMENT, limits.maxAttributesPerElement());
        f.setProperty(WstxInputProperties.P_MAX_ATTRIBUTE_SIZE, limits.maxAttributeLength());
        f.setProperty(WstxInputProperties.P_MAX_TEXT_LENGTH, limits.maxTextLength());
        f.setProperty(WstxInputProperties.P_MAX_CHARACTERS, limits.maxDocumentBytes());
        f.setProperty(WstxInputProperties.P_MAX_ENTITY_COUNT, 1L);
        f.setProperty(WstxInputProperties.P_MAX_ENTITY_DEPTH, 1);
        this.factory = f;
    }

    Limits limits() {
        return limits;
    }

    /**
     * A reader over {@code in} that refuses a DOCTYPE and stops at {@code maxDocumentBytes}. What fails here
     * fails in the XML declaration or the byte-order mark (an encoding it names that does not exist, say),
     * which is line 1: the parser reports no place for it (found by BasilCodecFuzzTest), so it is given one.
     */
    XMLStreamReader open(InputStream in) throws XMLStreamException {
        try {
            return new Guarded(factory.createXMLStreamReader(new Bounded(in, limits.maxDocumentBytes())));
        } catch (XMLStreamException e) {
            if (e.getLocation() != null && e.getLocation().getLineNumber() > 0) {
                throw e;
            }
            throw new XMLStreamException(clean(e.getMessage()), new DeclarationStart(), e);
        }
    }

    /** Line 1, column 1: where the XML declaration starts. */
    private static final class DeclarationStart implements javax.xml.stream.Location {
        @Override
        public int getLineNumber() {
            return 1;
        }

        @Override
        public int getColumnNumber() {
            return 1;
        }

        @Override
        public int getCharacterOffset() {
            return 0;
        }

        @Override
        public String getPublicId() {
            return null;
        }

        @Override
        public String getSystemId() {
            return null;
        }
    }

    /**
     * As {@link #failure(String, Throwable)}, taking the place from {@code reader} when the exception carries
     * none (a wrongly encoded byte is reported by the decoder, which knows no line).
     */
    static BasilException failure(String what, Throwable t, XMLStreamReader reader) {
        BasilException e = failure(what, t);
        if (e.line() > 0 || reader == null) {
            return e;
        }
        Location at;
        try {
            at = reader.getLocation();
        } catch (RuntimeException ignored) {
            return e;
        }
        if (at == null || at.getLineNumber() <= 0) {
            return e;
        }
        String message = e.getMessage();
        return new BasilException(message, at.getLineNumber(), at.getColumnNumber(), e.getCause());
    }

    /** Turns anything the parser or binder threw into the one checked exception callers handle. */
    static BasilException failure(String what, Throwable t) {
        Throwable cause = t;
        Location loc = null;
        String problem = null;
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof XMLStreamException x) {
                if (loc == null && x.getLocation() != null) {
                    loc = x.getLocation();
                }
                if (problem == null) {
                    problem = clean(x.getMessage());
                }
            } else if (c instanceof DocumentTooLarge || c instanceof java.io.CharConversionException) {
                problem = c.getMessage();
                cause = c;
                break;
            }
            if (c.getCause() == c) {
                break;
            }
        }
        if (problem == null) {
            problem = t.getMessage() != null ? t.getMessage() : t.getClass().getSimpleName();
        }
        int line = loc == null ? -1 : loc.getLineNumber();
        int col = loc == null ? -1 : loc.getColumnNumber();
        return new BasilException(what + ": " + problem, line, col, cause);
    }

    /** Woodstox prefixes "ParseError at [row,col]:[r,c]\nMessage: "; the location is reported separately. */
    private static String clean(String message) {
        if (message == null) {
            return "malformed XML";
        }
        int i = message.indexOf("Message: ");
        String m = i >= 0 ? message.substring(i + 9) : message;
        int at = m.indexOf("\n at [");
        return (at >= 0 ? m.substring(0, at) : m).strip();
    }

    static final class DocumentTooLarge extends IOException {
        private static final long serialVersionUID = 1L;

        DocumentTooLarge(long limit) {
            super("document larger than the limit of " + limit + " bytes");
        }
    }

    /** Counts bytes so a stream that never ends cannot exhaust memory before the parser's own limits bite. */
    private static final class Bounded extends FilterInputStream {
        private final long limit;
        private long read;

        Bounded(InputStream in, long limit) {
            super(in);
            this.limit = limit;
        }

        @Override
        public int read() throws IOException {
            int b = super.read();
            if (b >= 0) {
                count(1);
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = super.read(b, off, len);
            if (n > 0) {
                count(n);
            }
            return n;
        }

        private void count(int n) throws DocumentTooLarge {
            read += n;
            if (read > limit) {
                throw new DocumentTooLarge(limit);
            }
        }
    }

    /** Refuses the DOCTYPE event itself: BASIL never has one, and every entity attack needs one. */
    private static final class Guarded extends StreamReaderDelegate {
        /** Open elements, innermost first: each one's name and the *Array children it has had so far. */
        private final ArrayDeque<String> open = new ArrayDeque<>();
        private final ArrayDeque<Set<String>> arrays = new ArrayDeque<>();

        Guarded(XMLStreamReader r) throws XMLStreamException {
            super(r);
            check(r.getEventType());
        }

        @Override
        public int next() throws XMLStreamException {
            return check(super.next());
        }

        @Override
        public int nextTag() throws XMLStreamException {
            return check(super.nextTag());
        }

        private int check(int event) throws XMLStreamException {
            if (event == XMLStreamConstants.DTD || event == XMLStreamConstants.ENTITY_REFERENCE) {
                throw new DoctypeRefused(event == XMLStreamConstants.DTD
                        ? "DOCTYPE declarations are not allowed in BASIL documents"
                        : "entity references are not allowed in BASIL documents", getLocation());
            }
            if (event == XMLStreamConstants.START_ELEMENT) {
                String name = getLocalName();
                if (name.endsWith("Array") && !arrays.isEmpty()) {
                    Set<String> seen = arrays.peek();
                    if (seen.isEmpty()) {
                        seen = new HashSet<>(4);
                        arrays.pop();
                        arrays.push(seen);
                    }
                    if (!seen.add(name)) {
                        // Every *Array of BASIL is one container per parent. The model kept the last of two and
                        // the streaming reader counted both, so they told different stories (found by
                        // BasilCodecFuzzTest): both refuse it here, at the second one.
                        throw new XMLStreamException("<" + name + "> appears twice in one <" + open.peek() + ">",
                                getLocation());
                    }
                }
                open.push(name);
                arrays.push(Set.of());
            } else if (event == XMLStreamConstants.END_ELEMENT && !open.isEmpty()) {
                open.pop();
                arrays.pop();
            }
            return event;
        }
    }

    static final class DoctypeRefused extends XMLStreamException {
        private static final long serialVersionUID = 1L;

        DoctypeRefused(String message, Location location) {
            super(message, location);
        }
    }
}
