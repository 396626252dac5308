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
    final Map<String, SlurmState.Qos> qos = new HashMap<>();
    /** user → default account on the cluster: the first association added for a user, unless set otherwise. */
    final Map<String, String> defaults = new HashMap<>();

    SacctmgrModel(SlurmState s) {
        accounts.putAll(s.accounts());
        limits.putAll(s.limits());
        users.addAll(s.userAssociations());
        qos.putAll(s.qos());
        defaults.putAll(s.defaults());
    }

    SlurmState state() {
        return new SlurmState(accounts, limits, users, qos, defaults);
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
                requireQos(kv.get("QOS"), c);
                limits.putIfAbsent(name, new SlurmState.Limits(tres(Map.of(), kv.getOrDefault("GrpTRES", "")), -1, -1,
                        qosList(kv.getOrDefault("QOS", "")), defaultQos(kv.getOrDefault("DefaultQOS", "-1"))));
            }
            case "delete account" -> {
                String name = kv.get("name");
                remove(u -> u.account().equals(name), c);
                limits.remove(name);
            }
            case "modify account" -> {
                String name = kv.get("name");
                SlurmState.Account old = accounts.get(name);
                accounts.put(name, new SlurmState.Account(name, set.getOrDefault("description", old.description()),
                        set.getOrDefault("organization", old.organization())));
                if (kv.containsKey("cluster")) {
                    SlurmState.Limits l = limits.get(name);
                    requireQos(set.get("QOS"), c);
                    limits.put(name, new SlurmState.Limits(tres(l.grpTres(), set.getOrDefault("GrpTRES", "")),
                            Long.parseLong(set.getOrDefault("GrpJobs", Long.toString(l.grpJobs()))),
                            Long.parseLong(set.getOrDefault("GrpSubmitJobs", Long.toString(l.grpSubmit()))),
                            set.containsKey("QOS") ? qosList(set.get("QOS")) : l.qos(),
                            set.containsKey("DefaultQOS") ? defaultQos(set.get("DefaultQOS")) : l.defaultQos()));
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
                    if (kv.containsKey("defaultaccount")) {
                        defaults.put(u, kv.get("defaultaccount"));
                    } else {
                        defaults.putIfAbsent(u, kv.get("account"));
                    }
                }
            }
            case "delete user" -> {
                List<String> names = List.of(kv.get("name").split(","));
                List<String> parts = kv.containsKey("partition") ? List.of(kv.get("partition").split(",")) : null;
                remove(u -> (!kv.containsKey("account") || u.account().equals(kv.get("account")))
                        && names.contains(u.user()) && (parts == null || parts.contains(u.partition())), c);
            }
            case "modify user" -> {
                String account = set.get("defaultaccount");
                for (String u : kv.get("name").split(",")) {
                    if (users.stream().noneMatch(x -> x.user().equals(u) && x.account().equals(account))) {
                        throw new IllegalStateException(u + " has no association with " + account + ": " + c.shell());
                    }
                    defaults.put(u, account);
                }
            }
            case "add qos" -> {
                String name = a.get(2);
                if (qos.containsKey(name)) {
                    throw new IllegalStateException("QOS " + name + " exists: " + c.shell());
                }
                qos.put(name, new SlurmState.Qos(name, kv.getOrDefault("description", name),
                        tres(Map.of(), kv.getOrDefault("GrpTRES", ""))));
            }
            case "modify qos" -> {
                SlurmState.Qos old = qos.get(kv.get("name"));
                qos.put(old.name(), new SlurmState.Qos(old.name(), set.getOrDefault("description", old.description()),
                        tres(old.grpTres(), set.getOrDefault("GrpTRES", ""))));
            }
            case "delete qos" -> {
                // slurmdbd takes a deleted QOS out of every association that named it
                String name = kv.get("name");
                qos.remove(name);
                limits.replaceAll((acct, l) -> {
                    Set<String> left = new java.util.TreeSet<>(l.qos());
                    left.remove(name);
                    return new SlurmState.Limits(l.grpTres(), l.grpJobs(), l.grpSubmit(), left,
                            name.equals(l.defaultQos()) ? "" : l.defaultQos());
                });
            }
            default -> throw new IllegalArgumentException("not modelled: " + c.shell());
        }
    }

    /**
     * Deletes user associations as slurmdbd 26.05 does: refused (nothing deleted) when it would take all of a user's
     * associations with their default account while leaving them others on the cluster; a user left with none has
     * no default any more.
     */
    private void remove(java.util.function.Predicate<SlurmState.UserAssociation> gone, Command c) {
        Set<String> touched = new java.util.TreeSet<>();
        users.stream().filter(gone).forEach(u -> touched.add(u.user()));
        for (String user : touched) {
            List<SlurmState.UserAssociation> all = users.stream().filter(u -> u.user().equals(user)).toList();
            boolean keepsSome = all.stream().anyMatch(gone.negate());
            boolean keepsDefault = all.stream().anyMatch(u -> u.account().equals(defaults.get(user)) && !gone.test(u));
            if (defaults.containsKey(user) && keepsSome && !keepsDefault) {
                throw new IllegalStateException("You can not remove the default account of a user (" + user + ": "
                        + defaults.get(user) + "): " + c.shell());
            }
        }
        users.removeIf(gone);
        for (String user : touched) {
            if (users.stream().noneMatch(u -> u.user().equals(user))) {
                defaults.remove(user);
            }
        }
    }

    private void requireQos(String list, Command c) {
        for (String q : qosList(list == null ? "" : list)) {
            if (!qos.containsKey(q)) {
                throw new IllegalStateException("no QOS " + q + ": " + c.shell());
            }
        }
    }

    private static Set<String> qosList(String text) {
        return text.isEmpty() ? Set.of() : Set.of(text.split(","));
    }

    private static String defaultQos(String text) {
        return text.equals("-1") ? "" : text;
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
