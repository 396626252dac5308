package org.alpsbridge.ledger.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.NodeShape;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.ReleaseRequest;
import org.alpsbridge.ledger.ReserveRequest;
import org.alpsbridge.ledger.Resource;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The event interface for sites whose Slurm calls a prolog/epilog instead of going through the proxy:
 * {@code reserve} (prolog), {@code confirm}, {@code release} (epilog), and the orphan {@code sweep}.
 */
final class EventCommands {

    private EventCommands() {
    }

    static Map<String, Object> json(Outcome o) {
        Map<String, Object> m = Json.object();
        m.put("decision", o.decision().name());
        m.put("key", o.key());
        m.put("project", o.project());
        m.put("state", o.state() == null ? null : o.state().name());
        m.put("hold", o.hold());
        m.put("charge", o.charge());
        m.put("returned", o.returned());
        m.put("available", o.available());
        m.put("reason", o.reason());
        m.put("message", o.message());
        m.put("forced", o.forced());
        m.put("replayed", o.replayed());
        return m;
    }

    /** The reservation parameters, shared by reserve and by confirm/release of an unknown reservation. */
    abstract static class ReservationTask extends LedgerTask {
        @Option(names = "--id", required = true, description = "ALPS reservation id (positive).")
        long resId;
        @Option(names = "--batch-id", description = "Batch job id.")
        String batchId;
        @Option(names = "--cluster", description = "Cluster name in the reservation key (default: default).")
        String cluster;
        @Option(names = "--project", description = "Project name or Slurm account.")
        String project;
        @Option(names = "--user", description = "User the job runs as (uid or name).")
        String user;
        @Option(names = "--nodes", description = "Nodes reserved.")
        Integer nodes;
        @Option(names = "--cores-per-node", description = "Cores per node (whole nodes are charged).")
        Integer cores;
        @Option(names = "--gpus-per-node", defaultValue = "0", description = "GPUs per node (default: ${DEFAULT-VALUE}).")
        int gpus;
        @Option(names = "--mem-per-node", defaultValue = "0", description = "GiB per node, billed under MAX_TRES.")
        long memGib;
        @Option(names = "--time-limit", paramLabel = "MINUTES", description = "Time limit in minutes (not seconds).")
        Long limitMinutes;
        @Option(names = "--partition", description = "Billing partition (default: default).")
        String partition;
        @Option(names = "--resource", defaultValue = "cpu", description = "cpu or gpu (default: ${DEFAULT-VALUE}).")
        String resource;
        @Option(names = "--at", description = "When it happened (default now).")
        String at;
        @Option(names = "--json", description = "Print the outcome as JSON.")
        boolean json;

        boolean hasParams() {
            return batchId != null && project != null && user != null && nodes != null && cores != null
                    && limitMinutes != null;
        }

        ReserveRequest params(Instant when) {
            if (!hasParams()) {
                throw new LedgerException("needs --batch-id, --project, --user, --nodes, --cores-per-node and --time-limit");
            }
            return new ReserveRequest(cluster, batchId, resId, null, project, user, partition, Resource.parse(resource),
                    nodes, new NodeShape(cores, memGib, gpus), Math.multiplyExact(limitMinutes, 60L), when);
        }

        int report(Outcome o) {
            if (json) {
                out().println(Json.write(json(o)));
            } else {
                out().println(o.decision() + " " + o.key() + " " + (o.state() == null ? "" : o.state() + " ")
                        + "hold " + o.hold() + " charge " + o.charge() + (o.returned() > 0 ? " returned " + o.returned() : "")
                        + (o.forced() ? " FORCED" : "") + (o.replayed() ? " (repeat: first outcome)" : "")
                        + (o.reason() == null ? "" : " reason " + o.reason()));
            }
            if (o.decision() != Outcome.Decision.OK) {
                err().println("ledger: " + (o.message() != null ? o.message() : o.decision() + " for " + o.key()));
            }
            return o.decision() == Outcome.Decision.DENIED ? DENIED : o.decision() == Outcome.Decision.CONFLICT ? 1 : 0;
        }
    }

