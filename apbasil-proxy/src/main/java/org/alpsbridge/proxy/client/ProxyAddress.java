package org.alpsbridge.proxy.client;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;

/**
 * Where the daemon listens: {@code host:port}, {@code [v6addr]:port} or {@code unix:/path}.
 *
 * @param text the address as written
 */
public record ProxyAddress(String text, SocketAddress socketAddress) {

    public static ProxyAddress parse(String text) {
        if (text == null || text.isBlank()) {
            throw new IllegalArgumentException("empty proxy address; expected host:port or unix:/path");
        }
        String t = text.strip();
        if (t.startsWith("unix:")) {
            String path = t.substring("unix:".length());
            if (path.isEmpty()) {
                throw new IllegalArgumentException("unix: address without a path: " + text);
            }
            return new ProxyAddress(t, UnixDomainSocketAddress.of(Path.of(path)));
        }
        int colon = t.lastIndexOf(':');
        if (colon <= 0 || colon == t.length() - 1) {
            throw new IllegalArgumentException("proxy address " + text + " is not host:port or unix:/path");
        }
        String host = t.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(t.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("proxy address " + text + " has a port that is not a number");
        }
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("proxy address " + text + " has port " + port + " outside 0-65535");
        }
        return new ProxyAddress(t, InetSocketAddress.createUnresolved(host, port));
    }

    public boolean isUnix() {
        return socketAddress instanceof UnixDomainSocketAddress;
    }

    /** For TCP: the address resolved now (the record keeps it unresolved so parsing does no DNS). */
    SocketAddress resolved() {
        if (socketAddress instanceof InetSocketAddress inet && inet.isUnresolved()) {
            return new InetSocketAddress(inet.getHostString(), inet.getPort());
        }
        return socketAddress;
    }

    @Override
    public String toString() {
        return text;
    }
}
