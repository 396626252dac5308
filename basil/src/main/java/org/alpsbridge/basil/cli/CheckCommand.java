package org.alpsbridge.basil.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.NoSuchFileException;
import java.util.List;
import java.util.concurrent.Callable;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.failure.Failures;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code alpsbridge basil check FILE...}: is each document well-formed BASIL, and what is it. */
@Command(name = "check",
        mixinStandardHelpOptions = true,
        description = {
            "Reads each BASIL document through the hardened codec and prints one line per file:",
            "  FILE: OK protocol=1.3 response QUERY/INVENTORY status=SUCCESS nodes=2256 processors=72192 reservations=300",
            "  FILE: OK protocol=1.3 request RESERVE user=alice batch_id=1234 width=64 nppn=32 nppcu=1 nodes=2:1-2",
            "  FILE: ERROR <problem, with line:column when known>",
            "Request or response, protocol version, method and type are detected from the document.",
            "Inventories of 16 MB or more are read by streaming, in bounded memory."},
        footer = {"", "Exit codes: 0 every file is OK, 1 at least one is not, 2 usage error."})
public final class CheckCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(arity = "1..*", paramLabel = "FILE", description = "BASIL documents; '-' reads standard input.")
    List<String> files;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        boolean allOk = true;
        for (String file : files) {
            String line;
            try {
                line = file + ": OK " + Documents.describe(file, System.in);
            } catch (BasilException e) {
                line = file + ": ERROR " + e.getMessage();
                allOk = false;
            } catch (NoSuchFileException e) {
                line = file + ": ERROR no such file";
                allOk = false;
            } catch (IOException e) {
                line = file + ": ERROR " + Failures.describe(e);
                allOk = false;
            }
            out.println(line);
        }
        out.flush();
        return allOk ? 0 : 1;
    }
}
