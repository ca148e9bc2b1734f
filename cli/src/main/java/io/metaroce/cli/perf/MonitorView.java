package io.metaroce.cli.perf;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The table {@code metaroce monitor} prints from successive snapshots of {@link DeviceMetrics} samples (scraped or
 * from a statistics file) and NIC counters: device rates per second, one row per path with its rates, RTT, window
 * and state, and flags where a path crosses a threshold (loss = retransmitted over sent packets in the interval,
 * smoothed RTT, failovers in the interval, a path not ACTIVE), then the NIC's counters with their rates.
 */
final class MonitorView {
    /** When a path is flagged. */
    record Thresholds(double loss, double rttUs, long failovers) {
    }

    private final Thresholds limits;
    private Map<String, Double> prev = Map.of();
    private Map<String, Long> prevNic = Map.of();
    private long prevNs;
    private int flaggedPaths;

    MonitorView(Thresholds limits) {
        this.limits = limits;
    }

    /** Paths flagged in the last table. */
    int flaggedPaths() { return flaggedPaths; }

    static String key(DeviceMetrics.Sample s) {
        return s.name() + new TreeMap<>(s.labels()); // label order differs between sources: sorted
    }

    /**
     * The table for {@code samples} and {@code nic} (either may be empty) taken at {@code nowNs}; rates are over the
     * time since the previous call (none at the first).
     */
    String render(String source, long nowNs, List<DeviceMetrics.Sample> samples, String iface, Map<String, Long> nic) {
        Map<String, Double> cur = new HashMap<>();
        for (DeviceMetrics.Sample s : samples) {
            cur.put(key(s), s.value());
        }
        double dt = prevNs == 0 ? Double.NaN : (nowNs - prevNs) / 1e9;
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%s  (%s)%n", source, Double.isNaN(dt) ? "first sample: rates from the next"
                : String.format(Locale.ROOT, "rates over %.2f s", dt)));
        if (!samples.isEmpty()) {
            device(b, cur, dt);
            paths(b, samples, cur, dt);
        }
        if (iface != null) {
            nic(b, iface, nic, dt);
        }
        prev = cur;
        prevNic = nic;
        prevNs = nowNs;
        return b.toString();
    }

    private double rate(Map<String, Double> cur, String key, double dt) {
        Double now = cur.get(key);
        Double before = prev.get(key);
        return now == null || before == null || Double.isNaN(dt) || dt <= 0 ? Double.NaN : (now - before) / dt;
    }

    private void device(StringBuilder b, Map<String, Double> cur, double dt) {
        b.append(String.format(Locale.ROOT, "device: tx %s Gb/s (payload %s), rx %s Gb/s, tx %s pkt/s, rx %s pkt/s,"
                        + " retransmits %s/s, timeouts %s/s, ECN echoes %s/s, failovers %s/s, QPs %s%n",
                gbps(rate(cur, "metaroce_tx_bytes_total{}", dt)), gbps(rate(cur, "metaroce_tx_payload_bytes_total{}", dt)),
                gbps(rate(cur, "metaroce_rx_bytes_total{}", dt)), num(rate(cur, "metaroce_tx_packets_total{}", dt)),
                num(rate(cur, "metaroce_rx_packets_total{}", dt)), num(rate(cur, "metaroce_retransmits_total{}", dt)),
                num(rate(cur, "metaroce_timeouts_total{}", dt)), num(rate(cur, "metaroce_ecn_echoes_total{}", dt)),
                num(rate(cur, "metaroce_path_failovers_total{}", dt)), num(cur.getOrDefault("metaroce_qps{}", 0.0))));
    }

    private void paths(StringBuilder b, List<DeviceMetrics.Sample> samples, Map<String, Double> cur, double dt) {
        // one row per (qpn, path, plane), in numeric order
        TreeMap<long[], Map<String, String>> rows = new TreeMap<>(java.util.Arrays::compare);
        Map<String, String> states = new HashMap<>();
        for (DeviceMetrics.Sample s : samples) {
            Map<String, String> l = s.labels();
            if (s.name().equals("metaroce_path_state")) {
                states.put(l.get("qpn") + "/" + l.get("path"), l.get("state"));
            }
            if (s.name().equals("metaroce_path_tx_packets_total")) {
                try {
                    rows.put(new long[] {Long.parseLong(l.get("qpn")), Long.parseLong(l.get("path"))}, l);
                } catch (NumberFormatException e) {
                    // a label that is not a number: not one of ours, skipped
                }
            }
        }
        flaggedPaths = 0;
        if (rows.isEmpty()) {
            b.append("no paths\n");
            return;
        }
        b.append(String.format(Locale.ROOT, "%10s %4s %5s %-8s %10s %8s %8s %7s %8s %9s %9s %9s %5s  %s%n", "qpn",
                "path", "plane", "state", "tx pkt/s", "tx Gb/s", "retx/s", "loss%", "ecn/s", "srtt us", "cwnd KB", "infl KB", "fail",
                "flags"));
        for (Map<String, String> l : rows.values()) {
            String lbl = new TreeMap<>(l).toString();
            double tx = rate(cur, "metaroce_path_tx_packets_total" + lbl, dt);
            double retx = rate(cur, "metaroce_path_retransmits_total" + lbl, dt);
            double loss = tx > 0 ? retx / tx : Double.NaN;
            double rttUs = cur.getOrDefault("metaroce_path_srtt_seconds" + lbl, Double.NaN) * 1e6;
            double fail = cur.getOrDefault("metaroce_path_failures_total" + lbl, 0.0);
            double failDelta = fail - prev.getOrDefault("metaroce_path_failures_total" + lbl, fail);
            String state = states.getOrDefault(l.get("qpn") + "/" + l.get("path"), "?");
            List<String> flags = new ArrayList<>();
            if (loss > limits.loss()) {
                flags.add("LOSS");
            }
            if (rttUs > limits.rttUs()) {
                flags.add("RTT");
            }
            if (failDelta > limits.failovers()) {
                flags.add("FAILOVER");
            }
            if (!state.equals("ACTIVE")) {
                flags.add(state);
            }
            if (!flags.isEmpty()) {
                flaggedPaths++;
            }
            b.append(String.format(Locale.ROOT, "%10s %4s %5s %-8s %10s %8s %8s %7s %8s %9s %9s %9s %5.0f  %s%n",
                    l.get("qpn"), l.get("path"), l.get("plane"), state, num(tx),
                    gbps(rate(cur, "metaroce_path_tx_bytes_total" + lbl, dt)), num(retx),
                    Double.isNaN(loss) ? "-" : String.format(Locale.ROOT, "%.2f", 100 * loss),
                    num(rate(cur, "metaroce_path_ecn_echoes_total" + lbl, dt)),
                    Double.isNaN(rttUs) ? "-" : String.format(Locale.ROOT, "%.1f", rttUs),
                    kb(cur.get("metaroce_path_cwnd_bytes" + lbl)), kb(cur.get("metaroce_path_inflight_bytes" + lbl)),
                    fail, String.join(",", flags)));
        }
        b.append(String.format(Locale.ROOT, "%d of %d paths flagged (loss > %.2f%%, srtt > %.0f us, failovers > %d"
                + " per interval, not ACTIVE)%n", flaggedPaths, rows.size(), 100 * limits.loss(), limits.rttUs(),
                limits.failovers()));
    }

    private void nic(StringBuilder b, String iface, Map<String, Long> nic, double dt) {
        if (nic.isEmpty()) {
            b.append("nic ").append(iface).append(": no pause, PFC, ECN or CNP counters\n");
            return;
        }
        b.append("nic ").append(iface).append(" (ethtool -S):\n");
        nic.forEach((k, v) -> {
            Long before = prevNic.get(k);
            String r = before == null || Double.isNaN(dt) ? "-" : num((v - before) / dt);
            b.append(String.format(Locale.ROOT, "  %-32s %16d %12s/s%n", k, v, r));
        });
    }

    private static String gbps(double bytesPerS) {
        return Double.isNaN(bytesPerS) ? "-" : String.format(Locale.ROOT, "%.2f", bytesPerS * 8 / 1e9);
    }

    private static String kb(Double bytes) {
        return bytes == null ? "-" : String.format(Locale.ROOT, "%.1f", bytes / 1000);
    }

    static String num(double v) {
        if (Double.isNaN(v)) {
            return "-";
        }
        double a = Math.abs(v);
        return a >= 1e6 ? String.format(Locale.ROOT, "%.2fM", v / 1e6) : a >= 1e4
                ? String.format(Locale.ROOT, "%.1fk", v / 1e3) : String.format(Locale.ROOT, "%.0f", v);
    }
}
