package org.alpsbridge.basil.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.Callable;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.basil.model.ReserveParam;
import org.alpsbridge.basil.nodes.NidSet;
import org.alpsbridge.basil.nodes.NodeSyntaxException;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * {@code alpsbridge basil request METHOD [options] --protocol V}: prints a well-formed BASIL request, in the
 * shape of the version asked for. Options a version does not know are refused (exit 2), not silently dropped.
 */
@Command(name = "request",
        mixinStandardHelpOptions = true,
        description = {"Prints a BASIL request document on standard output. For example:",
            "  request reserve --user alice --batch-id 1234 --width 64 --nppn 32 --nppcu 1 --nodes 1-2 --protocol 1.3"},
        subcommands = {RequestCommand.Query.class, RequestCommand.Reserve.class, RequestCommand.Confirm.class,
            RequestCommand.Release.class, RequestCommand.Switch.class},
        footer = {"", "Exit codes: 0 printed, 1 failure, 2 usage error (including an option the protocol does not know)."})
public final class RequestCommand {

    /** {@code --protocol}, required by every method. */
    static final class ProtocolOption {
        @Spec(Spec.Target.MIXEE)
        CommandSpec mixee;

        String protocol;

        @Option(names = "--protocol", required = true, paramLabel = "V",
                description = "BASIL protocol version: 1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6 or 1.7.")
        void protocol(String v) {
            if (!Protocols.KNOWN.contains(v)) {
                throw new ParameterException(mixee.commandLine(), "unknown protocol version '" + v + "' (known: "
                        + String.join(", ", Protocols.KNOWN) + ")");
            }
            protocol = v;
        }

        /** Refuses an option that {@code protocol} does not know. */
        void requireAtLeast(String min, boolean given, String what) {
            if (given && !Protocols.atLeast(protocol, min)) {
                throw new ParameterException(mixee.commandLine(), what + " needs protocol " + min + " or later (asked for "
                        + protocol + ")");
            }
        }

        int print(BasilRequest request) throws BasilException {
            java.io.PrintWriter out = mixee.commandLine().getOut();
            out.print(new String(BasilCodec.standard().write(request), java.nio.charset.StandardCharsets.US_ASCII));
            out.flush();
            return 0;
        }
    }

    @Command(name = "query", mixinStandardHelpOptions = true,
            description = "QUERY of a type: ENGINE, INVENTORY, SUMMARY, STATUS, SYSTEM (1.7), TOPOLOGY.")
    static final class Query implements Callable<Integer> {
        @Mixin
        ProtocolOption p;

        @Option(names = "--type", required = true, paramLabel = "TYPE",
                description = "ENGINE, INVENTORY, SUMMARY, STATUS, SYSTEM, TOPOLOGY, NETWORK.")
        String type;

        @Option(names = "--changecount", paramLabel = "N",
                description = "INVENTORY: only node data changed since N (1.2+).")
        Long changecount;

        @Option(names = "--reservation-id", paramLabel = "R", split = ",",
                description = "STATUS: the reservations asked about.")
        List<Long> reservationIds = new ArrayList<>();

        @Override
        public Integer call() throws Exception {
            String t = type.toUpperCase(java.util.Locale.ROOT);
            if (!List.of("ENGINE", "INVENTORY", "SUMMARY", "STATUS", "SYSTEM", "TOPOLOGY", "NETWORK").contains(t)) {
                throw new ParameterException(p.mixee.commandLine(), "unknown QUERY type '" + type + "'");
            }
            p.requireAtLeast("1.7", "SYSTEM".equals(t), "QUERY type SYSTEM");
            p.requireAtLeast("1.2", changecount != null, "--changecount");
            if (changecount != null && !"INVENTORY".equals(t)) {
                throw new ParameterException(p.mixee.commandLine(), "--changecount applies to INVENTORY only");
            }
            if ("STATUS".equals(t)) {
                if (reservationIds.isEmpty()) {
                    throw new ParameterException(p.mixee.commandLine(), "QUERY STATUS needs --reservation-id");
                }
                return p.print(BasilRequest.status(p.protocol, reservationIds));
            }
            return p.print(changecount != null ? BasilRequest.inventorySince(p.protocol, changecount, true)
                    : BasilRequest.query(p.protocol, t));
        }
    }

