package org.alpsbridge.ledger.service.server;

import java.util.Set;

/** The role of a uid and its groups, from the settings' {@code superuser_*}, {@code admin_*} and {@code charger_*} lists. */
final class Roles {

    private final Set<Integer> superuserUids;
    private final Set<Integer> superuserGids;
    private final Set<Integer> adminUids;
    private final Set<Integer> adminGids;
    private final Set<Integer> chargerUids;
    private final Set<Integer> chargerGids;

    Roles(ServiceSettings settings) {
        this.superuserUids = settings.ids(ServiceSettings.Key.SUPERUSER_UIDS);
        this.superuserGids = settings.ids(ServiceSettings.Key.SUPERUSER_GIDS);
        this.adminUids = settings.ids(ServiceSettings.Key.ADMIN_UIDS);
        this.adminGids = settings.ids(ServiceSettings.Key.ADMIN_GIDS);
        this.chargerUids = settings.ids(ServiceSettings.Key.CHARGER_UIDS);
        this.chargerGids = settings.ids(ServiceSettings.Key.CHARGER_GIDS);
    }

    Role of(int uid, Set<Integer> groups) {
        if (superuserUids.contains(uid) || groups.stream().anyMatch(superuserGids::contains)) {
            return Role.SUPERUSER;
        }
        if (adminUids.contains(uid) || groups.stream().anyMatch(adminGids::contains)) {
            return Role.ADMIN;
        }
        if (chargerUids.contains(uid) || groups.stream().anyMatch(chargerGids::contains)) {
            return Role.CHARGER;
        }
        return Role.STANDARD;
    }
}
