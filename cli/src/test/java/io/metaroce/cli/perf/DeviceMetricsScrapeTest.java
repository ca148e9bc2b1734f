package io.metaroce.cli.perf;

import io.metaroce.core.Counter;
import io.metaroce.net.DeviceStats;
import io.prometheus.metrics.expositionformats.PrometheusTextFormatWriter;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * One scrape shows one snapshot: every family of a scrape comes from the same {@link DeviceStats}, so counters that
 * move together (a packet and its bytes) are never seen apart. (The registry collects in no fixed order; with one
 * callback per family a snapshot refreshed during a scrape showed a newer packet count than byte count, which made
 * the live metrics test fail once.)
 */
class DeviceMetricsScrapeTest {
    @Test
    void aScrapeReadsTheDeviceOnceAndEveryFamilyFromThatRead() throws Exception {
        AtomicInteger reads = new AtomicInteger();
        PrometheusRegistry registry = new PrometheusRegistry();
        // each read is a newer snapshot: n packets of 100 bytes each
        DeviceMetrics.register(registry, () -> stats(reads.incrementAndGet()));
        for (int scrape = 1; scrape <= 3; scrape++) {
            String text = text(registry);
            assertEquals(scrape, reads.get(), "reads of the device after scrape " + scrape);
            double packets = value(text, "metaroce_tx_packets_total");
            double bytes = value(text, "metaroce_tx_bytes_total");
            assertEquals(scrape, packets, text);
            assertEquals(100 * packets, bytes, "bytes and packets of one scrape from one snapshot");
            assertEquals(100 * packets, value(text, "metaroce_path_tx_bytes_total{path=\"0\",plane=\"0\",qpn=\"7\"}"));
        }
    }

    private static DeviceStats stats(long n) {
        Map<Counter, Long> c = new EnumMap<>(Counter.class);
        c.put(Counter.TX_PACKETS, n);
        c.put(Counter.TX_BYTES, 100 * n);
        var p0 = new DeviceStats.PathStats(0, 0, "ACTIVE", 50_000, 65_536, 0, n, 100 * n, 0, 0, 0, 0, 0);
        return new DeviceStats("test", c, 0, 0, 0, 0, 0, 0,
                List.of(new DeviceStats.QpStats(7, "RTS", 9, List.of(p0), Map.of())));
    }

    private static String text(PrometheusRegistry registry) throws Exception {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        PrometheusTextFormatWriter.create().write(out, registry.scrape());
        return out.toString(StandardCharsets.UTF_8);
    }

    private static double value(String text, String series) {
        for (String line : text.split("\n")) {
            if (line.startsWith(series + " ")) {
                return Double.parseDouble(line.substring(series.length() + 1).trim());
            }
        }
        throw new AssertionError(series + " not in:\n" + text);
    }
}
