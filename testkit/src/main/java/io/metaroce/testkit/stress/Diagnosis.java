package io.metaroce.testkit.stress;

import io.metaroce.core.Counter;
import io.metaroce.core.Counters;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.Path;
import io.metaroce.core.PathState;
import io.metaroce.core.QueuePair;

import java.util.EnumMap;
import java.util.Map;

/** Describes a QP for a failure report: its state, its paths' health and the counters that point at a cause. */
final class Diagnosis {
    private static final Counter[] SHOWN = {Counter.RETRANSMITS, Counter.TIMEOUTS, Counter.SPURIOUS_TIMEOUTS,
        Counter.SACK_GAPS, Counter.RACK_LOSSES, Counter.TAIL_LOSSES, Counter.PATH_FAILOVERS,
        Counter.PATH_READMISSIONS, Counter.TX_PROBES, Counter.RX_PROBE_REPLIES, Counter.RNR_NAKS_RECEIVED,
        Counter.TX_NAKS, Counter.RX_NAKS, Counter.DUPLICATE_DATA};

    private Diagnosis() {
    }

    /** One line: state, outstanding work, path states and the non-zero counters of interest. */
    static String of(QpEnd e) {
        QueuePair qp = e.qp;
        StringBuilder b = new StringBuilder();
        b.append(e.where()).append(' ').append(qp.state()).append(" posted ").append(e.posted).append('/')
                .append(e.ops.size()).append(" retired ").append(e.retired).append(" recvs ").append(e.recvsDone)
                .append('/').append(e.recvOp.length).append(" sq ").append(qp.outstandingSends()).append(" paths ")
                .append(pathStates(qp));
        long inflight = 0;
        for (int i = 0; i < qp.pathCount(); i++) {
            inflight += qp.path(i).inflightBytes();
        }
        b.append(" inflight ").append(inflight).append(" B");
        b.append(" | node: ").append(probeDemand(e.engine));
        Counters c = qp.counters();
        for (Counter k : SHOWN) {
            if (c.get(k) != 0) {
                b.append(' ').append(k.name().toLowerCase()).append('=').append(c.get(k));
            }
        }
        return b.toString();
    }

    /**
     * The node's probing load: paths FAILED or PROBING over all its QPs, the probes per second they ask for (one
     * per probe interval each) against the engine's budget, and the probes sent so far.
     */
    static String probeDemand(Engine engine) {
        int failed = 0;
        for (QueuePair qp : engine.queuePairs()) {
            for (int i = 0; i < qp.pathCount(); i++) {
                PathState s = qp.path(i).state();
                failed += s == PathState.FAILED || s == PathState.PROBING ? 1 : 0;
            }
        }
        EngineConfig cfg = engine.config();
        long demand = failed * (1_000_000_000L / cfg.probeIntervalNs);
        long budget = cfg.probesPerSecond();
        return failed + " paths failed/probing, probe demand " + demand + "/s vs budget " + budget
                + "/s" + (demand > budget ? " (over budget)" : "") + ", tx_probes="
                + engine.counters().get(Counter.TX_PROBES);
    }

    /** Count of paths per state, e.g. {@code ACTIVE=14 FAILED=2}. */
    static String pathStates(QueuePair qp) {
        Map<PathState, Integer> m = new EnumMap<>(PathState.class);
        for (int i = 0; i < qp.pathCount(); i++) {
            m.merge(qp.path(i).state(), 1, Integer::sum);
        }
        StringBuilder b = new StringBuilder();
        m.forEach((s, n) -> b.append(b.isEmpty() ? "" : ",").append(s).append('=').append(n));
        return b.toString();
    }

    /** Every path of {@code qp} that has sent or holds something, one per line. */
    static String paths(QueuePair qp) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < qp.pathCount(); i++) {
            Path p = qp.path(i);
            if (p.txPackets() > 0 || p.inflightBytes() > 0 || p.state() != PathState.ACTIVE) {
                b.append("    ").append(p).append(" spurious=").append(p.spuriousTimeouts()).append(" psn=")
                        .append(Integer.toUnsignedString(p.floorPsn())).append("..")
                        .append(Integer.toUnsignedString(p.nextPsn())).append('\n');
            }
        }
        return b.toString();
    }
}
