package org.alpsbridge.ledger.service.cli;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.alpsbridge.ledger.Ledger;
import org.alpsbridge.ledger.LedgerException;
import org.alpsbridge.ledger.cli.LedgerCommand;
import org.alpsbridge.ledger.service.console.Console;
import org.alpsbridge.ledger.service.server.LedgerServer;
import org.alpsbridge.ledger.service.server.ServiceSettings;
import org.alpsbridge.ledger.service.server.ServiceSettings.Key;
import org.alpsbridge.settings.SettingsFile;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;
import picocli.CommandLine.Spec;

/** {@code alpsbridge ledger serve}: the ledger as a site service. */
@Command(name = "serve",
        mixinStandardHelpOptions = true,
        description = {"Serves the ledger named by --db over HTTP/JSON, so that every cluster, the Slurm hooks and",
                "users' `alpsbridge ledger --db http://HOST:PORT ...` commands charge and read one ledger.",
                "Each request carries the caller's MUNGE credential (bound to its method, path and body;",
                "munged refuses expired and replayed ones). Roles by uid/gid from --config: superuser",
                "(uid 0 unless set: everything), admin (reads everything, sends job events for any user: give",
                "it to SlurmUser), standard (everyone else: reads the projects of its Unix groups and its own",
                "jobs). A refusal is HTTP 403 naming the rule. GET /openapi.json describes the API.",
                "With tls_cert and tls_key in --config, TCP addresses speak HTTPS.",
                "The bookkeepers' web console is at / (console=true); a browser signs in with the single-use link",
                "that `alpsbridge ledger web-login` prints.",
                "Stops on SIGTERM/SIGINT."},
        footer = {"", "Examples:",
                "  alpsbridge ledger serve --db sqlite:/var/lib/alpsbridge/ledger.db --listen 127.0.0.1:7070",
                "  alpsbridge ledger serve --config /etc/alpsbridge/ledger-service.conf",
                "  alpsbridge ledger --db http://ledger-host:7070 balance chem      (what users type)",
                "",
                "Exit codes: 0 stopped cleanly; 1 could not start (reason on stderr); 2 usage error."})
public final class ServeCommand implements Callable<Integer> {

    @ParentCommand
    LedgerCommand ledgerCommand;

    @Spec
    CommandSpec spec;

    @Option(names = "--config", paramLabel = "FILE",
            description = "key=value settings file (default: none, every key at its default)")
    Path config;

    @Option(names = "--listen", paramLabel = "ADDRESS",
            description = "HOST:PORT or unix:/PATH; repeat for several (default: listen= of --config, else 127.0.0.1:7070)")
    List<String> listen = new ArrayList<>();

    @Option(names = "--auth", paramLabel = "munge|none",
            description = "munge (default): every request carries a MUNGE credential; none: every caller is a"
                    + " superuser, refused on non-loopback addresses (labs only)")
    String auth;

    /** The settings as the file and options say, options winning. */
    ServiceSettings settings() {
        ServiceSettings s = config == null ? ServiceSettings.defaults() : ServiceSettings.load(config);
        if (!listen.isEmpty()) {
            s = s.with(Key.LISTEN, String.join(",", listen));
        }
        if (auth != null) {
            s = s.with(Key.AUTH, auth);
        }
        String db = ledgerCommand.dbOption();
        if (db != null) {
            s = s.with(Key.DB, db);
        } else if (s.get(Key.DB).isEmpty()) {
            try {
                s = s.with(Key.DB, ledgerCommand.url());
            } catch (LedgerException e) {
                throw new LedgerException(e.getMessage() + "; for the service, db= in "
                        + (config == null ? "its --config file" : config.toString()) + " works too");
            }
        }
        return s;
    }

    @Override
    public Integer call() {
        ServiceSettings s;
        try {
            s = settings();
        } catch (IllegalArgumentException | LedgerException e) {
            spec.commandLine().getErr().println("ledger serve: " + org.alpsbridge.failure.Failures.describe(e));
            return 1;
        }
        String db = s.get(Key.DB);
        if (db.matches("(?i)https?://.*")) {
            spec.commandLine().getErr().println("ledger serve: --db " + db + " is a service; serve a store"
                    + " (sqlite:PATH or jdbc:postgresql://...)");
            return 1;
        }
        Ledger ledger;
        LedgerServer server;
        try {
            ledger = Ledger.open(db, true, s.store());
        } catch (LedgerException e) {
            spec.commandLine().getErr().println("ledger serve: " + org.alpsbridge.failure.Failures.describe(e));
            return 1;
        }
        try {
            server = LedgerServer.start(ledger, s, version(), Console.of(s));
        } catch (Exception e) {
            ledger.close();
            spec.commandLine().getErr().println("ledger serve: " + org.alpsbridge.failure.Failures.describe(e));
            return 1;
        }
        spec.commandLine().getErr().println("ledger serve: listening on " + server.addresses() + ", " + ledger
                + (s.mungeAuth() ? "" : " (auth=none: every caller is a superuser)"));
        spec.commandLine().getErr().flush();
        untilStopped(() -> {
            server.close();
            ledger.close();
        }, "ledger-service-shutdown");
        return 0;
    }

    /** Waits for SIGTERM/SIGINT, then runs {@code close} (a resident command's last act). */
    static void untilStopped(Runnable close, String threadName) {
        CountDownLatch stopped = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            close.run();
            stopped.countDown();
        }, threadName));
        try {
            stopped.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static String version() {
        String v = ServeCommand.class.getPackage().getImplementationVersion();
        return v == null ? "development" : v;
    }

    /**
     * Adds {@code serve} (with {@code web-login}, its console's way in, and {@code hook-agent}, its Slurm hooks' resident half) to the {@code ledger} command (which lives in the ledger module, that knows no
     * service), its help listing every settings key with its default.
     */
    public static void install(CommandLine ledger) {
        CommandLine serve = new CommandLine(new ServeCommand());
        List<String> footer = new ArrayList<>(List.of("", "Settings file keys (--config FILE, key=value, '#' comments;"
                + " every key optional, shown with its default):"));
        footer.addAll(SettingsFile.table(ServiceSettings.settings()));
        footer.addAll(List.of(serve.getCommandSpec().usageMessage().footer()));
        serve.getCommandSpec().usageMessage().footer(footer.toArray(String[]::new));
        ledger.addSubcommand("serve", serve);
        ledger.addSubcommand("web-login", new CommandLine(new WebLoginCommand()));
        ledger.addSubcommand("hook-agent", new CommandLine(new HookAgentCommand()));
    }
}