    @Command(name = "reserve", mixinStandardHelpOptions = true,
            description = "RESERVE: one ReserveParam with the job's geometry and, optionally, its nodes.")
    static final class Reserve implements Callable<Integer> {
        @Mixin
        ProtocolOption p;

        @Option(names = "--user", required = true, description = "user_name: the job owner.")
        String user;
        @Option(names = "--batch-id", description = "batch_id: the batch job id (1.1+; Slurm always sends it).")
        String batchId;
        @Option(names = "--account", description = "account_name (optional).")
        String account;
        @Option(names = "--architecture", defaultValue = "XT", description = "XT (default) or X2.")
        String architecture;
        @Option(names = "--width", required = true, description = "width: total PEs (aprun -n).")
        long width;
        @Option(names = "--depth", description = "depth: CPUs per PE (aprun -d).")
        Long depth;
        @Option(names = "--nppn", description = "nppn: PEs per node (aprun -N).")
        Long nppn;
        @Option(names = "--npps", description = "npps: PEs per segment (aprun -S).")
        Long npps;
        @Option(names = "--nspn", description = "nspn: segments per node (aprun -sn).")
        Long nspn;
        @Option(names = "--nppcu", description = "nppcu: processors used per compute unit (1.3+; 0 lets ALPS choose).")
        Long nppcu;
        @Option(names = "--segments", description = "segments: list of segment ordinals.")
        String segments;
        @Option(names = "--mode", description = "reservation_mode: EXCLUSIVE or SHARED (1.1+).")
        String mode;
        @Option(names = "--gpc-mode", description = "gpc_mode: NONE, PROCESSOR, LOCAL or GLOBAL (1.1+).")
        String gpcMode;
        @Option(names = "--memory", paramLabel = "MB", description = "MemoryParam type=OS size_mb: memory per PE in MB.")
        Long memoryMb;
        @Option(names = "--nodes", paramLabel = "NIDS", description = "NodeParam: NID range list, e.g. 1-5,8.")
        String nodes;
        @Option(names = "--label", paramLabel = "NAME[:TYPE[:DISPOSITION]]",
                description = "LabelParam (repeatable): TYPE HARD (default) or SOFT, DISPOSITION ATTRACT (default) or REPEL.")
        List<String> labels = new ArrayList<>();
        @Option(names = "--gpu", description = "AccelParam type=GPU (1.2+).")
        boolean gpu;
        @Option(names = "--gpu-memory", paramLabel = "MB", description = "AccelParam memory_mb (implies --gpu).")
        Long gpuMemoryMb;
        @Option(names = "--p-state", description = "p-state (1.4+).")
        String pState;
        @Option(names = "--p-governor", description = "p-governor (1.4+).")
        String pGovernor;

        @Override
        public Integer call() throws Exception {
            p.requireAtLeast("1.3", nppcu != null, "--nppcu");
            p.requireAtLeast("1.4", pState != null || pGovernor != null, "--p-state/--p-governor");
            p.requireAtLeast("1.2", gpu || gpuMemoryMb != null, "--gpu");
            p.requireAtLeast("1.1", mode != null || gpcMode != null, "--mode/--gpc-mode");
            p.requireAtLeast("1.1", batchId != null, "--batch-id");
            ReserveParam.Builder b = ReserveParam.builder().architecture(architecture).width(width);
            if (depth != null) {
                b.depth(depth);
            }
            if (nppn != null) {
                b.nppn(nppn);
            }
            if (npps != null) {
                b.npps(npps);
            }
            if (nspn != null) {
                b.nspn(nspn);
            }
            if (nppcu != null) {
                b.nppcu(nppcu);
            }
            if (segments != null) {
                b.segments(segments);
            }
            if (mode != null) {
                b.reservationMode(mode);
            }
            if (gpcMode != null) {
                b.gpcMode(gpcMode);
            }
            if (pState != null) {
                b.pState(pState);
            }
            if (pGovernor != null) {
                b.pGovernor(pGovernor);
            }
            if (memoryMb != null) {
                b.memoryPerPeMb(memoryMb);
            }
            if (nodes != null) {
                try {
                    NidSet.parse(nodes);
                } catch (NodeSyntaxException e) {
                    throw new ParameterException(p.mixee.commandLine(), "--nodes: " + e.getMessage());
                }
                b.nodes(nodes.replace(" ", ""));
            }
            for (String label : labels) {
                b.label(label(label));
            }
            if (gpu || gpuMemoryMb != null) {
                b.accel(new ReserveParam.AccelParam("GPU", null, gpuMemoryMb));
            }
            return p.print(BasilRequest.reserve(p.protocol, user, batchId, account, List.of(b.build())));
        }

