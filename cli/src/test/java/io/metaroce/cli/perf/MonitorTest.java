package io.metaroce.cli.perf;

import io.metaroce.conformance.agent.Agent;
import io.metaroce.core.Counter;
import io.metaroce.conformance.target.Mutation;
import io.metaroce.net.DeviceStats;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@code metaroce monitor}: thresholds, NIC counters from ethtool, the CSV log, re-export; the agent's endpoint. */
class MonitorTest {
    /** ethtool -S of a ConnectX NIC (mlx5), shortened: what the parser must pick out. */
    static final String MLX5 = """
            NIC statistics:
                 rx_packets: 8812345
                 tx_packets: 9912345
                 rx_pause_ctrl_phy: 12
                 tx_pause_ctrl_phy: 340
                 rx_prio3_pause: 12
                 tx_prio3_pause: 340
                 rx_prio3_pause_duration: 5566
                 rx_ecn_mark: 77
                 np_cnp_sent: 21
                 rp_cnp_handled: 19
                 rx_bytes: 123456789
            """;

    @Test
    void ethtoolOutputKeepsPauseEcnAndCnpCounters() {
        Map<String, Long> m = NicCounters.parse(MLX5);
        assertEquals(List.of("rx_pause_ctrl_phy", "tx_pause_ctrl_phy", "rx_prio3_pause", "tx_prio3_pause",
                "rx_prio3_pause_duration", "rx_ecn_mark", "np_cnp_sent", "rp_cnp_handled"), new ArrayList<>(m.keySet()));
        assertEquals(340L, m.get("tx_prio3_pause"));
        assertTrue(NicCounters.parse("no stats available\n").isEmpty());
        assertThrows(IllegalArgumentException.class, () -> new NicCounters("-x", "ethtool"));
        assertThrows(IllegalArgumentException.class, () -> new NicCounters("../eth0", "ethtool"));
    }

    @Test
    void promTextReadsEscapesAndRejectsBrokenLines() {
        var s = PromText.parse("# HELP x y\n# TYPE x counter\nx_total{a=\"q\\\"u\\\\o\\n\",b=\"\"} 1.5e3 1700000000\n"
                + "y NaN\nz{} +Inf\n");
        assertEquals(3, s.size());
        assertEquals("q\"u\\o\n", s.get(0).labels().get("a"));
        assertEquals(1500.0, s.get(0).value());
        assertTrue(Double.isNaN(s.get(1).value()));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> PromText.parse("ok 1\nbad{a=\"x} 1\n"));
        assertTrue(e.getMessage().startsWith("metrics line 2"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> PromText.parse("v one\n"));
    }

    @Test
    void pathsCrossingThresholdsAreFlagged() {
        MonitorView view = new MonitorView(new MonitorView.Thresholds(0.01, 1000, 0));
        view.render("t", 1_000_000_000L, DeviceMetrics.samples(stats(0, 0, 0, 50_000)), null, Map.of());
        // in one second: path 0 sends 1000 packets with 100 resent (10%), path 1's RTT rises to 2 ms and it fails over
        String table = view.render("t", 2_000_000_000L, DeviceMetrics.samples(stats(1000, 100, 1, 2_000_000)), null,
                Map.of());
        assertEquals(2, view.flaggedPaths(), table);
        assertTrue(table.lines().anyMatch(l -> l.trim().startsWith("7    0") && l.endsWith("LOSS")), table);
        assertTrue(table.lines().anyMatch(l -> l.trim().startsWith("7    1") && l.contains("RTT,FAILOVER,FAILED")),
                table);
        assertTrue(table.contains("retransmits 100/s"), table);
    }

    /** A device with QP 7: path 0 active (tx packets, retransmits), path 1 with the given failures, RTT and state. */
    private static DeviceStats stats(long tx, long retx, long failures, long srtt1Ns) {
        Map<Counter, Long> c = new EnumMap<>(Counter.class);
        c.put(Counter.RETRANSMITS, retx);
        c.put(Counter.TX_PACKETS, tx);
        var p0 = new DeviceStats.PathStats(0, 0, "ACTIVE", 50_000, 65536, 4096, tx, tx * 4096, retx, 0, 0, 0, 0);
        var p1 = new DeviceStats.PathStats(1, 1, failures > 0 ? "FAILED" : "ACTIVE", srtt1Ns, 4096, 0, 10, 40_960, 0,
                0, 0, 0, failures);
        return new DeviceStats("test", c, 0, 0, 0, 0, 0, 0,
                List.of(new DeviceStats.QpStats(7, "RTS", 9, List.of(p0, p1), Map.of())));
    }

