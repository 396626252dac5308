package org.alpsbridge.munge;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * MUNGE through the {@code munge} and {@code unmunge} programs. Plain JDK only: the drop-in client
 * uses it, and its exit status is libmunge's error code, so errors read the same as through JNA.
 */
final class MungePrograms implements Munge {

    private final Path socket;

    MungePrograms(Path socket) {
        this.socket = socket;
    }

    @Override
    public String encode(byte[] payload, int ttlSeconds) throws MungeException {
        List<String> argv = command("munge");
        if (ttlSeconds > 0) {
            argv.add("--ttl=" + ttlSeconds);
        }
        Result r = run(argv, payload);
        if (r.exit != 0) {
            throw new MungeException(r.exit, "munge failed: " + r.stderr.strip());
        }
        return new String(r.stdout, StandardCharsets.US_ASCII).strip();
    }

    @Override
    public MungeCredential decode(String credential) throws MungeException {
        Path payload = null;
        try {
            payload = Files.createTempFile("unmunge", ".payload");
            List<String> argv = command("unmunge");
            argv.add("--numeric");
            argv.add("--keys=UID,GID");
            argv.add("--metadata=-");
            argv.add("--output=" + payload);
            Result r = run(argv, credential.getBytes(StandardCharsets.US_ASCII));
            if (r.exit != 0) {
                throw new MungeException(r.exit, "unmunge: " + statusOf(r));
            }
            int uid = -1;
            int gid = -1;
            for (String line : new String(r.stdout, StandardCharsets.US_ASCII).split("\n")) {
                String[] kv = line.split(":", 2);
                if (kv.length == 2 && kv[0].strip().equals("UID")) {
                    uid = Integer.parseInt(kv[1].strip());
                } else if (kv.length == 2 && kv[0].strip().equals("GID")) {
                    gid = Integer.parseInt(kv[1].strip());
                }
            }
            if (uid < 0 || gid < 0) {
                throw new MungeException(1, "unmunge printed no UID/GID");
            }
            return new MungeCredential(uid, gid, Files.readAllBytes(payload));
        } catch (IOException e) {
            throw new MungeException(1, "unmunge could not run: " + e.getMessage());
        } finally {
            if (payload != null) {
                try {
                    Files.deleteIfExists(payload);
                } catch (IOException ignored) {
                    // a leftover empty temp file is harmless
                }
            }
        }
    }

    @Override
    public String describe() {
        return "munge/unmunge programs" + (socket == null ? "" : " (socket " + socket + ")");
    }

    private static String statusOf(Result r) {
        String err = r.stderr.strip();
        if (!err.isEmpty()) {
            return err;
        }
        return "exit status " + r.exit;
    }

    private List<String> command(String program) {
        List<String> argv = new ArrayList<>();
        argv.add(program);
        if (socket != null) {
            argv.add("--socket=" + socket);
        }
        return argv;
    }

    private record Result(int exit, byte[] stdout, String stderr) {
    }

    private static Result run(List<String> argv, byte[] stdin) throws MungeException {
        try {
            Process p = new ProcessBuilder(argv).start();
            try (OutputStream in = p.getOutputStream()) {
                in.write(stdin);
            }
            // munge writes a few lines at most on stderr, so reading it after stdout cannot deadlock
            byte[] out = p.getInputStream().readAllBytes();
            byte[] err = p.getErrorStream().readAllBytes();
            int exit = p.waitFor();
            return new Result(exit, out, new String(err, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new MungeException(MungeException.SOCKET, argv.get(0) + " could not run: " + e.getMessage());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MungeException(1, argv.get(0) + " interrupted");
        }
    }
}
