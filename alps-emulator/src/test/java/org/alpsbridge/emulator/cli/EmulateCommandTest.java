package org.alpsbridge.emulator.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.alpsbridge.basil.cli.BasilCommand;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.model.ResponseData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

class EmulateCommandTest {

    @TempDir
    Path dir;

    /** {@code basil} with {@code emulate} installed, as the launcher builds it. */
    private static CommandLine basilCommand() {
        CommandLine basil = new CommandLine(new BasilCommand());
        EmulateCommand.install(basil);
        return basil;
    }

    /** Runs {@code basil emulate ARGS} with {@code stdin}; returns stdout bytes, and the exit code in {@code code[0]}. */
    private static byte[] run(byte[] stdin, StringWriter stdout, int[] code, String... args) {
        InputStream oldIn = System.in;
        PrintStream oldOut = System.out;
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try {
            System.setIn(new ByteArrayInputStream(stdin));
            System.setOut(new PrintStream(bytes, true, StandardCharsets.US_ASCII));
            CommandLine cmd = basilCommand();
            cmd.setOut(new PrintWriter(stdout));
            cmd.setErr(new PrintWriter(new StringWriter()));
            cmd.setExecutionExceptionHandler((ex, line, parsed) -> 1);
            String[] all = new String[args.length + 1];
            all[0] = "emulate";
            System.arraycopy(args, 0, all, 1, args.length);
            code[0] = cmd.execute(all);
        } finally {
            System.setIn(oldIn);
            System.setOut(oldOut);
        }
        return bytes.toByteArray();
    }

    /** Runs {@code basil emulate ARGS}, which must fail as a usage error (exit 2); returns what it said on stderr. */
    private static String usageError(byte[] stdin, String... args) {
        StringWriter err = new StringWriter();
        CommandLine cmd = basilCommand();
        cmd.setErr(new PrintWriter(err));
        InputStream oldIn = System.in;
        String[] all = new String[args.length + 1];
        all[0] = "emulate";
        System.arraycopy(args, 0, all, 1, args.length);
        int code;
        try {
            System.setIn(new ByteArrayInputStream(stdin));
            code = cmd.execute(all);
        } finally {
            System.setIn(oldIn);
        }
        assertEquals(2, code, "exit code; stderr: " + err);
        return err.toString();
    }

    @Test
    void theDropInAnswersOnStdoutAndControlActionsChangeWhatItSees() throws Exception {
        BasilCodec codec = BasilCodec.standard();
        int[] code = new int[1];
        StringWriter out = new StringWriter();
        run(new byte[0], out, code, "control", "--state", dir.toString(), "--machine", "xc30:4",
                "down:0", "plant:bob:UNKNOWN:1", "show");
        assertEquals(0, code[0]);
        assertTrue(out.toString().contains("1\n"), out.toString());
        assertTrue(out.toString().contains("schedchangecount 2"), out.toString());
        assertTrue(out.toString().contains("reservations 1"), out.toString());
        byte[] request = codec.write(BasilRequest.reserve("1.3", "alice", "9", null, List.of(ReserveParam.builder().width(64).build())));
        ResponseData d = codec.readResponse(run(request, new StringWriter(), code, "--machine", "xc30:4", "--state", dir.toString()))
                .responseData();
        assertEquals(0, code[0]);
        assertTrue(d.isSuccess(), d.messageText());
        byte[] full = run(request, new StringWriter(), code, "--machine", "xc30:4", "--state", dir.toString());
        assertEquals("TRANSIENT", codec.readResponse(full).responseData().errorClass().name());
    }

    @Test
    void theLatencyProfileKnobTakesANamedProfileAndRefusesAnUnknownOneAsAUsageError() throws Exception {
        BasilCodec codec = BasilCodec.standard();
        int[] code = new int[1];
        byte[] engine = codec.write(BasilRequest.query("1.3", "ENGINE"));
        long start = System.nanoTime();
        byte[] answer = run(engine, new StringWriter(), code, "--machine", "xc30:4", "--state", dir.toString(),
                "--latency-profile", "xc30-2256", "--latency-seed", "5");
        long elapsed = System.nanoTime() - start;
        assertEquals(0, code[0]);
        assertTrue(codec.readResponse(answer).responseData().isSuccess());
        // ENGINE's modelled median is 25 ms; no draw is below a third of it.
        assertTrue(elapsed >= 8_000_000, "waited " + elapsed + " ns");

        String err = usageError(engine, "--machine", "xc30:4", "--state", dir.toString(), "--latency-profile", "xc40");
        assertTrue(err.contains("unknown latency profile 'xc40'") && err.toString().contains("xc30-2256"), err.toString());
    }

    @Test
    void withUsersHostTheDropInWritesTheHostsIdsForAUserAndRefusesAnUnknownChoice() throws Exception {
        BasilCodec codec = BasilCodec.standard();
        int[] code = new int[1];
        byte[] reserve = codec.write(BasilRequest.reserve("1.3", "root", "9", null, List.of(ReserveParam.builder().width(1).build())));
        assertTrue(codec.readResponse(run(reserve, new StringWriter(), code, "--machine", "xc30:4", "--state", dir.toString()))
                .responseData().isSuccess());
        byte[] inventory = codec.write(BasilRequest.query("1.3", "INVENTORY"));
        String derived = new String(run(inventory, new StringWriter(), code, "--machine", "xc30:4", "--state", dir.toString()),
                StandardCharsets.UTF_8);
        String host = new String(run(inventory, new StringWriter(), code, "--machine", "xc30:4", "--state", dir.toString(),
                "--users", "host"), StandardCharsets.UTF_8);
        assertEquals(0, code[0]);
        assertTrue(!derived.contains("user_id=\"0\"") && host.contains("user_id=\"0\" group_id=\"0\""),
                "root's reservation by name:\n" + derived + "\nfrom the host:\n" + host);

        String err = usageError(inventory, "--machine", "xc30:4", "--state", dir.toString(), "--users", "ldap");
        assertTrue(err.contains("--users is names or host, not 'ldap'"), err);
    }

    @Test
    void aBadActionOrAForeignMachineFailsWithExitOne() {
        int[] code = new int[1];
        run(new byte[0], new StringWriter(), code, "control", "--state", dir.toString(), "--machine", "xc30:4", "explode:1");
        assertEquals(1, code[0]);
        run(new byte[0], new StringWriter(), code, "control", "--state", dir.toString(), "--machine", "xc30:4", "down:1");
        assertEquals(0, code[0]);
        run(new byte[0], new StringWriter(), code, "--machine", "xe6:4", "--state", dir.toString());
        assertEquals(1, code[0]);
        run(new byte[0], new StringWriter(), code, "control");
        assertEquals(2, code[0]);
    }

    @Test
    void theBenchPrintsFiguresAndRatiosForEachMachine() {
        int[] code = new int[1];
        StringWriter out = new StringWriter();
        run(new byte[0], out, code, "bench", "--machines", "xc30:8;xe6:4", "--runs", "1", "--drop-in-runs", "0");
        assertEquals(0, code[0], out.toString());
        String text = out.toString();
        assertTrue(text.contains("xc30:8         INVENTORY  in-process"), text);
        assertTrue(text.contains("xe6:4          SUMMARY    in-process"), text);
        assertTrue(text.contains("INVENTORY/SUMMARY in process: time"), text);
    }
}
