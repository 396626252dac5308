package org.alpsbridge.ledger.slurm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;

/** The plan: ledger targets and slurmdbd's state in, sacctmgr calls out. */
class PlanTest {

    private static final Plan.Policy BLOCK = new Plan.Policy("c1", Plan.Ended.BLOCK, "root", Set.of(), false);
    private static final Plan.Policy REMOVE = new Plan.Policy("c1", Plan.Ended.REMOVE, "root", Set.of(), false);
    private static final SlurmState EMPTY = new SlurmState(Map.of(), Map.of(), Set.of());

    private static Target live(String project, List<String> partitions, Map<String, Long> caps, String... members) {
        return new Target(project, project, true, "Chemistry", "uni", partitions, caps, Set.of(members));
    }

    @Test
    void aNewProjectIsOneAccountWithItsCapThenItsMembersInEachPartition() {
        Plan.Result r = Plan.of(List.of(live("chem", List.of("gpu", "std"), Map.of("node", 4L), "bob", "alice")), EMPTY,
                BLOCK);
        assertEquals(List.of(
                "sacctmgr -i add account chem cluster=c1 'description=Chemistry [ledger:chem]' organization=uni"
                        + " parent=root GrpTRES=node=4",
                "sacctmgr -i add user name=alice,bob account=chem cluster=c1 partition=gpu,std"),
                SacctmgrModel.shells(r.steps().get(0).forward()));
        assertEquals(List.of(), r.leftAlone());
    }

    @Test
    void withWorkgroupQosANewProjectGetsItsCapsOnAQosOfItsOwnGivenToItsAccount() {
        Plan.Policy qos = new Plan.Policy("c1", Plan.Ended.BLOCK, "root", Set.of(), false, true);
        List<Target> targets = List.of(live("chem", List.of(), Map.of("node", 4L, "gres/gpu", 8L), "alice"));
        Plan.Result r = Plan.of(targets, EMPTY, qos);
        assertEquals(List.of(
                "sacctmgr -i add qos chem 'description=Chemistry [ledger:chem]' GrpTRES=gres/gpu=8,node=4",
                "sacctmgr -i add account chem cluster=c1 'description=Chemistry [ledger:chem]' organization=uni"
                        + " parent=root QOS=chem DefaultQOS=chem",
                "sacctmgr -i add user name=alice account=chem cluster=c1"),
                SacctmgrModel.shells(r.steps().get(0).forward()));
        SacctmgrModel slurm = new SacctmgrModel(EMPTY);
        r.steps().forEach(s -> s.forward().forEach(slurm::apply));
        assertEquals(0, Plan.of(targets, slurm.state(), qos).commands());
        // a changed cap is one call on the QOS, nothing on the account
        List<Target> more = List.of(live("chem", List.of(), Map.of("node", 6L), "alice"));
        assertEquals(List.of("sacctmgr -i modify qos where name=chem set GrpTRES=gres/gpu=-1,node=6"),
                SacctmgrModel.shells(Plan.of(more, slurm.state(), qos).steps().get(0).forward()));
    }

    @Test
    void aQosTheLedgerDidNotMakeIsLeftAloneAndTheCapsStayOnTheAccount() {
        Plan.Policy qos = new Plan.Policy("c1", Plan.Ended.BLOCK, "root", Set.of(), false, true);
        SlurmState site = new SlurmState(Map.of(), Map.of(), Set.of(),
                Map.of("chem", new SlurmState.Qos("chem", "the site's own", Map.of("cpu", 1L))));
        Plan.Result r = Plan.of(List.of(live("chem", List.of(), Map.of("node", 4L), "alice")), site, qos);
        assertEquals(List.of(
                "sacctmgr -i add account chem cluster=c1 'description=Chemistry [ledger:chem]' organization=uni"
                        + " parent=root GrpTRES=node=4",
                "sacctmgr -i add user name=alice account=chem cluster=c1"),
                SacctmgrModel.shells(r.steps().get(0).forward()));
        assertTrue(r.leftAlone().get(0).startsWith("QOS chem for project chem"), r.leftAlone().toString());
    }

