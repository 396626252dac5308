package org.alpsbridge.ledger.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.ProjectShare;
import org.alpsbridge.ledger.Resource;
import org.junit.jupiter.api.Test;

/**
 * A generated site (300 projects, 2,000 users, each in one to three projects' Unix groups, a tenth of the projects
 * ended, a third with partitions and caps) synchronised into a slurmdbd that starts empty and then into the state
 * the first run leaves (modelled): the dry run's calls, and none the second time. Prints the dry run's time; the
 * figure is the README's, not a limit here.
 */
class GeneratedSiteTest {

    static final int PROJECTS = 300;
    static final int USERS = 2_000;

    @Test
    void aDryRunOfThreeHundredProjectsAndTwoThousandUsersThenNothingToDo() throws Exception {
        long seed = Long.getLong("seed", 48L);
        System.out.println("GeneratedSiteTest seed " + seed);
        Path dir = Files.createTempDirectory("slurm-sync-site");
        Instant now = Instant.now();
        Map<Integer, Set<String>> groups = new HashMap<>();
        try (Ledger ledger = Ledger.open("sqlite:" + dir.resolve("ledger.db"))) {
            long made = System.nanoTime();
            generate(ledger, groups, new Random(seed), now);
            System.out.println("generated in " + Duration.ofNanos(System.nanoTime() - made).toMillis() + " ms");
            SacctmgrModel slurm = new SacctmgrModel(new SlurmState(Map.of(), Map.of(), Set.of()));
            ModelSacctmgr sacctmgr = new ModelSacctmgr(slurm);
            StringWriter out = new StringWriter();
            SlurmSync.Options dry = new SlurmSync.Options("lab", "block", "root", "sacctmgr", Set.of(), false, true, null);
            long began = System.nanoTime();
            int code = SlurmSync.run(ledger, dry, gid -> groups.getOrDefault(gid, Set.of()), sacctmgr, now,
                    new PrintWriter(out), new PrintWriter(new StringWriter()));
            long ms = Duration.ofNanos(System.nanoTime() - began).toMillis();
            assertEquals(0, code);
            List<String> calls = out.toString().lines().filter(l -> l.startsWith("sacctmgr")).toList();
            System.out.println("dry run of " + PROJECTS + " projects, " + USERS + " users: " + calls.size()
                    + " calls printed in " + ms + " ms; the first lines:");
            out.toString().lines().limit(8).forEach(System.out::println);
            System.out.println(out.toString().lines().reduce((a, b) -> b).orElse(""));
            // applied to the model, the next run has nothing to do
            for (String line : calls) {
                slurm.apply(new Command(shellWords(line.substring("sacctmgr -i ".length()))));
            }
            StringWriter again = new StringWriter();
            SlurmSync.run(ledger, dry, gid -> groups.getOrDefault(gid, Set.of()), sacctmgr, now,
                    new PrintWriter(again), new PrintWriter(new StringWriter()));
            assertEquals(0, again.toString().lines().filter(l -> l.startsWith("sacctmgr")).count(), again.toString());
        }
    }

    /** Projects p000..p299 with gids 50000+, users u0000..u1999 in one to three of their groups. */
    static void generate(Ledger ledger, Map<Integer, Set<String>> groups, Random rnd, Instant now) {
        for (int p = 0; p < PROJECTS; p++) {
            String name = String.format("p%03d", p);
            ledger.addProject(name, 50_000 + p, null);
            boolean ended = p % 10 == 9;
            ledger.grant(name, Resource.CPU, 60_000, now.minus(Duration.ofDays(200)),
                    now.plus(Duration.ofDays(ended ? -1 : 100)), "research", null);
            if (p % 3 == 0) {
                ledger.setShare(new ProjectShare(name, "project " + name, "org" + p % 7,
                        p % 2 == 0 ? List.of("std", "gpu") : List.of("std"),
                        Map.of("node", 4L + p % 5, "cpu", 128L, "gres/gpu", 8L), List.of(), ""), "bench");
            }
        }
        for (int u = 0; u < USERS; u++) {
            String user = String.format("u%04d", u);
            for (int k = 0; k <= rnd.nextInt(3); k++) {
                groups.computeIfAbsent(50_000 + rnd.nextInt(PROJECTS), g -> new TreeSet<>()).add(user);
            }
        }
    }

    /** The words of a line {@link Command#shell} wrote. */
    static List<String> shellWords(String line) {
        List<String> words = new ArrayList<>();
        StringBuilder w = new StringBuilder();
        boolean quoted = false;
        boolean any = false;
        for (char ch : line.toCharArray()) {
            if (ch == '\'') {
                quoted = !quoted;
                any = true;
            } else if (ch == ' ' && !quoted) {
                if (any) {
                    words.add(w.toString());
                }
                w.setLength(0);
                any = false;
            } else {
                w.append(ch);
                any = true;
            }
        }
        if (any) {
            words.add(w.toString());
        }
        return words;
    }

    /** sacctmgr answered from the model: reachable, knows cluster "lab", its state the model's. */
    static final class ModelSacctmgr extends Sacctmgr {
        private final SacctmgrModel model;

        ModelSacctmgr(SacctmgrModel model) {
            super("sacctmgr", Duration.ofSeconds(1));
            this.model = model;
        }

        @Override
        void reachable(String cluster) {
        }

        @Override
        SlurmState state(String cluster) {
            return model.state();
        }

        @Override
        Result apply(Command c) {
            model.apply(c);
            return new Result(0, "", "");
        }
    }
}
