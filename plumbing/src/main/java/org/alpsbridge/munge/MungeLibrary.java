package org.alpsbridge.munge;

import com.sun.jna.Library;
import com.sun.jna.Native;
import com.sun.jna.Pointer;
import com.sun.jna.ptr.IntByReference;
import com.sun.jna.ptr.PointerByReference;
import java.nio.file.Path;

/**
 * MUNGE through libmunge ({@code libmunge.so.2}) and JNA. libmunge contexts are not thread-safe, so
 * every call makes and destroys its own; that costs a malloc, not a round trip to munged.
 */
final class MungeLibrary implements Munge {

    private static final int OPT_TTL = 4;
    private static final int OPT_SOCKET = 8;

    /** The part of {@code munge.h} this class uses. */
    interface LibMunge extends Library {
        int munge_encode(PointerByReference cred, Pointer ctx, byte[] buf, int len);

        int munge_decode(String cred, Pointer ctx, PointerByReference buf, IntByReference len,
                IntByReference uid, IntByReference gid);

        Pointer munge_ctx_create();

        void munge_ctx_destroy(Pointer ctx);

        int munge_ctx_set(Pointer ctx, int opt, Object... value);

        String munge_ctx_strerror(Pointer ctx);

        String munge_strerror(int err);
    }

    private final LibMunge lib;
    private final Path socket;

    private MungeLibrary(LibMunge lib, Path socket) {
        this.lib = lib;
        this.socket = socket;
    }

    static MungeLibrary open(Path socket) throws MungeException {
        try {
            return new MungeLibrary(Native.load("munge", LibMunge.class), socket);
        } catch (UnsatisfiedLinkError e) {
            throw new MungeException(1, "libmunge could not be loaded: " + e.getMessage());
        }
    }

    @Override
    public String encode(byte[] payload, int ttlSeconds) throws MungeException {
        Pointer ctx = context();
        try {
            if (ttlSeconds > 0) {
                check(ctx, lib.munge_ctx_set(ctx, OPT_TTL, ttlSeconds), "munge_ctx_set(TTL)");
            }
            PointerByReference cred = new PointerByReference();
            check(ctx, lib.munge_encode(cred, ctx, payload, payload.length), "munge_encode");
            Pointer p = cred.getValue();
            try {
                return p.getString(0, "US-ASCII");
            } finally {
                Native.free(Pointer.nativeValue(p));
            }
        } finally {
            lib.munge_ctx_destroy(ctx);
        }
    }

    @Override
    public MungeCredential decode(String credential) throws MungeException {
        Pointer ctx = context();
        PointerByReference buf = new PointerByReference();
        IntByReference len = new IntByReference();
        IntByReference uid = new IntByReference();
        IntByReference gid = new IntByReference();
        try {
            int err = lib.munge_decode(credential, ctx, buf, len, uid, gid);
            Pointer p = buf.getValue();
            byte[] payload = p == null ? new byte[0] : p.getByteArray(0, len.getValue());
            if (p != null) {
                Native.free(Pointer.nativeValue(p));
            }
            check(ctx, err, "munge_decode");
            return new MungeCredential(uid.getValue(), gid.getValue(), payload);
        } finally {
            lib.munge_ctx_destroy(ctx);
        }
    }

    @Override
    public String describe() {
        return "libmunge" + (socket == null ? "" : " (socket " + socket + ")");
    }

    private Pointer context() throws MungeException {
        Pointer ctx = lib.munge_ctx_create();
        if (ctx == null) {
            throw new MungeException(5, "munge_ctx_create: out of memory");
        }
        if (socket != null) {
            int err = lib.munge_ctx_set(ctx, OPT_SOCKET, socket.toString());
            if (err != 0) {
                lib.munge_ctx_destroy(ctx);
                throw new MungeException(err, "munge_ctx_set(SOCKET): " + lib.munge_strerror(err));
            }
        }
        return ctx;
    }

    private void check(Pointer ctx, int err, String call) throws MungeException {
        if (err != 0) {
            String detail = lib.munge_ctx_strerror(ctx);
            throw new MungeException(err, call + ": " + (detail != null ? detail : lib.munge_strerror(err)));
        }
    }
}
