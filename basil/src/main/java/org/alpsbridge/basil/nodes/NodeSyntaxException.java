package org.alpsbridge.basil.nodes;

/**
 * A NID range list, host name or hostlist that cannot be read. The message names the offending item, its
 * character offset in the input (0-based) and what is wrong with it; the parts are also available for
 * callers that build their own messages (a BASIL FAILURE response, a command-line error).
 */
public final class NodeSyntaxException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String input;
    private final int offset;
    private final String item;

    NodeSyntaxException(String what, String input, int offset, String item, String problem) {
        super(what + ": '" + item + "' at offset " + offset + " " + problem + " (in '" + abbreviate(input) + "')");
        this.input = input;
        this.offset = offset;
        this.item = item;
    }

    /** The whole text that was being parsed. */
    public String input() {
        return input;
    }

    /** 0-based character offset of the offending item in {@link #input()}. */
    public int offset() {
        return offset;
    }

    /** The offending item as written (possibly empty). */
    public String item() {
        return item;
    }

    private static String abbreviate(String s) {
        return s.length() <= 80 ? s : s.substring(0, 77) + "...";
    }
}
