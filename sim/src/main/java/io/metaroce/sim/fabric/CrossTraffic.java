package io.metaroce.sim.fabric;

import io.metaroce.core.wire.Ecn;
import io.metaroce.sim.event.EventHandler;
import io.metaroce.sim.event.EventLoop;

/**
 * Constant-rate filler traffic queued on one {@link SwitchPort} (to congest one path among many): packets of a
 * fixed size addressed to one host, which discards them ({@code Host}). One pending event at a time.
 */
public final class CrossTraffic implements EventHandler {
    /** {@link Packet#kind} of filler packets. */
    public static final int KIND = 0x43524f53;

    private final EventLoop loop;
    private final PacketPool pool;
    private final SwitchPort port;
    private final int dst;
    private final int plane;
    private final int bytes;
    private final long gapPs;
    private final long stopPs;
    private long offered;
    private long offeredBytes;
    private long accepted;
    private long acceptedBytes;

    /**
     * Filler of {@code bytes}-byte packets to host {@code dst} on {@code plane} at {@code gbps}, queued on
     * {@code port} from {@code startPs} until {@code stopPs}.
     */
    public CrossTraffic(EventLoop loop, PacketPool pool, SwitchPort port, int dst, int plane, int bytes, double gbps,
                 long startPs, long stopPs) {
        int capacity = pool.capacity();
        if (gbps <= 0 || bytes <= 0 || bytes > capacity) {
            throw new IllegalArgumentException("cross traffic of " + gbps + " Gb/s in " + bytes + "-byte packets (at most " + capacity + ")");
        }
        this.loop = loop;
        this.pool = pool;
        this.port = port;
        this.dst = dst;
        this.plane = plane;
        this.bytes = bytes;
        this.gapPs = Math.max(1, Math.round(bytes * 8.0 * 1000.0 / gbps)); // bits / (Gb/s) = ns; x1000 = ps
        this.stopPs = stopPs;
        loop.schedule(startPs, this, 0);
    }

    @Override
    public void onEvent(long arg) {
        if (loop.nowPs() >= stopPs) {
            return;
        }
        Packet p = pool.alloc();
        p.length = bytes;
        p.src = -1;
        p.dst = dst;
        p.plane = plane;
        p.pathId = 0;
        p.ecn = Ecn.NOT_ECT;
        p.opcode = 0;
        p.data = false;
        p.kind = KIND;
        offered++;
        offeredBytes += bytes;
        long before = port.dropped();
        port.enqueue(p);
        if (port.dropped() == before) {
            accepted++;
            acceptedBytes += bytes;
        }
        loop.schedule(loop.nowPs() + gapPs, this, 0);
    }

    long offeredPackets() { return offered; }
    /** Filler bytes offered to the port (taken or dropped). */
    public long offeredBytes() { return offeredBytes; }
    long acceptedPackets() { return accepted; }
    /** Filler bytes the port took (and so sent on its link unless the link dropped them). */
    public long acceptedBytes() { return acceptedBytes; }
}
