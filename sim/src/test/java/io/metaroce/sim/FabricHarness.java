package io.metaroce.sim;

import java.util.SplittableRandom;

/**
 * A fabric without engines, for routing and queueing tests: hosts are sinks that count what arrives (and from
 * whom), and tests inject raw packets on host NICs.
 */
final class FabricHarness {
    final EventLoop loop = new EventLoop();
    final PacketPool pool = new PacketPool(4200);
    final Fabric fabric;
    final long[] received;
    /** [dst][src] packet counts; only for fabrics of at most 256 hosts. */
    final long[][] receivedFrom;
    long misdelivered;

    FabricHarness(FabricConfig cfg, long seed) {
        fabric = Fabric.build(cfg, loop, pool, new SplittableRandom(seed));
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
    void send(int src, int dst, int plane, int pathId, int length, boolean data) {
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
    void drain() {
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
