package org.alpsbridge.ledger.slurm;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The {@code sacctmgr} calls that make slurmdbd agree with the ledger: a pure function of the ledger's targets and
 * slurmdbd's state, so that a second run after a successful one plans nothing. Each project's calls form one
 * {@link Step} with the calls that undo them, run in reverse when a later call of the step fails; a step that deletes
 * the associations of a user's default account first moves that default ({@link Defaults}).
 */
final class Plan {

    /** What the site chose for a project whose allocations have all ended. */
    enum Ended {
        /** Delete its account on the cluster (and with it every association under it). */
        REMOVE,
        /** Keep its associations, with {@code GrpSubmitJobs=0} and {@code GrpJobs=0}: Slurm refuses its new jobs. */
        BLOCK
    }

    /**
     * How to plan: the cluster, the ended-project rule, the parent of new accounts, the accounts the ledger may
     * take over although it did not make them, and whether each project gets a QOS of its own holding its caps
     * (Caviness's workgroup QOS) instead of caps on its account.
     */
    record Policy(String cluster, Ended ended, String parent, Set<String> adopt, boolean adoptAll, boolean qos) {
        Policy {
            adopt = Set.copyOf(adopt);
        }

        Policy(String cluster, Ended ended, String parent, Set<String> adopt, boolean adoptAll) {
            this(cluster, ended, parent, adopt, adoptAll, false);
        }

        boolean adopts(String account) {
            return adoptAll || adopt.contains(account);
        }
    }

    /** One project's calls, in order, and for each the calls that undo it (none for a step's only call). */
    record Step(String project, String account, List<Command> forward, List<List<Command>> undo) {
        Step {
            forward = List.copyOf(forward);
            undo = undo.stream().map(List::copyOf).toList();
        }
    }

    /** The steps, and one line per account the ledger wanted but left alone (not its own, not adopted). */
    record Result(List<Step> steps, List<String> leftAlone) {
        Result {
            steps = List.copyOf(steps);
            leftAlone = List.copyOf(leftAlone);
        }

        int commands() {
            return steps.stream().mapToInt(s -> s.forward().size()).sum();
        }
    }

    private Plan() {
    }

    static Result of(List<Target> targets, SlurmState state, Policy policy) {
        List<Step> steps = new ArrayList<>();
        List<String> leftAlone = new ArrayList<>();
        Set<String> planned = new TreeSet<>();
        for (Target t : targets) {
            planned.add(t.account());
            SlurmState.Account existing = state.accounts().get(t.account());
            String owner = existing == null ? null : Ownership.owner(existing.description());
            boolean ours = existing == null || t.project().toLowerCase(Locale.ROOT).equals(owner);
            if (!ours && !policy.adopts(t.account())) {
                if (t.live()) {
                    leftAlone.add("account " + t.account() + " for project " + t.project() + " exists in slurmdbd but"
                            + (owner == null ? " was not made by the ledger" : " is the ledger's account of project " + owner)
                            + "; left alone (adopt it with --adopt " + t.account() + ")");
                }
                continue;
            }
            boolean qos = t.live() && policy.qos() && qosIsOurs(t, state, policy);
            if (t.live() && policy.qos() && !qos) {
                leftAlone.add("QOS " + t.account() + " for project " + t.project() + " exists in slurmdbd but was not"
                        + " made by the ledger; left alone, the project's caps go on its account instead (adopt it"
                        + " with --adopt " + t.account() + ")");
            }
            Step s = t.live() ? live(t, existing, state, policy, qos) : ended(t.project(), t.account(), state, policy);
            if (s != null) {
                steps.add(s);
            }
        }
        // the ledger's accounts whose project it no longer knows end as ended projects do
        for (SlurmState.Account a : state.accounts().values()) {
            String owner = Ownership.owner(a.description());
            if (owner != null && !planned.contains(a.name())) {
                Step s = ended(owner, a.name(), state, policy);
                if (s != null) {
                    steps.add(s);
                }
            }
        }
        return new Result(Defaults.moved(steps, state, policy.cluster()), leftAlone);
    }

    /** Whether the project's workgroup QOS (named as its account) is free, the ledger's own, or to be adopted. */
    private static boolean qosIsOurs(Target t, SlurmState state, Policy policy) {
        SlurmState.Qos q = state.qos().get(t.account());
        return q == null || t.project().toLowerCase(Locale.ROOT).equals(Ownership.owner(q.description()))
                || policy.adopts(t.account());
    }

