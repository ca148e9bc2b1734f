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
 * retransmits and health, and the connection manager's counters by name (CTR-7: {@code CM_RX_PACKETS},
 * {@code CM_DROP_*}, {@code CM_ESTABLISHED} ...) (what {@code metaroce stats} prints).
 */
public record DeviceStats(String transport, Map<Counter, Long> counters, long rxDatagrams, long txDatagrams,
                          long txSendDrops, long injectedDrops, long cmPackets, long dutyCycles,
                          List<QpStats> qps, Datapath datapath, Map<String, Long> cmCounters) {
    /**
     * How the datagrams crossed the kernel: receive buffers (a GRO buffer holds several datagrams) and truncated
     * ones dropped; send calls, messages (a GSO run is one), datagrams and GSO runs; stalls of the agent left
     * out of the engine's clock; the source ports and sockets; the rates in force.
     */
    public record Datapath(long rxBuffers, long rxTruncated, long sendCalls, long sendMessages, long sendDatagrams,
                           long gsoMessages, long gsoSegments, long stalls, long stalledNs, long longestStallNs,
                           int basePort,
                           int sendSockets, int connectedSockets, boolean gro, String rates) {
        /** No figures. */
        public static final Datapath NONE = new Datapath(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, false, "");

        /** Datagrams per sendmmsg call. */
        public double datagramsPerCall() {
            return sendCalls == 0 ? 0 : (double) sendDatagrams / sendCalls;
        }

        /** Datagrams per GSO message (over GSO messages only). */
        public double segmentsPerGsoMessage() {
            return gsoMessages == 0 ? 0 : (double) gsoSegments / gsoMessages;
        }

        /** Datagrams per received buffer (above 1 when GRO coalesces). */
        public double datagramsPerRxBuffer(long rxDatagrams) {
            return rxBuffers == 0 ? 0 : (double) rxDatagrams / rxBuffers;
        }
    }

    /** A snapshot without datapath figures (as read from a file written before they existed). */
    public DeviceStats(String transport, Map<Counter, Long> counters, long rxDatagrams, long txDatagrams,
                       long txSendDrops, long injectedDrops, long cmPackets, long dutyCycles, List<QpStats> qps) {
        this(transport, counters, rxDatagrams, txDatagrams, txSendDrops, injectedDrops, cmPackets, dutyCycles, qps,
                Datapath.NONE, Map.of());
    }

    /** A snapshot without connection-manager counters (a file written before they existed, or a tool without a CM). */
    public DeviceStats(String transport, Map<Counter, Long> counters, long rxDatagrams, long txDatagrams,
                       long txSendDrops, long injectedDrops, long cmPackets, long dutyCycles, List<QpStats> qps,
                       Datapath datapath) {
        this(transport, counters, rxDatagrams, txDatagrams, txSendDrops, injectedDrops, cmPackets, dutyCycles, qps,
                datapath, Map.of());
    }

    /**
     * One QP; {@code postedNotTaken} counts the work requests the application posted that the device's agent has
     * not yet taken from the QP's ring into the engine (0 where there is no ring, or in a file written before the
     * count existed).
     */
    public record QpStats(int qpn, String state, int remoteQpn, List<PathStats> paths, Map<Counter, Long> counters,
                          long postedNotTaken) {
        /** A QP without the posted-not-taken count (a tool with no ring, or a file written before it existed). */
        public QpStats(int qpn, String state, int remoteQpn, List<PathStats> paths, Map<Counter, Long> counters) {
            this(qpn, state, remoteQpn, paths, counters, 0);
        }
    }

    /**
     * One path of a QP: {@code txBytes} counts the datagram bytes sent on it (first sends and resends, headers
     * included), as the engine's {@code TX_BYTES} counts them for the device.
     */
    public record PathStats(int id, int plane, String state, long srttNs, long cwndBytes, long inflightBytes,
                            long txPackets, long txBytes, long retransmits, long timeouts, long ecnEchoes,
                            long sackGaps, long failures) {
    }

    static DeviceStats of(Device d, IoAgent a, SocketSet s, Engine e, List<DeviceQp> qps, Map<String, Long> cm) {
        List<QpStats> list = new ArrayList<>();
        for (DeviceQp dq : qps) {
            QueuePair q = dq.qp;
            List<PathStats> ps = new ArrayList<>();
            for (int i = 0; i < q.pathCount(); i++) {
                Path p = q.path(i);
                ps.add(new PathStats(p.id(), p.plane(), p.state().name(), p.srttNs(), p.cwndBytes(),
                        p.inflightBytes(), p.txPackets(), p.txBytes(), p.retransmits(), p.timeouts(),
                        p.ecnEchoes(), p.sackGaps(), p.failures()));
            }
            list.add(new QpStats(q.qpn(), q.state().name(), q.remoteQpn(), ps, q.counters().snapshot(),
                    dq.postedNotTaken()));
        }
        SendStats ss = s.sendStats();
        Datapath dp = new Datapath(a.rxBuffers, a.rxTruncated, ss.sendCalls, ss.messages, ss.datagrams,
                ss.gsoMessages, ss.gsoSegments, a.clock().stalls(), a.clock().stalledNs(),
                a.clock().longestStallNs(), s.basePort, s.txSockets(),
                s.connectedSockets(), d.groActive(), d.rateSummary());
        return new DeviceStats(d.transportName(), e.counters().snapshot(), a.rxDatagrams, a.txDatagrams,
                a.txSendDrops, a.injectedDrops, a.cmPackets, a.dutyCycles, list, dp, cm);
    }

    /** A human-readable table. */
    public String format() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "device (%s): rx %d datagrams, tx %d, send drops %d, injected drops %d, "
                + "CM packets %d, duty cycles %d%n", transport, rxDatagrams, txDatagrams, txSendDrops, injectedDrops,
                cmPackets, dutyCycles));
        b.append(String.format(Locale.ROOT, "datapath: %.2f datagrams per sendmmsg call (%d calls), %d GSO messages "
                + "of %.2f datagrams (%d of %d datagrams in GSO runs); rx %.2f datagrams per buffer (GRO %s), "
                + "%d truncated; %d stalls (%.1f ms left out of the engine's clock, longest %.1f ms); source ports %d.., %d send "
                + "sockets (%d connected); %s%n", datapath.datagramsPerCall(), datapath.sendCalls(),
                datapath.gsoMessages(), datapath.segmentsPerGsoMessage(), datapath.gsoSegments(),
                datapath.sendDatagrams(), datapath.datagramsPerRxBuffer(rxDatagrams), datapath.gro() ? "on" : "off",
                datapath.rxTruncated(), datapath.stalls(), datapath.stalledNs() / 1e6,
                datapath.longestStallNs() / 1e6, datapath.basePort(),
                datapath.sendSockets(), datapath.connectedSockets(), datapath.rates()));
        counters.forEach((k, v) -> b.append(String.format(Locale.ROOT, "  %-24s %d%n", k, v)));
        if (!cmCounters.isEmpty()) {
            b.append("connection manager (CTR-7):\n");
            cmCounters.forEach((k, v) -> {
                if (v != 0) {
                    b.append(String.format(Locale.ROOT, "  %-24s %d%n", k, v));
                }
            });
        }
        for (QpStats q : qps) {
            b.append(String.format(Locale.ROOT, "QP %d -> %d %s, %d posted not yet taken%n", q.qpn(), q.remoteQpn(),
                    q.state(), q.postedNotTaken()));
            b.append(String.format(Locale.ROOT, "  %4s %5s %-8s %9s %10s %10s %10s %12s %8s %8s %8s %8s%n", "path",
                    "plane", "state", "srtt_us", "cwnd", "inflight", "tx_pkts", "tx_bytes", "retx", "rto", "ecn",
                    "gaps"));
            for (PathStats p : q.paths()) {
                b.append(String.format(Locale.ROOT, "  %4d %5d %-8s %9.1f %10d %10d %10d %12d %8d %8d %8d %8d%n",
                        p.id(), p.plane(), p.state(), p.srttNs() / 1e3, p.cwndBytes(), p.inflightBytes(),
                        p.txPackets(), p.txBytes(), p.retransmits(), p.timeouts(), p.ecnEchoes(), p.sackGaps()));
            }
        }
        return b.toString();
    }
}
