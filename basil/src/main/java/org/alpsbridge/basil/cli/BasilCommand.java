package org.alpsbridge.basil.cli;

import picocli.CommandLine.Command;

/**
 * {@code alpsbridge basil}: the front door of this module's command line. {@code emulate} lives in the alps-emulator
 * module, which the launcher installs here ({@code EmulateCommand.install}): the protocol knows no emulator.
 */
@Command(name = "basil",
        mixinStandardHelpOptions = true,
        description = "BASIL documents: check, request, convert, geometry, emulate, bench.",
        subcommands = {
                CheckCommand.class,
                RequestCommand.class,
                ConvertCommand.class,
                GeometryCommand.class,
                BenchCommand.class,
        })
public final class BasilCommand {
}
