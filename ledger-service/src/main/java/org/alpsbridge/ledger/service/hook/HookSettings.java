package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.UnaryOperator;
import org.alpsbridge.ledger.service.client.ServiceHttp;
import org.alpsbridge.settings.Setting;
import org.alpsbridge.settings.SettingsFile;

/**
 * The settings of the hooks, their agent and their C client: {@code /etc/alpsbridge/ledger-hook.conf} (env
 * {@code ALPSBRIDGE_LEDGER_HOOK_CONFIG} names another), then a call's options, which win. Every key is declared
 * once in {@link #KEYS}: the JVM hook and the agent read the file through it, and the C client
 * ({@code src/main/c/ledger-hook-client.c}) reads its own keys ({@link #CLIENT_KEYS}, and {@code agent_socket},
 * {@code spool}) with its own copies of their defaults, which {@code HookSettingsTest} holds equal to these.
 */
final class HookSettings {

    /** Settings file read before the options (env {@code ALPSBRIDGE_LEDGER_HOOK_CONFIG} names another). */
    static final String DEFAULT_CONFIG = "/etc/alpsbridge/ledger-hook.conf";

    /** Every key: name, default (empty = none, or the environment's where the help says) and meaning. */
    static final List<Setting> KEYS = List.of(
            key("db", "", Check.TEXT, "the ledger service, http://HOST:PORT or https://HOST:PORT; empty: env ALPSBRIDGE_LEDGER"),
            key("when_unavailable", "refuse", Check.POLICY, "prolog, when the service cannot answer: refuse (slurmctld"
                    + " requeues the job) or allow (it runs unheld; the epilog charges it as a forced debit)"),
            key("prolog_retry_for", "5", Check.WHOLE, "seconds the prolog keeps trying an unavailable service"),
            key("epilog_retry_for", "60", Check.WHOLE, "the same for the JVM epilog (the agent's spool retries for as"
                    + " long as it takes)"),
            key("timeout", "10", Check.WHOLE, "seconds per request (at least 1)"),
            key("slurm_conf", "", Check.TEXT, "slurm.conf for squeue and scontrol; empty: theirs"),
            key("log_file", "slurmctld", Check.TEXT, "slurmctld (SlurmctldLogFile of slurm.conf), none or a path: where"
                    + " the hooks' messages are appended (Slurm 22.05 drops what they print)"),
            key("munge_socket", "", Check.TEXT, "munged's socket the requests are signed through; empty: env"
                    + " ALPSBRIDGE_MUNGE_SOCKET, else libmunge's"),
            key("tls_ca", "", Check.TEXT, "PEM file of the CA an https:// service is trusted as; empty: env"
                    + " ALPSBRIDGE_LEDGER_TLS_CA, else the JDK's trust store"),
            key("agent_socket", "/run/alpsbridge/ledger-hook.sock", Check.TEXT, "the hook agent's unix socket"),
            key("agent_timeout", "60", Check.WHOLE, "C client: seconds it waits for the agent's answer, then exits 3"
                    + " (keep it above prolog_retry_for + timeout)"),
            key("agent_threads", "64", Check.WHOLE, "agent: calls served at once (at least 1)"),
            key("agent_workers", "4", Check.WHOLE, "agent: settlements sent at once (at least 1)"),
            key("spool", "/var/spool/alpsbridge/ledger-hook", Check.TEXT, "the agent's spool of epilogs to settle"),
            key("agent_metrics", "", Check.TEXT, "agent: HOST:PORT it serves Prometheus metrics on (/metrics);"
                    + " empty: none"),
            key("jvm_hook", "/usr/lib/alpsbridge/ledger-hook-jvm", Check.TEXT, "C client: the JVM hook it runs when no"
                    + " agent answers"),
            key("submit_timeout", "2", Check.SUBMIT_SECONDS, "C client: seconds ledger-submit waits for the agent (0.05 to 600)"),
            key("submit_when_unavailable", "allow", Check.POLICY, "C client: ledger-submit when the ledger cannot say:"
                    + " allow or refuse the job"));

