package org.alpsbridge.proxy.wire;

import java.util.Map;

/**
 * An operator command sent over the proxy connection, e.g. {@code stats} or {@code orphans}.
 *
 * @param name the command's name, as registered on the daemon
 * @param args its arguments, in the order sent
 */
public record AdminCommand(String name, Map<String, String> args) {

    public AdminCommand {
        args = Map.copyOf(args);
    }
}
