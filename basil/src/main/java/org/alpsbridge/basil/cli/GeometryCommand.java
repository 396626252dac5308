package org.alpsbridge.basil.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.alpsbridge.basil.codec.BasilCodec;
import org.alpsbridge.basil.codec.BasilException;
import org.alpsbridge.basil.geometry.Geometry;
import org.alpsbridge.basil.geometry.GeometryException;
import org.alpsbridge.basil.geometry.JobRequest;
import org.alpsbridge.basil.geometry.NodeType;
import org.alpsbridge.basil.geometry.Reservation;
import org.alpsbridge.basil.inventory.InventoryReader;
import org.alpsbridge.basil.inventory.NodeView;
import org.alpsbridge.basil.model.BasilRequest;
import org.alpsbridge.basil.model.Protocols;
import org.alpsbridge.basil.nodes.NidSet;
import org.alpsbridge.failure.Failures;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** {@code alpsbridge basil geometry}: the RESERVE parameters and node count of a Slurm job on a node type. */
@Command(name = "geometry",
        mixinStandardHelpOptions = true,
        sortOptions = false,
        description = {
            "Computes the ALPS RESERVE parameters (width, depth, nppn, nppcu, memory per PE) and the node count of a"
                + " Slurm job request on one node type, as Slurm's select/alps plugin did, or says which limit the"
                + " job breaks and by how much, before any RESERVE is sent.",
            "Without --allocated the job is pending and the node count is derived from the request.",
            "",
            "Examples:",
            "  alpsbridge basil geometry --node 2x8x2:64g --ntasks 64 --one-task-per-core",
            "  alpsbridge basil geometry --node 1x68x4:96g --ntasks 272 --mem 90G --ntasks-per-core 1",
            "  alpsbridge basil geometry --inventory inv.xml --ntasks 10 --cpus-per-task 4 --sub-allocate",
            "  alpsbridge basil geometry --node 2x8x2:64g --ntasks 64 --allocated 20-21 --xml --user alice --batch-id 1234"
        },
        footer = {"",
            "Output: a key=value line, the line Slurm logged (BASIL -n W -N NPPN -d D -m MB), and a 'note:' line for"
                + " each place where the request was read as Slurm reads it rather than as written; with --xml, the"
                + " RESERVE request instead.",
            "Exit codes: 0 the geometry was printed; 1 the job is rejected or the inventory unreadable (one line on"
                + " stderr says why); 2 usage error."})
