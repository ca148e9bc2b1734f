package io.metaroce.sim.topology;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Packet;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.Switch;

import java.util.SplittableRandom;

/**
 * A fabric without engines, for routing and queueing tests: hosts are sinks that count what arrives (and from
 * whom), and tests inject raw packets on host NICs.
 */
public final class FabricHarness {
    public final EventLoop loop = new EventLoop();
    final PacketPool pool = new PacketPool(4200);
    public final Fabric fabric;
    public final long[] received;
    /** [dst][src] packet counts; only for fabrics of at most 256 hosts. */
    final long[][] receivedFrom;
    long misdelivered;

    public FabricHarness(FabricConfig cfg, long seed) {
        fabric = Topologies.build(cfg, loop, pool, new SplittableRandom(seed));
        int h = cfg.hosts;
        received = new long[h];
        receivedFrom = new long[h <= 256 ? h : 0][h];
        for (int i = 0; i < h; i++) {
            int me = i;
            fabric.attach(i, (p, inPort) -> {
                if (p.dst != me) {
                    misdelivered++;
                } else {
                    received[me]++;
                    if (receivedFrom.length > 0) {
                        receivedFrom[me][p.src]++;
                    }
                }
                pool.release(p);
            });
        }
    }

    /** Queues one packet of {@code length} datagram bytes on host {@code src}'s NIC of {@code plane}. */
    public void send(int src, int dst, int plane, int pathId, int length, boolean data) {
        Packet p = pool.alloc();
        p.src = src;
        p.dst = dst;
        p.plane = plane;
        p.pathId = pathId;
        p.length = length;
        p.data = data;
        p.ecn = 1; // ECT
        fabric.nics(src)[plane].enqueue(p);
    }

    /** Runs until the fabric is idle. */
    public void drain() {
        loop.run(Long.MAX_VALUE);
    }

    long switchPackets() {
        long n = 0;
        for (Switch s : fabric.switches()) {
            n += s.received();
        }
        return n;
    }

    long totalReceived() {
        long n = 0;
        for (long r : received) {
            n += r;
        }
        return n;
    }
}
