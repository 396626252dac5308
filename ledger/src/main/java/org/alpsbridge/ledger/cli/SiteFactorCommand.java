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

    @Override
    int run(Ledger ledger) {
        SiteFactor factor = switch (rule) {
            case "sigmoid" -> new SiteFactor(new SiteFactor.Sigmoid(lc, x0c), new SiteFactor.Sigmoid(lt, x0t), combine, weight);
            case "power" -> new SiteFactor(new SiteFactor.Power(gammaC), new SiteFactor.Power(gammaT), combine, weight);
            default -> throw new org.alpsbridge.ledger.LedgerException("--rule must be sigmoid or power, got " + rule);
        };
        Instant when = time(at);
        List<Object> rows = new ArrayList<>();
        for (Balance b : ledger.balances(null)) {
            if (!b.activeAt(when)) {
                continue;
            }
            SiteFactor.Value v = factor.of(b.available(), b.granted(), Duration.between(b.from(), when).toSeconds(),
                    Duration.between(b.from(), b.to()).toSeconds());
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
}
