package org.alpsbridge.affinity.spank;

import java.util.Arrays;
import org.alpsbridge.affinity.cli.AffinityCommand;
import picocli.CommandLine;

/**
 * The mask generator as the plugin calls it, {@code GENERATOR affinity ARGS...}, for the integration test: during
 * the affinity module's build the {@code bin/alpsbridge} launcher's jar does not exist yet, so the test runs the
 * same {@link AffinityCommand} from the module's classes through this entry point.
 */
public final class AffinityGenerator {

    private AffinityGenerator() {
    }

    public static void main(String[] args) {
        if (args.length == 0 || !args[0].equals("affinity")) {
            System.err.println("usage: AffinityGenerator affinity ARGS...");
            System.exit(2);
        }
        System.exit(new CommandLine(new AffinityCommand()).execute(Arrays.copyOfRange(args, 1, args.length)));
    }
}
