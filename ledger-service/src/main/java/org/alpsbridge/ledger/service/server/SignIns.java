package org.alpsbridge.ledger.service.server;

import org.alpsbridge.ledger.service.api.Requests;

/**
 * Issues web console sign-in links to callers the API authenticated ({@code POST /v1/web-login}): the
 * MUNGE identity cannot reach a browser, so a caller on a cluster host trades it for a single-use link.
 */
public interface SignIns {

    /** A new link for this uid (with auth=none: the unauthenticated superuser, uid -1). */
    Requests.SignInLink issue(int uid, int gid, String user, String role);
}
