package org.alpsbridge.proxy.server;

import java.util.Map;
import org.alpsbridge.proxy.backend.Caller;

/**
 * An operator command the daemon runs on request ({@code alpsbridge proxy stats}, {@code orphans}, ...),
 * registered with {@link ProxyDaemon.Builder#admin}. Runs on a worker thread; callers reach it through
 * {@code Apbasil.admin}. Only callers allowed by {@code allow_admin} get here.
 */
@FunctionalInterface
public interface AdminHandler {

    /**
     * @return the command's output, sent back as it is
     * @throws Exception its message is what the operator sees
     */
    byte[] handle(Map<String, String> args, Caller caller) throws Exception;
}
