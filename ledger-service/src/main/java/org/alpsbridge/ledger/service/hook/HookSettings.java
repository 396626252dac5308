package org.alpsbridge.ledger.service.hook;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The settings of the hooks and their agent: {@code /etc/alpsbridge/ledger-hook.conf} (env
 * {@code ALPSBRIDGE_LEDGER_HOOK_CONFIG} names another), then a call's options, which win. One reading for the
 * JVM hook, the agent and (for the {@code agent_*} and {@code jvm_hook} keys) the C client, so the three
 * cannot disagree on a key or its default.
 *
 * @param prologRetryMillis how long the prolog keeps trying an unavailable service
 * @param epilogRetryMillis the same for the JVM epilog (the agent's spool retries for as long as it takes)
 */
record HookSettings(String db, boolean allow, long prologRetryMillis, long epilogRetryMillis, int timeoutMillis,
                    String slurmConf, String logFile, Path agentSocket, Path spool, int agentThreads,
                    int agentWorkers) {

    /** Settings file read before the options (env {@code ALPSBRIDGE_LEDGER_HOOK_CONFIG} names another). */
    static final String DEFAULT_CONFIG = "/etc/alpsbridge/ledger-hook.conf";
    static final String DEFAULT_SOCKET = "/run/alpsbridge/ledger-hook.sock";
    static final String DEFAULT_SPOOL = "/var/spool/alpsbridge/ledger-hook";

    /** Keys only the C client reads (the agent and JVM hook accept and skip them). */
    private static final List<String> CLIENT_KEYS = List.of("agent_timeout", "jvm_hook", "submit_timeout",
            "submit_when_unavailable");

    /** The file's settings (env names the file), then {@code options} (a call's arguments after its mode). */
    static HookSettings read(Map<String, String> env, boolean prolog, List<String> options) {
        return read(env).withOptions(prolog, options);
    }

    /** The file's settings (env {@code ALPSBRIDGE_LEDGER_HOOK_CONFIG} names it), every other key at its default. */
    static HookSettings read(Map<String, String> env) {
        HookSettings s = new HookSettings(env.get("ALPSBRIDGE_LEDGER"), false, 5_000, 60_000, 10_000, null,
                "slurmctld", Path.of(DEFAULT_SOCKET), Path.of(DEFAULT_SPOOL), 64, 4);
        String explicit = env.get("ALPSBRIDGE_LEDGER_HOOK_CONFIG");
        Path file = Path.of(explicit == null || explicit.isBlank() ? DEFAULT_CONFIG : explicit);
        for (Map.Entry<String, String> e : config(file, explicit != null && !explicit.isBlank()).entrySet()) {
            s = s.with(file, e.getKey(), e.getValue());
        }
        return s;
    }

    /** These settings with a call's options ({@code --db}, {@code --when-unavailable}, ...) over them. */
    HookSettings withOptions(boolean prolog, List<String> options) {
        HookSettings s = this;
        for (int i = 0; i < options.size(); i++) {
            String o = options.get(i);
            switch (o) {
                case "--db" -> s = s.with(null, "db", value(options, ++i));
                case "--when-unavailable" -> s = s.with(null, "when_unavailable", value(options, ++i));
                case "--retry-for" -> s = s.with(null, prolog ? "prolog_retry_for" : "epilog_retry_for", value(options, ++i));
                case "--timeout" -> s = s.with(null, "timeout", value(options, ++i));
                default -> throw new IllegalArgumentException("unknown option '" + o + "' (see --help)");
            }
        }
        return s;
    }

    /** The service to charge; fails naming the setting when there is none. */
    String service() {
        if (db == null || db.isBlank()) {
            throw new IllegalArgumentException("no ledger service: set db=http://HOST:PORT in " + DEFAULT_CONFIG
                    + " (env ALPSBRIDGE_LEDGER_HOOK_CONFIG names another file), or give --db, or set env ALPSBRIDGE_LEDGER");
        }
        return db.strip();
    }

    private HookSettings with(Path file, String key, String v) {
        String what = file == null ? "--" + key.replace('_', '-') : key;
        return switch (key) {
            case "db" -> new HookSettings(v, allow, prologRetryMillis, epilogRetryMillis, timeoutMillis, slurmConf, logFile,
                    agentSocket, spool, agentThreads, agentWorkers);
            case "when_unavailable" -> new HookSettings(db, policy(v), prologRetryMillis, epilogRetryMillis, timeoutMillis,
                    slurmConf, logFile, agentSocket, spool, agentThreads, agentWorkers);
            case "prolog_retry_for" -> new HookSettings(db, allow, 1000L * count(what, v, 0), epilogRetryMillis,
                    timeoutMillis, slurmConf, logFile, agentSocket, spool, agentThreads, agentWorkers);
            case "epilog_retry_for" -> new HookSettings(db, allow, prologRetryMillis, 1000L * count(what, v, 0),
                    timeoutMillis, slurmConf, logFile, agentSocket, spool, agentThreads, agentWorkers);
            case "timeout" -> new HookSettings(db, allow, prologRetryMillis, epilogRetryMillis, 1000 * count(what, v, 1),
                    slurmConf, logFile, agentSocket, spool, agentThreads, agentWorkers);
            case "slurm_conf" -> new HookSettings(db, allow, prologRetryMillis, epilogRetryMillis, timeoutMillis, v, logFile,
                    agentSocket, spool, agentThreads, agentWorkers);
            case "log_file" -> new HookSettings(db, allow, prologRetryMillis, epilogRetryMillis, timeoutMillis, slurmConf, v,
                    agentSocket, spool, agentThreads, agentWorkers);
            case "munge_socket" -> {
                System.setProperty("alpsbridge.munge_socket", v);
                yield this;
            }
            case "agent_socket" -> new HookSettings(db, allow, prologRetryMillis, epilogRetryMillis, timeoutMillis,
                    slurmConf, logFile, Path.of(v), spool, agentThreads, agentWorkers);
            case "spool" -> new HookSettings(db, allow, prologRetryMillis, epilogRetryMillis, timeoutMillis, slurmConf,
                    logFile, agentSocket, Path.of(v), agentThreads, agentWorkers);
            case "agent_threads" -> new HookSettings(db, allow, prologRetryMillis, epilogRetryMillis, timeoutMillis,
                    slurmConf, logFile, agentSocket, spool, count(what, v, 1), agentWorkers);
            case "agent_workers" -> new HookSettings(db, allow, prologRetryMillis, epilogRetryMillis, timeoutMillis,
                    slurmConf, logFile, agentSocket, spool, agentThreads, count(what, v, 1));
            default -> {
                if (CLIENT_KEYS.contains(key)) {
                    yield this;
                }
                throw new IllegalArgumentException(file + ": unknown key '" + key + "' (db, when_unavailable,"
                        + " prolog_retry_for, epilog_retry_for, timeout, slurm_conf, log_file, munge_socket, agent_socket,"
                        + " agent_timeout, agent_threads, agent_workers, spool, jvm_hook, submit_timeout,"
                        + " submit_when_unavailable)");
            }
        };
    }

    private static String value(List<String> options, int i) {
        if (i >= options.size()) {
            throw new IllegalArgumentException(options.get(i - 1) + " needs a value");
        }
        return options.get(i);
    }

    /** {@code key=value} lines, {@code #} comments; an absent file is empty unless it was asked for. */
    private static Map<String, String> config(Path file, boolean required) {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> lines;
        try {
            lines = Files.readAllLines(file);
        } catch (NoSuchFileException e) {
            if (required) {
                throw new IllegalArgumentException("ALPSBRIDGE_LEDGER_HOOK_CONFIG names " + file + ", which does not exist");
            }
            return out;
        } catch (IOException e) {
            throw new IllegalArgumentException("the hooks' settings: " + org.alpsbridge.basil.cli.Failures.describe(e));
        }
        for (int n = 0; n < lines.size(); n++) {
            String line = lines.get(n).replaceFirst("#.*", "").strip();
            if (line.isEmpty()) {
                continue;
            }
            int eq = line.indexOf('=');
            if (eq < 1) {
                throw new IllegalArgumentException(file + ":" + (n + 1) + ": expected key=value, got '" + line + "'");
            }
            out.put(line.substring(0, eq).strip().toLowerCase(Locale.ROOT), line.substring(eq + 1).strip());
        }
        return out;
    }

    private static boolean policy(String v) {
        if (!v.equals("refuse") && !v.equals("allow")) {
            throw new IllegalArgumentException("when-unavailable takes refuse or allow, not '" + v + "'");
        }
        return v.equals("allow");
    }

    private static int count(String what, String v, int least) {
        try {
            return Math.max(least, checkedCount(v));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(what + " takes a whole number, not '" + v + "'");
        }
    }

    private static int checkedCount(String v) {
        int s = Integer.parseInt(v);
        if (s < 0) {
            throw new NumberFormatException();
        }
        return s;
    }
}
