package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.ProjectShare;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.slurm.harness.MariaDb;
import org.alpsbridge.slurm.harness.Programs;
import org.alpsbridge.slurm.harness.SlurmDbd;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * {@code alpsbridge ledger slurm-sync} on a generated site of 300 projects and 2,000 users against a real slurmdbd
 * on a real MariaDB (the Slurm of the execution: Debian's 22.05, or 26.05 with {@code -Dalpsbridge.slurm.prefix}):
 * the dry run into the empty slurmdbd, the first real sync, then the second (which must run no call). Each user is
 * in one to three projects, listed as the projects' explicit members: sacctmgr -i adds a user without a Unix
 * account (it only asks, and -i does not), so the site needs no Unix users or groups. A tenth of the projects have
 * ended (blocked), a third name partitions, a third have caps. Prints the figures of the benchmarks page and checks
 * that slurmdbd ends up holding what the ledger says (each live member's association), so a sync that skipped its
 * work cannot look fast. Opt-in ({@code long}):
 * {@code mvn -B -o -Plong -pl ledger-service -am verify -Dtest=SlurmSyncSiteBench -Dsurefire.failIfNoSpecifiedTests=false
 * [-Dseed=N]}.
 */
@Tag("long")
class SlurmSyncSiteBench {

    private static final int PROJECTS = 300;
    private static final int USERS = 2_000;
    /** Far above the gids of this machine's groups: the projects' members are only their explicit ones. */
    private static final int FIRST_GID = 3_900_000;

    @Test
    void threeHundredProjectsTwoThousandUsersDryRunFirstAndSecondSync() throws Exception {
        long seed = Long.getLong("seed", 48L);
        System.out.println("SlurmSyncSiteBench seed " + seed);
        try (SlurmLab lab = SlurmLab.start(null, 4, SlurmLab.Hooks.NONE, "", "")) {
            try (MariaDb db = MariaDb.start(lab.dir.resolve("mariadb"));
                 SlurmDbd dbd = SlurmDbd.start(lab.cluster(), db)) {
                System.out.println("on " + lab.installation() + ", " + Runtime.getRuntime().availableProcessors() + " cores");
                Path sacctmgr = lab.dir.resolve("sacctmgr");
                Files.writeString(sacctmgr, String.join("\n", "#!/bin/sh",
                        "export SLURM_CONF=" + lab.dir.resolve("slurm.conf"),
                        "exec " + lab.installation().program("sacctmgr") + " \"$@\"", ""));
                sacctmgr.toFile().setExecutable(true);
                Map<String, Set<String>> live = generate(lab.db, new Random(seed));

                Timed dry = sync(lab, sacctmgr, "--dry-run");
                System.out.printf("dry run: %d sacctmgr calls printed in %d ms (%s)%n", calls(dry.out), dry.ms, dry.summary());
                Timed first = sync(lab, sacctmgr);
                System.out.printf("first sync: %d sacctmgr calls in %.1f s (%s)%n", calls(first.out), first.ms / 1000.0,
                        first.summary());
                assertEquals(calls(dry.out), calls(first.out), "the first sync runs what the dry run printed");
                Timed second = sync(lab, sacctmgr);
                System.out.printf("second sync: %d sacctmgr calls in %.1f s (%s)%n", calls(second.out), second.ms / 1000.0,
                        second.summary());
                assertEquals(0, calls(second.out), second.out);
                assertEquals(live, associations(lab), "slurmdbd's user associations are the live projects' members");
            }
        }
    }

    /**
     * The site in the ledger: projects p000..p299, every tenth ended a day ago, the others a hundred days on; users
     * u0000..u1999 in one to three of them. Returns each live project's members.
     */
    private static Map<String, Set<String>> generate(String url, Random rnd) {
        Instant now = Instant.now().truncatedTo(ChronoUnit.SECONDS);
        Map<String, Set<String>> members = new TreeMap<>();
        for (int p = 0; p < PROJECTS; p++) {
            members.put(project(p), new TreeSet<>());
        }
        for (int u = 0; u < USERS; u++) {
            for (int k = 0; k <= rnd.nextInt(3); k++) {
                members.get(project(rnd.nextInt(PROJECTS))).add(String.format("u%04d", u));
            }
        }
        long began = System.nanoTime();
        Map<String, Set<String>> live = new TreeMap<>();
        try (Ledger ledger = Ledger.open(url)) {
            for (int p = 0; p < PROJECTS; p++) {
                String name = project(p);
                boolean ended = p % 10 == 9;
                ledger.addProject(name, FIRST_GID + p, null);
                ledger.grant(name, Resource.CPU, 60_000, now.minus(Duration.ofDays(200)),
                        now.plus(Duration.ofDays(ended ? -1 : 100)), "research", null);
                List<String> partitions = p % 3 == 0 ? (p % 2 == 0 ? List.of("debug", "big") : List.of("debug")) : List.of();
                Map<String, Long> caps = p % 3 == 1 ? Map.of("node", 1L + p % 4, "cpu", 32L + p % 5 * 32) : Map.of();
                ledger.setShare(new ProjectShare(name, "project " + name, "org" + p % 7, partitions, caps,
                        new ArrayList<>(members.get(name)), ""), "bench");
                if (!ended && !members.get(name).isEmpty()) {
                    live.put(name, members.get(name));
                }
            }
        }
        int memberships = members.values().stream().mapToInt(Set::size).sum();
        System.out.printf("generated %d projects (%d ended), %d users, %d memberships in %d ms%n", PROJECTS,
                PROJECTS / 10, USERS, memberships, Duration.ofNanos(System.nanoTime() - began).toMillis());
        return live;
    }

    private static String project(int p) {
        return String.format("p%03d", p);
    }

    private record Timed(String out, long ms) {
        String summary() {
            return out.lines().reduce((a, b) -> b).orElse("").replaceFirst("^# ", "");
        }
    }

    /** {@code alpsbridge ledger slurm-sync} in this JVM (its start not counted), timed; it must succeed. */
    private static Timed sync(SlurmLab lab, Path sacctmgr, String... more) {
        long began = System.nanoTime();
        String out = SlurmSyncSlurmTest.sync(lab, sacctmgr, 0, more)[0];
        return new Timed(out, Duration.ofNanos(System.nanoTime() - began).toMillis());
    }

    private static long calls(String out) {
        return out.lines().filter(l -> l.startsWith("sacctmgr ")).count();
    }

    /** account → its users, as slurmdbd lists the cluster's user associations (partitions folded together). */
    private static Map<String, Set<String>> associations(SlurmLab lab) throws Exception {
        Programs.Result r = lab.slurm("sacctmgr", "-nP", "show", "association", "where", "cluster=lab",
                "format=account,user");
        assertEquals(0, r.exit(), r.err());
        Map<String, Set<String>> out = new TreeMap<>();
        for (String line : r.out().split("\n")) {
            String[] f = line.split("\\|", -1);
            if (f.length == 2 && !f[1].isEmpty() && !f[0].equals("root")) {
                out.computeIfAbsent(f[0], k -> new TreeSet<>()).add(f[1]);
            }
        }
        assertTrue(!out.isEmpty(), "no user association in slurmdbd: " + r.out());
        return out;
    }
}
