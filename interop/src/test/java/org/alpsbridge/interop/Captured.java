package org.alpsbridge.interop;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The RESERVEs that reached the emulator, from its {@code capture/} ({@code <time>-request.xml} written as the
 * request arrives, {@code -response.xml} empty until the emulator answers).
 */
final class Captured {
    private final Path dir;
    private final Set<Path> looked = new HashSet<>();
    private final List<Path> reserves = new ArrayList<>();
    private final Map<Path, String> batchIds = new HashMap<>();

    Captured(Path dir) {
        this.dir = dir;
    }

    int reserves() {
        scan();
        return reserves.size();
    }

    /**
     * A RESERVE after the first {@code from} whose answer the emulator has not written yet (its batch id and file),
     * or null. Only the newer ones: the answer of one in flight at an earlier kill is never written (its {@code
     * tee} writes to the dead proxy's pipe first, and dies of SIGPIPE).
     */
    String reserveInFlight(int from) throws IOException {
        scan();
        for (Path request : reserves.subList(from, reserves.size())) {
            Path response = Path.of(request.toString().replace("-request.xml", "-response.xml"));
            if (Files.exists(response) && Files.size(response) == 0) {
                return "batch_id " + batchIds.get(request) + ", " + request.getFileName();
            }
        }
        return null;
    }

    private void scan() {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path f : files.filter(p -> p.toString().endsWith("-request.xml") && !looked.contains(p)).toList()) {
                String text = Files.readString(f);
                if (!text.contains("method=")) {
                    continue; // still arriving: looked at again next time
                }
                looked.add(f);
                if (text.contains("method=\"RESERVE\"")) {
                    reserves.add(f);
                    java.util.regex.Matcher m = java.util.regex.Pattern.compile("batch_id=\"([^\"]*)\"").matcher(text);
                    batchIds.put(f, m.find() ? m.group(1) : "?");
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
