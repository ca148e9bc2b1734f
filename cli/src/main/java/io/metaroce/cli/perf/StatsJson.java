package io.metaroce.cli.perf;

import io.metaroce.core.Counter;
import io.metaroce.net.DeviceStats;
import com.fasterxml.jackson.jr.ob.JSON;

import java.io.IOException;
import java.io.UncheckedIOException;

import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * {@link DeviceStats} as JSON and back: the statistics file a running tool writes and {@code metaroce stats}
 * reads (JSON through jackson-jr). Field names are the record's in snake case; counters by {@link Counter} name (unknown names are
 * skipped when reading, so a newer writer stays readable).
 */
final class StatsJson {
    /** A snapshot read back, with the wall-clock time it was written (ms since the epoch). */
    record Snapshot(DeviceStats stats, long writtenAtMs, String source) {
    }

    private StatsJson() {
    }

    static String write(DeviceStats d, long writtenAtMs, String source) {
        StringBuilder b = new StringBuilder(1024);
        b.append("{\n  \"written_at_ms\": ").append(writtenAtMs)
                .append(",\n  \"source\": ").append(quote(source))
                .append(",\n  \"transport\": ").append(quote(d.transport()))
                .append(",\n  \"rx_datagrams\": ").append(d.rxDatagrams())
                .append(",\n  \"tx_datagrams\": ").append(d.txDatagrams())
                .append(",\n  \"tx_send_drops\": ").append(d.txSendDrops())
                .append(",\n  \"injected_drops\": ").append(d.injectedDrops())
                .append(",\n  \"cm_packets\": ").append(d.cmPackets())
                .append(",\n  \"duty_cycles\": ").append(d.dutyCycles());
        DeviceStats.Datapath dp = d.datapath();
        b.append(",\n  \"datapath\": {\"rx_buffers\": ").append(dp.rxBuffers())
                .append(", \"rx_truncated\": ").append(dp.rxTruncated())
                .append(", \"send_calls\": ").append(dp.sendCalls())
                .append(", \"send_messages\": ").append(dp.sendMessages())
                .append(", \"send_datagrams\": ").append(dp.sendDatagrams())
                .append(", \"gso_messages\": ").append(dp.gsoMessages())
                .append(", \"gso_segments\": ").append(dp.gsoSegments())
                .append(", \"stalls\": ").append(dp.stalls())
                .append(", \"stalled_ns\": ").append(dp.stalledNs())
                .append(", \"longest_stall_ns\": ").append(dp.longestStallNs())
                .append(", \"base_port\": ").append(dp.basePort())
                .append(", \"send_sockets\": ").append(dp.sendSockets())
                .append(", \"connected_sockets\": ").append(dp.connectedSockets())
                .append(", \"gro\": ").append(dp.gro())
                .append(", \"rates\": ").append(quote(dp.rates())).append('}')
                .append(",\n  \"counters\": ");
        counters(b, d.counters());
        b.append(",\n  \"cm_counters\": {"); // CTR-7
        boolean first = true;
        for (Map.Entry<String, Long> e : d.cmCounters().entrySet()) {
            b.append(first ? "" : ", ").append(quote(e.getKey())).append(": ").append(e.getValue());
            first = false;
        }
        b.append('}');
        b.append(",\n  \"qps\": [");
        for (int k = 0; k < d.qps().size(); k++) {
            DeviceStats.QpStats q = d.qps().get(k);
            b.append(k == 0 ? "\n" : ",\n");
            b.append("    {\"qpn\": ").append(q.qpn()).append(", \"state\": ").append(quote(q.state()))
                    .append(", \"remote_qpn\": ").append(q.remoteQpn())
                    .append(", \"posted_not_taken\": ").append(q.postedNotTaken()).append(", \"counters\": ");
            counters(b, q.counters());
            b.append(", \"paths\": [");
            for (int j = 0; j < q.paths().size(); j++) {
                DeviceStats.PathStats p = q.paths().get(j);
                b.append(j == 0 ? "\n" : ",\n");
                b.append("      {\"id\": ").append(p.id()).append(", \"plane\": ").append(p.plane())
                        .append(", \"state\": ").append(quote(p.state()))
                        .append(", \"srtt_ns\": ").append(p.srttNs())
                        .append(", \"cwnd_bytes\": ").append(p.cwndBytes())
                        .append(", \"inflight_bytes\": ").append(p.inflightBytes())
                        .append(", \"tx_packets\": ").append(p.txPackets())
                        .append(", \"tx_bytes\": ").append(p.txBytes())
                        .append(", \"retransmits\": ").append(p.retransmits())
                        .append(", \"timeouts\": ").append(p.timeouts())
                        .append(", \"ecn_echoes\": ").append(p.ecnEchoes())
                        .append(", \"sack_gaps\": ").append(p.sackGaps())
                        .append(", \"failures\": ").append(p.failures()).append('}');
            }
            b.append(q.paths().isEmpty() ? "]}" : "\n    ]}");
        }
        b.append(d.qps().isEmpty() ? "]\n}\n" : "\n  ]\n}\n");
        return b.toString();
    }

    private static void counters(StringBuilder b, Map<Counter, Long> m) {
        b.append('{');
        boolean first = true;
        for (Map.Entry<Counter, Long> e : m.entrySet()) {
            b.append(first ? "" : ", ").append('"').append(e.getKey().name()).append("\": ").append(e.getValue());
            first = false;
        }
        b.append('}');
    }

