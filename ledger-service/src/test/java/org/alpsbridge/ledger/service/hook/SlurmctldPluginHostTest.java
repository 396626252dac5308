package org.alpsbridge.ledger.service.hook;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.alpsbridge.slurm.harness.Programs;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * slurmctld's plugins as built, in stand-in slurmctlds. site_factor_ledger.so ({@code src/test/c/site-factor-host.c})
 * under ThreadSanitizer: submissions beside 22.05's reconfigure touch no state unlocked. The PrEp plugin
 * (prep_ledger.so) inside {@code src/test/c/prep-host.c},
 * built plain, under ThreadSanitizer and under AddressSanitizer with UndefinedBehaviorSanitizer: its four workers
 * log every line of 1,000 concurrent prologs and epilogs under its own job; an agent that never accepts costs a
 * prolog agent_timeout, not for ever; the queue's bound answers what is over it; fini returns with the job write
 * lock held while a worker waits for that lock in slurmctld's callback; with no agent, the JVM hook's fallback has a
 * deadline, an empty signal mask and none of slurmctld's descriptors. Built against Debian's Slurm source
 * ({@code .ci/slurm-plugin-source}); skipped without it.
 */
class SlurmctldPluginHostTest {

    private static final Path MODULE = Path.of(System.getProperty("user.dir"));

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"", "thread", "address,undefined"})
    void everyLineOfAThousandConcurrentCallsIsUnderItsOwnJob(String sanitizer) throws Exception {
        Path host = build(sanitizer);
        String out = host(host, sanitizer, "storm", "1000");
        assertTrue(out.contains("storm: 1000 prologs and 1000 epilogs; reported 1000 and 1000; 0 not exit 0;"
                + " 0 lines under another job; 0 lost"), out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "thread", "address,undefined"})
    void anAgentThatNeverAcceptsCostsAPrologItsAgentTimeoutAndFiniReturns(String sanitizer) throws Exception {
        Path host = build(sanitizer);
        String out = host(host, sanitizer, "stalled");
        // the host fails unless the prolog was answered exit 3 within 4 s (agent_timeout=2) and fini returned
        assertTrue(out.contains("stalled: 1 of 1 prologs answered in") && out.contains("1 of them exit 3; fini returned"),
                out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "thread"})
    void prologsOverTheQueuesBoundAreAnsweredUnavailable(String sanitizer) throws Exception {
        Path host = build(sanitizer);
        String out = host(host, sanitizer, "overflow", "4096");
        assertTrue(out.contains("overflow: 10 of 4106 prologs answered in") && out.contains("fini returned"), out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "thread", "address,undefined"})
    void finiReturnsWhileAWorkerWaitsForTheJobLockItsCallerHolds(String sanitizer) throws Exception {
        Path host = build(sanitizer);
        String out = host(host, sanitizer, "reconfigure");
        assertTrue(out.contains("fini returned in") && out.contains("the prolog was reported once the lock was free"),
                out);
    }

    /**
     * No agent: the JVM hook runs with every signal unblocked though slurmctld's threads block some, without
     * slurmctld's descriptors, and is killed at agent_timeout (exit 3). The stand-in hook says its mask and its
     * descriptors, then sleeps for 30 s.
     */
    @ParameterizedTest
    @ValueSource(strings = {"", "address,undefined"})
    void theJvmHookFallbackIsBoundedAndGetsACleanMaskAndNoDescriptorOfSlurmctlds(String sanitizer) throws Exception {
        Path host = build(sanitizer);
        if (Programs.find("python3") == null) {
            Programs.unavailable("python3 is not installed: the stand-in JVM hook is a Python script");
        }
        Path hook = dir.resolve("jvm-hook");
        Files.writeString(hook, String.join("\n", "#!/usr/bin/env python3", "import os, time",
                "print([l for l in open('/proc/self/status') if l.startswith('SigBlk:')][0].strip(), flush=True)",
                "fds = []", "for f in os.listdir('/proc/self/fd'):", "    try:",
                "        fds.append(f + ' -> ' + os.readlink('/proc/self/fd/' + f))", "    except OSError:",
                "        pass", "print('fds: ' + ' '.join(fds), flush=True)", "time.sleep(30)", ""));
        hook.toFile().setExecutable(true);
        Path marker = Files.writeString(dir.resolve("slurmctld-own-file"), "");
        String out = host(host, sanitizer, "fallback", List.of(), "jvm_hook=" + hook + "\n", marker.toString());
        assertTrue(out.contains("was reported in") && out.contains("status 768; its signal mask empty;"
                + " slurmctld's descriptor closed"), out);
    }

    @Test
    void theSiteFactorPluginsStateIsLockedAgainstReconfigure() throws Exception {
        Path host = build("thread").resolveSibling("site-factor-host");
        Path factors = Files.writeString(dir.resolve("site-factors"), "acct1 7\n");
        Programs.Result r = Programs.run(List.of(host.toString(), host.resolveSibling("site_factor_ledger.so").toString(),
                factors.toString(), "2000"), Map.of("TSAN_OPTIONS", "halt_on_error=1 exitcode=66"), Duration.ofMinutes(5));
        String said = r.out() + r.err();
        assertFalse(said.contains("Sanitizer"), said);
        assertEquals(0, r.exit(), said);
        assertTrue(r.out().contains("2000 submissions beside 2000 reconfigures, 0 with another factor"), said);
    }

    /** Both plugins log through Slurm's own functions by their Slurm-only names, never glibc's error(3). */
    @Test
    void bothPluginsImportSlurmsLoggingNotGlibcs() throws Exception {
        Path out = build("").getParent();
        for (String plugin : List.of("prep_ledger.so", "site_factor_ledger.so")) {
            Programs.Result nm = Programs.run(List.of("nm", "-D", "--undefined-only", out.resolve(plugin).toString()),
                    Map.of(), Duration.ofSeconds(30));
            assertEquals(0, nm.exit(), nm.err());
            List<String> imported = nm.out().lines().map(l -> l.strip().replaceFirst("^[wU] ", "")).toList();
            assertTrue(imported.contains("slurm_error"), plugin + " imports " + imported);
            assertFalse(imported.stream().anyMatch(s -> s.equals("error") || s.startsWith("error@")),
                    plugin + " binds error(3) by a name glibc also has: " + imported);
        }
    }

    /** The stand-in host and the plugins, built with `sanitizer` ("" for none) into a directory of their own. */
    private static synchronized Path build(String sanitizer) throws Exception {
        for (String p : List.of("make", "cc", "nm")) {
            if (Programs.find(p) == null) {
                Programs.unavailable(p + " is not installed: the PrEp plugin cannot be built here (Debian: build-essential)");
            }
        }
        Programs.Result source = Programs.run(List.of("bash", MODULE.resolve("../.ci/slurm-plugin-source").normalize()
                .toString()), Map.of(), Duration.ofMinutes(10));
        if (source.exit() == 2) {
            Programs.unavailable("no Slurm source to build the PrEp plugin against: " + source.err());
        }
        assertEquals(0, source.exit(), "the Slurm source for the plugins: " + source.err());
        Path out = MODULE.resolve("target/c/host-" + (sanitizer.isEmpty() ? "plain" : sanitizer.replace(',', '-')));
        List<String> argv = new ArrayList<>(List.of("make", "-s", "-C", MODULE.resolve("src/main/c").toString(),
                "prep-host", "site-factor-host", "plugins", "OUT=" + out, "SLURM_SRC=" + source.out().strip()));
        if (!sanitizer.isEmpty()) {
            argv.add("SANITIZE=" + sanitizer);
        }
        Programs.Result make = Programs.run(argv, Map.of(), Duration.ofMinutes(5));
        assertEquals(0, make.exit(), "make prep-host site-factor-host: " + make.out() + make.err());
        return out.resolve("prep-host");
    }

    /** Runs the host in `mode` against a private socket and spool; its stdout, once it passed with no report. */
    private String host(Path host, String sanitizer, String mode, String... more) throws Exception {
        return host(host, sanitizer, mode, List.of(more), "jvm_hook=/bin/false\n", dir.resolve("a.sock").toString());
    }

    private String host(Path host, String sanitizer, String mode, List<String> more, String settings, String last)
            throws Exception {
        Path spool = Files.createDirectories(dir.resolve("spool"));
        Path config = dir.resolve("ledger-hook.conf");
        Files.writeString(config, "agent_socket=" + dir.resolve("a.sock") + "\nspool=" + spool + "\nagent_timeout=2\n"
                + settings);
        List<String> argv = new ArrayList<>(List.of(host.toString(), host.resolveSibling("prep_ledger.so").toString(),
                mode));
        argv.addAll(more);
        argv.add(last);
        Programs.Result r = Programs.run(argv, Map.of("ALPSBRIDGE_LEDGER_HOOK_CONFIG", config.toString(),
                "TSAN_OPTIONS", "halt_on_error=1 exitcode=66", "ASAN_OPTIONS", "halt_on_error=1 detect_leaks=0",
                "UBSAN_OPTIONS", "halt_on_error=1 print_stacktrace=1"), Duration.ofMinutes(5));
        String said = r.out() + r.err();
        assertFalse(said.contains("Sanitizer"), sanitizer + " reported:\n" + said);
        assertEquals(0, r.exit(), mode + ":\n" + said);
        return r.out();
    }
}
