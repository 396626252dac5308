package org.alpsbridge.affinity.exec;

import java.io.PrintStream;
import java.util.BitSet;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.format.OutputFormat;
import org.alpsbridge.affinity.policy.Placement;
import org.alpsbridge.affinity.policy.Policy;
import org.alpsbridge.affinity.policy.Rejection;
import org.alpsbridge.affinity.policy.Request;
import org.alpsbridge.affinity.topology.Topology;
import org.alpsbridge.affinity.topology.TopologyException;

/**
 * {@code raa-exec affinity ...}: the mask generator of the SPANK plugin's contract on the wrapper's fast start-up
 * path (plain JDK, no picocli, no JNA, the wrapper's class archive). It accepts the subset of
 * {@code alpsbridge affinity} a plugin sends, this machine only, and answers exactly as that command does:
 * {@code --topology sysfs --ntasks N --cpus-per-task C [--allowed CPULIST] [--policy P] [--format F]};
 * exit 0 with the masks on stdout, 1 with {@code affinity: rejected: REASON} (or an unreadable topology) as one
 * line on stderr, 2 on a usage error. The resident {@code alpsbridge affinity agent} answers the plugin through this
 * same class, from a topology it keeps ({@link Source}).
 */
public final class MaskGenerator {

    /** Where "sysfs" comes from: this machine read now, or a copy the agent keeps while it stays valid. */
    public interface Source {
        Topology read() throws TopologyException;
    }

    /**
     * This machine's sysfs, read at each call. A class, not a method reference: a lambda's bootstrap costs
     * milliseconds on raa-exec's start-up path.
     */
    private static final class ThisMachine implements Source {
        @Override
        public Topology read() throws TopologyException {
            return Topology.sysfs();
        }
    }

    static final String USAGE = "Usage: raa-exec affinity [--topology sysfs] -n N [-c C] [--allowed CPULIST]"
            + " [--policy POLICY] [--format FORMAT]  (the options of 'alpsbridge affinity' a SPANK plugin uses)";

    private MaskGenerator() {
    }

    /** {@code args} without the leading {@code affinity}; returns the exit code. */
    static int run(String[] args, PrintStream out, PrintStream err) {
        return run(args, new ThisMachine(), out, err);
    }

    /** As {@code raa-exec affinity ARGS} with "sysfs" read from {@code node}; returns the exit code. */
    public static int run(String[] args, Source node, PrintStream out, PrintStream err) {
        Integer ntasks = null;
        int cpusPerTask = 1;
        BitSet allowed = null;
        Policy policy = Policy.REDUCED;
        OutputFormat format = null;
        boolean verbose = false;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                String name = a;
                String value = null;
                int eq = a.indexOf('=');
                if (a.startsWith("--") && eq > 0) {
                    name = a.substring(0, eq);
                    value = a.substring(eq + 1);
                } else if ((a.startsWith("-n") || a.startsWith("-c")) && a.length() > 2) { // -n4, -n=4
                    name = a.substring(0, 2);
                    value = a.substring(a.charAt(2) == '=' ? 3 : 2);
                }
                if (name.equals("-v") || name.equals("--verbose")) {
                    verbose = true;
                    continue;
                }
                if (name.equals("-h") || name.equals("--help")) {
                    out.println(USAGE);
                    return 0;
                }
                if (value == null) {
                    if (++i >= args.length) {
                        throw new IllegalArgumentException("Missing required parameter for option '" + name + "'");
                    }
                    value = args[i];
                }
                switch (name) {
                    case "--topology":
                        if (!value.equals("sysfs")) {
                            throw new IllegalArgumentException("--topology " + value
                                    + ": raa-exec reads this machine only (sysfs); use alpsbridge affinity");
                        }
                        break;
                    case "-n":
                    case "--ntasks":
                        ntasks = number(name, value);
                        break;
                    case "-c":
                    case "--cpus-per-task":
                        cpusPerTask = number(name, value);
                        break;
                    case "--allowed":
                        allowed = CpuLists.parse(value);
                        break;
                    case "--policy":
                        policy = Policy.of(value);
                        break;
                    case "--format":
                        format = OutputFormat.of(value);
                        break;
                    default:
                        throw new IllegalArgumentException("Unknown option: '" + a + "'");
                }
            }
            if (ntasks == null) {
                throw new IllegalArgumentException("Missing required option: '--ntasks=N'");
            }
        } catch (IllegalArgumentException e) {
            err.println("affinity: " + e.getMessage());
            err.println(USAGE);
            return 2;
        }
        Request request = Request.of(ntasks, cpusPerTask);
        if (allowed != null) {
            request = request.withAllowed(allowed);
        }
        Placement placement;
        try {
            placement = policy.place(node.read(), request);
        } catch (TopologyException e) {
            err.println("affinity: " + e.getMessage());
            return 1;
        } catch (Rejection e) {
            err.println("affinity: rejected: " + e.getMessage());
            return 1;
        }
        StringBuilder text = new StringBuilder();
        if (verbose) {
            text.append(OutputFormat.VERBOSE.render(policy.verboseName(), placement.masks()));
        }
        if (format != null ? !(verbose && format == OutputFormat.VERBOSE) : !verbose) {
            text.append((format == null ? OutputFormat.LIST : format).render(policy.verboseName(), placement.masks()));
        }
        out.print(text);
        out.flush();
        return 0;
    }

    private static int number(String option, String value) {
        try {
            return Integer.parseInt(value.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("Invalid value for option '" + option + "': '" + value
                    + "' is not an int");
        }
    }
}
