package org.alpsbridge.affinity.exec;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.nio.file.StandardCopyOption;
import java.util.Arrays;
import java.util.BitSet;
import java.util.Map;
import org.alpsbridge.affinity.format.CpuLists;
import org.alpsbridge.affinity.format.OutputFormat;
import org.alpsbridge.affinity.policy.Placement;
import org.alpsbridge.affinity.policy.Policy;
import org.alpsbridge.affinity.policy.Rejection;
import org.alpsbridge.affinity.policy.Request;
import org.alpsbridge.affinity.topology.Topology;
import org.alpsbridge.affinity.topology.TopologyException;

/**
 * {@code raa-exec}: the per-task wrapper. Run by srun as each task, it computes the task's CPU set, binds itself
 * to it with sched_setaffinity and replaces itself with the program (execvp), which inherits the mask; no JVM
 * stays behind. Plain JDK and JNA only, so it starts fast (see {@code bin/raa-exec}).
 */
public final class RaaExec {

    static final String USAGE = String.join("\n",
            "Usage: srun --cpu-bind=none [srun options] raa-exec [options] [--] PROGRAM [ARGS...]",
            "",
            "Binds this Slurm task to its reduced-auto-affinity CPU set, then runs PROGRAM in its place.",
            "It reads SLURM_LOCALID, the tasks on this node (SLURM_STEP_TASKS_PER_NODE, SLURM_NTASKS_PER_NODE or",
            "SLURM_TASKS_PER_NODE with SLURM_NODEID), SLURM_CPUS_PER_TASK, the node's topology from sysfs, and",
            "the step's CPUs from its own affinity: run srun with --cpu-bind=none so that is the whole step.",
            "",
            "Options (environment equivalents in brackets):",
            "  -v, --verbose           print '<policy>: local task N: CPUs: LIST' on stderr [RAA_VERBOSE=1]",
            "  -p, --policy POLICY     reduced (default), llnl, alps-cpu, alps-depth, alps-numa [RAA_POLICY]",
            "  -c, --cpus-per-task C   override SLURM_CPUS_PER_TASK [RAA_CPUS_PER_TASK]",
            "      --allowed CPULIST   the step's CPUs instead of this process's affinity [RAA_ALLOWED]",
            "  -h, --help              this text",
            "",
            "raa-exec affinity --topology sysfs -n N -c C [--allowed CPULIST] [--policy P] --format tasks",
            "  prints every local task's CPUs as 'alpsbridge affinity' does, starting as fast as the wrapper: the",
            "  SPANK plugin's fast generator (generator=.../bin/raa-exec). A PROGRAM named affinity: raa-exec -- affinity",
            "",
            "Exit codes: PROGRAM's own once it runs; 1 the job is rejected or the mask cannot be set (the reason",
            "on stderr; PROGRAM never starts); 2 usage error or missing Slurm variables; 126 PROGRAM cannot be",
            "executed; 127 PROGRAM not found.");

    private RaaExec() {
    }

    public static void main(String[] args) {
        if (args.length == 2 && args[0].equals("--prepare")) {
            System.exit(prepare(Paths.get(args[1])));
        }
        if (args.length > 0 && args[0].equals("affinity")) {
            System.exit(MaskGenerator.run(Arrays.copyOfRange(args, 1, args.length), System.out, System.err));
        }
        System.exit(run(args, System.getenv(), null, System.err));
    }

