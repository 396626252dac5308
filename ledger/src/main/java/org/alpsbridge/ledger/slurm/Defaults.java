package org.alpsbridge.ledger.slurm;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Predicate;

/**
 * Keeps users' default accounts out of the way of the plan's deletions. slurmdbd (26.05; 22.05 did not check) refuses
 * a call that would delete all of a user's associations with their default account while the user keeps others on
 * the cluster: "You can not remove the default account of a user". So before such a call the step first moves those
 * users' default to an account they still have an association with at that point, preferring one that stays after
 * the whole sync, the first by name: {@code modify user where name=U cluster=C set defaultaccount=B}, undone by
 * moving it back. A call that takes all of a user's associations on the cluster needs no move: slurmdbd allows it,
 * and the user's next association added becomes their default.
 */
final class Defaults {

    private Defaults() {
    }

    /** The steps, each with the moves of default accounts its deletions need put just before them. */
    static List<Plan.Step> moved(List<Plan.Step> steps, SlurmState state, String cluster) {
        Associations end = new Associations(state);
        steps.forEach(s -> s.forward().forEach(end::apply));
        Associations now = new Associations(state);
        List<Plan.Step> out = new ArrayList<>();
        for (Plan.Step s : steps) {
            List<Command> forward = new ArrayList<>();
            List<List<Command>> undo = new ArrayList<>();
            for (int i = 0; i < s.forward().size(); i++) {
                Command c = s.forward().get(i);
                // users by (their default now, the account it moves to), in a stable order
                Map<List<String>, Set<String>> moves = new LinkedHashMap<>();
                Predicate<SlurmState.UserAssociation> gone = deletes(c);
                for (String user : now.users(gone)) {
                    String was = now.defaults.get(user);
                    Set<SlurmState.UserAssociation> left = now.of(user);
                    left.removeIf(gone);
                    if (was == null || left.isEmpty() || left.stream().anyMatch(a -> a.account().equals(was))) {
                        continue;
                    }
                    TreeSet<String> accounts = new TreeSet<>();
                    left.forEach(a -> accounts.add(a.account()));
                    Set<String> staying = new TreeSet<>(accounts);
                    staying.retainAll(end.accounts(user));
                    String to = staying.isEmpty() ? accounts.first() : staying.iterator().next();
                    moves.computeIfAbsent(List.of(was, to), k -> new TreeSet<>()).add(user);
                }
                moves.forEach((fromTo, users) -> {
                    forward.add(setDefault(users, cluster, fromTo.get(1)));
                    undo.add(List.of(setDefault(users, cluster, fromTo.get(0))));
                    users.forEach(u -> now.defaults.put(u, fromTo.get(1)));
                });
                forward.add(c);
                undo.add(s.undo().get(i));
                now.apply(c);
            }
            out.add(new Plan.Step(s.project(), s.account(), forward, undo));
        }
        return out;
    }

    private static Command setDefault(Set<String> users, String cluster, String account) {
        return Command.of("modify", "user", "where", "name=" + String.join(",", users), "cluster=" + cluster, "set",
                "defaultaccount=" + account);
    }

    /** The user associations a call of the plan deletes (none for a call that deletes none). */
    private static Predicate<SlurmState.UserAssociation> deletes(Command c) {
        List<String> a = c.args();
        Map<String, String> where = where(a);
        if (a.get(0).equals("delete") && a.get(1).equals("account")) {
            return u -> u.account().equals(where.get("name"));
        }
        if (a.get(0).equals("delete") && a.get(1).equals("user")) {
            Set<String> names = Set.of(where.get("name").split(","));
            Set<String> parts = where.containsKey("partition") ? Set.of(where.get("partition").split(",")) : null;
            return u -> names.contains(u.user()) && (!where.containsKey("account") || u.account().equals(where.get("account")))
                    && (parts == null || parts.contains(u.partition()));
        }
        return u -> false;
    }

    private static Map<String, String> where(List<String> args) {
        Map<String, String> kv = new HashMap<>();
        for (String s : args.subList(2, args.size())) {
            if (s.equals("set")) {
                break;
            }
            int eq = s.indexOf('=');
            if (eq > 0) {
                kv.put(s.substring(0, eq), s.substring(eq + 1));
            }
        }
        return kv;
    }

    /** The cluster's user associations and defaults as the plan's calls leave them, one call after another. */
    private static final class Associations {
        final Set<SlurmState.UserAssociation> all;
        final Map<String, String> defaults;

        Associations(SlurmState state) {
            all = new HashSet<>(state.userAssociations());
            defaults = new HashMap<>(state.defaults());
        }

        Set<String> users(Predicate<SlurmState.UserAssociation> which) {
            Set<String> out = new TreeSet<>();
            all.stream().filter(which).forEach(u -> out.add(u.user()));
            return out;
        }

        Set<SlurmState.UserAssociation> of(String user) {
            Set<SlurmState.UserAssociation> out = new HashSet<>();
            all.stream().filter(u -> u.user().equals(user)).forEach(out::add);
            return out;
        }

        Set<String> accounts(String user) {
            Set<String> out = new TreeSet<>();
            of(user).forEach(u -> out.add(u.account()));
            return out;
        }

        void apply(Command c) {
            List<String> a = c.args();
            if (a.get(0).equals("add") && a.get(1).equals("user")) {
                Map<String, String> kv = where(a);
                for (String user : kv.get("name").split(",")) {
                    if (of(user).isEmpty()) {
                        // sacctmgr makes a user's first association on the cluster their default
                        defaults.put(user, kv.get("account"));
                    }
                    for (String p : kv.getOrDefault("partition", "").split(",", -1)) {
                        all.add(new SlurmState.UserAssociation(kv.get("account"), user, p));
                    }
                }
                return;
            }
            Predicate<SlurmState.UserAssociation> gone = deletes(c);
            Set<String> touched = users(gone);
            all.removeIf(gone);
            touched.stream().filter(u -> of(u).isEmpty()).forEach(defaults::remove);
        }
    }
}