public final class GeometryCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Option(names = "--node", paramLabel = "SxCxT:MEM",
            description = "The node type: sockets x cores per socket x threads per core : memory, e.g. 2x8x2:64g. Excludes --inventory.")
    String node;

    @Option(names = "--inventory", paramLabel = "FILE",
            description = "A QUERY INVENTORY response (any protocol version) to take the node type from: the node --nid,"
                    + " else the first allocated NID, else the first BATCH node. A pending job may then use at most the"
                    + " BATCH nodes of that type.")
    Path inventory;

    @Option(names = "--nid", paramLabel = "NID", description = "With --inventory: the node whose type to use.")
    Long nid;

    @Option(names = {"-n", "--ntasks"}, paramLabel = "N", description = "Slurm --ntasks.")
    Long ntasks;

    @Option(names = "--ntasks-per-node", paramLabel = "N", description = "Slurm --ntasks-per-node.")
    Long ntasksPerNode;

    @Option(names = {"-c", "--cpus-per-task"}, paramLabel = "N", description = "Slurm --cpus-per-task (default 1).")
    Long cpusPerTask;

    @Option(names = "--ntasks-per-core", paramLabel = "N", description = "Slurm --ntasks-per-core: becomes nppcu.")
    Integer ntasksPerCore;

    @Option(names = {"-N", "--nodes"}, paramLabel = "N", description = "Slurm --nodes (minimum node count).")
    Long nodes;

    @Option(names = "--mem", paramLabel = "SIZE", description = "Slurm --mem: memory per node, MB or with M/G/T suffix.")
    String mem;

    @Option(names = "--mem-per-cpu", paramLabel = "SIZE", description = "Slurm --mem-per-cpu, MB or with M/G/T suffix.")
    String memPerCpu;

    @Option(names = "--one-task-per-core",
            description = "slurm.conf SelectTypeParameters has CR_ONE_TASK_PER_CORE (nppcu=1 unless --ntasks-per-core). Default off.")
    boolean oneTaskPerCore;

    @Option(names = "--sub-allocate",
            description = "cray.conf SubAllocate=yes: size the reservation to the request rather than to whole nodes. Default off.")
    boolean subAllocate;

    @Option(names = "--allocated", paramLabel = "NIDLIST",
            description = "The job is running on these nodes (ALPS range list, e.g. 20-23,40); they become the NodeParam.")
    String allocated;

    @Option(names = "--available-nodes", paramLabel = "N",
            description = "Nodes of this type the machine has, for a pending job (default: from --inventory, else no limit).")
    Long availableNodes;

    @Option(names = "--protocol", paramLabel = "V", defaultValue = "1.3",
            description = "BASIL version of the RESERVE (nppcu is sent from 1.3 on). Default: ${DEFAULT-VALUE}.")
    String protocol;

    @Option(names = "--xml", description = "Print the RESERVE request document instead of the summary lines.")
    boolean xml;

    @Option(names = "--user", paramLabel = "NAME", description = "With --xml: user_name (default: this user).")
    String user;

    @Option(names = "--batch-id", paramLabel = "ID", description = "With --xml: batch_id, the Slurm job id.")
    String batchId;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        if ((node == null) == (inventory == null)) {
            throw usage("give exactly one of --node and --inventory");
        }
        if (!Protocols.KNOWN.contains(protocol)) {
            throw usage("--protocol " + protocol + " is not one of " + Protocols.KNOWN);
        }
        JobRequest job;
        NidSet nids;
        NodeType type;
        long available = availableNodes == null ? 0 : availableNodes;
        try {
            job = new JobRequest(ntasks, ntasksPerNode, cpusPerTask, ntasksPerCore, nodes,
                    mem == null ? null : NodeType.megabytes(mem), memPerCpu == null ? null : NodeType.megabytes(memPerCpu));
            nids = allocated == null ? null : NidSet.parse(allocated);
            if (nids != null && nids.isEmpty()) {
                throw new IllegalArgumentException("--allocated names no nodes");
            }
            type = node == null ? null : NodeType.parse(node);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        }
        try {
            if (type == null) {
                long wanted = nid != null ? nid : nids != null ? nids.first() : -1;
                NodeTypeCount found = fromInventory(inventory, wanted);
                type = found.type;
                if (availableNodes == null) {
                    available = found.batchNodes;
                }
            }
            Reservation r = nids == null ? Geometry.pending(job, type, site(), available) : Geometry.allocated(job, type, site(), nids.size());
            if (xml) {
                String name = user != null ? user : System.getProperty("user.name");
                byte[] doc = BasilCodec.standard().write(BasilRequest.reserve(protocol, name, batchId, null,
                        List.of(r.toReserveParam(protocol, nids))));
                out.print(new String(doc, StandardCharsets.UTF_8));
                out.flush();
                return 0;
            }
            out.println("nodes=" + r.nodes() + " width=" + r.width() + " depth=" + r.depth() + " nppn=" + r.nppn() + " nppcu=" + r.nppcu()
                    + " memory_per_pe_mb=" + r.memoryPerPeMb() + " usable_cpus_per_node=" + r.usableCpusPerNode() + " node_type=" + type);
            out.println(r.basilLine());
            r.notes().forEach(n -> out.println("note: " + n));
            return 0;
        } catch (GeometryException e) {
            err.println("geometry: rejected: " + e.getMessage());
            return 1;
        } catch (BasilException | IllegalArgumentException e) {
            err.println("geometry: " + e.getMessage());
            return 1;
        } catch (IOException e) {
            err.println("basil geometry: the inventory: " + Failures.describe(e));
            return 1;
        }
    }

    private Geometry.Site site() {
        return new Geometry.Site(oneTaskPerCore, subAllocate);
    }

    private record NodeTypeCount(NodeType type, long batchNodes) {
    }

    /** The type of node {@code wanted} (or of the first BATCH node when -1), and how many BATCH nodes share it. */
    private static NodeTypeCount fromInventory(Path file, long wanted) throws IOException, BasilException {
        try (InputStream in = Files.newInputStream(file); InventoryReader reader = InventoryReader.open(in)) {
            NodeType type = null;
            Map<NodeType, Long> batchByType = new HashMap<>();
            for (NodeView v = reader.nextNode(); v != null; v = reader.nextNode()) {
                boolean batch = "BATCH".equals(v.role());
                if (v.nodeId() == wanted || (wanted < 0 && type == null && batch)) {
                    type = NodeType.of(v);
                }
                if (batch) {
                    try {
                        batchByType.merge(NodeType.of(v), 1L, Long::sum);
                    } catch (IllegalArgumentException irregular) {
                        // A node of no regular type is never one of the chosen type; leave it out of the count.
                    }
                }
            }
            reader.finish();
            if (type == null) {
                throw new IllegalArgumentException(file + ": " + (wanted < 0 ? "no BATCH node in the inventory" : "no node with NID " + wanted));
            }
            long batchOfType = batchByType.getOrDefault(type, 0L);
            return new NodeTypeCount(type, batchOfType);
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }
}
