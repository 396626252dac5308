package org.alpsbridge.basil.inventory;

import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;
import javax.xml.stream.util.StreamReaderDelegate;
import org.codehaus.stax2.XMLStreamReader2;
import org.codehaus.stax2.typed.TypedValueDecoder;

/**
 * The attributes of the current start tag, read by index, without the Strings {@link XMLStreamReader#getAttributeValue}
 * makes: a number is parsed from Woodstox's own character buffer (through Stax2's typed access), and a value that
 * repeats from node to node ({@code XT}, {@code BATCH}, {@code UP}, {@code x86_64}, …) comes back as the String made
 * the last time. An inventory holds millions of Processor, ComputeUnit and ProcessorAllocation tags; each used to
 * cost two Strings (Woodstox joins an element's values into one, then cuts each out) before its one number was read.
 *
 * <p>Values are exactly those of {@code getAttributeValue}: Woodstox trims the value before it hands the buffer to
 * a typed decoder, so a value whose neighbours in the buffer are white space (it may have been trimmed) is read
 * again as a String and judged from that, as is an empty one; a bad number fails with the same message either way.
 * Lookups by name take the first attribute of that local name, as {@code getAttributeValue(null, name)} does.
 */
final class Attributes {

    private final XMLStreamReader r;
    /** Woodstox under the codec's guard (which does not touch attributes), or null: then every value is a String. */
    private final XMLStreamReader2 woodstox;
    /** Where names are read: Woodstox itself when it is there, past the guard's delegation. */
    private final XMLStreamReader names;
    private static final int RECENT_BITS = 7;
    private final Digits digits = new Digits();
    private final Text text = new Text();

    Attributes(XMLStreamReader r) {
        this.r = r;
        XMLStreamReader under = r;
        while (under instanceof StreamReaderDelegate d) {
            under = d.getParent();
        }
        this.woodstox = under instanceof XMLStreamReader2 w ? w : null;
        this.names = woodstox != null ? woodstox : r;
    }

    int count() {
        return names.getAttributeCount();
    }

    String name(int index) {
        return names.getAttributeLocalName(index);
    }

    /** The index of the first attribute called {@code name} (any namespace), or -1. */
    int find(String name) {
        XMLStreamReader in = names;
        for (int i = 0, n = in.getAttributeCount(); i < n; i++) {
            if (name.equals(in.getAttributeLocalName(i))) {
                return i;
            }
        }
        return -1;
    }

    /** The attribute at {@code index} as an unsigned decimal (1 to 18 digits), or the error naming it. */
    long number(int index) throws XMLStreamException {
        if (woodstox != null) {
            digits.value = -1;
            woodstox.getAttributeAs(index, digits);
            if (digits.value >= 0) {
                return digits.value;
            }
        }
        String value = r.getAttributeValue(index);
        long v = digits(value);
        if (v < 0) {
            throw notANumber(r.getAttributeLocalName(index), value);
        }
        return v;
    }

    /** The attribute called {@code name} as a number, or {@code absent} without one. */
    long numberOr(String name, long absent) throws XMLStreamException {
        int i = find(name);
        return i < 0 ? absent : number(i);
    }

    /** The attribute called {@code name} as a number, or null without one. */
    Long optionalNumber(String name) throws XMLStreamException {
        int i = find(name);
        return i < 0 ? null : number(i);
    }

    /** The value at {@code index}, the same String as last time when a value repeats (a state, a type, a name). */
    String shared(int index) throws XMLStreamException {
        return value(index, true);
    }

    /** The value called {@code name}, shared as {@link #shared(int)}, or null without one. */
    String shared(String name) throws XMLStreamException {
        int i = find(name);
        return i < 0 ? null : value(i, true);
    }

    /** The value at {@code index}, a new String (for values unique to one element: node names, batch ids). */
    String fresh(int index) throws XMLStreamException {
        return value(index, false);
    }

    private String value(int index, boolean remember) throws XMLStreamException {
        if (woodstox != null) {
            text.found = null;
            text.remember = remember;
            woodstox.getAttributeAs(index, text);
            if (text.found != null) {
                return text.found;
            }
        }
        return r.getAttributeValue(index);
    }

    /** The value of 1 to 18 decimal digits, or -1 for anything else. */
    static long digits(String value) {
        return digits(value.toCharArray(), 0, value.length());
    }

    /** {@code buf[start, end)} as 1 to 18 decimal digits, or -1 for anything else. */
    private static long digits(char[] buf, int start, int end) {
        if (end <= start || end - start > 18) {
            return -1;
        }
        long v = 0;
        for (int i = start; i < end; i++) {
            char c = buf[i];
            if (c < '0' || c > '9') {
                return -1;
            }
            v = v * 10 + (c - '0');
        }
        return v;
    }

    XMLStreamException notANumber(String attribute, String value) {
        return new XMLStreamException("<" + r.getLocalName() + "> " + attribute + "=\"" + value
                + "\" is not an unsigned decimal number", r.getLocation());
    }

    /**
     * Whether Woodstox may have trimmed white space off {@code buf[start, end)}: it has, if at all, only where a
     * neighbour is white space (Woodstox's test: at most U+0020). A neighbour may be another attribute's value or
     * stale, which only sends a clean value the slow way.
     */
    private static boolean maybeTrimmed(char[] buf, int start, int end) {
        return (start > 0 && buf[start - 1] <= ' ') || (end < buf.length && buf[end] <= ' ');
    }

    /** Digits straight from the buffer; -1 sends the value to the exact String path (which also words the error). */
    private static final class Digits extends TypedValueDecoder {
        long value = -1;

        @Override
        public void decode(String input) {
            value = digits(input);
        }

        @Override
        public void decode(char[] buf, int start, int end) {
            if (maybeTrimmed(buf, start, end)) {
                return;
            }
            value = digits(buf, start, end);
        }

        @Override
        public void handleEmptyValue() {
            value = -1;
        }
    }

    /** A value from the buffer: the remembered String with the same characters, or a new one; null means "ask again". */
    private static final class Text extends TypedValueDecoder {
        /** Recently seen values by a hash of some of their characters; a clash only costs a new String. */
        private final String[] recent = new String[1 << RECENT_BITS];
        String found;
        boolean remember;

        @Override
        public void decode(String input) {
            found = null;
        }

        @Override
        public void decode(char[] buf, int start, int end) {
            if (maybeTrimmed(buf, start, end)) {
                return;
            }
            int n = end - start;
            if (!remember) {
                found = new String(buf, start, n);
                return;
            }
            // length, first, middle and last character: enough to tell BASIL's repeated values apart, cheaper than all
            int h = ((n * 31 + buf[start]) * 31 + buf[start + n / 2]) * 31 + buf[end - 1];
            int slot = (h * 0x9E3779B9) >>> (32 - RECENT_BITS);
            String s = recent[slot];
            if (s != null && same(s, buf, start, n)) {
                found = s;
                return;
            }
            found = recent[slot] = new String(buf, start, n);
        }

        private static boolean same(String s, char[] buf, int start, int n) {
            if (s.length() != n) {
                return false;
            }
            for (int i = 0; i < n; i++) {
                if (s.charAt(i) != buf[start + i]) {
                    return false;
                }
            }
            return true;
        }

        @Override
        public void handleEmptyValue() {
            found = null;
        }
    }
}
