package io.metaroce.cli;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The demo's simulated MetaRoCE vs RoCEv2 comparison, small. */
class SimDemoTest {
    @Test
    void metaroceKeepsMoreOfItsGoodputUnderLossThanRocev2() {
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        SimDemo.Result r = SimDemo.run(8, 1 << 20, new double[] {0, 0.01}, 1,
                new PrintStream(buf, true, StandardCharsets.UTF_8));
        String table = buf.toString(StandardCharsets.UTF_8);
        assertEquals(4, r.rows().size(), table);
        assertTrue(table.contains("metaroce") && table.contains("rocev2"), table);
        assertTrue(table.contains("1.0%"), table);
        assertTrue(r.ok(), table);
        SimDemo.Row meta = r.row("metaroce", 0.01);
        SimDemo.Row roce = r.row("rocev2", 0.01);
        assertNotNull(meta, table);
        assertNotNull(roce, table);
        assertEquals(1.0, r.row("metaroce", 0).ratio(), 1e-12, table);
        assertTrue(meta.drops() > 0 && roce.drops() > 0, "1% loss on every link drops packets\n" + table);
        assertEquals(0, meta.errorCompletions(), table);
        assertEquals(Boolean.TRUE, meta.dataCorrect(), table);
        assertTrue(meta.ratio() > roce.ratio(), table);
        assertTrue(table.contains("MetaRoCE keeps"), table);
    }

    @Test
    void demoRefusesABadHostCount() {
        assertEquals(2, Main.run("demo", "--sim-hosts", "1", "--loopback-size", "0"));
        assertEquals(2, Main.run("demo", "--sim-hosts", "-4", "--loopback-size", "0"));
    }

    @Test
    void demoRunsOnlyTheHarnessWithSimHostsZero() {
        PrintStream old = System.out;
        ByteArrayOutputStream buf = new ByteArrayOutputStream();
        System.setOut(new PrintStream(buf, true, StandardCharsets.UTF_8));
        try {
            assertEquals(0, Main.run("demo", "--sim-hosts", "0", "--loopback-size", "0", "--size", "1MiB",
                    "--loss", "0"));
        } finally {
            System.setOut(old);
        }
        String out = buf.toString(StandardCharsets.UTF_8);
        assertTrue(out.contains("ok") && !out.contains("Simulated fabric"), out);
    }
}
