package org.alpsbridge.slurm.harness;

import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Network namespaces for several slurmd on this machine: per node n1, n2, ... a namespace with a veth pair into a
 * bridge that holds slurmctld's address, in a test subnet 10.250.B.0/24 that exists only inside these namespaces
 * and the bridge. B is one no other such bridge on this machine holds (another build's cluster), and names the
 * namespaces and links ({@code abBn1}, {@code abBbr}); all of it is removed on close. Each node is as on a host of
 * its own to Slurm (its own address, slurmd's port on it), with a slurmd of any build: Debian's Slurm is not built
 * with {@code --enable-multiple-slurmd}. The namespaces share everything else (files, users, munged's socket).
 */
public final class NodeNamespaces implements AutoCloseable {

    private final int subnet;
    private final int nodes;
    private final List<List<String>> teardown = new ArrayList<>();

    private NodeNamespaces(int subnet, int nodes) {
        this.subnet = subnet;
        this.nodes = nodes;
    }

    /** The bridge with slurmctld's address, and per node a namespace with a veth pair into the bridge. */
    public static NodeNamespaces create(int nodes) throws IOException, InterruptedException {
        for (String p : List.of("ip", "nsenter")) {
            if (Programs.find(p) == null) {
                Programs.unavailable(p + " is not installed (Debian packages iproute2, util-linux)");
            }
        }
        if (!"root".equals(System.getProperty("user.name"))) {
            Programs.unavailable("network namespaces, a bridge and veth pairs need root; this test runs as "
                    + System.getProperty("user.name"));
        }
        NodeNamespaces n = new NodeNamespaces(freeSubnet(), nodes);
        try {
            n.build();
            return n;
        } catch (IOException | RuntimeException e) {
            n.close();
            throw e;
        }
    }

    private static int freeSubnet() throws IOException, InterruptedException {
        String held = ip("-4", "-o", "addr", "show") + ip("netns", "list");
        int start = (int) (ProcessHandle.current().pid() % 250);
        for (int i = 0; i < 250; i++) {
            int b = (start + i) % 250;
            if (!held.contains("10.250." + b + ".") && !held.contains("ab" + b + "n")) {
                return b;
            }
        }
        throw new IOException("no free test subnet 10.250.B.0/24 on this machine");
    }

    private void build() throws IOException, InterruptedException {
        String bridge = "ab" + subnet + "br";
        ip("link", "add", bridge, "type", "bridge");
        teardown.add(List.of("link", "del", bridge));
        ip("addr", "add", controllerAddress() + "/24", "dev", bridge);
        ip("link", "set", bridge, "up");
        for (int i = 1; i <= nodes; i++) {
            String ns = namespace("n" + i);
            String hostEnd = "ab" + subnet + "h" + i;
            ip("netns", "add", ns);
            teardown.add(0, List.of("netns", "del", ns)); // deleting the namespace deletes its veth pair too
            ip("link", "add", hostEnd, "type", "veth", "peer", "name", "eth0", "netns", ns);
            ip("link", "set", hostEnd, "master", bridge, "up");
            ip("-n", ns, "addr", "add", address("n" + i) + "/24", "dev", "eth0");
            ip("-n", ns, "link", "set", "eth0", "up");
            ip("-n", ns, "link", "set", "lo", "up");
        }
    }

    /**
     * The nodes into a cluster's slurm.conf: slurmctld on {@link #controllerAddress()}, per node a line {@code
     * NodeName=nI NodeAddr=ADDRESS CPUs=C State=UNKNOWN} ({@code cpus[I-1]}) and a slurmd in its namespace. Needs as
     * many namespaces as {@code cpus} has values. The node names, for the partitions' lines.
     */
    public List<String> addTo(SlurmCluster.Spec spec, int... cpus) {
        if (cpus.length != nodes) {
            throw new IllegalArgumentException(cpus.length + " node sizes for " + nodes + " namespaces");
        }
        spec.controllerAddress(controllerAddress());
        for (int i = 0; i < nodes; i++) {
            String node = nodes().get(i);
            spec.line("NodeName=" + node + " NodeAddr=" + address(node) + " CPUs=" + cpus[i] + " State=UNKNOWN");
            spec.slurmd(node, launcher(node));
        }
        return nodes();
    }

    /** Node names n1, n2, ... */
    public List<String> nodes() {
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= nodes; i++) {
            names.add("n" + i);
        }
        return names;
    }

    /** The bridge's address: slurmctld's. */
    public String controllerAddress() {
        return "10.250." + subnet + ".1";
    }

    /** Node nI's address, 10.250.B.(I+1). */
    public String address(String node) {
        return "10.250." + subnet + "." + (Integer.parseInt(node.substring(1)) + 1);
    }

    /** What runs a program (slurmd) inside the node's namespace. */
    public List<String> launcher(String node) {
        return List.of(Programs.find("nsenter").toString(), "--net=/run/netns/" + namespace(node));
    }

    private String namespace(String node) {
        return "ab" + subnet + node;
    }

    private static String ip(String... args) throws IOException, InterruptedException {
        List<String> argv = new ArrayList<>(List.of(Programs.find("ip").toString()));
        argv.addAll(List.of(args));
        Programs.Result r = Programs.run(argv, Map.of(), Duration.ofSeconds(20));
        if (r.exit() != 0) {
            throw new IOException(String.join(" ", argv) + " failed: " + r.err().strip());
        }
        return r.out();
    }

    @Override
    public void close() {
        for (List<String> args : teardown) {
            try {
                ip(args.toArray(String[]::new));
            } catch (IOException | InterruptedException e) {
                System.out.println("NodeNamespaces: " + e.getMessage());
            }
        }
        teardown.clear();
    }
}
