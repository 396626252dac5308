package org.alpsbridge.affinity.format;

import java.util.BitSet;
import java.util.List;

/** How the per-task CPU sets are printed; every format lists the tasks in local-task order. */
public enum OutputFormat {
    /** {@code <name>: local task <id>: CPUs: <cstr list>}, the auto-affinity verbose line. */
    VERBOSE("verbose"),
    /** {@code <localid> <linux list>}, one line per task: the SPANK plugin reads this. */
    TASKS("tasks"),
    /** One Linux CPU list per line ({@code 0-3}). */
    LIST("list"),
    /** One hex mask per line ({@code 0xf}), as taskset and Slurm take them. */
    HEX("hex"),
    /** One line {@code --cpu-bind=mask_cpu:0xf,0xf0,...} for srun. */
    SLURM("slurm"),
    /** One line {@code -cc 0,1,2,3:4,5,6,7} for aprun (every CPU listed, tasks separated by ':'). */
    APRUN("aprun"),
    /** {@code <localid> {0},{1},...}: the task's OMP_PLACES, one place per CPU. */
    OMP("omp");

    private final String label;

    OutputFormat(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    /**
     * The text for {@code masks}, ending with a newline.
     *
     * @param name what the verbose lines start with (e.g. {@code reduced-auto-affinity}); other formats ignore it
     */
    public String render(String name, List<BitSet> masks) {
        StringBuilder out = new StringBuilder();
        switch (this) {
            case SLURM:
                out.append("--cpu-bind=mask_cpu:");
                for (int t = 0; t < masks.size(); t++) {
                    out.append(t == 0 ? "" : ",").append(CpuLists.hex(masks.get(t)));
                }
                return out.append('\n').toString();
            case APRUN:
                out.append("-cc ");
                for (int t = 0; t < masks.size(); t++) {
                    out.append(t == 0 ? "" : ":").append(CpuLists.expanded(masks.get(t)));
                }
                return out.append('\n').toString();
            default:
                for (int t = 0; t < masks.size(); t++) {
                    out.append(line(name, t, masks.get(t))).append('\n');
                }
                return out.toString();
        }
    }

    /** One task's line in the per-task formats (not {@link #SLURM} or {@link #APRUN}, which are one line per node). */
    public String line(String name, int localId, BitSet mask) {
        switch (this) {
            case VERBOSE:
                return name + ": local task " + localId + ": CPUs: " + CpuLists.cstr(mask);
            case TASKS:
                return localId + " " + CpuLists.linux(mask);
            case LIST:
                return CpuLists.linux(mask);
            case HEX:
                return CpuLists.hex(mask);
            case OMP:
                StringBuilder places = new StringBuilder().append(localId).append(' ');
                for (int cpu = mask.nextSetBit(0); cpu >= 0; cpu = mask.nextSetBit(cpu + 1)) {
                    places.append(places.charAt(places.length() - 1) == ' ' ? "{" : ",{").append(cpu).append('}');
                }
                return places.toString();
            default:
                throw new IllegalStateException(this + " is one line per node, not per task");
        }
    }

    /** Parses a label as shown by {@link #label()}; the message lists the valid ones. */
    public static OutputFormat of(String label) {
        for (OutputFormat f : values()) {
            if (f.label.equalsIgnoreCase(label.trim())) {
                return f;
            }
        }
        throw new IllegalArgumentException("unknown format '" + label
                + "' (verbose, tasks, list, hex, slurm, aprun, omp)");
    }
}
