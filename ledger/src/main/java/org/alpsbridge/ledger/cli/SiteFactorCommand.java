package org.alpsbridge.ledger.cli;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.alpsbridge.ledger.Balance;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.cost.SiteFactor;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code ledger site-factor}: HADM's priority term per active allocation, from committed balances. */
@Command(name = "site-factor", mixinStandardHelpOptions = true,
        description = {"Print the site factor of every allocation active now: x_c = credit left / granted,",
                "x_t = fraction of the period elapsed, each shaped by the sigmoid",
                "S(x) = (e^(l x) - 1)(e^l + e^(l x0)) / ((e^l - 1)(e^(l x) + e^(l x0))) or the power rule x^gamma,",
                "combined (default: product), and scaled to an integer 0..--weight for a Slurm site_factor plugin.",
                "Columns: project resource scaled factor x_c x_t S_c S_t."})
final class SiteFactorCommand extends LedgerTask {

    @Option(names = "--rule", defaultValue = "sigmoid", description = "sigmoid or power (default: ${DEFAULT-VALUE}).")
    String rule;
    @Option(names = "--lc", defaultValue = "5", description = "Credit sigmoid steepness l_c (default ${DEFAULT-VALUE}).")
    double lc;
    @Option(names = "--x0c", defaultValue = "0.25", description = "Credit sigmoid inflection x0_c (default ${DEFAULT-VALUE}).")
    double x0c;
    @Option(names = "--lt", defaultValue = "50", description = "Time sigmoid steepness l_t (default ${DEFAULT-VALUE}).")
    double lt;
    @Option(names = "--x0t", defaultValue = "0.75", description = "Time sigmoid inflection x0_t (default ${DEFAULT-VALUE}).")
    double x0t;
    @Option(names = "--gamma-c", defaultValue = "0.5", description = "Credit power-rule exponent (default ${DEFAULT-VALUE}).")
    double gammaC;
    @Option(names = "--gamma-t", defaultValue = "2", description = "Time power-rule exponent (default ${DEFAULT-VALUE}).")
    double gammaT;
    @Option(names = "--combine", defaultValue = "PRODUCT",
            description = "PRODUCT, MEAN, CREDIT or TIME (default: ${DEFAULT-VALUE}).")
    SiteFactor.Combination combine;
    @Option(names = "--weight", defaultValue = "1000", description = "Integer the factor is scaled to (default ${DEFAULT-VALUE}).")
    long weight;
    @Option(names = "--at", description = "Evaluate at this time (default now).")
    String at;
    @Option(names = "--json", description = "Print JSON.")
    boolean json;
    @Option(names = "--slurm-file", paramLabel = "FILE",
            description = {"Write FILE for slurmctld's site_factor/ledger plugin instead of printing: one line",
                    "'ACCOUNT SCALED' per Slurm account whose project has an active CPU allocation (the largest",
                    "factor where it has several), replaced whole (written aside, then renamed), so the plugin",
                    "never reads half a file. Run it from a timer; the plugin rereads the file when it changes."})
    java.nio.file.Path slurmFile;

    @Override
    int run(Ledger ledger) {
        SiteFactor factor = switch (rule) {
            case "sigmoid" -> new SiteFactor(new SiteFactor.Sigmoid(lc, x0c), new SiteFactor.Sigmoid(lt, x0t), combine, weight);
            case "power" -> new SiteFactor(new SiteFactor.Power(gammaC), new SiteFactor.Power(gammaT), combine, weight);
            default -> throw new org.alpsbridge.ledger.LedgerException("--rule must be sigmoid or power, got " + rule);
        };
        Instant when = time(at);
        if (slurmFile != null) {
            return writeSlurmFile(ledger, factor, when);
        }
        List<Object> rows = new ArrayList<>();
        for (Balance b : ledger.balances(null)) {
            if (!b.activeAt(when)) {
                continue;
            }
            SiteFactor.Value v = valueAt(factor, b, when);
            if (json) {
                Map<String, Object> m = Json.object();
                m.put("project", b.project());
                m.put("resource", b.resource().name().toLowerCase());
                m.put("scaled", v.scaled());
                m.put("factor", v.factor());
                m.put("x_c", v.creditFraction());
                m.put("x_t", v.timeFraction());
                m.put("s_c", v.creditTerm());
                m.put("s_t", v.timeTerm());
                rows.add(m);
            } else {
                out().printf("%s %s %d %.6f %.6f %.6f %.6f %.6f%n", b.project(), b.resource().name().toLowerCase(),
                        v.scaled(), v.factor(), v.creditFraction(), v.timeFraction(), v.creditTerm(), v.timeTerm());
            }
        }
        if (json) {
            out().println(Json.write(rows));
        }
        return 0;
    }

    /** The CPU factor per Slurm account, as the plugin reads it; atomically replaced. */
    private int writeSlurmFile(Ledger ledger, SiteFactor factor, Instant when) {
        Map<String, String> accounts = new java.util.HashMap<>();
        for (org.alpsbridge.ledger.Project p : ledger.projects()) {
            if (p.active() && p.account() != null) {
                accounts.put(p.name(), p.account());
            }
        }
        Map<String, Long> scaled = new java.util.TreeMap<>();
        for (Balance b : ledger.balances(null)) {
            String account = accounts.get(b.project());
            if (account == null || b.resource() != org.alpsbridge.ledger.Resource.CPU || !b.activeAt(when)) {
                continue;
            }
            SiteFactor.Value v = valueAt(factor, b, when);
            scaled.merge(account, v.scaled(), Math::max);
        }
        StringBuilder text = new StringBuilder("# alpsbridge ledger site-factor at " + when
                + ": ACCOUNT SCALED (0.." + weight + "), read by slurmctld's site_factor/ledger\n");
        scaled.forEach((account, value) -> text.append(account).append(' ').append(value).append('\n'));
        java.nio.file.Path aside = slurmFile.resolveSibling("." + slurmFile.getFileName() + ".tmp");
        try {
            java.nio.file.Files.writeString(aside, text);
            java.nio.file.Files.move(aside, slurmFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE,
                    java.nio.file.StandardCopyOption.REPLACE_EXISTING);
        } catch (java.io.IOException e) {
            throw new org.alpsbridge.ledger.LedgerException("site-factor: cannot write " + slurmFile + ": "
                    + e.getMessage() + " (the directory must exist and be writable)");
        }
        out().printf("site-factor: %d account(s) written to %s%n", scaled.size(), slurmFile);
        return 0;
    }

    /** The factor of allocation {@code b} at {@code when}: its credit left and the part of its period gone. */
    private static SiteFactor.Value valueAt(SiteFactor factor, Balance b, Instant when) {
        return factor.of(b.available(), b.granted(), Duration.between(b.from(), when).toSeconds(),
                Duration.between(b.from(), b.to()).toSeconds());
    }
}
