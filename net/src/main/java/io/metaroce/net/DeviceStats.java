package io.metaroce.net;

import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.Path;
import io.metaroce.core.QueuePair;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A snapshot of a device: engine counters, datapath counters and, per QP and path, RTT, window, ECN echoes,
 * retransmits and health (what {@code metaroce stats} prints).
 */
public record DeviceStats(String transport, Map<Counter, Long> counters, long rxDatagrams, long txDatagrams,
                          long txSendDrops, long injectedDrops, long cmPackets, long dutyCycles,
                          List<QpStats> qps) {
    /** One QP. */
    public record QpStats(int qpn, String state, int remoteQpn, List<PathStats> paths, Map<Counter, Long> counters) {
    }

    /** One path of a QP. */
    public record PathStats(int id, int plane, String state, long srttNs, long cwndBytes, long inflightBytes,
                            long txPackets, long retransmits, long timeouts, long ecnEchoes, long sackGaps,
                            long failures) {
    }

    static DeviceStats of(Device d, Engine e, List<DeviceQp> qps) {
        List<QpStats> list = new ArrayList<>();
        for (DeviceQp dq : qps) {
            QueuePair q = dq.qp;
            List<PathStats> ps = new ArrayList<>();
            for (int i = 0; i < q.pathCount(); i++) {
                Path p = q.path(i);
                ps.add(new PathStats(p.id(), p.plane(), p.state().name(), p.srttNs(), p.cwndBytes(),
                        p.inflightBytes(), p.txPackets(), p.retransmits(), p.timeouts(), p.ecnEchoes(),
                        p.sackGaps(), p.failures()));
            }
            list.add(new QpStats(q.qpn(), q.state().name(), q.remoteQpn(), ps, q.counters().snapshot()));
        }
        return new DeviceStats(d.transportName(), e.counters().snapshot(), d.rxDatagrams, d.txDatagrams,
                d.txSendDrops, d.injectedDrops, d.cmPackets, d.dutyCycles, list);
    }

    /** A human-readable table. */
    public String format() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "device (%s): rx %d datagrams, tx %d, send drops %d, injected drops %d, "
                + "CM packets %d, duty cycles %d%n", transport, rxDatagrams, txDatagrams, txSendDrops, injectedDrops,
                cmPackets, dutyCycles));
        counters.forEach((k, v) -> b.append(String.format(Locale.ROOT, "  %-24s %d%n", k, v)));
        for (QpStats q : qps) {
            b.append(String.format(Locale.ROOT, "QP %d -> %d %s%n", q.qpn(), q.remoteQpn(), q.state()));
            b.append(String.format(Locale.ROOT, "  %4s %5s %-8s %9s %10s %10s %10s %8s %8s %8s %8s%n", "path",
                    "plane", "state", "srtt_us", "cwnd", "inflight", "tx_pkts", "retx", "rto", "ecn", "gaps"));
            for (PathStats p : q.paths()) {
                b.append(String.format(Locale.ROOT, "  %4d %5d %-8s %9.1f %10d %10d %10d %8d %8d %8d %8d%n",
                        p.id(), p.plane(), p.state(), p.srttNs() / 1e3, p.cwndBytes(), p.inflightBytes(),
                        p.txPackets(), p.retransmits(), p.timeouts(), p.ecnEchoes(), p.sackGaps()));
            }
        }
        return b.toString();
    }
}
