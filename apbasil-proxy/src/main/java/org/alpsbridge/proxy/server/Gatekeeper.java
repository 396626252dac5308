package org.alpsbridge.proxy.server;

import java.security.MessageDigest;
import org.alpsbridge.munge.Munge;
import org.alpsbridge.munge.MungeCredential;
import org.alpsbridge.munge.MungeException;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.proxy.wire.Exchange;

/**
 * Authentication and authorisation: who sent an exchange (MUNGE), and whether they may do what it asks
 * ({@code allow_query}, {@code allow_reserve}, {@code allow_admin}).
 */
final class Gatekeeper {

    private final Munge munge;
    private final AccessRule allowQuery;
    private final AccessRule allowReserve;
    private final AccessRule allowAdmin;

    /** {@code munge} null = authentication off: every caller is {@link Caller#UNAUTHENTICATED} and allowed. */
    Gatekeeper(Munge munge, AccessRule allowQuery, AccessRule allowReserve, AccessRule allowAdmin) {
        this.munge = munge;
        this.allowQuery = allowQuery;
        this.allowReserve = allowReserve;
        this.allowAdmin = allowAdmin;
    }

    /** A refused exchange; the message is what the caller and the log see. */
    static final class Refusal extends Exception {
        private final boolean retryable;

        Refusal(String message, boolean retryable) {
            super(message);
            this.retryable = retryable;
        }

        boolean isTransient() {
            return retryable;
        }
    }

    Caller authenticate(Exchange exchange) throws Refusal {
        if (munge == null) {
            return Caller.UNAUTHENTICATED;
        }
        if (exchange.credential().isEmpty()) {
            throw new Refusal("authentication failed: the request carries no MUNGE credential, but the daemon "
                    + "runs with auth=munge: set APBASIL_AUTH=munge (the default) on the client", false);
        }
        MungeCredential cred;
        try {
            cred = munge.decode(exchange.credential());
        } catch (MungeException e) {
            boolean retryable = e.isServiceFailure() || e.code() == MungeException.EXPIRED;
            throw new Refusal("authentication failed: " + e.getMessage(), retryable);
        }
        if (!MessageDigest.isEqual(cred.payload(), exchange.digest())) {
            throw new Refusal("authentication failed: the MUNGE credential (uid " + cred.uid()
                    + ") was made for a different request", false);
        }
        return new Caller(cred.uid(), cred.gid());
    }

    /** Checks a BASIL method; {@code method} null (unreadable) is held to the strictest rule. */
    void authorizeBasil(Caller caller, String method) throws Refusal {
        AccessRule rule = "QUERY".equals(method) ? allowQuery : allowReserve;
        check(caller, rule, method == null ? "this request" : method);
    }

    void authorizeAdmin(Caller caller, String command) throws Refusal {
        check(caller, allowAdmin, "admin command '" + command + "'");
    }

    private void check(Caller caller, AccessRule rule, String what) throws Refusal {
        if (munge == null) {
            return;
        }
        if (!rule.allows(caller)) {
            throw new Refusal("not authorised: uid " + caller.uid() + " gid " + caller.gid() + " may not send "
                    + what + " (rule " + rule + ")", false);
        }
    }
}
