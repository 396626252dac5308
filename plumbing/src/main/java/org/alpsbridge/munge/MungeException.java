package org.alpsbridge.munge;

/** MUNGE refused to encode or decode; {@link #code()} is libmunge's {@code munge_err_t}. */
public final class MungeException extends Exception {

    /** Error codes from {@code munge.h} that tests and callers tell apart. */
    public static final int SOCKET = 6;
    public static final int BAD_CREDENTIAL = 8;
    public static final int INVALID = 14;
    public static final int EXPIRED = 15;
    public static final int REWOUND = 16;
    public static final int REPLAYED = 17;
    public static final int UNAUTHORIZED = 18;

    private final int code;

    public MungeException(int code, String message) {
        super(message);
        this.code = code;
    }

    public int code() {
        return code;
    }

    /** True for failures of the munged service itself rather than of the credential. */
    public boolean isServiceFailure() {
        return code == SOCKET || code == 1 || code == 5 || code == 7;
    }
}
