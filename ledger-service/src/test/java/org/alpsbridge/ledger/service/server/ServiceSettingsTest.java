package org.alpsbridge.ledger.service.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Set;
import org.alpsbridge.settings.SettingsDocs;
import org.junit.jupiter.api.Test;

/** The service's settings file: every key has a default, and nothing wrong is taken silently. */
class ServiceSettingsTest {

    @Test
    void anEmptyFileIsEveryDefaultRootAloneSuperuserAndMungeOn() {
        ServiceSettings s = ServiceSettings.parse("empty.conf", "# nothing\n\n");
        assertEquals(List.of("127.0.0.1:7070"), s.listen());
        assertTrue(s.mungeAuth());
        assertEquals(Set.of(0), s.ids(ServiceSettings.Key.SUPERUSER_UIDS));
        assertEquals(Set.of(), s.ids(ServiceSettings.Key.ADMIN_UIDS));
        assertFalse(s.standardJobEvents());
    }

    @Test
    void aMissingFileSaysSoAndWhereThePackagesOneIs() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServiceSettings.load(java.nio.file.Path.of("/etc/alpsbridge/ledger-srvice.conf")));
        assertEquals("the ledger service's settings file: cannot use /etc/alpsbridge/ledger-srvice.conf: no such file or"
                + " directory; check the path (a typo?) or create it (the package installs /etc/alpsbridge/ledger-service.conf;"
                + " without --config every key is at its default)", e.getMessage());
    }

    @Test
    void valuesAreReadWithCommentsAndSpacesAroundThem() {
        ServiceSettings s = ServiceSettings.parse("site.conf", "listen = 127.0.0.1:7070, unix:/run/ledger.sock\n"
                + "ADMIN_UIDS=64030 # slurm\nstandard_job_events=true\n");
        assertEquals(List.of("127.0.0.1:7070", "unix:/run/ledger.sock"), s.listen());
        assertEquals(Set.of(64030), s.ids(ServiceSettings.Key.ADMIN_UIDS));
        assertTrue(s.standardJobEvents());
    }

    @Test
    void anUnknownKeyIsRefusedWithFileLineAndTheKnownKeys() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ServiceSettings.parse("site.conf", "listen=127.0.0.1:7070\nadmin_uid=64030\n"));
        assertTrue(e.getMessage().startsWith("site.conf:2: unknown key 'admin_uid'"), e.getMessage());
        assertTrue(e.getMessage().contains("admin_uids"), e.getMessage());
    }

    @Test
    void aBadValueIsRefusedWithFileLineAndWhatIsExpected() {
        IllegalArgumentException ids = assertThrows(IllegalArgumentException.class,
                () -> ServiceSettings.parse("site.conf", "\nsuperuser_uids=root\n"));
        assertTrue(ids.getMessage().startsWith("site.conf:2: superuser_uids=root: 'root' is not a uid/gid"),
                ids.getMessage());
        IllegalArgumentException auth = assertThrows(IllegalArgumentException.class,
                () -> ServiceSettings.parse("site.conf", "auth=kerberos"));
        assertTrue(auth.getMessage().contains("expected munge or none"), auth.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ServiceSettings.parse("site.conf", "workers=0"));
        assertThrows(IllegalArgumentException.class, () -> ServiceSettings.parse("site.conf", "listen=nowhere"));
        assertThrows(IllegalArgumentException.class, () -> ServiceSettings.parse("site.conf", "just words"));
    }

    @Test
    void theTemplateShowsEveryKeyAtItsDefaultAndParsesToTheDefaults() {
        String template = ServiceSettings.template();
        for (ServiceSettings.Key k : ServiceSettings.Key.values()) {
            assertTrue(template.contains("#" + k.key() + "=" + k.defaultValue() + "\n"), k.key());
        }
        assertEquals(ServiceSettings.defaults().listen(), ServiceSettings.parse("t", template).listen());
    }

    @Test
    void theLedgerReadmeDocumentsEveryKeyAtItsDefaultAndNothingElse() throws Exception {
        assertEquals(SettingsDocs.declared(ServiceSettings.settings()), SettingsDocs.readmeTable(
                java.nio.file.Path.of("../docs/admin-ledger.md"), "`serve` options:"));
    }

    @Test
    void anOptionOverridesTheFileAndIsCheckedLikeIt() {
        ServiceSettings s = ServiceSettings.parse("site.conf", "auth=munge").with(ServiceSettings.Key.AUTH, "none");
        assertFalse(s.mungeAuth());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> s.with(ServiceSettings.Key.AUTH, "maybe"));
        assertTrue(e.getMessage().startsWith("--auth: auth=maybe"), e.getMessage());
    }
}
