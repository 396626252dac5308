package org.alpsbridge.proxy.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.alpsbridge.proxy.backend.Backend;
import org.alpsbridge.proxy.server.Backends;
import org.alpsbridge.proxy.server.ProxyConfig;
import org.alpsbridge.proxy.server.ProxyDaemon;
import org.alpsbridge.settings.SettingsFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code alpsbridge proxy serve}: runs the daemon until SIGTERM/SIGINT, then stops gracefully. */
@Command(name = "serve",
        mixinStandardHelpOptions = true,
        description = {
            "Runs the apbasil proxy daemon on the service node: answers BASIL requests from bin/apbasil",
            "clients through the real apbasil (exec:) or the in-process ALPS emulator (emulator:).",
            "Settings come from --config (key=value, like cray.conf; every key is listed below);",
            "flags override the file. SIGTERM or Ctrl-C stops it after requests in flight finish."},
        footer = {"", "Examples:",
            "  alpsbridge proxy serve --listen 0.0.0.0:6830 --backend exec:/opt/cray/alps/default/bin/apbasil",
            "  alpsbridge proxy serve --listen unix:/run/alpsbridge/apbasil.sock --backend emulator:xc30:2256 --auth none",
            "", "Exit codes: 0 stopped cleanly, 1 could not start (reason on stderr), 2 usage error."})
public final class ProxyServeCommand implements Callable<Integer> {

    @Option(names = "--config", paramLabel = "FILE", description = "key=value settings file (default: none, all defaults)")
    Path config;

    @Option(names = "--listen", paramLabel = "ADDRESS",
            description = "host:port or unix:/path; repeat for several (default 127.0.0.1:6830)")
    List<String> listen = new ArrayList<>();

    @Option(names = "--backend", paramLabel = "SPEC",
            description = "exec:PATH of Cray's apbasil (default exec:/opt/cray/alps/default/bin/apbasil; never the drop-in"
                    + " client /usr/bin/apbasil, which calls a proxy) or emulator:SPEC, e.g. emulator:xc30:2256")
    String backend;

    @Option(names = "--auth", paramLabel = "munge|none",
            description = "munge (default): every request carries a MUNGE credential; none: lab use on loopback only")
    String auth;

    @Option(names = "--set", paramLabel = "KEY=VALUE", description = "any config key, e.g. --set apbasil_timeout=120")
    Map<String, String> set = new LinkedHashMap<>();

    @picocli.CommandLine.Mixin
    PolicyOptions policy = new PolicyOptions();

    @picocli.CommandLine.Mixin
    org.alpsbridge.proxy.ledger.LedgerOptions ledger = new org.alpsbridge.proxy.ledger.LedgerOptions();

    /** Lists every settings key with its default and meaning in {@code serve}'s help (and so its manual page). */
    public static void listSettings(CommandLine serve) {
        List<String> footer = new ArrayList<>(List.of("", "Settings file keys (--config FILE, key=value, '#' comments;"
                + " --set KEY=VALUE; every key optional, shown with its default):"));
        footer.addAll(SettingsFile.table(ProxyConfig.settings()));
        footer.addAll(List.of(serve.getCommandSpec().usageMessage().footer()));
        serve.getCommandSpec().usageMessage().footer(footer.toArray(String[]::new));
    }

    @Override
    public Integer call() throws Exception {
        ProxyDaemon daemon = start();
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            daemon.close();
            stopped.countDown();
        }, "apbasil-proxy-shutdown"));
        System.err.println("apbasil proxy: listening on " + daemon.addresses() + ", backend " + daemon.backend().describe());
        stopped.await();
        return 0;
    }

    /** The daemon as the options describe it, started. */
    ProxyDaemon start() throws Exception {
        return start(null);
    }

    /**
     * The same with {@code cray} as the backend instead of {@code --backend}'s, when given: two proxies of a pair in
     * one test process in front of one emulated Cray.
     */
    ProxyDaemon start(Backend cray) throws Exception {
        ProxyConfig cfg = config == null ? ProxyConfig.defaults() : ProxyConfig.read(config);
        Map<String, String> flags = new LinkedHashMap<>(set);
        if (!listen.isEmpty()) {
            flags.put(ProxyConfig.Key.LISTEN.key(), String.join(",", listen));
        }
        if (backend != null) {
            flags.put(ProxyConfig.Key.BACKEND.key(), backend);
        }
        if (auth != null) {
            flags.put(ProxyConfig.Key.AUTH.key(), auth);
        }
        cfg = cfg.with(flags);
        Backend chosen = cray != null ? cray : Backends.of(cfg.backend(), cfg);
        ProxyDaemon.Builder builder = ProxyDaemon.builder().config(cfg).backend(chosen);
        policy.decorate(builder, chosen, ledger);
        return builder.start();
    }
}
