package org.alpsbridge.affinity.agent;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.alpsbridge.affinity.exec.MaskGenerator;
import org.alpsbridge.affinity.topology.Topology;
import org.alpsbridge.affinity.topology.TopologyException;

/**
 * The node's sysfs topology, read once and again only when it could have changed. A CPU's package and core id
 * do not change while it is online, so the topology changes only when CPUs go on- or offline (hotplug, SMT
 * switched on or off), and then {@code cpu/online} changes: each request reads that one small file and re-reads
 * the whole tree only when its text differs from the last read's. A tree that could not be read is not kept, so
 * the next request tries again (and gets the same error message raa-exec would print).
 */
final class SysfsCache implements MaskGenerator.Source {

    private final Path root;
    private final java.io.PrintStream log;
    private String online;
    private Topology topology;

    SysfsCache(Path root, java.io.PrintStream log) {
        this.root = root;
        this.log = log;
    }

    @Override
    public synchronized Topology read() throws TopologyException {
        String now = onlineText();
        if (topology != null && now != null && now.equals(online)) {
            return topology;
        }
        Topology fresh = Topology.sysfs(root);
        if (topology != null && !java.util.Objects.equals(now, online)) {
            log.println("affinity agent: the online CPUs of " + root + " changed (" + online + " -> " + now
                    + "): topology read again");
        }
        topology = fresh;
        online = now;
        return topology;
    }

    /** The text of cpu/online, or null where the file is absent (every request then reads the whole tree). */
    private String onlineText() {
        try {
            return Files.readString(root.resolve("cpu").resolve("online")).strip();
        } catch (IOException e) {
            return null;
        }
    }
}