    @Test
    void aSecondPlanAfterTheFirstIsAppliedIsEmpty() {
        List<Target> targets = List.of(live("chem", List.of(), Map.of("cpu", 64L, "gres/gpu", 2L), "alice"));
        SacctmgrModel slurm = new SacctmgrModel(EMPTY);
        Plan.of(targets, EMPTY, BLOCK).steps().forEach(s -> s.forward().forEach(slurm::apply));
        assertEquals(0, Plan.of(targets, slurm.state(), BLOCK).commands());
    }

    @Test
    void anAccountTheLedgerDidNotMakeIsLeftAloneUnlessAdopted() {
        SlurmState site = new SlurmState(Map.of("chem", new SlurmState.Account("chem", "the site's own", "uni")),
                Map.of("chem", SlurmState.Limits.NONE), Set.of());
        Target t = live("chem", List.of(), Map.of(), "alice");
        Plan.Result alone = Plan.of(List.of(t), site, BLOCK);
        assertEquals(0, alone.commands());
        assertTrue(alone.leftAlone().get(0).contains("not made by the ledger"), alone.leftAlone().toString());
        Plan.Result adopted = Plan.of(List.of(t), site, new Plan.Policy("c1", Plan.Ended.BLOCK, "root", Set.of("chem"),
                false));
        assertEquals(List.of("sacctmgr -i modify account where name=chem cluster=c1 set"
                        + " 'description=Chemistry [ledger:chem]' organization=uni",
                "sacctmgr -i add user name=alice account=chem cluster=c1"),
                SacctmgrModel.shells(adopted.steps().get(0).forward()));
        // an ended project never touches an account that is not its own, and says nothing of it
        Target ended = new Target("chem", "chem", false, "", "", List.of(), Map.of(), Set.of());
        assertEquals(0, Plan.of(List.of(ended), site, REMOVE).commands());
        assertEquals(List.of(), Plan.of(List.of(ended), site, REMOVE).leftAlone());
    }

    @Test
    void anEndedProjectIsBlockedOrRemovedInOneCall() {
        SlurmState ours = new SlurmState(Map.of("chem", new SlurmState.Account("chem", "[ledger:chem]", "uni")),
                Map.of("chem", SlurmState.Limits.NONE), Set.of(new SlurmState.UserAssociation("chem", "alice", "")));
        Target ended = new Target("chem", "chem", false, "", "", List.of(), Map.of(), Set.of("alice"));
        assertEquals(List.of("sacctmgr -i modify account where name=chem cluster=c1 set GrpJobs=0 GrpSubmitJobs=0"),
                SacctmgrModel.shells(Plan.of(List.of(ended), ours, BLOCK).steps().get(0).forward()));
        assertEquals(List.of("sacctmgr -i delete account where name=chem cluster=c1"),
                SacctmgrModel.shells(Plan.of(List.of(ended), ours, REMOVE).steps().get(0).forward()));
        // an account of the ledger's whose project it no longer knows ends the same way
        assertEquals(List.of("sacctmgr -i delete account where name=chem cluster=c1"),
                SacctmgrModel.shells(Plan.of(List.of(), ours, REMOVE).steps().get(0).forward()));
    }

    private static SlurmState.UserAssociation assoc(String account, String user) {
        return new SlurmState.UserAssociation(account, user, "");
    }

