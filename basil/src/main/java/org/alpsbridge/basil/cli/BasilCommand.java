package org.alpsbridge.basil.cli;

import picocli.CommandLine.Command;

/** {@code alpsbridge basil}: the front door of this module's command line. */
@Command(name = "basil",
        mixinStandardHelpOptions = true,
        description = "BASIL documents: check, request, convert, geometry, emulate, bench.",
        subcommands = {
                CheckCommand.class,
                RequestCommand.class,
                ConvertCommand.class,
                GeometryCommand.class,
                EmulateCommand.class,
                BenchCommand.class,
        })
public final class BasilCommand {
}
