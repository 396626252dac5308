package org.alpsbridge.ledger.slurm;

import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Which Slurm accounts are the ledger's: those whose description ends with {@code [ledger:PROJECT]}, the mark the
 * sync writes when it creates (or is told to adopt) an account. Kept in slurmdbd itself, so it survives a ledger
 * restored from a backup and shows in {@code sacctmgr show account}; a site's own accounts never carry it.
 */
final class Ownership {

    private static final Pattern MARK = Pattern.compile("(?i)(?:^|\\s)\\[ledger:([A-Za-z0-9_.@-]{1,64})]$");

    private Ownership() {
    }

    static String mark(String project) {
        return "[ledger:" + project + "]";
    }

    /** The project named by a description's mark (lower case: slurmdbd may lower-case it), or null when unmarked. */
    static String owner(String description) {
        Matcher m = MARK.matcher(description == null ? "" : description.strip());
        return m.find() ? m.group(1).toLowerCase(Locale.ROOT) : null;
    }
}