        /** {@code NAME[:TYPE[:DISPOSITION]]}, with the values ALPS accepts (PROTOCOL.md, Label). */
        private ReserveParam.LabelParam label(String text) {
            String[] parts = text.split(":", -1);
            String type = parts.length > 1 ? parts[1].toUpperCase(Locale.ROOT) : "HARD";
            String disposition = parts.length > 2 ? parts[2].toUpperCase(Locale.ROOT) : "ATTRACT";
            if (parts.length > 3 || parts[0].isBlank() || !List.of("HARD", "SOFT").contains(type)
                    || !List.of("ATTRACT", "REPEL").contains(disposition)) {
                throw new ParameterException(p.mixee.commandLine(), "--label wants NAME[:HARD|SOFT[:ATTRACT|REPEL]], got '"
                        + text + "'");
            }
            return new ReserveParam.LabelParam(parts[0], type, disposition);
        }
    }

    @Command(name = "confirm", mixinStandardHelpOptions = true,
            description = "CONFIRM: binds a reservation to the job's process aggregate (admin_cookie in 1.0).")
    static final class Confirm implements Callable<Integer> {
        @Mixin
        ProtocolOption p;
        @Option(names = "--reservation-id", required = true)
        long reservationId;
        @Option(names = "--pagg-id", required = true, description = "pagg_id (admin_cookie in 1.0).")
        long paggId;
        @Option(names = "--job-name", description = "job_name: the batch job id (1.0 only).")
        String jobName;

        @Override
        public Integer call() throws Exception {
            if (jobName != null && !"1.0".equals(p.protocol)) {
                throw new ParameterException(p.mixee.commandLine(), "--job-name exists in protocol 1.0 only");
            }
            return p.print(jobName == null ? BasilRequest.confirm(p.protocol, reservationId, paggId)
                    : BasilRequest.confirm(p.protocol, reservationId, paggId, jobName));
        }
    }

    @Command(name = "release", mixinStandardHelpOptions = true, description = "RELEASE a reservation.")
    static final class Release implements Callable<Integer> {
        @Mixin
        ProtocolOption p;
        @Option(names = "--reservation-id", required = true)
        long reservationId;

        @Override
        public Integer call() throws Exception {
            return p.print(BasilRequest.release(p.protocol, reservationId));
        }
    }

    @Command(name = "switch", mixinStandardHelpOptions = true,
            description = "SWITCH a reservation out (suspend) or in (resume); 1.2+.")
    static final class Switch implements Callable<Integer> {
        @Mixin
        ProtocolOption p;
        @Option(names = "--reservation-id", required = true)
        long reservationId;
        @Option(names = "--action", required = true, description = "OUT (suspend) or IN (resume).")
        String action;

        @Override
        public Integer call() throws Exception {
            p.requireAtLeast("1.2", true, "SWITCH");
            String a = action.toUpperCase(java.util.Locale.ROOT);
            if (!a.equals("IN") && !a.equals("OUT")) {
                throw new ParameterException(p.mixee.commandLine(), "--action must be IN or OUT");
            }
            return p.print(BasilRequest.switchReservation(p.protocol, reservationId, a));
        }
    }
}
