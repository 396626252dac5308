package org.alpsbridge.basil.cli;

import java.io.BufferedOutputStream;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.Callable;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.failure.Failures;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code alpsbridge basil convert --protocol V FILE}: the same document in another version's shape. */
@Command(name = "convert",
        mixinStandardHelpOptions = true,
        description = {
            "Rewrites a BASIL request or response in the shape of protocol V and prints it on standard output.",
            "Inventories are converted node by node (any size, bounded memory): 1.0 flat nodes, 1.1/1.2 segments,",
            "1.3+ sockets > segments > compute units > processors.",
            "What V cannot express is left out and listed on standard error, one line each:",
            "  convert: not expressible in 1.2: compute units ... do not exist before 1.3: ... (2256 times)",
            "A document that cannot exist in V at all (SWITCH before 1.2, QUERY SYSTEM before 1.7) is refused."},
        footer = {"", "Exit codes: 0 converted (losses, if any, on stderr), 1 unreadable or inexpressible input,",
            "or losses with --strict, 2 usage error."})
public final class ConvertCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    private String protocol;

    @Option(names = "--protocol", required = true, paramLabel = "V", description = "Target protocol version.")
    void protocol(String v) {
        if (!Protocols.KNOWN.contains(v)) {
            throw new ParameterException(spec.commandLine(), "unknown protocol version '" + v + "' (known: "
                    + String.join(", ", Protocols.KNOWN) + ")");
        }
        protocol = v;
    }

    @Option(names = "--strict", description = "Fail (exit 1) when anything cannot be expressed in V.")
    boolean strict;

    @Parameters(paramLabel = "FILE", description = "The document; '-' reads standard input.")
    String file;

    @Override
    public Integer call() {
        PrintWriter err = spec.commandLine().getErr();
        Converter converter = new Converter(protocol);
        try {
            byte[] head;
            Converter.InputStreamSource source;
            if ("-".equals(file)) {
                byte[] all = System.in.readAllBytes();
                head = all;
                source = () -> new ByteArrayInputStream(all);
            } else {
                Path path = Path.of(file);
                try (InputStream in = Files.newInputStream(path)) {
                    head = in.readNBytes(64 * 1024);
                }
                source = () -> Files.newInputStream(path);
            }
            PrintWriter pw = spec.commandLine().getOut();
            OutputStream out = new BufferedOutputStream(new AsciiOut(pw), 1 << 16);
            converter.convert(head, source, out);
            out.flush();
            pw.flush();
        } catch (BasilException e) {
            err.println("convert: " + file + ": " + e.getMessage());
            err.flush();
            return 1;
        } catch (IOException e) {
            err.println("basil convert: " + Failures.describe(e));
            err.flush();
            return 1;
        }
        List<String> losses = converter.losses();
        for (String loss : losses) {
            err.println("convert: not expressible in " + protocol + ": " + loss);
        }
        err.flush();
        return strict && !losses.isEmpty() ? 1 : 0;
    }

    /** Bytes of a US-ASCII document onto the command's (character) output. */
    private static final class AsciiOut extends OutputStream {
        private final PrintWriter w;
        private final char[] chunk = new char[8192];

        AsciiOut(PrintWriter w) {
            this.w = w;
        }

        @Override
        public void write(int b) {
            w.write(b & 0xff);
        }

        @Override
        public void write(byte[] b, int off, int len) {
            while (len > 0) {
                int n = Math.min(len, chunk.length);
                for (int i = 0; i < n; i++) {
                    chunk[i] = (char) (b[off + i] & 0xff);
                }
                w.write(chunk, 0, n);
                off += n;
                len -= n;
            }
        }

        @Override
        public void flush() {
            w.flush();
        }
    }
}
