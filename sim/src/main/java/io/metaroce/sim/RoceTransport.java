package io.metaroce.sim;

import java.util.Map;
import java.util.SplittableRandom;

/**
 * RoCEv2 as users run it today (see {@link RoceConfig}). Placeholder until the baseline lands: every method
 * throws. The constructor signature is the contract the workload layer builds against.
 */
public final class RoceTransport implements Transport {
    /** A RoCEv2 endpoint on every host of {@code fabric}. */
    public RoceTransport(EventLoop loop, PacketPool pool, Fabric fabric, RoceConfig cfg, SplittableRandom rng) {
        throw new UnsupportedOperationException("RoCEv2 baseline not built yet");
    }

    @Override public String name() { return "rocev2"; }
    @Override public void setListener(Listener listener) { throw new UnsupportedOperationException(); }
    @Override public int connect(int src, int dst) { throw new UnsupportedOperationException(); }
    @Override public int connections() { throw new UnsupportedOperationException(); }
    @Override public int source(int conn) { throw new UnsupportedOperationException(); }
    @Override public int destination(int conn) { throw new UnsupportedOperationException(); }
    @Override public void send(int conn, long bytes, long tag) { throw new UnsupportedOperationException(); }
    @Override public long receivedBytes(int conn) { throw new UnsupportedOperationException(); }
    @Override public long dataPacketsSent() { throw new UnsupportedOperationException(); }
    @Override public Map<String, Long> counters() { throw new UnsupportedOperationException(); }
}
