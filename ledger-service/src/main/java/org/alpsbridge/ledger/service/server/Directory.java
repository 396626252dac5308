package org.alpsbridge.ledger.service.server;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

/**
 * A user's login name and groups, from {@code id(1)}: it asks NSS, so groups from LDAP or SSSD count as
 * they do for file permissions. Remembered for a while; a user unknown to NSS is its uid and gid alone.
 */
final class Directory {

    private record Entry(String user, Set<Integer> groups, long expiresNanos) {
    }

    private final long ttlNanos;
    private final Map<Integer, Entry> entries = new ConcurrentHashMap<>();

    Directory(int ttlSeconds) {
        this.ttlNanos = TimeUnit.SECONDS.toNanos(ttlSeconds);
    }

    Caller caller(int uid, int gid, Roles roles) {
        long now = System.nanoTime();
        Entry e = entries.get(uid);
        if (e == null || now - e.expiresNanos() > 0) {
            e = lookUp(uid, now + ttlNanos);
            entries.put(uid, e);
        }
        Set<Integer> groups = new LinkedHashSet<>(e.groups());
        groups.add(gid);
        return new Caller(uid, gid, e.user(), groups, roles.of(uid, groups));
    }

    private static Entry lookUp(int uid, long expires) {
        String name = id("-un", uid);
        Set<Integer> groups = new LinkedHashSet<>();
        String gids = id("-G", uid);
        if (gids != null) {
            for (String g : gids.split("\\s+")) {
                if (!g.isEmpty()) {
                    groups.add(Integer.parseInt(g));
                }
            }
        }
        return new Entry(name == null ? Integer.toString(uid) : name, groups, expires);
    }

    /** {@code id FLAG UID}'s one line, or null when id refuses (no such user). */
    private static String id(String flag, int uid) {
        try {
            Process p = new ProcessBuilder("id", flag, Integer.toString(uid)).redirectErrorStream(false).start();
            p.getErrorStream().close();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            return p.waitFor() == 0 && !out.isEmpty() ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }
}
