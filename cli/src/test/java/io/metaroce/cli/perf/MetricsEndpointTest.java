package io.metaroce.cli.perf;

import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code perf write-bw --metrics-port}: during a transfer over loopback the endpoint serves valid Prometheus text
 * (checked by the reference parser), with per-path series, and its counters move between two scrapes; our own
 * reader ({@link PromText}, used by {@code metaroce monitor}) reads the same samples; {@code metaroce monitor}
 * shows the paths live.
 */
class MetricsEndpointTest {
    private static final Pattern METRICS = Pattern.compile("metrics: http://([0-9.]+):(\\d+)/metrics");
    private static final int PATHS = 4;
    private final HttpClient http = HttpClient.newHttpClient();

    @Test
    void scrapedDuringATransferCountersMoveAndEveryPathHasSeries() throws Exception {
        PromReference.requireParser();
        PerfHarness.Server server = new PerfHarness.Server("write-bw", "-p", "0", "--timeout", "20",
                "--min-rto-us", "20000");
        int port = server.port();
        PerfHarness.Server client = new PerfHarness.Server("write-bw", "127.0.0.1", "-p", String.valueOf(port),
                "--timeout", "20", "--min-rto-us", "20000", "--duration", "6", "--paths", String.valueOf(PATHS),
                "--metrics-port", "0", "--metrics-bind", "127.0.0.1");
        Matcher m = client.out.await(METRICS, 20_000);
        assertNotNull(m, "client did not print its metrics URL:\n" + client.out.text() + client.err.text());
        String url = "http://127.0.0.1:" + m.group(2) + "/metrics";

        // while the transfer runs (the live steps take a second or two; the run lasts 6 s): a scrape once data
        // flows, another once more has flowed (polled, no fixed sleep), then metaroce monitor HOST:PORT
        String first = scrapeUntil(url, null, 20_000);
        double bytesA = txBytes(first);
        String second = scrapeUntil(url, bytesA, 20_000);
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new MonitorCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        int rc = cl.execute("127.0.0.1:" + m.group(2), "--count", "2", "--interval", "0.3");
        assertEquals(0, rc, err.toString());
        String table = out.toString();
        assertTrue(table.contains("device: tx"), table);
        assertTrue(table.contains("of " + PATHS + " paths flagged"), table);

        // both scrapes are valid exposition for the reference parser; the counters moved
        PromReference.Parsed a = PromReference.parse(first);
        PromReference.Parsed b = PromReference.parse(second);
        double bytesB = b.value("metaroce_tx_bytes_total", Map.of());
        assertEquals(bytesA, a.value("metaroce_tx_bytes_total", Map.of()));
        assertTrue(bytesB > bytesA, "tx bytes did not move: " + bytesA + " -> " + bytesB);
        assertTrue(b.value("metaroce_tx_packets_total", Map.of()) > a.value("metaroce_tx_packets_total", Map.of()));
        assertTrue(b.families() >= DeviceMetrics.FAMILIES.size(), "families: " + b.families());

        // per-path series: every path of the QP, with tx packets that moved on at least one
        Set<String> paths = new HashSet<>();
        double pathTxA = 0;
        double pathTxB = 0;
        for (var s : b.named("metaroce_path_tx_packets_total")) {
            paths.add(s.labels().get("qpn") + "/" + s.labels().get("path"));
            pathTxB += s.value();
        }
        for (var s : a.named("metaroce_path_tx_packets_total")) {
            pathTxA += s.value();
        }
        assertEquals(PATHS, paths.size(), "per-path series: " + paths);
        assertTrue(pathTxB > pathTxA, "per-path tx packets did not move");
        double pathBytesA = a.named("metaroce_path_tx_bytes_total").stream().mapToDouble(s -> s.value()).sum();
        double pathBytesB = b.named("metaroce_path_tx_bytes_total").stream().mapToDouble(s -> s.value()).sum();
        assertTrue(pathBytesB > pathBytesA, "per-path tx bytes did not move: " + pathBytesA + " -> " + pathBytesB);
        assertTrue(pathBytesB <= b.value("metaroce_tx_bytes_total", Map.of()),
                "the paths sent more bytes than the device: " + pathBytesB);
        for (String family : List.of("metaroce_path_tx_bytes_total", "metaroce_path_srtt_seconds",
                "metaroce_path_cwnd_bytes", "metaroce_path_up",
                "metaroce_path_retransmits_total", "metaroce_path_ecn_echoes_total", "metaroce_path_failures_total",
                "metaroce_path_timeouts_total")) {
            assertEquals(PATHS, b.named(family).size(), family);
        }
        assertTrue(b.named("metaroce_path_up").stream().allMatch(s -> s.value() == 1.0), "a path is not up");

        // our reader sees exactly the reference parser's samples
        Set<String> ours = new HashSet<>();
        for (var s : PromText.parse(second)) {
            ours.add(s.name() + new TreeMap<>(s.labels()) + "=" + s.value());
        }
        Set<String> ref = new HashSet<>();
        for (var s : b.samples()) {
            ref.add(s.name() + new TreeMap<>(s.labels()) + "=" + s.value());
        }
        assertEquals(ref, ours);

        PerfHarness.Run c = client.join(60_000);
        assertEquals(0, c.exit(), c.toString());
        assertEquals(0, server.join(30_000).exit());
    }

    private static double txBytes(String text) {
        for (var s : PromText.parse(text)) {
            if (s.name().equals("metaroce_tx_bytes_total")) {
                return s.value();
            }
        }
        return Double.NaN;
    }

    /** Scrapes until tx bytes are above {@code above} (or just above 0 when null). */
    private String scrapeUntil(String url, Double above, long timeoutMs) throws IOException, InterruptedException {
        long deadline = System.currentTimeMillis() + timeoutMs;
        String last = "";
        while (System.currentTimeMillis() < deadline) {
            HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(url)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            last = r.body();
            if (txBytes(last) > (above == null ? 0 : above)) {
                return last;
            }
            Thread.sleep(50); // polling a live transfer, not timing it
        }
        throw new AssertionError("tx bytes never passed " + above + " at " + url + ":\n" + last);
    }
}