    /** Keys only the C client reads (the agent and the JVM hook accept and skip them). */
    static final List<String> CLIENT_KEYS = List.of("agent_timeout", "jvm_hook", "submit_timeout",
            "submit_when_unavailable");

    /** Every key's value (the file's, a call's option, else the default). */
    private final Map<String, String> values;
    /** The environment the settings fall back on (ALPSBRIDGE_LEDGER, ALPSBRIDGE_MUNGE_SOCKET, ...). */
    private final Map<String, String> env;

    private HookSettings(Map<String, String> values, Map<String, String> env) {
        this.values = values;
        this.env = env;
    }

    /** The file's settings (env names the file), then {@code options} (a call's arguments after its mode). */
    static HookSettings read(Map<String, String> env, boolean prolog, List<String> options) {
        return read(env).withOptions(prolog, options);
    }

    /** The file's settings (env {@code ALPSBRIDGE_LEDGER_HOOK_CONFIG} names it), every other key at its default. */
    static HookSettings read(Map<String, String> env) {
        Map<String, String> values = new LinkedHashMap<>();
        for (Setting k : KEYS) {
            values.put(k.name(), k.defaultValue());
        }
        String explicit = env.get("ALPSBRIDGE_LEDGER_HOOK_CONFIG");
        Path file = Path.of(explicit == null || explicit.isBlank() ? DEFAULT_CONFIG : explicit);
        values.putAll(SettingsFile.parse(file, lines(file, explicit != null && !explicit.isBlank()), KEYS));
        return new HookSettings(values, env);
    }

    /** These settings with a call's options ({@code --db}, {@code --when-unavailable}, ...) over them. */
    HookSettings withOptions(boolean prolog, List<String> options) {
        if (options.isEmpty()) {
            return this;
        }
        Map<String, String> v = new LinkedHashMap<>(values);
        for (int i = 0; i < options.size(); i++) {
            String o = options.get(i);
            String key = switch (o) {
                case "--db" -> "db";
                case "--when-unavailable" -> "when_unavailable";
                case "--retry-for" -> prolog ? "prolog_retry_for" : "epilog_retry_for";
                case "--timeout" -> "timeout";
                default -> throw new IllegalArgumentException("unknown option '" + o + "' (see --help)");
            };
            String value = value(options, ++i);
            String problem = ((Check) SettingsFile.find(KEYS, key).check()).problem(o, value);
            if (problem != null) {
                throw new IllegalArgumentException(problem);
            }
            v.put(key, value);
        }
        return new HookSettings(v, env);
    }

    /** The service to charge; fails naming the setting when there is none. */
    String service() {
        String db = orEnv("db", "ALPSBRIDGE_LEDGER");
        if (db == null) {
            throw new IllegalArgumentException("no ledger service: set db=http://HOST:PORT in " + DEFAULT_CONFIG
                    + " (env ALPSBRIDGE_LEDGER_HOOK_CONFIG names another file), or give --db, or set env ALPSBRIDGE_LEDGER");
        }
        return db.strip();
    }

    boolean allow() {
        return values.get("when_unavailable").equals("allow");
    }

    /** How long the prolog keeps trying an unavailable service. */
    long prologRetryMillis() {
        return 1000L * count("prolog_retry_for", 0);
    }

    /** The same for the JVM epilog (the agent's spool retries for as long as it takes). */
    long epilogRetryMillis() {
        return 1000L * count("epilog_retry_for", 0);
    }

    int timeoutMillis() {
        return 1000 * count("timeout", 1);
    }

    /** null: Slurm's commands find their own. */
    String slurmConf() {
        String v = values.get("slurm_conf");
        return v.isEmpty() ? null : v;
    }

    String logFile() {
        return values.get("log_file");
    }

    /** munged's socket to sign through; null: libmunge's default. */
    Path mungeSocket() {
        String v = orEnv("munge_socket", "ALPSBRIDGE_MUNGE_SOCKET");
        return v == null ? null : Path.of(v);
    }

    /** Whether requests carry a MUNGE credential (env {@code ALPSBRIDGE_LEDGER_AUTH=none}: not, for a lab service). */
    boolean sign() {
        return !"none".equals(env.get("ALPSBRIDGE_LEDGER_AUTH"));
    }

