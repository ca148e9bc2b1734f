package io.metaroce.cli.perf;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The CSV log of {@code metaroce monitor --csv FILE}, like seed 002's {@code roce_monitor.csv}: one row per sample,
 * {@code time_ms}, the device's main counters (tx/rx bytes, retransmits, timeouts, ECN echoes, failovers) and every
 * NIC counter, cumulative values (rates are differences of consecutive rows over their time difference). The
 * header is written when the file is new; columns are those of the first sample.
 */
final class MonitorCsv implements AutoCloseable {
    private static final List<String> DEVICE = List.of("metaroce_tx_bytes_total", "metaroce_rx_bytes_total",
            "metaroce_retransmits_total", "metaroce_timeouts_total", "metaroce_ecn_echoes_total",
            "metaroce_path_failovers_total");
    private final PrintWriter w;
    private final boolean fresh;
    private List<String> nicColumns;

    MonitorCsv(Path file) throws IOException {
        Path parent = file.toAbsolutePath().getParent();
        if (parent != null) {
            Files.createDirectories(parent);
        }
        fresh = !Files.exists(file) || Files.size(file) == 0;
        w = new PrintWriter(Files.newBufferedWriter(file, StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                StandardOpenOption.APPEND));
    }

    void append(long timeMs, List<DeviceMetrics.Sample> samples, Map<String, Long> nic) {
        if (nicColumns == null) {
            nicColumns = new ArrayList<>(nic.keySet());
            if (fresh) {
                List<String> h = new ArrayList<>(List.of("time_ms"));
                DEVICE.forEach(d -> h.add(d.replaceFirst("^metaroce_", "").replaceFirst("_total$", "")));
                nicColumns.forEach(n -> h.add("nic_" + n));
                w.println(String.join(",", h));
            }
        }
        StringBuilder b = new StringBuilder(Long.toString(timeMs));
        for (String d : DEVICE) {
            double v = Double.NaN;
            for (DeviceMetrics.Sample s : samples) {
                if (s.name().equals(d) && s.labels().isEmpty()) {
                    v = s.value();
                }
            }
            b.append(',').append(Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.0f", v));
        }
        for (String n : nicColumns) {
            Long v = nic.get(n);
            b.append(',').append(v == null ? "" : v.toString());
        }
        w.println(b);
        w.flush();
    }

    @Override
    public void close() {
        w.close();
    }
}
