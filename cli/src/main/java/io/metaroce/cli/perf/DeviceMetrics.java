package io.metaroce.cli.perf;

import io.metaroce.core.Counter;
import io.metaroce.net.DeviceStats;
import io.prometheus.metrics.model.registry.MultiCollector;
import io.prometheus.metrics.model.registry.PrometheusRegistry;
import io.prometheus.metrics.model.snapshots.CounterSnapshot;
import io.prometheus.metrics.model.snapshots.GaugeSnapshot;
import io.prometheus.metrics.model.snapshots.Labels;
import io.prometheus.metrics.model.snapshots.MetricSnapshot;
import io.prometheus.metrics.model.snapshots.MetricSnapshots;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.BiConsumer;
import java.util.function.Supplier;

/**
 * The Prometheus metric families of a device, defined once: registered as callback metrics of the Prometheus
 * Java client (read from a {@link DeviceStats} snapshot at each scrape) by {@link MetricsEndpoint}, and turned
 * into the same samples without an HTTP server by {@link #samples} (for {@code metaroce monitor} on a statistics
 * file). Counters get the client's {@code _total} suffix.
 *
 * <p>Device: {@code metaroce_rx_datagrams_total}, {@code metaroce_tx_datagrams_total},
 * {@code metaroce_tx_send_drops_total}, {@code metaroce_injected_drops_total}, {@code metaroce_tx_packets_total},
 * {@code metaroce_tx_bytes_total}, {@code metaroce_rx_packets_total}, {@code metaroce_rx_bytes_total},
 * {@code metaroce_tx_payload_bytes_total}, {@code metaroce_rx_payload_bytes_total},
 * {@code metaroce_retransmits_total}, {@code metaroce_timeouts_total}, {@code metaroce_ecn_echoes_total},
 * {@code metaroce_path_failovers_total}, {@code metaroce_engine_events_total{event}} (every engine counter, by its
 * lower-case name), {@code metaroce_qps}. Per QP ({@code qpn}): {@code metaroce_qp_state{state}} (1). Per path
 * ({@code qpn}, {@code path}, {@code plane}): {@code metaroce_path_tx_packets_total},
 * {@code metaroce_path_tx_bytes_total}, {@code metaroce_path_retransmits_total}, {@code metaroce_path_timeouts_total},
 * {@code metaroce_path_ecn_echoes_total}, {@code metaroce_path_sack_gaps_total},
 * {@code metaroce_path_failures_total} (the path's failovers), {@code metaroce_path_srtt_seconds},
 * {@code metaroce_path_cwnd_bytes}, {@code metaroce_path_inflight_bytes}, {@code metaroce_path_up} (1 while
 * ACTIVE) and {@code metaroce_path_state{state}} (1). The engine does not count bytes acknowledged per path yet.
 */
final class DeviceMetrics {
    /** Emits one sample of a family: its value and its label values in the family's label order. */
    @FunctionalInterface
    interface Emit {
        void emit(double value, String... labelValues);
    }

    /** One family: a counter (name without {@code _total}) or a gauge, and how to read it from a snapshot. */
    record Family(String name, boolean counter, String help, String[] labels, BiConsumer<DeviceStats, Emit> read) {
        /** The name samples carry in the text format. */
        String sampleName() {
            return counter ? name + "_total" : name;
        }
    }

    /** One sample: metric name (as exposed), label names and values, value. */
    record Sample(String name, Map<String, String> labels, double value) {
    }

    private static final String[] NONE = new String[0];
    private static final String[] PATH = {"qpn", "path", "plane"};
    static final List<Family> FAMILIES = families();

    private DeviceMetrics() {
    }