    @Command(name = "reserve", mixinStandardHelpOptions = true, modelTransformer = Reserve.RequiredParams.class,
            description = {"Hold the worst case of a reservation (nodes x cores x time limit) or deny it.",
                    "Exit 2 when denied, with the reason (project, cost, available) on stderr."})
    static final class Reserve extends ReservationTask {
        /**
         * The reservation parameters confirm and release take optionally (a forced hold of an unknown
         * reservation) are required here: so marked in the usage line, --help and the manual page.
         */
        static final class RequiredParams implements picocli.CommandLine.IModelTransformer {
            @Override
            public picocli.CommandLine.Model.CommandSpec transform(picocli.CommandLine.Model.CommandSpec spec) {
                for (String name : List.of("--batch-id", "--project", "--user", "--nodes", "--cores-per-node", "--time-limit")) {
                    picocli.CommandLine.Model.OptionSpec optional = spec.findOption(name);
                    spec.remove(optional);
                    spec.addOption(optional.toBuilder().required(true).build());
                }
                return spec;
            }
        }

        @Override
        int run(Ledger ledger) {
            if (!hasParams()) {
                throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                        "reserve needs --batch-id, --project, --user, --nodes, --cores-per-node and --time-limit");
            }
            return report(ledger.reserve(params(time(at))));
        }
    }

    @Command(name = "confirm", mixinStandardHelpOptions = true,
            description = {"Mark a reservation running. Unknown to the ledger: with the reservation options a",
                    "forced hold is made (the job runs anyway), otherwise an alert is raised."})
    static final class Confirm extends ReservationTask {
        @Override
        int run(Ledger ledger) {
            Instant when = time(at);
            return report(ledger.confirm(new Lookup(cluster, resId, batchId), when, hasParams() ? params(when) : null));
        }
    }

    @Command(name = "release", mixinStandardHelpOptions = true,
            description = {"Settle a reservation: charge the actual use (bounded by the hold), return the rest.",
                    "Unknown to the ledger: with the reservation options the use is a forced debit."})
    static final class Release extends ReservationTask {
        @Option(names = "--elapsed", required = true, paramLabel = "SECONDS",
                description = "Seconds the job ran (not minutes, unlike --time-limit).")
        long elapsed;
        @Option(names = "--node-failure", description = "The job ended by node failure: charged nothing.")
        boolean nodeFailure;
        @Option(names = "--never-ran", description = "The job never started: the whole hold is returned.")
        boolean neverRan;

        @Override
        int run(Ledger ledger) {
            Instant when = time(at);
            return report(ledger.release(new ReleaseRequest(new Lookup(cluster, resId, batchId), elapsed, nodeFailure,
                    neverRan, when, hasParams() ? params(when.minusSeconds(elapsed)) : null)));
        }
    }

    @Command(name = "sweep", mixinStandardHelpOptions = true,
            description = {"Resolve abandoned reservations: unconfirmed holds older than --unconfirmed-grace are",
                    "voided; confirmed ones past their time limit plus --confirmed-grace are charged in full and",
                    "flagged. Only reservations ALPS no longer has: give --present FILE (ALPS reservation ids, one",
                    "per line, e.g. from apstat -r) or --assume-gone."})
    static final class Sweep extends LedgerTask {
        @Option(names = "--unconfirmed-grace", defaultValue = "PT1H", description = "ISO duration (default ${DEFAULT-VALUE}).")
        Duration unconfirmedGrace;
        @Option(names = "--confirmed-grace", defaultValue = "PT10M", description = "ISO duration (default ${DEFAULT-VALUE}).")
        Duration confirmedGrace;
        @Option(names = "--present", description = "File of reservation ids ALPS still has.")
        Path present;
        @Option(names = "--assume-gone", description = "Treat every candidate as gone from ALPS.")
        boolean assumeGone;

        @Override
        int run(Ledger ledger) {
            if ((present == null) == !assumeGone) {
                throw new LedgerException("give exactly one of --present FILE and --assume-gone");
            }
            Set<Long> ids = new HashSet<>();
            if (present != null) {
                try {
                    for (String l : Files.readAllLines(present)) {
                        if (!l.isBlank()) {
                            ids.add(Long.parseLong(l.strip()));
                        }
                    }
                } catch (IOException | NumberFormatException e) {
                    throw new LedgerException("cannot read reservation ids from " + present + ": "
                            + (e instanceof java.nio.file.NoSuchFileException ? "no such file" : e.getMessage())
                            + "; give --present the file of ALPS's reservation ids (one a line, e.g. from apstat -r)");
                }
            }
            List<Outcome> swept = ledger.sweep(Instant.now(), unconfirmedGrace, confirmedGrace,
                    r -> ids.contains(r.resId()));
            for (Outcome o : swept) {
                out().println(o.state() + " " + o.key() + " hold " + o.hold() + " charge " + o.charge());
            }
            out().println(swept.size() + " reservation(s) resolved");
            return 0;
        }
    }
}
