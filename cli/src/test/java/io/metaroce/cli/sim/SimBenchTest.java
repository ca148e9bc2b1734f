package io.metaroce.cli.sim;

import io.metaroce.core.EngineConfig;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code sim bench}'s options, and a small run on a trimming fabric whose report accounts for every trimmed packet. */
class SimBenchTest {
    @Test
    void optionsParseAndBadValuesAreOneLineErrors() {
        SimBench.Params d = SimBench.Params.parse(new String[0]);
        assertEquals(8, d.k());
        assertFalse(d.trimming(), "drop-tail switches unless asked");
        SimBench.Params t = SimBench.Params.parse(new String[] {"--k", "4", "--trimming", "on", "--payload", "off"});
        assertTrue(t.trimming());
        assertEquals(4, t.k());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SimBench.Params.parse(new String[] {"--trimming", "yes"}));
        assertEquals("--trimming takes on or off, got yes", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SimBench.Params.parse(new String[] {"--k", "eight"}));
        assertEquals("--k expects a whole number, got 'eight'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class, () -> SimBench.Params.parse(new String[] {"--trimming"}));
        assertEquals("missing value after --trimming", e.getMessage());
    }

    @Test
    void engineSettingsAreAppliedAndBadOnesAreOneLineErrors() {
        SimBench.Params p = SimBench.Params.parse(new String[] {"--set", "engine.paths=64", "--set",
                "engine.minRtoNs=50us"});
        EngineConfig ec = SimBench.engineConfig(p.engineSets(), new EngineConfig().mtu(4086).paths(16));
        assertEquals(64, ec.paths, "--set wins over the bench's own paths");
        assertEquals(50_000, ec.minRtoNs, "values take units as in an experiment file");
        assertEquals(4086, ec.mtu, "the bench's other settings stay");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> SimBench.Params.parse(new String[] {"--set", "fabric.hosts=4"}));
        assertEquals("--set takes engine.KEY=VALUE, got 'fabric.hosts=4'", e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> SimBench.Params.parse(new String[] {"--set", "engine.bogus=1"}));
        assertTrue(e.getMessage().startsWith("--set engine.bogus: unknown field 'bogus'"), e.getMessage());
        e = assertThrows(IllegalArgumentException.class,
                () -> SimBench.Params.parse(new String[] {"--set", "engine.lossBeta=2"}));
        assertEquals("lossBeta must be in [0, 1)", e.getMessage());
        assertFalse(e.getMessage().contains("\n"));
    }

    @Test
    void aTrimmingRunCompletesAndNaksEveryTrimmedPacket() {
        // 128 hosts at seed 4 over 16 paths fill a few switch buffers at the start (13 trims; none at 16 hosts, none
        // with the default paths, whose collisions average out)
        String out = run("--k", "8", "--warmups", "0", "--seed", "4", "--paths", "16", "--trimming", "on");
        assertTrue(out.contains("completed=128 flows=128"), out);
        Matcher m = Pattern.compile("trimmed=(\\d+) trimNaks=(\\d+) trimLosses=(\\d+)").matcher(out);
        assertTrue(m.find(), "a trimming run reports its trims:\n" + out);
        assertTrue(Long.parseLong(m.group(1)) > 0, "the run trimmed packets:\n" + out);
        assertEquals(m.group(1), m.group(2), "every trimmed packet was NAKed:\n" + out);
        assertTrue(out.contains(" timeouts=0 "), out);
        assertTrue(out.contains("internalErrors=0"), out);
        assertFalse(run("--k", "4", "--warmups", "0", "--flow-bytes", "500000").contains("trimmed="),
                "no trimming line on a drop-tail fabric");
    }

    private static String run(String... args) {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            SimBench.main(args);
        } finally {
            System.setOut(old);
        }
        return buf.toString(StandardCharsets.UTF_8);
    }
}