    private static List<Family> families() {
        List<Family> f = new ArrayList<>();
        f.add(new Family("metaroce_rx_datagrams", true, "UDP datagrams received by the device", NONE,
                (d, e) -> e.emit(d.rxDatagrams())));
        f.add(new Family("metaroce_tx_datagrams", true, "UDP datagrams sent by the device", NONE,
                (d, e) -> e.emit(d.txDatagrams())));
        f.add(new Family("metaroce_tx_send_drops", true, "Datagrams the socket refused to send", NONE,
                (d, e) -> e.emit(d.txSendDrops())));
        f.add(new Family("metaroce_injected_drops", true, "Datagrams dropped by the test-only loss injector", NONE,
                (d, e) -> e.emit(d.injectedDrops())));
        counter(f, "metaroce_tx_packets", "Protocol packets sent", Counter.TX_PACKETS);
        counter(f, "metaroce_tx_bytes", "Protocol bytes sent (headers included)", Counter.TX_BYTES);
        counter(f, "metaroce_rx_packets", "Protocol packets received", Counter.RX_PACKETS);
        counter(f, "metaroce_rx_bytes", "Protocol bytes received (headers included)", Counter.RX_BYTES);
        counter(f, "metaroce_tx_payload_bytes", "Payload bytes sent", Counter.TX_PAYLOAD_BYTES);
        counter(f, "metaroce_rx_payload_bytes", "Payload bytes placed", Counter.RX_PAYLOAD_BYTES);
        counter(f, "metaroce_retransmits", "Data packets resent", Counter.RETRANSMITS);
        counter(f, "metaroce_timeouts", "Retransmission timeouts", Counter.TIMEOUTS);
        counter(f, "metaroce_ecn_echoes", "ECN-CE echoes received (congestion seen on a path)", Counter.ECN_ECHOES);
        counter(f, "metaroce_path_failovers", "Paths declared failed and routed around", Counter.PATH_FAILOVERS);
        f.add(new Family("metaroce_engine_events", true, "Every engine counter, by name", new String[] {"event"},
                (d, e) -> d.counters().forEach((c, v) -> e.emit(v, c.name().toLowerCase(Locale.ROOT)))));
        f.add(new Family("metaroce_qps", false, "Queue pairs of the device", NONE, (d, e) -> e.emit(d.qps().size())));
        f.add(new Family("metaroce_qp_state", false, "1 for the state each QP is in", new String[] {"qpn", "state"},
                (d, e) -> d.qps().forEach(q -> e.emit(1, Integer.toString(q.qpn()), q.state()))));
        f.add(new Family("metaroce_qp_posted_not_taken", false,
                "Work requests posted to the QP and not yet taken by the device's agent", new String[] {"qpn"},
                (d, e) -> d.qps().forEach(q -> e.emit(q.postedNotTaken(), Integer.toString(q.qpn())))));
        path(f, "metaroce_path_tx_packets", true, "Packets sent on the path", DeviceStats.PathStats::txPackets);
        path(f, "metaroce_path_tx_bytes", true, "Datagram bytes sent on the path (resends included)",
                DeviceStats.PathStats::txBytes);
        path(f, "metaroce_path_retransmits", true, "Resent packets sent on the path", DeviceStats.PathStats::retransmits);
        path(f, "metaroce_path_timeouts", true, "Retransmission timeouts of the path", DeviceStats.PathStats::timeouts);
        path(f, "metaroce_path_ecn_echoes", true, "ECN-CE echoes for the path", DeviceStats.PathStats::ecnEchoes);
        path(f, "metaroce_path_sack_gaps", true, "Gaps reported by SACKs of the path", DeviceStats.PathStats::sackGaps);
        path(f, "metaroce_path_failures", true, "Times the path was declared failed (failovers)",
                DeviceStats.PathStats::failures);
        f.add(new Family("metaroce_path_srtt_seconds", false, "Smoothed round-trip time of the path", PATH,
                (d, e) -> eachPath(d, (q, p) -> e.emit(p.srttNs() / 1e9, q, Integer.toString(p.id()),
                        Integer.toString(p.plane())))));
        path(f, "metaroce_path_cwnd_bytes", false, "Congestion window of the path", DeviceStats.PathStats::cwndBytes);
        path(f, "metaroce_path_inflight_bytes", false, "Bytes in flight on the path",
                DeviceStats.PathStats::inflightBytes);
        path(f, "metaroce_path_up", false, "1 while the path is ACTIVE, 0 while suspect, failed or probing",
                p -> p.state().equals("ACTIVE") ? 1 : 0);
        f.add(new Family("metaroce_path_state", false, "1 for the state each path is in",
                new String[] {"qpn", "path", "plane", "state"},
                (d, e) -> eachPath(d, (q, p) -> e.emit(1, q, Integer.toString(p.id()), Integer.toString(p.plane()),
                        p.state()))));
        return List.copyOf(f);
    }

    private static void counter(List<Family> f, String name, String help, Counter c) {
        f.add(new Family(name, true, help, NONE, (d, e) -> e.emit(d.counters().getOrDefault(c, 0L))));
    }

    private static void path(List<Family> f, String name, boolean counter, String help,
                             java.util.function.ToLongFunction<DeviceStats.PathStats> value) {
        f.add(new Family(name, counter, help, PATH, (d, e) -> eachPath(d, (q, p) -> e.emit(value.applyAsLong(p), q,
                Integer.toString(p.id()), Integer.toString(p.plane())))));
    }

    private static void eachPath(DeviceStats d, BiConsumer<String, DeviceStats.PathStats> each) {
        for (DeviceStats.QpStats q : d.qps()) {
            String qpn = Integer.toString(q.qpn());
            for (DeviceStats.PathStats p : q.paths()) {
                each.accept(qpn, p);
            }
        }
    }

    /**
     * Registers every family on {@code registry} as one collector: a scrape reads {@code stats} once and shows every
     * family from that one snapshot. (One callback per family, as before, read the snapshot once per family: the
     * registry collects in no fixed order and the snapshot is refreshed every 200 ms, so one scrape could show a
     * packet count newer than its byte count, and the next scrape bytes that moved with packets that did not.)
     */
    static void register(PrometheusRegistry registry, Supplier<DeviceStats> stats) {
        registry.register((MultiCollector) () -> snapshots(stats.get()));
    }

    /** Every family's snapshot of {@code d}. */
    static MetricSnapshots snapshots(DeviceStats d) {
        List<MetricSnapshot> out = new ArrayList<>(FAMILIES.size());
        for (Family fam : FAMILIES) {
            if (fam.counter()) {
                CounterSnapshot.Builder b = CounterSnapshot.builder().name(fam.name()).help(fam.help());
                fam.read().accept(d, (v, values) -> b.dataPoint(CounterSnapshot.CounterDataPointSnapshot.builder()
                        .labels(Labels.of(fam.labels(), values)).value(v).build()));
                out.add(b.build());
            } else {
                GaugeSnapshot.Builder b = GaugeSnapshot.builder().name(fam.name()).help(fam.help());
                fam.read().accept(d, (v, values) -> b.dataPoint(GaugeSnapshot.GaugeDataPointSnapshot.builder()
                        .labels(Labels.of(fam.labels(), values)).value(v).build()));
                out.add(b.build());
            }
        }
        return new MetricSnapshots(out);
    }

    /** The samples of every family for {@code d}, as a scrape would show them. */
    static List<Sample> samples(DeviceStats d) {
        List<Sample> out = new ArrayList<>();
        for (Family fam : FAMILIES) {
            fam.read().accept(d, (v, values) -> {
                Map<String, String> labels = new java.util.LinkedHashMap<>();
                for (int i = 0; i < fam.labels().length; i++) {
                    labels.put(fam.labels()[i], values[i]);
                }
                out.add(new Sample(fam.sampleName(), labels, v));
            });
        }
        return out;
    }
}
