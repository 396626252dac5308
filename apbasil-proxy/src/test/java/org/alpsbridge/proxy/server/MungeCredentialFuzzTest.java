package org.alpsbridge.proxy.server;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;
import org.alpsbridge.munge.Munge;
import org.alpsbridge.proxy.backend.Caller;
import org.alpsbridge.munge.MungeDaemon;
import org.alpsbridge.proxy.wire.Exchange;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * Coverage-guided fuzzing of the daemon's MUNGE check against a real munged: any credential text (garbage,
 * a real credential damaged, a real one for another request, one replayed) is refused with a reason, and
 * none lets a request through but the real credential made for exactly that request, once.
 */
class MungeCredentialFuzzTest {

    private static MungeDaemon munged;
    private static Munge munge;
    private static Gatekeeper gatekeeper;

    @BeforeAll
    static void start() throws Exception {
        munged = MungeDaemon.start();
        munge = Munge.socket(munged.socket());
        gatekeeper = new Gatekeeper(munge, AccessRule.parse("allow_query", "*"),
                AccessRule.parse("allow_reserve", "*"), AccessRule.parse("allow_admin", "*"));
    }

    @AfterAll
    static void stop() throws Exception {
        if (munged != null) {
            munged.close();
        }
    }

    @FuzzTest
    void onlyTheRealCredentialForThisRequestPasses(FuzzedDataProvider data) throws Exception {
        byte[] payload = data.consumeBytes(data.consumeInt(0, 512));
        Exchange request = new Exchange(Exchange.Kind.BASIL, "fuzz-" + data.consumeInt(), "", payload);
        String credential;
        boolean genuine = false;
        switch (data.consumeInt(0, 3)) {
            case 0 -> { // a real credential for this request, possibly damaged
                String original = munge.encode(request.digest(), 0);
                int at = data.consumeInt(0, original.length());
                String patch = data.consumeAsciiString(8);
                credential = original.substring(0, at) + patch + original.substring(Math.min(original.length(), at + patch.length()));
                genuine = credential.equals(original);
            }
            case 1 -> credential = munge.encode(("another request " + data.consumeInt()).getBytes(StandardCharsets.UTF_8), 0);
            default -> credential = data.consumeRemainingAsAsciiString();
        }
        try {
            Caller caller = gatekeeper.authenticate(request.withCredential(credential));
            if (!genuine) {
                // Only the untouched credential for this very request may pass.
                fail("a credential not made for this request passed as uid " + caller.uid() + ": " + credential);
            }
        } catch (Gatekeeper.Refusal refused) {
            assertTrue(refused.getMessage() != null && refused.getMessage().startsWith("authentication failed"),
                    "a refusal says why: " + refused.getMessage());
        }
    }
}
