package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The proxy never runs its own drop-in client as its backend, however the client is reached. */
class OwnClientTest {

    @TempDir
    Path dir;

    private Path executable(String name, String text) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, text);
        assertTrue(p.toFile().setExecutable(true));
        return p;
    }

    /** A client installed beside the proxy, with nothing in it that names it (a native build could be anything). */
    private Path installedClient() throws IOException {
        Files.createDirectories(dir.resolve("usr/bin"));
        return executable("usr/bin/apbasil", "#!/bin/sh\nexit 0\n");
    }

    @Test
    void theInstalledClientItsLinksAndHardLinksAreRecognisedByIdentity() throws IOException {
        Path client = installedClient();
        OwnClient own = new OwnClient(List.of(client));
        assertEquals(Optional.of("it is the drop-in client installed with this proxy"), own.why(client));
        Path link = Files.createSymbolicLink(dir.resolve("apbasil-link"), client);
        assertTrue(own.why(link).orElseThrow().contains("same file (device and inode) as " + client), own.why(link).toString());
        Path hard = Files.createLink(dir.resolve("apbasil-hard"), client);
        assertTrue(own.why(hard).orElseThrow().contains("same file (device and inode) as " + client));
    }

    @Test
    void aCopyOfTheClientIsRecognisedByWhatItReads() throws IOException {
        Path copy = executable("apbasil", "#!/bin/bash\nexec java -cp x org.alpsbridge.proxy.client.Apbasil\n");
        assertTrue(new OwnClient(List.of()).why(copy).orElseThrow().contains("drop-in client"));
        Path nativeLike = dir.resolve("apbasil.bin");
        Files.write(nativeLike, new byte[] {0x7f, 'E', 'L', 'F', 0, 0, 'A', 'P', 'B', 'A', 'S', 'I', 'L', '_', 'P', 'R', 'O',
                'X', 'Y', 0, 1});
        assertTrue(new OwnClient(List.of()).why(nativeLike).orElseThrow().contains("APBASIL_PROXY"));
    }

    @Test
    void aScriptThatRunsTheClientIsRecognised() throws IOException {
        Path client = installedClient();
        Path wrapper = executable("site-apbasil", "#!/bin/sh\nexport TMPDIR=/tmp\nexec " + client + " \"$@\"\n");
        String why = new OwnClient(List.of(client)).why(wrapper).orElseThrow();
        assertTrue(why.startsWith("it is a script that runs " + client), why);
    }

    @Test
    void crayApbasilAndOtherProgramsAreNotTheClient() throws IOException {
        Path client = installedClient();
        Path cray = executable("cray-apbasil", "#!/bin/sh\n/usr/bin/env cat /etc/hostname >/dev/null\necho '<BasilResponse/>'\n");
        assertEquals(Optional.empty(), new OwnClient(List.of(client)).why(cray));
    }

    @Test
    void theProxyRefusesToStartOnItsClientAndSaysWhatToSet() throws IOException {
        Path copy = executable("apbasil", "#!/bin/sh\nAPBASIL_PROXY=127.0.0.1:6830 exec java Apbasil\n");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Backends.of("exec:" + copy, ProxyConfig.defaults()));
        assertTrue(e.getMessage().startsWith("backend exec:" + copy + " is refused: it is alpsbridge's drop-in client"),
                e.getMessage());
        assertTrue(e.getMessage().contains("this proxy would call itself"), e.getMessage());
        assertTrue(e.getMessage().contains("set backend= in the proxy's settings (/etc/alpsbridge/proxy.conf) or --backend"
                + " to Cray's apbasil, e.g. exec:/opt/cray/alps/default/bin/apbasil"), e.getMessage());
    }

    @Test
    void theDefaultBackendMissingSaysWhichKeyToSet() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> Backends.of(ProxyConfig.defaults().backend(), ProxyConfig.defaults()));
        assertTrue(e.getMessage().contains("/opt/cray/alps/default/bin/apbasil is not an executable file (no such file);"
                + " set backend="), e.getMessage());
    }

    @Test
    void thisCheckoutsClientIsRecognised() throws IOException {
        // The module's tests run from apbasil-proxy/, whose classes sit under the checkout with bin/apbasil.
        Path checkoutClient = Path.of("../bin/apbasil").toAbsolutePath().normalize();
        assertTrue(OwnClient.besideThisCode().why(checkoutClient).isPresent());
    }
}
