package org.alpsbridge.emulator.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import org.alpsbridge.basil.model.ErrorClass;
import org.alpsbridge.basil.model.Method;
import org.alpsbridge.basil.nodes.NidSet;
import org.alpsbridge.emulator.Control;
import org.alpsbridge.emulator.StateDirectory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code alpsbridge basil emulate control}: faults and scenarios for a drop-in emulator's state directory. */
@Command(name = "control",
        mixinStandardHelpOptions = true,
        description = {
            "Changes the state of a drop-in emulator: node states and roles, method faults, reservations made",
            "behind the scheduler's back. Actions run in order, all under one lock, and are stored together.",
            "",
            "Actions (NIDS is a range list such as 3-5,9; METHOD is QUERY, RESERVE, CONFIRM, RELEASE or SWITCH):",
            "  down:NIDS | up:NIDS             mark nodes DOWN or UP",
            "  state:STATE:NIDS                UP, DOWN, UNAVAILABLE, ROUTING, SUSPECT, ADMIN or UNKNOWN",
            "  role:ROLE:NIDS                  BATCH or INTERACTIVE",
            "  labels:NIDS[:L1,L2...]          replace the nodes' labels (none: remove them)",
            "  fail:METHOD:CLASS[/SOURCE]:MSG  every METHOD call fails, CLASS PERMANENT or TRANSIENT, error_source",
            "                                  BACKEND (default), SYSTEM, SYNTAX, PARSER or INTERNAL",
            "  garbage:METHOD | truncate:METHOD | hang:METHOD",
            "  slow:METHOD:MILLIS              answer after a delay",
            "  latency:METHOD:MILLIS:JITTER    delay plus a random extra of up to JITTER ms (latency model)",
            "  clear                           remove every fault",
            "  lose-release                    the next RELEASE answers SUCCESS but keeps the reservation",
            "  plant:USER:BATCH_ID:NIDS        create a reservation behind the scheduler's back (prints its id);",
            "                                  BATCH_ID UNKNOWN marks an interactive aprun reservation",
            "  launch:RESID:CMD                start an aprun application in a reservation (prints its APID)",
            "  kill:APID                       end an application, as apkill does",
            "  show                            print changecount, schedchangecount and the reservation ids"},
        footer = {"", "Exit codes: 0 done, 1 an action failed (nothing stored; reason on stderr), 2 usage error."})
public final class EmulateControlCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--machine", paramLabel = "SPEC", description = "The machine, needed only when the directory holds none yet.")
    String machine;

    @Option(names = "--state", paramLabel = "DIR", required = true, description = "The drop-in's state directory.")
    Path state;

    @Parameters(paramLabel = "ACTION", arity = "1..*", description = "Actions, see above.")
    List<String> actions;

    @Override
    public Integer call() throws IOException {
        PrintWriter out = spec.commandLine().getOut();
        List<String> printed = new StateDirectory(state).update(machine, e -> {
            Control c = e.control();
            return actions.stream().map(a -> apply(c, a)).filter(s -> !s.isEmpty()).toList();
        });
        printed.forEach(out::println);
        out.flush();
        return 0;
    }

    /** Applies one action; returns what it prints (or ""). */
    static String apply(Control c, String action) {
        String[] f = action.split(":", 4);
        String verb = f[0].toLowerCase(Locale.ROOT);
        try {
            switch (verb) {
                case "down", "up" -> c.setState(nids(arg(f, 1, action)), verb.toUpperCase(Locale.ROOT));
                case "state" -> c.setState(nids(arg(f, 2, action)), arg(f, 1, action));
                case "role" -> c.setRole(nids(arg(f, 2, action)), arg(f, 1, action));
                case "labels" -> c.setLabels(nids(arg(f, 1, action)), f.length > 2 && !f[2].isEmpty() ? f[2].split(",") : new String[0]);
                case "fail" -> {
                    String[] cls = arg(f, 2, action).toUpperCase(Locale.ROOT).split("/", 2);
                    c.fail(method(arg(f, 1, action)), ErrorClass.valueOf(cls[0]), cls.length > 1 ? cls[1] : "BACKEND",
                            arg(f, 3, action));
                }
                case "garbage" -> c.garbage(method(arg(f, 1, action)));
                case "truncate" -> c.truncate(method(arg(f, 1, action)));
                case "hang" -> c.hang(method(arg(f, 1, action)));
                case "slow" -> c.slow(method(arg(f, 1, action)), Long.parseLong(arg(f, 2, action)));
                case "latency" -> c.latency(method(arg(f, 1, action)), Long.parseLong(arg(f, 2, action)), Long.parseLong(arg(f, 3, action)));
                case "clear" -> c.clearFaults();
                case "lose-release" -> c.loseNextRelease();
                case "plant" -> {
                    return Long.toString(c.plantReservation(arg(f, 1, action), arg(f, 2, action), nids(arg(f, 3, action))));
                }
                case "launch" -> {
                    return Long.toString(c.launch(Long.parseLong(arg(f, 1, action)), action.split(":", 3)[2]));
                }
                case "kill" -> {
                    if (!c.kill(Long.parseLong(arg(f, 1, action)))) {
                        throw new IllegalArgumentException("no application " + f[1]);
                    }
                }
                case "show" -> {
                    return "changecount " + c.changeCount() + "\nschedchangecount " + c.schedChangeCount() + "\nreservations "
                            + Arrays.stream(c.reservationIds()).mapToObj(Long::toString).collect(Collectors.joining(" "));
                }
                default -> throw new IllegalArgumentException("unknown action '" + f[0] + "'; see --help");
            }
            return "";
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("action '" + action + "': " + e.getMessage(), e);
        }
    }

    private static String arg(String[] f, int i, String action) {
        if (i >= f.length || f[i].isEmpty()) {
            throw new IllegalArgumentException("missing part " + i + " (separate parts with ':')");
        }
        return f[i];
    }

    private static Method method(String m) {
        Method method = Method.parse(m.toUpperCase(Locale.ROOT));
        if (method == Method.UNDEFINED) {
            throw new IllegalArgumentException("unknown method '" + m + "'; expected QUERY, RESERVE, CONFIRM, RELEASE or SWITCH");
        }
        return method;
    }

    private static int[] nids(String rangeList) {
        return NidSet.parse(rangeList).stream().mapToInt(n -> (int) n).toArray();
    }
}