    @Test
    void nicCountersAreShownWithRatesLoggedAndReExported(@TempDir Path dir) throws Exception {
        PromReference.requireParser();
        // a stand-in ethtool: each call prints the mlx5 counters with tx_prio3_pause 100 higher than the call before
        Path state = dir.resolve("calls");
        Path fake = dir.resolve("ethtool");
        Files.writeString(fake, """
                #!/bin/sh
                [ "$1" = "-S" ] && [ "$2" = "eth9" ] || { echo "Cannot get stats for $2: No such device"; exit 94; }
                n=$(cat "%s" 2>/dev/null || echo 0); echo $((n + 1)) > "%s"
                echo "NIC statistics:"
                echo "     tx_prio3_pause: $((n * 100))"
                echo "     rx_ecn_mark: 7"
                echo "     np_cnp_sent: $n"
                """.formatted(state, state));
        Files.setPosixFilePermissions(fake, PosixFilePermissions.fromString("rwx------"));
        Path csv = dir.resolve("log/monitor.csv");
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new MonitorCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute("--nic", "eth9", "--ethtool", fake.toString(), "--count", "3", "--interval", "0.2",
                "--csv", csv.toString(), "--metrics-port", "0", "--metrics-bind", "127.0.0.1");
        assertEquals(0, rc, err.toString());
        String text = out.toString();
        assertTrue(text.contains("nic eth9 (ethtool -S):"), text);
        assertTrue(text.lines().anyMatch(l -> l.trim().startsWith("tx_prio3_pause") && l.trim().endsWith("/s")
                && !l.trim().endsWith(" -/s")), "no pause rate:\n" + text);
        List<String> rows = Files.readAllLines(csv);
        assertEquals(4, rows.size(), String.join("\n", rows));
        assertTrue(rows.get(0).endsWith(",nic_tx_prio3_pause,nic_rx_ecn_mark,nic_np_cnp_sent"), rows.get(0));
        assertTrue(rows.get(3).endsWith(",200,7,2"), rows.get(3)); // the third read: calls 0, 1, 2

        // an unknown NIC is one clear line, not a stack trace
        StringWriter err2 = new StringWriter();
        CommandLine bad = new CommandLine(new MonitorCommand());
        bad.setOut(new PrintWriter(new StringWriter(), true));
        bad.setErr(new PrintWriter(err2, true));
        assertEquals(1, bad.execute("--nic", "eth8", "--ethtool", fake.toString(), "--count", "1"));
        assertTrue(err2.toString().contains("No such device") && err2.toString().lines().count() == 1, err2.toString());

        // the endpoint exports the NIC's counters (scraped while the monitor runs)
        Thread t = new Thread(() -> new CommandLine(new MonitorCommand()).setOut(new PrintWriter(out, true))
                .execute("--nic", "eth9", "--ethtool", fake.toString(), "--count", "15", "--interval", "0.1",
                        "--metrics-port", "0", "--metrics-bind", "127.0.0.1"));
        StringWriter before = new StringWriter();
        before.write(out.toString());
        t.start();
        Matcher m = awaitLine(out, before.toString().length(), Pattern.compile("metrics: http://127.0.0.1:(\\d+)/"));
        assertNotNull(m, out.toString());
        String body = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:"
                + m.group(1) + "/metrics")).build(), HttpResponse.BodyHandlers.ofString()).body();
        var parsed = PromReference.parse(body);
        assertEquals(7.0, parsed.value("metaroce_nic_counter_total", Map.of("iface", "eth9", "counter", "rx_ecn_mark")),
                body);
        assertFalse(parsed.named("metaroce_nic_counter_total").isEmpty());
        t.join(20_000);
    }

    private static Matcher awaitLine(StringWriter w, int from, Pattern p) throws InterruptedException {
        for (int i = 0; i < 200; i++) {
            Matcher m = p.matcher(w.toString().substring(from));
            if (m.find()) {
                return m;
            }
            Thread.sleep(50); // waiting for another thread's output line
        }
        return null;
    }

    @Test
    void theAgentServesItsEngineCounters() throws Exception {
        PromReference.requireParser();
        try (Agent agent = new Agent(new InetSocketAddress("127.0.0.1", 0), 0, Mutation.NONE);
             MetricsEndpoint m = AgentStats.serve(agent, "127.0.0.1", 0)) {
            Thread t = new Thread(() -> {
                try {
                    agent.serve();
                } catch (java.io.IOException e) {
                    throw new java.io.UncheckedIOException(e);
                }
            }, "agent");
            t.setDaemon(true);
            t.start();
            String url = "http://127.0.0.1:" + m.port() + "/metrics";
            PromReference.Parsed p = null;
            for (int i = 0; i < 100; i++) { // until the agent thread has published its first snapshot
                p = PromReference.parse(HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(url))
                        .build(), HttpResponse.BodyHandlers.ofString()).body());
                if (!p.named("metaroce_engine_events_total").isEmpty()) {
                    break;
                }
                Thread.sleep(50);
            }
            assertNotNull(p);
            assertEquals(Counter.values().length, p.named("metaroce_engine_events_total").size());
            assertEquals(0.0, p.value("metaroce_qps", Map.of()));
        }
    }
}
