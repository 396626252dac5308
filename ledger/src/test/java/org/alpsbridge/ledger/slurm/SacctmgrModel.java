package org.alpsbridge.ledger.slurm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * What slurmdbd does with the calls {@link Plan} makes, for one cluster, as a model the plan's tests apply them to:
 * the same effect sacctmgr has on accounts, account associations and user associations (checked against the real one
 * by {@code SlurmSyncSlurmTest}).
 */
final class SacctmgrModel {

    final Map<String, SlurmState.Account> accounts = new HashMap<>();
    final Map<String, SlurmState.Limits> limits = new HashMap<>();
    final Set<SlurmState.UserAssociation> users = new HashSet<>();

    SacctmgrModel(SlurmState s) {
        accounts.putAll(s.accounts());
        limits.putAll(s.limits());
        users.addAll(s.userAssociations());
    }

    SlurmState state() {
        return new SlurmState(accounts, limits, users);
    }

    void apply(Command c) {
        List<String> a = c.args();
        Map<String, String> kv = new HashMap<>();
        Map<String, String> set = new HashMap<>();
        boolean setting = false;
        for (String s : a.subList(2, a.size())) {
            if (s.equals("set")) {
                setting = true;
            } else if (s.contains("=")) {
                (setting ? set : kv).put(s.substring(0, s.indexOf('=')), s.substring(s.indexOf('=') + 1));
            }
        }
        String verb = a.get(0) + " " + a.get(1);
        switch (verb) {
            case "add account" -> {
                String name = a.get(2);
                accounts.putIfAbsent(name, new SlurmState.Account(name, kv.get("description"),
                        kv.getOrDefault("organization", kv.get("parent"))));
                limits.putIfAbsent(name, new SlurmState.Limits(tres(Map.of(), kv.getOrDefault("GrpTRES", "")), -1, -1));
            }
            case "delete account" -> {
                String name = kv.get("name");
                limits.remove(name);
                users.removeIf(u -> u.account().equals(name));
            }
            case "modify account" -> {
                String name = kv.get("name");
                SlurmState.Account old = accounts.get(name);
                accounts.put(name, new SlurmState.Account(name, set.getOrDefault("description", old.description()),
                        set.getOrDefault("organization", old.organization())));
                if (kv.containsKey("cluster")) {
                    SlurmState.Limits l = limits.get(name);
                    limits.put(name, new SlurmState.Limits(tres(l.grpTres(), set.getOrDefault("GrpTRES", "")),
                            Long.parseLong(set.getOrDefault("GrpJobs", Long.toString(l.grpJobs()))),
                            Long.parseLong(set.getOrDefault("GrpSubmitJobs", Long.toString(l.grpSubmit())))));
                }
            }
            case "add user" -> {
                if (!limits.containsKey(kv.get("account"))) {
                    throw new IllegalStateException("no account " + kv.get("account") + ": " + c.shell());
                }
                for (String u : kv.get("name").split(",")) {
                    for (String p : kv.getOrDefault("partition", "").split(",", -1)) {
                        users.add(new SlurmState.UserAssociation(kv.get("account"), u, p));
                    }
                }
            }
            case "delete user" -> {
                List<String> names = List.of(kv.get("name").split(","));
                List<String> parts = kv.containsKey("partition") ? List.of(kv.get("partition").split(",")) : null;
                users.removeIf(u -> u.account().equals(kv.get("account")) && names.contains(u.user())
                        && (parts == null || parts.contains(u.partition())));
            }
            default -> throw new IllegalArgumentException("not modelled: " + c.shell());
        }
    }

    /** {@code GrpTRES=cpu=4,node=-1} applied to {@code old}: -1 clears a resource. */
    private static Map<String, Long> tres(Map<String, Long> old, String text) {
        Map<String, Long> m = new TreeMap<>(old);
        Sacctmgr.tres(text).forEach((k, v) -> {
            if (v < 0) {
                m.remove(k);
            } else {
                m.put(k, v);
            }
        });
        return m;
    }

    static List<String> shells(List<Command> commands) {
        List<String> out = new ArrayList<>();
        commands.forEach(c -> out.add(c.shell()));
        return out;
    }
}
