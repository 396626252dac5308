package org.alpsbridge.ledger.slurm;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Project;
import org.alpsbridge.ledger.ProjectShare;

/** The ledger's projects as what each should be in Slurm at a given time. */
final class Targets {

    private Targets() {
    }

    /**
     * One target per project: live when the project is active and one of its allocations ends after {@code now} (a
     * granted future period counts: its members can queue jobs for it); members are its Unix group's and its
     * explicit ones.
     */
    static List<Target> of(Ledger ledger, UnixGroups groups, Instant now) {
        Map<String, Instant> lastEnd = new HashMap<>();
        for (Balance b : ledger.balances(null)) {
            lastEnd.merge(b.project(), b.to(), (x, y) -> x.isAfter(y) ? x : y);
        }
        Map<String, ProjectShare> shares = new HashMap<>();
        ledger.shares(null).forEach(s -> shares.put(s.project(), s));
        List<Target> out = new ArrayList<>();
        for (Project p : ledger.projects()) {
            ProjectShare s = shares.getOrDefault(p.name(), ProjectShare.none(p.name()));
            Instant end = lastEnd.get(p.name());
            boolean live = p.active() && end != null && end.isAfter(now);
            Set<String> members = new TreeSet<>(groups.members(p.gid()));
            members.addAll(s.members());
            String account = (p.account() == null ? p.name() : p.account()).toLowerCase(Locale.ROOT);
            out.add(new Target(p.name(), account, live, s.description(), s.organization(), s.partitions(), s.caps(),
                    members));
        }
        return out;
    }
}
