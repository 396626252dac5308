package org.alpsbridge.ledger.cost;

import org.alpsbridge.ledger.LedgerException;

/**
 * The HADM-style site factor: a priority term that rises for projects with credit left as their
 * period runs out ("use it or lose it"), for a Slurm site_factor plugin or a cron job.
 *
 * <p>Two inputs per allocation: {@code x_c}, the fraction of credit remaining, and {@code x_t}, the
 * fraction of the period elapsed, each in [0,1]. Each is shaped by a {@link Shape} (the power rule
 * {@code x^γ} or the rescaled logistic sigmoid) and the two are combined by a {@link Combination}.
 * The result in [0,1] is scaled to an unsigned integer {@code round(weight × f)} as Slurm's site
 * factor wants.
 */
public final class SiteFactor {

    /** How one input in [0,1] is shaped into [0,1]. */
    public sealed interface Shape permits Power, Sigmoid {
        double apply(double x);
    }

    /** The power rule {@code x^γ}, γ &gt; 0. */
    public record Power(double gamma) implements Shape {
        public Power {
            if (!(gamma > 0) || Double.isInfinite(gamma)) {
                throw new LedgerException("power-rule exponent must be positive and finite, got " + gamma);
            }
        }

        @Override
        public double apply(double x) {
            return clamp(Math.pow(clamp(x), gamma));
        }
    }

    /**
     * The seed's sigmoid {@code S(x) = (e^{lx} − 1)(e^l + e^{l·x0}) / ((e^l − 1)(e^{lx} + e^{l·x0}))}:
     * the logistic {@code σ(l(x − x0))} rescaled so that S(0) = 0 and S(1) = 1; {@code x0} is the
     * inflection point. Evaluated in a form that cannot overflow for large {@code l}; {@code l → 0}
     * tends to the identity.
     */
    public record Sigmoid(double l, double x0) implements Shape {
        public Sigmoid {
            if (!(l > 0) || Double.isInfinite(l)) {
                throw new LedgerException("sigmoid steepness l must be positive and finite, got " + l);
            }
            if (!(x0 >= 0 && x0 <= 1)) {
                throw new LedgerException("sigmoid inflection x0 must be in [0,1], got " + x0);
            }
        }

        @Override
        public double apply(double x) {
            double v = clamp(x);
            if (v == 0) {
                return 0.0;
            }
            if (v == 1) {
                return 1.0;
            }
            // Multiply the naive form's numerator and denominator by e^{-l x}·e^{-l}: every exponent left
            // is ≤ 0 except e^{l(x0-x)} and e^{l(x0-1)}, which are in the denominator's and numerator's
            // "1 + …" terms where overflow to +inf gives the right limit (ratio 0 or a finite value).
            double numerator = -Math.expm1(-l * v) * (1 + Math.exp(l * (x0 - 1)));
            double denominator = -Math.expm1(-l) * (1 + Math.exp(l * (x0 - v)));
            double s = numerator / denominator;
            if (Double.isNaN(s)) {
                return 0.0;
            }
            return clamp(s);
        }
    }

    /** How the credit term and the time term become one factor. */
    public enum Combination {
        /** {@code S_c × S_t}: high only when credit is left and the period is running out (default). */
        PRODUCT,
        /** {@code (S_c + S_t) / 2}. */
        MEAN,
        /** {@code S_c} alone. */
        CREDIT,
        /** {@code S_t} alone. */
        TIME;

        double combine(double credit, double time) {
            return switch (this) {
                case PRODUCT -> credit * time;
                case MEAN -> (credit + time) / 2;
                case CREDIT -> credit;
                case TIME -> time;
            };
        }
    }

    /** The factor of one allocation with every intermediate value, so operators can see why. */
    public record Value(double creditFraction, double timeFraction, double creditTerm, double timeTerm,
                        double factor, long scaled) {
    }

    private final Shape credit;
    private final Shape time;
    private final Combination combination;
    private final long weight;

    /**
     * @param credit shape of the credit-remaining fraction (the seed: sigmoid l=5, x0=0.25)
     * @param time shape of the period-elapsed fraction (the seed: sigmoid l=50, x0=0.75)
     * @param combination how the two terms combine
     * @param weight the integer the factor is scaled to (Slurm site factors are unsigned integers)
     */
    public SiteFactor(Shape credit, Shape time, Combination combination, long weight) {
        if (weight < 0) {
            throw new LedgerException("site-factor weight must not be negative, got " + weight);
        }
        this.credit = credit;
        this.time = time;
        this.combination = combination;
        this.weight = weight;
    }

    /** The seed's parameters: sigmoids l_c=5, x0_c=0.25 and l_t=50, x0_t=0.75, product, weight 1000. */
    public static SiteFactor seed() {
        return new SiteFactor(new Sigmoid(5, 0.25), new Sigmoid(50, 0.75), Combination.PRODUCT, 1000);
    }

    /**
     * @param available credit left now (may be negative after a forced debit: counts as none)
     * @param credited credit granted in total (0 means no credit: the credit fraction is 0)
     * @param elapsedSeconds time since the allocation started
     * @param periodSeconds length of the allocation period
     */
    public Value of(long available, long credited, long elapsedSeconds, long periodSeconds) {
        double xc = credited <= 0 ? 0.0 : clamp((double) available / credited);
        double xt = periodSeconds <= 0 ? 1.0 : clamp((double) elapsedSeconds / periodSeconds);
        double sc = credit.apply(xc);
        double st = time.apply(xt);
        double f = clamp(combination.combine(sc, st));
        return new Value(xc, xt, sc, st, f, Math.round(weight * f));
    }

    static double clamp(double x) {
        if (Double.isNaN(x) || x <= 0) {
            return 0.0; // also turns -0.0 into +0.0
        }
        return Math.min(x, 1.0);
    }
}