    @Test
    void aMemberLeavingTheirDefaultAccountHasTheirDefaultMovedFirstWhenTheyKeepAnother() {
        SlurmState.Account chem = new SlurmState.Account("chem", "[ledger:chem]", "uni");
        SlurmState.Account phys = new SlurmState.Account("phys", "[ledger:phys]", "uni");
        // alice: chem (her default) and phys; bob: chem only (his default); carol: chem and phys, default phys
        SlurmState state = new SlurmState(Map.of("chem", chem, "phys", phys),
                Map.of("chem", SlurmState.Limits.NONE, "phys", SlurmState.Limits.NONE),
                Set.of(assoc("chem", "alice"), assoc("phys", "alice"), assoc("chem", "bob"), assoc("chem", "carol"),
                        assoc("phys", "carol")), Map.of(),
                Map.of("alice", "chem", "bob", "chem", "carol", "phys"));
        List<Target> targets = List.of(
                new Target("chem", "chem", true, "", "", List.of(), Map.of(), Set.of()),
                new Target("phys", "phys", true, "", "", List.of(), Map.of(), Set.of("alice", "carol")));
        Plan.Step chemStep = Plan.of(targets, state, BLOCK).steps().get(0);
        assertEquals(List.of(
                "sacctmgr -i modify user where name=alice cluster=c1 set defaultaccount=phys",
                "sacctmgr -i delete user where name=alice,bob,carol account=chem cluster=c1"),
                SacctmgrModel.shells(chemStep.forward()));
        assertEquals(List.of("sacctmgr -i modify user where name=alice cluster=c1 set defaultaccount=chem"),
                SacctmgrModel.shells(chemStep.undo().get(0)));
        // slurmdbd 26.05's rule, as the model keeps it: refused without the move, done with it, and undone
        SacctmgrModel unmoved = new SacctmgrModel(state);
        assertThrows(IllegalStateException.class, () -> unmoved.apply(chemStep.forward().get(1)));
        SacctmgrModel slurm = new SacctmgrModel(state);
        chemStep.forward().forEach(slurm::apply);
        assertEquals(Map.of("alice", "phys", "carol", "phys"), slurm.state().defaults());
        assertEquals(0, Plan.of(targets, slurm.state(), BLOCK).commands());
        for (int j = chemStep.undo().size() - 1; j >= 0; j--) {
            chemStep.undo().get(j).forEach(slurm::apply);
        }
        assertEquals(state.defaults(), slurm.state().defaults());
        assertEquals(state.userAssociations(), slurm.state().userAssociations());
    }

    @Test
    void removingAnEndedAccountMovesTheDefaultOfUsersWhoKeepAnotherAccount() {
        SlurmState.Account chem = new SlurmState.Account("chem", "[ledger:chem]", "uni");
        SlurmState.Account site = new SlurmState.Account("staff", "the site's own", "uni");
        SlurmState state = new SlurmState(Map.of("chem", chem, "staff", site),
                Map.of("chem", SlurmState.Limits.NONE, "staff", SlurmState.Limits.NONE),
                Set.of(assoc("chem", "alice"), assoc("staff", "alice"), assoc("chem", "bob")), Map.of(),
                Map.of("alice", "chem", "bob", "chem"));
        List<Target> targets = List.of(new Target("chem", "chem", false, "", "", List.of(), Map.of(), Set.of()));
        Plan.Step step = Plan.of(targets, state, REMOVE).steps().get(0);
        assertEquals(List.of(
                "sacctmgr -i modify user where name=alice cluster=c1 set defaultaccount=staff",
                "sacctmgr -i delete account where name=chem cluster=c1"),
                SacctmgrModel.shells(step.forward()));
        SacctmgrModel slurm = new SacctmgrModel(state);
        step.forward().forEach(slurm::apply);
        // bob had no other association: his went with the account, and with it his default
        assertEquals(Set.of(assoc("staff", "alice")), slurm.state().userAssociations());
        assertEquals(Map.of("alice", "staff"), slurm.state().defaults());
        assertEquals(0, Plan.of(targets, slurm.state(), REMOVE).commands());
    }