    /** The CA an https:// service is trusted as; null: the JDK's trust store. */
    Path tlsCa() {
        String v = orEnv("tls_ca", "ALPSBRIDGE_LEDGER_TLS_CA");
        return v == null ? null : Path.of(v);
    }

    Path agentSocket() {
        return Path.of(values.get("agent_socket"));
    }

    Path spool() {
        return Path.of(values.get("spool"));
    }

    int agentThreads() {
        return count("agent_threads", 1);
    }

    int agentWorkers() {
        return count("agent_workers", 1);
    }

    /** Where the agent serves its metrics, or null for nowhere. */
    java.net.InetSocketAddress agentMetrics() {
        String v = values.get("agent_metrics").strip();
        if (v.isEmpty()) {
            return null;
        }
        int colon = v.lastIndexOf(':');
        try {
            return new java.net.InetSocketAddress(v.substring(0, colon), Integer.parseInt(v.substring(colon + 1)));
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("agent_metrics=" + v + ": expected HOST:PORT");
        }
    }

    /** The key's value, else (empty) the environment's {@code variable}; null when neither says. */
    private String orEnv(String key, String variable) {
        String v = values.get(key);
        if (v.isEmpty()) {
            v = env.get(variable);
        }
        return v == null || v.isBlank() ? null : v.strip();
    }

    /** A whole number of 0 or more (checked when read); below {@code least} counts as {@code least}. */
    private int count(String key, int least) {
        return Math.max(least, Integer.parseInt(values.get(key)));
    }

    private static String value(List<String> options, int i) {
        if (i >= options.size()) {
            throw new IllegalArgumentException(options.get(i - 1) + " needs a value");
        }
        return options.get(i);
    }

    /** The file's lines; an absent file is empty unless it was asked for. */
    private static List<String> lines(Path file, boolean required) {
        try {
            return Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            if (required) {
                throw new IllegalArgumentException("ALPSBRIDGE_LEDGER_HOOK_CONFIG names " + file + ", which does not exist");
            }
            return List.of();
        } catch (IOException e) {
            throw new IllegalArgumentException("the hooks' settings: " + org.alpsbridge.failure.Failures.describe(e));
        }
    }

    private static Setting key(String name, String defaultValue, int check, String help) {
        return Setting.checked(name, defaultValue, help, new Check(name, check));
    }

    /**
     * The values a key takes: a class, not lambdas, because the JVM hook reads these on slurmctld's dispatch path
     * and a lambda's first call spins a class at run time.
     */
    private static final class Check implements UnaryOperator<String> {
        static final int TEXT = 0;
        /** A whole number of 0 or more. */
        static final int WHOLE = 1;
        /** refuse or allow. */
        static final int POLICY = 2;
        /** Seconds, decimals allowed, from 0.05 to 600: the C client's own check, said alike so the agent's reading
         *  of the same file refuses what the client would. */
        static final int SUBMIT_SECONDS = 3;

        private final String name;
        private final int kind;

        Check(String name, int kind) {
            this.name = name;
            this.kind = kind;
        }

        @Override
        public String apply(String v) {
            return problem(name, v);
        }

        /** The problem with {@code v}, naming the key or option {@code what}; null when there is none. */
        String problem(String what, String v) {
            if (kind == WHOLE) {
                try {
                    if (Integer.parseInt(v) >= 0) {
                        return null;
                    }
                } catch (NumberFormatException e) {
                    // said below
                }
                return what + " takes a whole number, not '" + v + "'";
            }
            if (kind == SUBMIT_SECONDS) {
                try {
                    double t = Double.parseDouble(v);
                    if (t >= 0.05 && t <= 600) {
                        return null;
                    }
                } catch (NumberFormatException e) {
                    // said below
                }
                return what + " takes seconds from 0.05 to 600, not '" + v + "'";
            }
            if (kind == POLICY && !v.equals("refuse") && !v.equals("allow")) {
                return what + " takes refuse or allow, not '" + v + "'";
            }
            return null;
        }
    }
}