    private static Step live(Target t, SlurmState.Account existing, SlurmState state, Policy policy, boolean qos) {
        List<Command> forward = new ArrayList<>();
        List<List<Command>> undo = new ArrayList<>();
        String cluster = "cluster=" + policy.cluster();
        if (qos) {
            // first: the account's association may only name a QOS that exists
            workgroupQos(t, state.qos().get(t.account()), forward, undo);
        }
        // with a workgroup QOS the caps are the QOS's: the account's association caps nothing itself
        Map<String, Long> caps = qos ? Map.of() : t.caps();
        SlurmState.Limits limits = state.limits().get(t.account());
        if (limits == null) {
            List<String> add = new ArrayList<>(List.of("add", "account", t.account(), cluster,
                    "description=" + t.markedDescription()));
            add.addAll(organization(t));
            add.add("parent=" + policy.parent());
            if (!caps.isEmpty()) {
                add.add("GrpTRES=" + tres(caps, Map.of()));
            }
            if (qos) {
                add.addAll(List.of("QOS=" + t.account(), "DefaultQOS=" + t.account()));
            }
            forward.add(new Command(add));
            undo.add(List.of(Command.of("delete", "account", "where", "name=" + t.account(), cluster)));
            if (existing != null && !describedAs(existing, t)) {
                // an account of another cluster (or an adopted one) keeps its record: describe it as the ledger does
                List<String> describe = new ArrayList<>(List.of("modify", "account", "where", "name=" + t.account(), "set",
                        "description=" + t.markedDescription()));
                describe.addAll(organization(t));
                forward.add(new Command(describe));
                undo.add(List.of(Command.of("modify", "account", "where", "name=" + t.account(), "set",
                        "description=" + existing.description(), "organization=" + existing.organization())));
            }
        } else {
            List<String> set = new ArrayList<>();
            List<String> unset = new ArrayList<>();
            if (!describedAs(existing, t)) {
                set.add("description=" + t.markedDescription());
                set.addAll(organization(t));
                unset.addAll(List.of("description=" + existing.description(), "organization=" + existing.organization()));
            }
            if (!limits.grpTres().equals(caps)) {
                set.add("GrpTRES=" + tres(caps, limits.grpTres()));
                unset.add("GrpTRES=" + tres(limits.grpTres(), caps));
            }
            if (qos && (!limits.qos().equals(Set.of(t.account())) || !limits.defaultQos().equals(t.account()))) {
                set.addAll(List.of("QOS=" + t.account(), "DefaultQOS=" + t.account()));
                unset.addAll(List.of("QOS=" + String.join(",", limits.qos()),
                        "DefaultQOS=" + (limits.defaultQos().isEmpty() ? "-1" : limits.defaultQos())));
            }
            if (limits.grpJobs() != -1 || limits.grpSubmit() != -1) {
                set.addAll(List.of("GrpJobs=-1", "GrpSubmitJobs=-1"));
                unset.addAll(List.of("GrpJobs=" + limits.grpJobs(), "GrpSubmitJobs=" + limits.grpSubmit()));
            }
            if (!set.isEmpty()) {
                // the account's record and its association on the cluster in one call (one slurmdbd commit)
                forward.add(modify(t.account(), policy.cluster(), set));
                undo.add(List.of(modify(t.account(), policy.cluster(), unset)));
            }
        }
        List<String> partitions = t.partitions().isEmpty() ? List.of("") : t.partitions();
        Map<String, Set<String>> have = new TreeMap<>();
        for (SlurmState.UserAssociation u : state.userAssociations()) {
            if (u.account().equals(t.account())) {
                have.computeIfAbsent(u.user(), k -> new TreeSet<>()).add(u.partition());
            }
        }
        // a user's associations to drop: in some partitions (deleted by partition), or all of them (a user no longer a
        // member, or one whose association without a partition must give way to partitions: deleted whole)
        Map<Set<String>, Set<String>> dropSome = new java.util.LinkedHashMap<>();
        Map<Set<String>, Set<String>> dropAll = new java.util.LinkedHashMap<>();
        Map<String, Set<String>> kept = new TreeMap<>();
        for (Map.Entry<String, Set<String>> h : have.entrySet()) {
            Set<String> extra = new TreeSet<>(h.getValue());
            boolean member = t.members().contains(h.getKey());
            if (member) {
                extra.removeAll(partitions);
            }
            if (!member || extra.contains("")) {
                dropAll.computeIfAbsent(h.getValue(), k -> new TreeSet<>()).add(h.getKey());
            } else {
                if (!extra.isEmpty()) {
                    dropSome.computeIfAbsent(extra, k -> new TreeSet<>()).add(h.getKey());
                }
                kept.put(h.getKey(), h.getValue());
            }
        }
        Map<Set<String>, Set<String>> adds = new java.util.LinkedHashMap<>();
        for (String user : new TreeSet<>(t.members())) {
            Set<String> missing = new TreeSet<>(partitions);
            missing.removeAll(kept.getOrDefault(user, Set.of()));
            if (!missing.isEmpty()) {
                adds.computeIfAbsent(missing, k -> new TreeSet<>()).add(user);
            }
        }
        dropAll.forEach((had, users) -> {
            forward.add(users("delete", users, t.account(), policy.cluster(), Set.of("")));
            undo.add(restore(users, t.account(), policy.cluster(), had));
        });
        // drops before adds: an add without a partition is undone by deleting all of the user's associations with the
        // account, which after the drops is that one association only
        dropSome.forEach((parts, users) -> {
            forward.add(users("delete", users, t.account(), policy.cluster(), parts));
            undo.add(restore(users, t.account(), policy.cluster(), parts));
        });
        adds.forEach((parts, users) -> {
            forward.add(users("add", users, t.account(), policy.cluster(), parts));
            undo.add(List.of(users("delete", users, t.account(), policy.cluster(), parts)));
        });
        return forward.isEmpty() ? null : new Step(t.project(), t.account(), forward, undo);
    }

