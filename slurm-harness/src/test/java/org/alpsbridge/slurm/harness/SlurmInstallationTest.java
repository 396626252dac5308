package org.alpsbridge.slurm.harness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Slurm under a prefix is what its own {@code slurmd -V} says, its programs are its own, and the slurm.conf the
 * harness writes for it has the lines of that version. The prefixes here are made of scripts: the daemons are
 * never started.
 */
class SlurmInstallationTest {

    /** A prefix whose sbin/slurmd says {@code version} and that has these other programs. */
    static Path prefix(Path dir, String version, String... programs) throws IOException {
        script(dir.resolve("sbin/slurmd"), "echo '" + version + "'");
        for (String p : programs) {
            script(dir.resolve((p.startsWith("slurm") ? "sbin/" : "bin/") + p), "exit 0");
        }
        return dir;
    }

    private static void script(Path file, String body) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, "#!/bin/sh\n" + body + "\n");
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    @Test
    void aPrefixIsTheVersionItsSlurmdSays(@TempDir Path dir) throws IOException {
        SlurmInstallation old = SlurmInstallation.at(prefix(dir.resolve("a"), "slurm 18.08.9"));
        assertEquals("slurm 18.08.9", old.version());
        assertTrue(old.atLeast(18, 8));
        assertTrue(old.atLeast(17, 11));
        assertFalse(old.atLeast(19, 5));
        assertFalse(old.atLeast(20, 2));
        SlurmInstallation next = SlurmInstallation.at(prefix(dir.resolve("b"), "slurm 26.05.3"));
        assertTrue(next.atLeast(26, 5));
        assertTrue(next.atLeast(22, 5));
        assertFalse(next.atLeast(26, 11));
    }

    @Test
    void aPrefixRunsItsOwnPrograms(@TempDir Path dir) throws IOException {
        Path p = prefix(dir, "slurm 18.08.9", "sbatch", "slurmctld");
        SlurmInstallation slurm = SlurmInstallation.at(p);
        assertEquals(p.resolve("bin/sbatch"), slurm.program("sbatch"));
        assertEquals(p.resolve("sbin/slurmctld"), slurm.program("slurmctld"));
        assertNull(slurm.program("srun"), "not in this prefix, whatever the system has");
        assertEquals(p.resolve("include"), slurm.includeDir());
        assertEquals(p.resolve("lib/slurm"), slurm.pluginDir());
        var env = slurm.environment(dir.resolve("slurm.conf"));
        assertEquals(dir.resolve("slurm.conf").toString(), env.get("SLURM_CONF"));
        assertTrue(env.get("PATH").startsWith(p.resolve("bin") + ":" + p.resolve("sbin") + ":"), env.get("PATH"));
    }

    @Test
    void thePropertyNamesThePrefix(@TempDir Path dir) throws IOException {
        Path p = prefix(dir, "slurm 26.05.3");
        String before = System.getProperty(SlurmInstallation.PREFIX_PROPERTY);
        System.setProperty(SlurmInstallation.PREFIX_PROPERTY, p.toString());
        try {
            assertEquals(p, SlurmInstallation.selected().prefix());
        } finally {
            if (before == null) {
                System.clearProperty(SlurmInstallation.PREFIX_PROPERTY);
            } else {
                System.setProperty(SlurmInstallation.PREFIX_PROPERTY, before);
            }
        }
    }

    @Test
    void slurmConfHasTheLinesOfTheVersion(@TempDir Path dir) throws Exception {
        List<String> programs = List.of("slurmctld", "sinfo", "squeue", "scontrol", "sbatch");
        String old = conf(dir.resolve("old"), prefix(dir.resolve("p18"), "slurm 18.08.9", programs.toArray(String[]::new)));
        assertTrue(old.contains("\nCryptoType=crypto/munge\n"), old);
        assertTrue(old.contains("\nFastSchedule=2\n"), old);
        assertFalse(old.contains("CredType"), old);
        assertTrue(old.contains("\nPluginDir=" + dir.resolve("p18/lib/slurm") + "\n"), old);
        String next = conf(dir.resolve("new"), prefix(dir.resolve("p26"), "slurm 26.05.3", programs.toArray(String[]::new)));
        assertTrue(next.contains("\nCredType=cred/munge\n"), next);
        assertTrue(next.contains("\nSlurmdParameters=config_overrides\n"), next);
        assertFalse(next.contains("FastSchedule") || next.contains("CryptoType"), next);
    }

    @Test
    void theSuitesLinesReplaceTheCommonOnesAndFollowThem(@TempDir Path dir) throws Exception {
        Path p = prefix(dir.resolve("p"), "slurm 22.05.8", "slurmctld", "sinfo", "squeue", "scontrol", "sbatch");
        String text = conf(dir.resolve("c"), p);
        List<String> lines = text.lines().toList();
        assertEquals(1, lines.stream().filter(l -> l.startsWith("TaskPlugin=")).count(), text);
        assertTrue(lines.contains("TaskPlugin=task/affinity"), text);
        int ctld = Integer.parseInt(value(lines, "SlurmctldPort"));
        int slurmd = Integer.parseInt(value(lines, "SlurmdPort"));
        assertTrue(ctld != slurmd && ctld > 0 && slurmd > 0, text);
        assertTrue(lines.contains("AuthInfo=socket=" + dir.resolve("munge.sock")), text);
        assertEquals("PartitionName=debug Nodes=n1 Default=YES", lines.get(lines.size() - 1), "lines as they are, last");
    }

    private static String value(List<String> lines, String key) {
        return lines.stream().filter(l -> l.startsWith(key + "=")).findFirst().orElseThrow().substring(key.length() + 1);
    }

    /** The slurm.conf the harness writes for this prefix (no daemon started). */
    private static String conf(Path dir, Path prefix) throws Exception {
        Files.createDirectories(dir);
        SlurmInstallation slurm = SlurmInstallation.at(prefix);
        SlurmCluster c = SlurmCluster.configure(new SlurmCluster.Spec(slurm, dir).munge(dir.getParent().resolve("munge.sock"))
                .trustConfiguredCpus().set("TaskPlugin", "task/affinity").line("PartitionName=debug Nodes=n1 Default=YES"));
        c.close();
        return Files.readString(c.conf());
    }
}
