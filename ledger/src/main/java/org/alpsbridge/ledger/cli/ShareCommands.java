package org.alpsbridge.ledger.cli;

import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.ProjectChange;
import org.alpsbridge.ledger.ProjectShare;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ledger project show|share|member|changes}: a project's share of the cluster and its explicit members. */
final class ShareCommands {

    private ShareCommands() {
    }

    /** Who the change journal names for a command typed here. */
    static String actor() {
        return System.getProperty("user.name", "admin");
    }

    @Command(name = "show", mixinStandardHelpOptions = true,
            description = "A project's share: Slurm description and organisation, partitions, caps, explicit members, nodes.")
    static final class Show extends LedgerTask {
        @Parameters(paramLabel = "NAME", description = "The project.")
        String name;
        @Option(names = "--json", description = "Print JSON.")
        boolean json;

        @Override
        int run(Ledger ledger) {
            ProjectShare s = ledger.shares(name).get(0);
            if (json) {
                Map<String, Object> o = Json.object();
                o.put("project", s.project());
                o.put("description", s.description());
                o.put("organization", s.organization());
                o.put("partitions", s.partitions());
                o.put("caps", s.caps());
                o.put("members", s.members());
                o.put("nodes", s.nodes());
                out().println(Json.write(o));
                return 0;
            }
            out().println("project      " + s.project());
            out().println("description  " + s.description());
            out().println("organization " + s.organization());
            out().println("partitions   " + (s.partitions().isEmpty() ? "(all)" : String.join(",", s.partitions())));
            out().println("caps         " + (s.caps().isEmpty() ? "(none)" : s.grpTres()));
            out().println("members      " + (s.members().isEmpty() ? "(its Unix group's only)"
                    : String.join(",", s.members()) + " (and its Unix group's)"));
            out().println("nodes        " + (s.nodes().isEmpty() ? "(none bought)" : s.nodes()));
            return 0;
        }
    }

    @Command(name = "share", mixinStandardHelpOptions = true,
            description = {"Set a project's share of the cluster; what is not given stays as it is.",
                    "Each field changed is recorded in the change journal (ledger project changes)."})
    static final class Set extends LedgerTask {
        @Parameters(paramLabel = "NAME", description = "The project.")
        String name;
        @Option(names = "--description", description = "The Slurm account's description.")
        String description;
        @Option(names = "--organization", description = "The Slurm account's organisation.")
        String organization;
        @Option(names = "--partitions", paramLabel = "P1,P2",
                description = "The partitions its members may use; '' for all (one association without a partition).")
        String partitions;
        @Option(names = "--caps", paramLabel = "TRES=N,...",
                description = {"Its aggregate cap (Slurm GrpTRES) of running jobs together, e.g.",
                        "node=4,cpu=128,gres/gpu=8; '' for none. Replaces the caps."})
        String caps;
        @Option(names = "--nodes", paramLabel = "NODELIST",
                description = {"The nodes the project bought, as Slurm names them (r00n[00-17],r01g[00-03] or a",
                        "NodeSet): its workgroup partition's Nodes= (ledger slurm-partitions); '' for none."})
        String nodes;

        @Override
        int run(Ledger ledger) {
            ProjectShare s = ledger.shares(name).get(0);
            ProjectShare next = new ProjectShare(s.project(), description != null ? description : s.description(),
                    organization != null ? organization : s.organization(),
                    partitions != null ? split(partitions) : s.partitions(),
                    caps != null ? ProjectShare.parseCaps(caps) : s.caps(), s.members(), nodes != null ? nodes : s.nodes());
            ProjectShare stored = ledger.setShare(next, actor());
            out().println("project " + stored.project() + ": partitions " + (stored.partitions().isEmpty() ? "(all)"
                    : String.join(",", stored.partitions())) + ", caps " + (stored.caps().isEmpty() ? "(none)"
                    : stored.grpTres()) + ", nodes " + (stored.nodes().isEmpty() ? "(none)" : stored.nodes()));
            return 0;
        }
    }

    @Command(name = "member", mixinStandardHelpOptions = true,
            description = {"Add or remove explicit members (besides the project's Unix group's).",
                    "  ledger project member add chem alice,bob     ledger project member remove chem bob"})
    static final class Member extends LedgerTask {
        @Parameters(index = "0", paramLabel = "add|remove")
        String verb;
        @Parameters(index = "1", paramLabel = "NAME", description = "The project.")
        String name;
        @Parameters(index = "2", paramLabel = "USER[,USER...]", description = "User names.")
        String users;

        @Override
        int run(Ledger ledger) {
            if (!verb.equals("add") && !verb.equals("remove")) {
                throw new LedgerException("'" + verb + "': expected add or remove");
            }
            ProjectShare s = ledger.shares(name).get(0);
            TreeSet<String> members = new TreeSet<>(s.members());
            if (verb.equals("add")) {
                members.addAll(split(users));
            } else {
                members.removeAll(split(users));
            }
            ProjectShare stored = ledger.setShare(new ProjectShare(s.project(), s.description(), s.organization(),
                    s.partitions(), s.caps(), new ArrayList<>(members), s.nodes()), actor());
            out().println("project " + stored.project() + ": explicit members " + (stored.members().isEmpty() ? "(none)"
                    : String.join(",", stored.members())));
            return 0;
        }
    }

    @Command(name = "changes", mixinStandardHelpOptions = true,
            description = "The change journal of projects' shares, newest first.")
    static final class Changes extends LedgerTask {
        @Parameters(paramLabel = "NAME", arity = "0..1", description = "The project (default: all).")
        String name;
        @Option(names = "--limit", defaultValue = "50", description = "At most this many (default: ${DEFAULT-VALUE}).")
        int limit;

        @Override
        int run(Ledger ledger) {
            DateTimeFormatter f = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss").withZone(ZoneOffset.UTC);
            out().printf("%-6s %-19s %-16s %-12s %-12s %s%n", "SEQ", "TIME (UTC)", "PROJECT", "ACTOR", "FIELD", "BEFORE -> AFTER");
            for (ProjectChange c : ledger.projectChanges(name, limit)) {
                out().printf("%-6d %-19s %-16s %-12s %-12s %s -> %s%n", c.seq(), f.format(c.at()), c.project(), c.actor(),
                        c.field(), c.before().isEmpty() ? "''" : c.before(), c.after().isEmpty() ? "''" : c.after());
            }
            return 0;
        }
    }

    static List<String> split(String list) {
        List<String> out = new ArrayList<>();
        for (String s : list.split(",")) {
            if (!s.isBlank()) {
                out.add(s.strip());
            }
        }
        return out;
    }
}
