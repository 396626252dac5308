package org.alpsbridge.ledger.service.cli;

import java.io.IOException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import org.alpsbridge.ledger.cli.LedgerCommand;
import org.alpsbridge.ledger.service.hook.HookAgent;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code alpsbridge ledger hook-agent}: the resident half of slurmctld's ledger hooks. */
@Command(name = "hook-agent",
        mixinStandardHelpOptions = true,
        description = {"Serves ledger-prolog and ledger-epilog (slurmctld's PrologSlurmctld and EpilogSlurmctld),",
                "so that no JVM starts on slurmctld's dispatch path: the hooks are a small C client that hands",
                "each call to this agent over a unix socket (agent_socket) and exits with its answer. A prolog",
                "holds the job's worst case in the ledger service or denies it (as the JVM hook does; one squeue",
                "for all the jobs waiting at once); an epilog is written to the spool (fsync'd) and answered at",
                "once, then settled, trying an unavailable service for as long as it takes. The spool outlives",
                "the agent: what it holds is settled at the next start, once. Run it as SlurmUser on the",
                "slurmctld host (the systemd unit alpsbridge-ledger-hook-agent does); only SlurmUser and root",
                "may use the socket (checked with SO_PEERCRED; others are refused and logged). It also answers",
                "ledger-submit (slurmctld's job_submit.lua): could the job's project cover its worst case now?",
                "Settings: /etc/alpsbridge/ledger-hook.conf (see ledger-prolog --help for every key), or --config;",
                "the ledger's --db (alpsbridge ledger --db http://HOST:PORT hook-agent) wins over its db=.",
                "Stops on SIGTERM/SIGINT (settlements not yet sent stay in the spool)."},
        footer = {"", "Keys of the agent (with their defaults):",
                "  agent_socket=/run/alpsbridge/ledger-hook.sock  spool=/var/spool/alpsbridge/ledger-hook",
                "  agent_threads=64 (calls served at once)  agent_workers=4 (settlements sent at once)",
                "  agent_metrics=HOST:PORT (Prometheus /metrics: spool depth, prologs by outcome; none by default)",
                "  agent_timeout=60 (the C client's wait for an answer)  jvm_hook=/usr/lib/alpsbridge/ledger-hook-jvm",
                "  submit_timeout=2, submit_when_unavailable=allow (ledger-submit's, read by the C client)",
                "", "Example:", "  alpsbridge ledger hook-agent --config /etc/alpsbridge/ledger-hook.conf",
                "", "Exit codes: 0 stopped cleanly; 1 could not start (reason on stderr: a bad setting, the socket",
                "held by another agent, an unusable spool)."})
public final class HookAgentCommand implements Callable<Integer> {

    @ParentCommand
    LedgerCommand ledgerCommand;

    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE",
            description = "key=value settings (default: env ALPSBRIDGE_LEDGER_HOOK_CONFIG, else /etc/alpsbridge/ledger-hook.conf)")
    Path config;

    @Override
    public Integer call() {
        Map<String, String> env = new HashMap<>(System.getenv());
        if (config != null) {
            env.put("ALPSBRIDGE_LEDGER_HOOK_CONFIG", config.toString());
        }
        HookAgent agent;
        try {
            String db = ledgerCommand.dbOption();
            agent = HookAgent.start(env, db == null ? List.of() : List.of("--db", db), System.err);
        } catch (IllegalArgumentException | IOException e) {
            spec.commandLine().getErr().println("ledger hook-agent: " + org.alpsbridge.failure.Failures.describe(e));
            return 1;
        }
        spec.commandLine().getErr().println("ledger hook-agent: listening on " + agent.socket());
        spec.commandLine().getErr().flush();
        ServeCommand.untilStopped(agent::close, "ledger-hook-agent-shutdown");
        return 0;
    }
}
