package org.alpsbridge.ledger;

import java.time.Instant;

/**
 * One change of a project's share, as the ledger's change journal keeps it (append-only, never updated).
 *
 * @param seq the change's place in the journal of changes (gapless, all projects)
 * @param field what changed: {@code description}, {@code organization}, {@code partitions}, {@code caps} or
 *     {@code members}
 * @param before the value before, as text ({@code ""}: unset)
 * @param after the value after
 * @param actor who changed it (the user name of the command's caller, or the service's authenticated caller)
 */
public record ProjectChange(long seq, String project, String field, String before, String after, String actor,
                            Instant at) {
}