    /**
     * Everything but the exec itself; returns the exit code when the program could not be started.
     *
     * @param os the kernel to use, or null for the real one (JNA is loaded only once the arguments are good)
     */
    static int run(String[] args, Map<String, String> env, Kernel os, PrintStream err) {
        boolean verbose = flag(env.get("RAA_VERBOSE"));
        String policyName = env.getOrDefault("RAA_POLICY", "reduced");
        String allowedList = env.get("RAA_ALLOWED");
        int cpusPerTask = 0;
        int i = 0;
        try {
            for (; i < args.length; i++) {
                String a = args[i];
                if (a.equals("--")) {
                    i++;
                    break;
                } else if (a.equals("-v") || a.equals("--verbose")) {
                    verbose = true;
                } else if (a.equals("-p") || a.equals("--policy")) {
                    policyName = value(args, ++i, a);
                } else if (a.equals("-c") || a.equals("--cpus-per-task")) {
                    cpusPerTask = Integer.parseInt(value(args, ++i, a));
                    if (cpusPerTask < 1) {
                        throw new IllegalArgumentException(a + " must be at least 1");
                    }
                } else if (a.equals("--allowed")) {
                    allowedList = value(args, ++i, a);
                } else if (a.equals("-h") || a.equals("--help")) {
                    System.out.println(USAGE);
                    return 0;
                } else if (a.startsWith("-")) {
                    throw new IllegalArgumentException("unknown option " + a);
                } else {
                    break;
                }
            }
            if (i >= args.length) {
                throw new IllegalArgumentException("no PROGRAM to run");
            }
        } catch (NumberFormatException e) {
            return usage(err, "--cpus-per-task needs a number");
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        }
        String[] argv = Arrays.copyOfRange(args, i, args.length);

        Policy policy;
        SlurmTask task;
        BitSet allowed;
        try {
            policy = Policy.of(policyName);
            task = SlurmTask.from(env, cpusPerTask);
            allowed = allowedList == null ? null : CpuLists.parse(allowedList);
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        }
        Kernel kernel = os != null ? os : new LibC();
        try {
            if (allowed == null) {
                allowed = kernel.getAffinity();
            }
            Topology node = Topology.sysfs();
            Request request = Request.of(task.tasksOnNode, task.cpusPerTask).withAllowed(allowed);
            Placement placement = policy.place(node, request);
            BitSet mask = placement.mask(task.localId);
            if (verbose) {
                err.println(OutputFormat.VERBOSE.line(policy.verboseName(), task.localId, mask));
            }
            kernel.setAffinity(mask);
        } catch (Rejection e) {
            err.println("raa-exec: local task " + task.localId + " of " + task.tasksOnNode + ": rejected: "
                    + e.getMessage());
            return 1;
        } catch (TopologyException | Kernel.KernelException e) {
            err.println("raa-exec: " + e.getMessage());
            return 1;
        }
        err.flush();
        System.out.flush();
        try {
            kernel.exec(argv);
            return 0; // only a fake kernel returns
        } catch (Kernel.KernelException e) {
            err.println("raa-exec: " + e.getMessage());
            return e.errno() == 2 ? 127 : 126;
        }
    }

    private static boolean flag(String v) {
        return v != null && !v.isEmpty() && !v.equals("0") && !v.equalsIgnoreCase("no") && !v.equalsIgnoreCase("false");
    }

    private static String value(String[] args, int i, String option) {
        if (i >= args.length) {
            throw new IllegalArgumentException(option + " needs a value");
        }
        return args[i];
    }

    private static int usage(PrintStream err, String problem) {
        err.println("raa-exec: " + problem);
        err.println("Try 'raa-exec --help' for the options.");
        return 2;
    }

    /**
     * The install step of {@code bin/raa-exec}: copies JNA's native dispatch library into {@code dir} (so no run
     * unpacks it again; the JVM is replaced by the program, so a per-run temporary copy would never be deleted),
     * then walks the start-up path once without exec'ing, for {@code -XX:ArchiveClassesAtExit}.
     */
    static int prepare(Path dir) {
        String resource = "com/sun/jna/" + com.sun.jna.Platform.RESOURCE_PREFIX + "/"
                + System.mapLibraryName("jnidispatch");
        try (InputStream in = RaaExec.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                System.err.println("raa-exec: JNA has no native library for this platform (" + resource + ")");
                return 1;
            }
            Files.createDirectories(dir);
            Path tmp = Files.createTempFile(dir, "jnidispatch", ".tmp");
            Files.copy(in, tmp, StandardCopyOption.REPLACE_EXISTING);
            Files.move(tmp, dir.resolve(System.mapLibraryName("jnidispatch")), StandardCopyOption.REPLACE_EXISTING,
                    StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException e) {
            System.err.println("raa-exec: cannot prepare " + dir + ": " + e.getMessage());
            return 1;
        }
        try {
            Kernel kernel = new LibC();
            BitSet mine = kernel.getAffinity();
            Topology node = Topology.sysfs();
            BitSet mask = Policy.REDUCED.place(node, Request.of(1, 1).withAllowed(mine)).mask(0);
            OutputFormat.VERBOSE.line(Policy.REDUCED.verboseName(), 0, mask);
            PrintStream discard = new PrintStream(OutputStream.nullOutputStream());
            MaskGenerator.run(new String[] {"--topology", "sysfs", "-n", "1", "--allowed", CpuLists.linux(mine),
                "--format", "tasks"}, discard, discard);
            kernel.setAffinity(mine);
            new com.sun.jna.StringArray(new String[] {"true"});
        } catch (TopologyException | Kernel.KernelException | Rejection e) {
            System.err.println("raa-exec: the training run failed: " + e.getMessage());
            return 1;
        }
        return 0;
    }
}
