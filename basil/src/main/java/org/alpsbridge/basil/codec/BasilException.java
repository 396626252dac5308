package org.alpsbridge.basil.codec;

/**
 * A document that could not be read or written as BASIL: malformed, truncated, wrongly encoded, hostile
 * (DOCTYPE, over a limit), or not the expected root. The message names the problem and, when known, the
 * line and column where it was found.
 */
public final class BasilException extends Exception {

    private static final long serialVersionUID = 1L;

    private final int line;
    private final int column;

    public BasilException(String problem, int line, int column, Throwable cause) {
        super(line > 0 ? line + ":" + firstColumn(line, column) + ": " + problem : problem, cause);
        this.line = line;
        this.column = firstColumn(line, column);
    }

    /**
     * Columns are 1-based; the parser says column 0 for an end of input before the first character of a line
     * (an empty document): that is column 1 of that line. Found by fuzzing (BasilCodecFuzzTest).
     */
    private static int firstColumn(int line, int column) {
        return line > 0 && column < 1 ? 1 : column;
    }

    public BasilException(String problem) {
        this(problem, -1, -1, null);
    }

    /** The 1-based line of the problem, or -1 when unknown. */
    public int line() {
        return line;
    }

    /** The 1-based column of the problem, or -1 when unknown. */
    public int column() {
        return column;
    }
}
