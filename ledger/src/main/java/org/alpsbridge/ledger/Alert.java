package org.alpsbridge.ledger;

import java.time.Instant;

/**
 * Something an operator must look at: a forced entry, a conflicting duplicate, an unknown RELEASE, an
 * orphan charged in full. Also logged at WARN when it is raised.
 */
public record Alert(long id, Instant at, String kind, String key, String project, String message) {
}
