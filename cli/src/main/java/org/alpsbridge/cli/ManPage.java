package org.alpsbridge.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import picocli.CommandLine;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * One command's manual page in troff ({@code man(7)} macros), made from its picocli definition: the same
 * descriptions, options and defaults as its {@code --help}, so the two cannot drift. The page of
 * {@code alpsbridge proxy serve} is {@code alpsbridge-proxy-serve(1)}, as git names its pages.
 */
final class ManPage {

    private final CommandLine command;
    private final String version;

    ManPage(CommandLine command, String version) {
        this.command = command;
        this.version = version;
    }

    /** {@code alpsbridge-proxy-serve} for {@code alpsbridge proxy serve}. */
    static String pageName(CommandSpec spec) {
        return spec.qualifiedName("-");
    }

    String render() {
        CommandSpec spec = command.getCommandSpec();
        String name = pageName(spec);
        StringBuilder out = new StringBuilder();
        out.append(".\\\" Generated from the picocli definition of '").append(spec.qualifiedName(" "))
                .append("'; do not edit.\n");
        out.append(".TH \"").append(name.toUpperCase(java.util.Locale.ROOT)).append("\" 1 \"\" \"alpsbridge ")
                .append(version).append("\" \"alpsbridge manual\"\n");
        out.append(".SH NAME\n").append(escape(name)).append(" \\- ").append(escape(summary(spec))).append('\n');
        out.append(".SH SYNOPSIS\n.nf\n")
                .append(escape(command.getHelp().synopsis(0).stripTrailing())).append("\n.fi\n");
        out.append(".SH DESCRIPTION\n");
        paragraphs(out, spec.usageMessage().description());
        List<PositionalParamSpec> positionals = spec.positionalParameters().stream().filter(p -> !p.hidden()).toList();
        if (!positionals.isEmpty()) {
            out.append(".SH ARGUMENTS\n");
            for (PositionalParamSpec p : positionals) {
                out.append(".TP\n\\fI").append(escape(p.paramLabel())).append("\\fR\n");
                describe(out, p);
            }
        }
        List<OptionSpec> options = spec.options().stream().filter(o -> !o.hidden()).toList();
        if (!options.isEmpty()) {
            out.append(".SH OPTIONS\n");
            for (OptionSpec o : options) {
                out.append(".TP\n\\fB").append(escape(String.join(", ", o.names()))).append("\\fR");
                if (o.arity().max() > 0) {
                    out.append(" \\fI").append(escape(o.paramLabel())).append("\\fR");
                }
                out.append('\n');
                describe(out, o);
            }
        }
        Map<String, CommandLine> subs = command.getSubcommands();
        if (!subs.isEmpty()) {
            out.append(".SH COMMANDS\n");
            subs.forEach((subName, sub) -> {
                if (!sub.getCommandSpec().usageMessage().hidden() && subName.equals(sub.getCommandName())) {
                    out.append(".TP\n\\fB").append(escape(subName)).append("\\fR\n")
                            .append(escape(summary(sub.getCommandSpec()))).append(" See \\fB")
                            .append(escape(pageName(sub.getCommandSpec()))).append("\\fR(1).\n");
                }
            });
        }
        String[] footer = spec.usageMessage().footer();
        if (footer.length > 0) {
            out.append(".SH NOTES\n");
            paragraphs(out, footer);
        }
        out.append(".SH SEE ALSO\n");
        List<String> see = new ArrayList<>();
        if (spec.parent() != null) {
            see.add("\\fB" + escape(pageName(spec.parent())) + "\\fR(1)");
        }
        for (CommandLine sub : subs.values()) {
            String page = "\\fB" + escape(pageName(sub.getCommandSpec())) + "\\fR(1)";
            if (!sub.getCommandSpec().usageMessage().hidden() && !see.contains(page)) {
                see.add(page);
            }
        }
        see.add("\\fB" + escape(name) + " \\-\\-help\\fR");
        out.append(String.join(",\n", see)).append('\n');
        return out.toString();
    }

    /** The command's first sentence, as the launcher's command lists show it. */
    static String summary(CommandSpec spec) {
        String s = Main.firstSentence(spec);
        return s.endsWith(".") ? s.substring(0, s.length() - 1) : s;
    }

    private static void describe(StringBuilder out, ArgSpec arg) {
        String text = String.join(" ", arg.description()).replaceAll("\\s+", " ").strip();
        String def = arg.defaultValueString();
        boolean emptyCollection = "{}".equals(def) || "[]".equals(def);
        // required within an optional group (--from with --to) is not required of the command
        if (arg.required() && arg.isOption() && arg.group() == null) {
            // a required option's "default" is only its field's initial value (0 for an int): never shown
            text = text + (text.isEmpty() ? "" : " ") + "Required.";
        } else if (def != null && !def.isEmpty() && !"null".equals(def) && !emptyCollection && !text.contains("Default")
                && !text.contains("default")) {
            text = text + (text.isEmpty() ? "" : " ") + "Default: " + def + ".";
        }
        out.append(escape(text)).append('\n');
    }

    /**
     * Description lines as the help writes them: a blank line separates paragraphs, and lines that start
     * with spaces (examples, tables) keep their layout.
     */
    private static void paragraphs(StringBuilder out, String[] lines) {
        boolean verbatim = false;
        StringBuilder para = new StringBuilder();
        for (String raw : lines) {
            String line = raw.stripTrailing();
            boolean indented = line.startsWith(" ");
            if (line.isEmpty() || indented != verbatim) {
                flush(out, para, verbatim);
                verbatim = indented;
                if (line.isEmpty()) {
                    continue;
                }
            }
            para.append(line).append('\n');
        }
        flush(out, para, verbatim);
    }

    private static void flush(StringBuilder out, StringBuilder para, boolean verbatim) {
        if (para.length() == 0) {
            return;
        }
        if (verbatim) {
            out.append(".PP\n.nf\n").append(escape(para.toString().stripTrailing())).append("\n.fi\n");
        } else {
            out.append(".PP\n").append(escape(para.toString().replaceAll("\\s+", " ").strip())).append('\n');
        }
        para.setLength(0);
    }

    /** Text safe for troff: backslashes doubled, hyphens as minus signs, no line starting a request. */
    static String escape(String text) {
        String s = text.replace("\\", "\\e").replace("-", "\\-");
        StringBuilder out = new StringBuilder();
        for (String line : s.split("\n", -1)) {
            if (out.length() > 0) {
                out.append('\n');
            }
            if (line.startsWith(".") || line.startsWith("'")) {
                out.append("\\&");
            }
            out.append(line);
        }
        return out.toString();
    }
}