    /** Parses what {@link #write} wrote; throws IllegalArgumentException naming what is wrong. */
    static Snapshot read(String json) {
        Object tree;
        try {
            tree = JSON.std.anyFrom(json);
        } catch (IOException e) {
            throw new IllegalArgumentException("statistics JSON: " + e.getMessage().lines().findFirst().orElse("unreadable"), e);
        }
        if (!(tree instanceof Map<?, ?> m)) {
            throw new IllegalArgumentException("statistics JSON: not an object");
        }
        List<DeviceStats.QpStats> qps = new ArrayList<>();
        for (Object o : list(m, "qps")) {
            Map<?, ?> q = map(o, "qps[]");
            List<DeviceStats.PathStats> paths = new ArrayList<>();
            for (Object po : list(q, "paths")) {
                Map<?, ?> p = map(po, "paths[]");
                paths.add(new DeviceStats.PathStats((int) num(p, "id"), (int) num(p, "plane"), str(p, "state"),
                        num(p, "srtt_ns"), num(p, "cwnd_bytes"), num(p, "inflight_bytes"), num(p, "tx_packets"),
                        optionalNum(p, "tx_bytes"), num(p, "retransmits"), num(p, "timeouts"), num(p, "ecn_echoes"), num(p, "sack_gaps"),
                        num(p, "failures")));
            }
            qps.add(new DeviceStats.QpStats((int) num(q, "qpn"), str(q, "state"), (int) num(q, "remote_qpn"), paths,
                    counters(q), optionalNum(q, "posted_not_taken")));
        }
        DeviceStats d = new DeviceStats(str(m, "transport"), counters(m), num(m, "rx_datagrams"),
                num(m, "tx_datagrams"), num(m, "tx_send_drops"), num(m, "injected_drops"), num(m, "cm_packets"),
                num(m, "duty_cycles"), qps, datapath(m.get("datapath")), cmCounters(m.get("cm_counters")));
        return new Snapshot(d, num(m, "written_at_ms"), m.get("source") instanceof String s ? s : "");
    }

    /** {@code s} as a JSON string literal, quotes and escapes included. */
    static String quote(String s) {
        try {
            return JSON.std.asString(s);
        } catch (IOException e) {
            throw new UncheckedIOException(e); // not reachable: writing a String to a String
        }
    }

    /** The datapath block; files written before it existed read as zeros. */
    private static DeviceStats.Datapath datapath(Object o) {
        if (!(o instanceof Map<?, ?> p)) {
            return DeviceStats.Datapath.NONE;
        }
        return new DeviceStats.Datapath(num(p, "rx_buffers"), num(p, "rx_truncated"), num(p, "send_calls"),
                num(p, "send_messages"), num(p, "send_datagrams"), num(p, "gso_messages"), num(p, "gso_segments"),
                num(p, "stalls"), num(p, "stalled_ns"), optionalNum(p, "longest_stall_ns"), (int) num(p, "base_port"), (int) num(p, "send_sockets"),
                (int) num(p, "connected_sockets"), Boolean.TRUE.equals(p.get("gro")),
                p.get("rates") instanceof String s ? s : "");
    }

    /** CTR-7: the connection manager's counters by name; files written before they existed read as none. */
    private static Map<String, Long> cmCounters(Object o) {
        Map<String, Long> c = new java.util.LinkedHashMap<>();
        if (o instanceof Map<?, ?> m) {
            m.forEach((k, v) -> {
                if (v instanceof Number n) {
                    c.put(String.valueOf(k), n.longValue());
                }
            });
        }
        return c;
    }

    private static Map<Counter, Long> counters(Map<?, ?> m) {
        Map<Counter, Long> c = new EnumMap<>(Counter.class);
        for (Map.Entry<?, ?> e : map(m.get("counters"), "counters").entrySet()) {
            try {
                c.put(Counter.valueOf(String.valueOf(e.getKey())), ((Number) e.getValue()).longValue());
            } catch (IllegalArgumentException | ClassCastException ignored) {
                // a counter this version does not know, or not a number: skip it
            }
        }
        return c;
    }

    private static Map<?, ?> map(Object o, String what) {
        if (o instanceof Map<?, ?> m) {
            return m;
        }
        throw new IllegalArgumentException("statistics JSON: " + what + " is not an object");
    }

    private static List<?> list(Map<?, ?> m, String key) {
        if (m.get(key) instanceof List<?> l) {
            return l;
        }
        throw new IllegalArgumentException("statistics JSON: " + key + " is not a list");
    }

    /** A count written by newer versions only (a stats file from an older one reads as 0). */
    private static long optionalNum(Map<?, ?> m, String key) {
        return m.containsKey(key) ? num(m, key) : 0;
    }

    private static long num(Map<?, ?> m, String key) {
        if (m.get(key) instanceof Number n) {
            return n.longValue();
        }
        throw new IllegalArgumentException("statistics JSON: " + key + " is missing or not a number");
    }

    private static String str(Map<?, ?> m, String key) {
        if (m.get(key) instanceof String s) {
            return s;
        }
        throw new IllegalArgumentException("statistics JSON: " + key + " is missing or not a string");
    }
}
