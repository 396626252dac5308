package org.alpsbridge.ledger.cli;

import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Project;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code ledger project add|list}. */
@Command(name = "project", mixinStandardHelpOptions = true, description = "Create and list projects; show and set their share of the cluster (slurm-sync).",
        subcommands = {ProjectCommands.Add.class, ProjectCommands.ListProjects.class, ShareCommands.Show.class,
                ShareCommands.Set.class, ShareCommands.Member.class, ShareCommands.Changes.class})
final class ProjectCommands {

    @Command(name = "add", mixinStandardHelpOptions = true,
            description = "Create a project (workgroup) with its Unix gid and, optionally, the Slurm account it is charged under.")
    static final class Add extends LedgerTask {
        @Parameters(paramLabel = "NAME", description = "Workgroup name (letters, digits, _.@-).")
        String name;
        @Option(names = "--gid", required = true, description = "Unix group id of the workgroup.")
        int gid;
        @Option(names = "--account", description = "Slurm account that RESERVEs name (account_name).")
        String account;

        @Override
        int run(Ledger ledger) {
            Project p = ledger.addProject(name, gid, account);
            out().println("project " + p.name() + " (gid " + p.gid() + (p.account() == null ? "" : ", account "
                    + p.account()) + ") created");
            return 0;
        }
    }

    @Command(name = "list", mixinStandardHelpOptions = true, description = "List projects.")
    static final class ListProjects extends LedgerTask {
        @Option(names = "--json", description = "Print JSON.")
        boolean json;

        @Override
        int run(Ledger ledger) {
            List<Project> projects = ledger.projects();
            if (json) {
                out().println(Json.write(projects.stream().map(p -> {
                    Map<String, Object> o = Json.object();
                    o.put("name", p.name());
                    o.put("gid", p.gid());
                    o.put("account", p.account());
                    o.put("active", p.active());
                    return o;
                }).toList()));
                return 0;
            }
            out().printf("%-20s %8s %-20s %s%n", "PROJECT", "GID", "ACCOUNT", "ACTIVE");
            for (Project p : projects) {
                out().printf("%-20s %8d %-20s %s%n", p.name(), p.gid(), p.account() == null ? "-" : p.account(),
                        p.active() ? "yes" : "no");
            }
            return 0;
        }
    }
}
