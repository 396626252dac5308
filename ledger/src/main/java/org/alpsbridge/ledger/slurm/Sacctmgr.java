package org.alpsbridge.ledger.slurm;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * slurmdbd through {@code sacctmgr}: reads its state with {@code -nP show} (no header, {@code |}-separated) and
 * applies a change with {@code -i} (commit at once, no question asked). Every call is bounded by a time limit.
 */
class Sacctmgr {

    /** slurmdbd did not answer, or does not know the cluster: the sync changes nothing. */
    static final class Unreachable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unreachable(String message) {
            super(message);
        }
    }

    /** A call's exit status and output. */
    record Result(int exit, String out, String err) {
        String said() {
            String s = (err.strip() + " " + out.strip()).strip().replace('\n', ' ');
            return s.isEmpty() ? "(no output)" : s;
        }
    }

    private final String program;
    private final Duration limit;

    Sacctmgr(String program, Duration limit) {
        this.program = program;
        this.limit = limit;
    }

    /** {@code sacctmgr ARGS}. */
    Result run(List<String> args) {
        List<String> argv = new ArrayList<>(List.of(program));
        argv.addAll(args);
        Process p;
        try {
            p = new ProcessBuilder(argv).redirectInput(ProcessBuilder.Redirect.from(new java.io.File("/dev/null"))).start();
        } catch (IOException e) {
            throw new Unreachable("cannot run " + program + " (" + e.getMessage() + "); is Slurm's sacctmgr installed?"
                    + " (--sacctmgr PATH names it)");
        }
        CompletableFuture<String> out = drain(p.getInputStream());
        CompletableFuture<String> err = drain(p.getErrorStream());
        try {
            if (!p.waitFor(limit.toMillis(), TimeUnit.MILLISECONDS)) {
                p.destroyForcibly();
                p.waitFor(5, TimeUnit.SECONDS);
                return new Result(-1, out.getNow(""), "no answer within " + limit.toSeconds() + " s; " + err.getNow(""));
            }
            return new Result(p.exitValue(), out.join(), err.join());
        } catch (InterruptedException e) {
            p.destroyForcibly();
            Thread.currentThread().interrupt();
            throw new Unreachable("interrupted while sacctmgr ran");
        }
    }

    /** {@code sacctmgr -i ARGS}: one change, committed by slurmdbd when it succeeds. */
    Result apply(Command c) {
        List<String> args = new ArrayList<>(List.of("-i"));
        args.addAll(c.args());
        return run(args);
    }

    /** Refuses ({@link Unreachable}) unless slurmdbd answers and knows the cluster. */
    void reachable(String cluster) {
        Result r = run(List.of("-nP", "show", "cluster", "format=cluster"));
        if (r.exit() != 0) {
            throw new Unreachable("slurmdbd does not answer sacctmgr (exit " + r.exit() + "): " + r.said()
                    + "; nothing was changed");
        }
        if (r.out().lines().map(String::strip).noneMatch(cluster::equalsIgnoreCase)) {
            throw new Unreachable("slurmdbd knows no cluster '" + cluster + "' (it has: "
                    + String.join(", ", r.out().strip().lines().toList()) + "); register it with"
                    + " `sacctmgr add cluster " + cluster + "` or give the right --cluster; nothing was changed");
        }
    }

    /** The accounts, the cluster's associations, the QOS and users' default accounts, as slurmdbd holds them now. */
    SlurmState state(String cluster) {
        Map<String, SlurmState.Account> accounts = new HashMap<>();
        for (String[] f : rows(List.of("-nP", "show", "account", "format=account,description,organization"), 3)) {
            accounts.put(f[0], new SlurmState.Account(f[0], f[1], f[2]));
        }
        Map<String, SlurmState.Limits> limits = new HashMap<>();
        Set<SlurmState.UserAssociation> users = new HashSet<>();
        for (String[] f : rows(List.of("-nP", "show", "association", "where", "cluster=" + cluster,
                "format=account,user,partition,grptres,grpjobs,grpsubmit,qos,defaultqos"), 8)) {
            if (f[1].isEmpty()) {
                limits.put(f[0], new SlurmState.Limits(tres(f[3]), count(f[4]), count(f[5]),
                        f[6].isEmpty() ? Set.of() : new HashSet<>(List.of(f[6].split(","))), f[7]));
            } else {
                users.add(new SlurmState.UserAssociation(f[0], f[1], f[2]));
            }
        }
        Map<String, SlurmState.Qos> qos = new HashMap<>();
        for (String[] f : rows(List.of("-nP", "show", "qos", "format=name,description,grptres"), 3)) {
            qos.put(f[0], new SlurmState.Qos(f[0], f[1], tres(f[2])));
        }
        // one line per association, each with the user's default account on that association's cluster
        Map<String, String> defaults = new HashMap<>();
        for (String[] f : rows(List.of("-nP", "show", "user", "withassoc", "where", "cluster=" + cluster,
                "format=user,defaultaccount"), 2)) {
            if (!f[1].isEmpty()) {
                defaults.put(f[0], f[1]);
            }
        }
        return new SlurmState(accounts, limits, users, qos, defaults);
    }

    private List<String[]> rows(List<String> args, int fields) {
        Result r = run(args);
        if (r.exit() != 0) {
            throw new Unreachable("sacctmgr " + String.join(" ", args) + " failed (exit " + r.exit() + "): " + r.said()
                    + "; nothing was changed");
        }
        List<String[]> out = new ArrayList<>();
        for (String line : r.out().split("\n")) {
            if (!line.isBlank()) {
                String[] f = line.split("\\|", -1);
                out.add(java.util.Arrays.copyOf(f, Math.max(fields, f.length)));
            }
        }
        out.forEach(f -> {
            for (int i = 0; i < f.length; i++) {
                f[i] = f[i] == null ? "" : f[i].strip();
            }
        });
        return out;
    }

    static Map<String, Long> tres(String text) {
        Map<String, Long> m = new HashMap<>();
        if (!text.isBlank()) {
            for (String item : text.split(",")) {
                String[] kv = item.split("=", 2);
                m.put(kv[0], Long.parseLong(kv[1]));
            }
        }
        return m;
    }

    private static long count(String text) {
        return text.isBlank() ? -1 : Long.parseLong(text);
    }

    private static CompletableFuture<String> drain(InputStream in) {
        return CompletableFuture.supplyAsync(() -> {
            try (in) {
                return new String(in.readAllBytes(), StandardCharsets.UTF_8);
            } catch (IOException e) {
                return "";
            }
        });
    }
}
