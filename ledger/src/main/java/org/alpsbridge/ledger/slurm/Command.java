package org.alpsbridge.ledger.slurm;

import java.util.List;
import java.util.stream.Collectors;

/** One {@code sacctmgr -i} call: its arguments after {@code -i}, each one argv element (no shell in between). */
record Command(List<String> args) {

    Command {
        args = List.copyOf(args);
    }

    static Command of(String... args) {
        return new Command(List.of(args));
    }

    /** As a shell line an operator can paste: {@code sacctmgr -i add account chem 'description=Chem [ledger:chem]'}. */
    String shell() {
        return "sacctmgr -i " + args.stream().map(Command::quote).collect(Collectors.joining(" "));
    }

    private static String quote(String arg) {
        return arg.matches("[A-Za-z0-9_.,=/:@+-]+") ? arg : "'" + arg.replace("'", "'\\''") + "'";
    }
}
