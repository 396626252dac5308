package org.alpsbridge.ledger.cli;

import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.Lookup;
import org.alpsbridge.ledger.Outcome;
import org.alpsbridge.ledger.Resource;
import org.alpsbridge.ledger.Weights;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** Administrative credit operations; each is idempotent with {@code --request-id}. */
final class AdminCommands {

    private AdminCommands() {
    }

    static String line(Balance b) {
        return String.format("%s %s [%s, %s) granted %d, held %d, used %d, available %d %s", b.project(),
                b.resource().name().toLowerCase(), b.from(), b.to(), b.granted(), b.held(), b.used(), b.available(),
                b.resource().unit());
    }

    /** Options every credit-moving command shares. */
    abstract static class CreditTask extends LedgerTask {
        @Option(names = "--resource", defaultValue = "cpu", description = "cpu or gpu (default: ${DEFAULT-VALUE}).")
        String resource;
        @Option(names = "--hours", description = "Amount in hours (kept as exact minutes).")
        Long hours;
        @Option(names = "--minutes", description = "Amount in minutes.")
        Long minutes;
        @Option(names = "--at", description = "Which allocation: the one active at this date (default now).")
        String at;
        @Option(names = "--request-id", description = "Idempotency key: a retry with the same id is applied once.")
        String requestId;
    }

    @Command(name = "grant", mixinStandardHelpOptions = true,
            description = "Grant hours to a project for [--from, --to), creating the allocation if needed."
                    + " Periods of one project and resource must not overlap (adjacent ones may).")
    static final class Grant extends LedgerTask {
        @Parameters(paramLabel = "NAME", description = "Project.")
        String project;
        @Option(names = "--resource", defaultValue = "cpu", description = "cpu or gpu (default: ${DEFAULT-VALUE}).")
        String resource;
        @Option(names = "--hours", required = true, description = "Hours granted (stored as hours x 60 minutes).")
        long hours;
        @Option(names = "--from", required = true, description = "Start of the period (inclusive).")
        String from;
        @Option(names = "--to", required = true, description = "End of the period (exclusive).")
        String to;
        @Option(names = "--category", defaultValue = "research", description = "startup, research, education, ...")
        String category;
        @Option(names = "--request-id", description = "Idempotency key.")
        String requestId;

        @Override
        int run(Ledger ledger) {
            out().println(line(ledger.grant(project, Resource.parse(resource),
                    org.alpsbridge.ledger.cost.Cost.hoursToMinutes(hours), time(from), time(to), category, requestId)));
            return 0;
        }
    }

    @Command(name = "credit", mixinStandardHelpOptions = true, description = "Add credit to the active allocation.")
    static final class Credit extends CreditTask {
        @Parameters(paramLabel = "NAME")
        String project;
        @Option(names = "--reason")
        String reason;

        @Override
        int run(Ledger ledger) {
            out().println(line(ledger.credit(project, Resource.parse(resource), time(at), minutes(hours, minutes),
                    reason, requestId)));
            return 0;
        }
    }

    @Command(name = "withdraw", mixinStandardHelpOptions = true,
            description = "Take credit away; refused if it would overdraw unless --force (then RESERVEs are denied"
                    + " until the balance is back at zero).")
    static final class Withdraw extends CreditTask {
        @Parameters(paramLabel = "NAME")
        String project;
        @Option(names = "--force")
        boolean force;
        @Option(names = "--reason")
        String reason;

        @Override
        int run(Ledger ledger) {
            out().println(line(ledger.withdraw(project, Resource.parse(resource), time(at), minutes(hours, minutes),
                    force, reason, requestId)));
            return 0;
        }
    }

    @Command(name = "transfer", mixinStandardHelpOptions = true,
            description = "Move credit from one project's active allocation to another's, in one transaction.")
    static final class Transfer extends CreditTask {
        @Parameters(index = "0", paramLabel = "FROM")
        String from;
        @Parameters(index = "1", paramLabel = "TO")
        String to;

        @Override
        int run(Ledger ledger) {
            ledger.transfer(from, to, Resource.parse(resource), time(at), minutes(hours, minutes), requestId)
                    .forEach(b -> out().println(line(b)));
            return 0;
        }
    }

    @Command(name = "adjust", mixinStandardHelpOptions = true,
            description = "Set the base budget sent by the central accounting server: records the difference"
                    + " as an ADJUST entry.")
    static final class Adjust extends CreditTask {
        @Parameters(paramLabel = "NAME")
        String project;

        @Override
        int run(Ledger ledger) {
            out().println(line(ledger.adjustBase(project, Resource.parse(resource), time(at), minutes(hours, minutes),
                    requestId)));
            return 0;
        }
    }

    @Command(name = "refund", mixinStandardHelpOptions = true,
            description = "Give back part of a settled job's charge (never more than it was charged).")
    static final class Refund extends LedgerTask {
        @Option(names = "--id", required = true, description = "ALPS reservation id.")
        long resId;
        @Option(names = "--batch-id", description = "Batch job id, when the reservation id was reused.")
        String batchId;
        @Option(names = "--cluster")
        String cluster;
        @Option(names = "--minutes", required = true)
        long minutes;
        @Option(names = "--reason", required = true)
        String reason;
        @Option(names = "--request-id")
        String requestId;

        @Override
        int run(Ledger ledger) {
            Outcome o = ledger.refund(new Lookup(cluster, resId, batchId), minutes, reason, requestId);
            out().println("refunded " + minutes + " to " + o.project() + "; job " + o.key() + " now charged " + o.charge());
            return 0;
        }
    }

    @Command(name = "partition", mixinStandardHelpOptions = true,
            description = "Set or show a partition's billing weights (decimals, up to 3 places).")
    static final class Partition extends LedgerTask {
        @Parameters(paramLabel = "NAME")
        String name;
        @Option(names = "--cpu-weight", description = "Per core (default 1).")
        String cpu;
        @Option(names = "--mem-weight", description = "Per GiB, for MAX_TRES (default 0: not billed).")
        String mem;
        @Option(names = "--gpu-weight", description = "Per GPU (default 1).")
        String gpu;
        @Option(names = "--multiplier", description = "Partition/QoS multiplier (default 1).")
        String multiplier;

        @Override
        int run(Ledger ledger) {
            if (cpu != null || mem != null || gpu != null || multiplier != null) {
                ledger.setWeights(name, new Weights(cpu == null ? 1000 : Weights.milli(cpu),
                        mem == null ? 0 : Weights.milli(mem), gpu == null ? 1000 : Weights.milli(gpu),
                        multiplier == null ? 1000 : Weights.milli(multiplier)));
            }
            Weights w = ledger.weights(name);
            out().println("partition " + name + ": cpu " + Weights.decimal(w.cpuMilli()) + ", mem/GiB "
                    + Weights.decimal(w.memPerGibMilli()) + ", gpu " + Weights.decimal(w.gpuMilli()) + ", multiplier "
                    + Weights.decimal(w.multiplierMilli()));
            return 0;
        }
    }
}
