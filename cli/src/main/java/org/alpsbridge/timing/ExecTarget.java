package org.alpsbridge.timing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Runs an apbasil-compatible program per call exactly as slurmctld did: argv is the path alone, the
 * request goes to stdin, stdin is closed, stdout is read to EOF. stderr is discarded so a chatty
 * program cannot block on a full pipe.
 */
final class ExecTarget implements Target {

    private final String name;
    private final List<String> command;
    private final Map<String, String> environment;
    private final long timeoutMillis;

    ExecTarget(String name, List<String> command, Map<String, String> environment, long timeoutMillis) {
        this.name = name;
        this.command = List.copyOf(command);
        this.environment = Map.copyOf(environment);
        this.timeoutMillis = timeoutMillis;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public byte[] call(byte[] request) throws IOException {
        ProcessBuilder builder = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD);
        builder.environment().putAll(environment);
        Process process = builder.start();
        try (OutputStream stdin = process.getOutputStream()) {
            stdin.write(request);
        } catch (IOException e) {
            // The program may exit before reading its input (e.g. a usage error); its stdout still says why.
        }
        byte[] answer;
        try (InputStream stdout = process.getInputStream()) {
            answer = stdout.readAllBytes();
        }
        try {
            if (!process.waitFor(timeoutMillis, TimeUnit.MILLISECONDS)) {
                process.destroyForcibly();
                throw new IOException(name + ": no exit within " + timeoutMillis + " ms");
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new IOException(name + ": interrupted", e);
        }
        if (answer.length == 0) {
            throw new IOException(name + ": exited " + process.exitValue() + " with an empty response");
        }
        return answer;
    }
}