    /**
     * Seeded: random ledgers against random slurmdbd states (the ledger's accounts in any shape, the site's own
     * accounts, stray users and partitions). After the plan is applied: the ledger's live projects have exactly their
     * accounts, caps and associations, ended ones are blocked or gone, the site's accounts are as they were, and a
     * second plan is empty; with a workgroup QOS each live project's caps are on its QOS (unless the QOS is the
     * site's, left as it was) and its account names it; undoing every step in reverse gives back the state it started from.
     */
    @Test
    void randomLedgersAndStatesConvergeInOnePlanAndUndoRestores() {
        long seed = Long.getLong("seed", System.nanoTime());
        System.out.println("PlanTest seed " + seed + " (-Dseed=" + seed + " repeats it)");
        Random rnd = new Random(seed);
        List<String> usersPool = List.of("alice", "bob", "carol", "dave", "erin", "frank");
        List<String> partsPool = List.of("std", "gpu", "big");
        SlurmState.Qos normal = new SlurmState.Qos("normal", "Normal QOS default", Map.of());
        for (int round = 0; round < 2_000; round++) {
            List<Target> targets = new ArrayList<>();
            Map<String, SlurmState.Account> accounts = new HashMap<>();
            Map<String, SlurmState.Limits> limits = new HashMap<>();
            Set<SlurmState.UserAssociation> assocs = new HashSet<>();
            Set<String> siteOwned = new TreeSet<>();
            Map<String, SlurmState.Qos> qos = new HashMap<>(Map.of("normal", normal));
            Set<String> siteQos = new TreeSet<>();
            for (int p = 0; p < 1 + rnd.nextInt(5); p++) {
                String name = "p" + p;
                Map<String, Long> caps = new HashMap<>();
                if (rnd.nextBoolean()) {
                    caps.put("node", (long) rnd.nextInt(5));
                }
                if (rnd.nextBoolean()) {
                    caps.put("cpu", (long) rnd.nextInt(100));
                }
                targets.add(new Target(name, name, rnd.nextInt(4) > 0, rnd.nextBoolean() ? "" : "d" + rnd.nextInt(3),
                        rnd.nextBoolean() ? "" : "o" + rnd.nextInt(3), pick(rnd, partsPool), caps, Set.copyOf(pick(rnd, usersPool))));
                int qosShape = rnd.nextInt(3); // 0 none, 1 ours (any cap, maybe an old description), 2 the site's
                if (qosShape == 1) {
                    qos.put(name, new SlurmState.Qos(name, (rnd.nextBoolean() ? "old " : "") + Ownership.mark(name),
                            rnd.nextBoolean() ? Map.of() : Map.of("node", (long) rnd.nextInt(5))));
                } else if (qosShape == 2) {
                    qos.put(name, new SlurmState.Qos(name, "site " + name, Map.of("cpu", 7L)));
                    siteQos.add(name);
                }
                int shape = rnd.nextInt(4); // 0 none, 1 ours, 2 the site's, 3 ours without an association here
                if (shape == 0) {
                    continue;
                }
                String desc = shape == 2 ? "site " + name : (rnd.nextBoolean() ? "old " : "") + Ownership.mark(name);
                accounts.put(name, new SlurmState.Account(name, desc, "x"));
                if (shape == 2) {
                    siteOwned.add(name);
                }
                if (shape != 3) {
                    Map<String, Long> old = new HashMap<>();
                    if (rnd.nextBoolean()) {
                        old.put("node", (long) rnd.nextInt(5));
                    }
                    if (rnd.nextBoolean()) {
                        old.put("mem", 1000L);
                    }
                    Set<String> hasQos = rnd.nextBoolean() ? Set.of("normal") : rnd.nextBoolean() && qos.containsKey(name)
                            ? Set.of(name, "normal") : Set.of();
                    limits.put(name, new SlurmState.Limits(old, rnd.nextBoolean() ? -1 : 0, rnd.nextBoolean() ? -1 : 0,
                            hasQos, hasQos.isEmpty() || rnd.nextBoolean() ? "" : hasQos.iterator().next()));
                    for (String u : pick(rnd, usersPool)) {
                        for (String part : rnd.nextBoolean() ? List.of("") : pick(rnd, partsPool)) {
                            assocs.add(new SlurmState.UserAssociation(name, u, part));
                        }
                    }
                }
            }
            // an account of the ledger's that no project names any more
            if (rnd.nextBoolean()) {
                accounts.put("gone", new SlurmState.Account("gone", Ownership.mark("gone"), "x"));
                limits.put("gone", SlurmState.Limits.NONE);
                assocs.add(new SlurmState.UserAssociation("gone", "alice", ""));
            }
            // each user's default account: one of those they have an association with, as slurmdbd keeps it
            Map<String, String> defaults = new HashMap<>();
            for (String u : usersPool) {
                List<String> theirs = assocs.stream().filter(a -> a.user().equals(u))
                        .map(SlurmState.UserAssociation::account).distinct().sorted().toList();
                if (!theirs.isEmpty()) {
                    defaults.put(u, theirs.get(rnd.nextInt(theirs.size())));
                }
            }
            SlurmState before = new SlurmState(accounts, limits, assocs, qos, defaults);
            Plan.Policy policy = new Plan.Policy("c1", rnd.nextBoolean() ? Plan.Ended.BLOCK : Plan.Ended.REMOVE, "root",
                    Set.of(), false, rnd.nextBoolean());
            Plan.Result plan = Plan.of(targets, before, policy);
            SacctmgrModel slurm = new SacctmgrModel(before);
            plan.steps().forEach(s -> s.forward().forEach(slurm::apply));
            SlurmState after = slurm.state();
            String context = "seed " + seed + " round " + round + ": " + targets + " from " + before;
            assertEquals(0, Plan.of(targets, after, policy).commands(), context);
            for (SlurmState.UserAssociation u : after.userAssociations()) {
                // every user left with associations still has a default account among them
                assertTrue(after.userAssociations().stream().anyMatch(a -> a.user().equals(u.user())
                        && a.account().equals(after.defaults().get(u.user()))), context);
            }
            for (String q : siteQos) {
                assertEquals(before.qos().get(q), after.qos().get(q), context);
            }
            for (Target t : targets) {
                if (siteOwned.contains(t.account())) {
                    assertEquals(before.limits().get(t.account()), after.limits().get(t.account()), context);
                    assertEquals(before.accounts().get(t.account()), after.accounts().get(t.account()), context);
                    continue;
                }
                Set<SlurmState.UserAssociation> mine = new HashSet<>();
                after.userAssociations().stream().filter(u -> u.account().equals(t.account())).forEach(mine::add);
                if (t.live()) {
                    Set<SlurmState.UserAssociation> want = new HashSet<>();
                    for (String u : t.members()) {
                        for (String part : t.partitions().isEmpty() ? List.of("") : t.partitions()) {
                            want.add(new SlurmState.UserAssociation(t.account(), u, part));
                        }
                    }
                    assertEquals(want, mine, context);
                    SlurmState.Limits l = after.limits().get(t.account());
                    assertEquals(List.of(-1L, -1L), List.of(l.grpJobs(), l.grpSubmit()), context);
                    if (policy.qos() && !siteQos.contains(t.account())) {
                        SlurmState.Qos q = after.qos().get(t.account());
                        assertEquals(t.caps(), q.grpTres(), context);
                        assertEquals(t.markedDescription(), q.description(), context);
                        assertEquals(new SlurmState.Limits(Map.of(), -1, -1, Set.of(t.account()), t.account()), l, context);
                    } else {
                        assertEquals(t.caps(), l.grpTres(), context);
                    }
                } else if (after.limits().containsKey(t.account())) {
                    assertEquals(Plan.Ended.BLOCK, policy.ended(), context);
                    assertTrue(after.limits().get(t.account()).blocked(), context);
                } else {
                    assertFalse(mine.stream().findAny().isPresent(), context);
                }
            }
            // every step undone, latest first, gives back the state the plan started from (what a failed step's
            // undo relies on); a remove is one call and has nothing to undo
            if (policy.ended() == Plan.Ended.BLOCK) {
                for (int i = plan.steps().size() - 1; i >= 0; i--) {
                    Plan.Step s = plan.steps().get(i);
                    for (int j = s.undo().size() - 1; j >= 0; j--) {
                        s.undo().get(j).forEach(slurm::apply);
                    }
                }
                assertEquals(before.userAssociations(), slurm.state().userAssociations(), context);
                assertEquals(normal(before.limits()), normal(slurm.state().limits()), context);
                assertEquals(before.qos(), slurm.state().qos(), context);
                assertEquals(before.defaults(), slurm.state().defaults(), context);
            }
        }
    }

    /** Limits as compared after an undo: an account the plan added and undid has no association, as before. */
    private static Map<String, SlurmState.Limits> normal(Map<String, SlurmState.Limits> m) {
        return new HashMap<>(m);
    }

    private static List<String> pick(Random rnd, List<String> pool) {
        List<String> out = new ArrayList<>();
        for (String s : pool) {
            if (rnd.nextInt(3) == 0) {
                out.add(s);
            }
        }
        return out;
    }
}
