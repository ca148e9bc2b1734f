package io.metaroce.sim;

import java.util.SplittableRandom;

/**
 * An output queue feeding one {@link Link}: finite buffer in bytes, drop-tail, and RED-style ECN marking of
 * ECT packets on the instantaneous queue (no marking below kmin, linear to pmax at kmax, always above kmax).
 * Serializes one packet at a time at the link's rate; one pending event (the end of the current transmission).
 */
public final class SwitchPort implements EventHandler {
    private final EventLoop loop;
    private final PacketPool pool;
    private final Link link;
    private final SplittableRandom rng;
    private final long psPerByteFixed;
    private final long bufferBytes;
    private final long kminBytes;
    private final long kmaxBytes;
    private final double pmax;

    private int[] ring = new int[64];
    private int[] lengths = new int[64]; // beside the ids, so starting a transmission touches no packet
    private int head;
    private int count;
    private long queuedBytes;
    private boolean busy;

    private long enqueued;
    private long dropped;
    private long droppedData;
    private long marked;
    private long maxQueuedBytes;
    private long pfcPauses;
    private long pfcPausedPs;

    /**
     * A port sending on {@code link}, with {@code bufferBytes} of buffer and ECN thresholds (set kmin &lt; 0 or
     * pmax = 0 to disable marking).
     */
    public SwitchPort(EventLoop loop, PacketPool pool, Link link, long bufferBytes, long kminBytes, long kmaxBytes,
                      double pmax, SplittableRandom rng) {
        this.loop = loop;
        this.pool = pool;
        this.link = link;
        this.bufferBytes = bufferBytes;
        this.kminBytes = kminBytes;
        this.kmaxBytes = Math.max(kmaxBytes, kminBytes + 1);
        this.pmax = pmax;
        this.rng = rng;
        this.psPerByteFixed = Units.psPerByteFixed(link.rateBps());
    }

    public Link link() { return link; }
    public long queuedBytes() { return queuedBytes; }
    public long maxQueuedBytes() { return maxQueuedBytes; }
    public long enqueued() { return enqueued; }
    /** Packets dropped because the buffer was full. */
    public long dropped() { return dropped; }
    public long droppedData() { return droppedData; }
    public long ecnMarked() { return marked; }
    /** PFC: times this port was paused by the downstream receiver (XOFF received); 0 without PFC. */
    public long pfcPauses() { return pfcPauses; }
    /** PFC: total virtual time this port spent paused; 0 without PFC. */
    public long pfcPausedPs() { return pfcPausedPs; }

    /** Queues {@code p} (or drops it when the buffer is full), taking ownership. */
    public void enqueue(Packet p) {
        long q = queuedBytes;
        if (q + p.length > bufferBytes) {
            dropped++;
            if (p.data) {
                droppedData++;
            }
            pool.release(p);
            return;
        }
        if (p.ecn != 0 && p.ecn != Packet.ECN_CE && pmax > 0 && kminBytes >= 0 && q > kminBytes) {
            if (q >= kmaxBytes || rng.nextDouble() < pmax * (q - kminBytes) / (kmaxBytes - kminBytes)) {
                p.ecn = Packet.ECN_CE;
                marked++;
            }
        }
        enqueued++;
        queuedBytes = q + p.length;
        if (queuedBytes > maxQueuedBytes) {
            maxQueuedBytes = queuedBytes;
        }
        if (count == ring.length) {
            int[] r = new int[ring.length * 2];
            int[] l = new int[ring.length * 2];
            for (int i = 0; i < count; i++) {
                r[i] = ring[(head + i) & (ring.length - 1)];
                l[i] = lengths[(head + i) & (ring.length - 1)];
            }
            ring = r;
            lengths = l;
            head = 0;
        }
        int tail = (head + count) & (ring.length - 1);
        ring[tail] = p.id;
        lengths[tail] = p.length;
        count++;
        if (!busy) {
            startNext();
        }
    }

    private void startNext() {
        busy = true;
        loop.schedule(loop.nowPs() + Units.txTimePsFast(lengths[head], psPerByteFixed), this, 0);
    }

    @Override
    public void onEvent(long arg) {
        Packet p = pool.get(ring[head]);
        queuedBytes -= lengths[head];
        head = (head + 1) & (ring.length - 1);
        count--;
        busy = false;
        link.send(p);
        if (count > 0) {
            startNext();
        }
    }
}
