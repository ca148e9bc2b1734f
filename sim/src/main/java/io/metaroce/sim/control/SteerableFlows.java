package io.metaroce.sim.control;

import io.metaroce.core.Path;
import io.metaroce.core.QueuePair;
import io.metaroce.sim.roce.RoceTransport;
import io.metaroce.sim.transport.MetaRoceTransport;
import io.metaroce.sim.transport.Transport;

/**
 * The flows of a transport as a controller sees them: each with its hosts, plane, ECMP entropy and bytes sent so
 * far, and a way to re-pin it. RoCEv2: one flow per QP (its source port). MetaRoCE: one flow per path of each
 * connection (each path has its own source port, so a controller can move paths one by one).
 */
interface SteerableFlows {
    int count();

    int src(int flow);

    int dst(int flow);

    int plane(int flow);

    int entropy(int flow);

    /** Payload bytes (RoCEv2: received in order; MetaRoCE: sent on the path) so far. */
    long bytes(int flow);

    void setEntropy(int flow, int entropy);

    /** The flows of {@code transport}. */
    static SteerableFlows of(Transport transport) {
        if (transport instanceof RoceTransport rt) {
            return new SteerableFlows() {
                @Override public int count() { return rt.connections(); }
                @Override public int src(int f) { return rt.source(f); }
                @Override public int dst(int f) { return rt.destination(f); }
                @Override public int plane(int f) { return rt.plane(f); }
                @Override public int entropy(int f) { return rt.pathId(f); }
                @Override public long bytes(int f) { return rt.receivedBytes(f); }
                @Override public void setEntropy(int f, int e) { rt.setPathId(f, e); }
            };
        }
        if (transport instanceof MetaRoceTransport mt) {
            return new MetaRoceFlows(mt);
        }
        throw new IllegalArgumentException("no controller for transport " + transport.name());
    }

    /** MetaRoCE: flow {@code conn * paths + path}. */
    final class MetaRoceFlows implements SteerableFlows {
        private final MetaRoceTransport t;
        private final int paths;

        MetaRoceFlows(MetaRoceTransport t) {
            this.t = t;
            this.paths = t.connections() == 0 ? 1 : t.senderQp(0).pathCount();
        }

        private Path path(int f) {
            QueuePair qp = t.senderQp(f / paths);
            return qp.path(f % paths);
        }

        @Override public int count() { return t.connections() * paths; }
        @Override public int src(int f) { return t.source(f / paths); }
        @Override public int dst(int f) { return t.destination(f / paths); }
        @Override public int plane(int f) { return path(f).plane(); }
        @Override public int entropy(int f) { return t.host(src(f)).entropy(dst(f), path(f).id()); }
        @Override public long bytes(int f) { return path(f).txBytes(); }
        @Override public void setEntropy(int f, int e) { t.host(src(f)).steer(dst(f), path(f).id(), e); }
    }
}
