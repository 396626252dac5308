package org.alpsbridge.address;

import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.UnixDomainSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * Where the daemon listens: {@code host:port}, {@code [v6addr]:port} or {@code unix:/path}. A client may know
 * several proxies: {@link #parseList} reads them in the order they are tried.
 *
 * @param text the address as written
 */
public record ProxyAddress(String text, SocketAddress socketAddress) {

    /**
     * An ordered, comma-separated list of addresses (one address is a list of one). An empty entry is refused:
     * a stray comma is a typo, not a wish to skip a proxy. A unix socket path cannot itself contain a comma.
     */
    public static List<ProxyAddress> parseList(String text) {
        if (text == null || text.indexOf(',') < 0) {
            return List.of(parse(text));
        }
        String[] entries = text.strip().split(",", -1);
        List<ProxyAddress> out = new ArrayList<>(entries.length);
        for (int i = 0; i < entries.length; i++) {
            if (entries[i].isBlank()) {
                throw new IllegalArgumentException("proxy list " + text.strip() + " has an empty entry (number "
                        + (i + 1) + "); expected host:port or unix:/path, separated by commas");
            }
            out.add(parse(entries[i].strip()));
        }
        return out;
    }

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
    public SocketAddress resolved() {
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