    /**
     * The project's workgroup QOS (named as its account, described with the ledger's mark) holding its caps as
     * {@code GrpTRES}: added when missing, else changed in one call where it differs.
     */
    private static void workgroupQos(Target t, SlurmState.Qos q, List<Command> forward, List<List<Command>> undo) {
        if (q == null) {
            List<String> add = new ArrayList<>(List.of("add", "qos", t.account(), "description=" + t.markedDescription()));
            if (!t.caps().isEmpty()) {
                add.add("GrpTRES=" + tres(t.caps(), Map.of()));
            }
            forward.add(new Command(add));
            undo.add(List.of(Command.of("delete", "qos", "where", "name=" + t.account())));
            return;
        }
        List<String> set = new ArrayList<>();
        List<String> unset = new ArrayList<>();
        if (!q.description().equalsIgnoreCase(t.markedDescription())) {
            set.add("description=" + t.markedDescription());
            unset.add("description=" + q.description());
        }
        if (!q.grpTres().equals(t.caps())) {
            set.add("GrpTRES=" + tres(t.caps(), q.grpTres()));
            unset.add("GrpTRES=" + tres(q.grpTres(), t.caps()));
        }
        if (!set.isEmpty()) {
            forward.add(modifyQos(t.account(), set));
            undo.add(List.of(modifyQos(t.account(), unset)));
        }
    }

    private static Command modifyQos(String name, List<String> set) {
        List<String> args = new ArrayList<>(List.of("modify", "qos", "where", "name=" + name, "set"));
        args.addAll(set);
        return new Command(args);
    }

    private static Step ended(String project, String account, SlurmState state, Policy policy) {
        SlurmState.Limits limits = state.limits().get(account);
        if (limits == null) {
            return null; // no association on this cluster: nothing can run under it here
        }
        if (policy.ended() == Ended.REMOVE) {
            // one call: the account's association and every user association under it go in one slurmdbd commit
            return new Step(project, account, List.of(Command.of("delete", "account", "where", "name=" + account,
                    "cluster=" + policy.cluster())), List.of(List.of()));
        }
        if (limits.blocked()) {
            return null;
        }
        return new Step(project, account,
                List.of(modify(account, policy.cluster(), List.of("GrpJobs=0", "GrpSubmitJobs=0"))),
                List.of(List.of(modify(account, policy.cluster(), List.of("GrpJobs=" + limits.grpJobs(),
                        "GrpSubmitJobs=" + limits.grpSubmit())))));
    }

    /**
     * Whether an account already says what the ledger would (slurmdbd may lower-case what it is given); a project
     * with no organisation leaves the account's (sacctmgr's default: the parent's) alone.
     */
    private static boolean describedAs(SlurmState.Account existing, Target t) {
        return existing.description().equalsIgnoreCase(t.markedDescription())
                && (t.organization().isEmpty() || existing.organization().equalsIgnoreCase(t.organization()));
    }

    private static List<String> organization(Target t) {
        return t.organization().isEmpty() ? List.of() : List.of("organization=" + t.organization());
    }

    private static Command modify(String account, String cluster, List<String> set) {
        List<String> args = new ArrayList<>(List.of("modify", "account", "where", "name=" + account,
                "cluster=" + cluster, "set"));
        args.addAll(set);
        return new Command(args);
    }

    /** What gives users back associations they had: one without a partition, and one call for the partitions. */
    private static List<Command> restore(Set<String> users, String account, String cluster, Set<String> had) {
        List<Command> out = new ArrayList<>();
        if (had.contains("")) {
            out.add(users("add", users, account, cluster, Set.of("")));
        }
        Set<String> parts = new TreeSet<>(had);
        parts.remove("");
        if (!parts.isEmpty()) {
            out.add(users("add", users, account, cluster, parts));
        }
        return out;
    }

    private static Command users(String verb, Set<String> users, String account, String cluster, Set<String> partitions) {
        List<String> args = new ArrayList<>(List.of(verb, "user"));
        if (verb.equals("delete")) {
            args.add("where");
        }
        args.addAll(List.of("name=" + String.join(",", users), "account=" + account, "cluster=" + cluster));
        if (!partitions.contains("")) {
            args.add("partition=" + String.join(",", partitions));
        }
        return new Command(args);
    }

    /** {@code GrpTRES} that sets {@code want} and clears (-1) what {@code had} caps and {@code want} does not. */
    private static String tres(Map<String, Long> want, Map<String, Long> had) {
        Map<String, Long> all = new TreeMap<>(want);
        had.keySet().forEach(k -> all.putIfAbsent(k, -1L));
        StringBuilder s = new StringBuilder();
        all.forEach((k, v) -> s.append(s.length() == 0 ? "" : ",").append(k).append('=').append(v));
        return s.toString();
    }
}
