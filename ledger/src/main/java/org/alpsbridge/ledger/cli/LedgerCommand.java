package org.alpsbridge.ledger.cli;

import picocli.CommandLine.Command;

/** {@code alpsbridge ledger}: the front door of this module's command line. */
@Command(name = "ledger",
        mixinStandardHelpOptions = true,
        description = "The allocation ledger: projects, grants, reservations, balances.",
        subcommands = {})
public final class LedgerCommand {
}
