package io.metaroce.sim.fabric;

import io.metaroce.sim.event.EventHandler;
import io.metaroce.sim.event.EventLoop;

import java.util.SplittableRandom;

/**
 * A unidirectional wire: propagation delay, random loss, up/down. Serialization happens at the sending
 * {@link SwitchPort}; the link only delays. Like htsim's pipe it keeps exactly one pending event: packets in
 * flight sit in a FIFO ring (arrival times are monotonic) and only the head is scheduled.
 */
public final class Link implements EventHandler {
    /** Initial in-flight ring size (grows by doubling): small, as a large fabric has tens of thousands of links. */
    private static final int INITIAL_RING = 8;
    private final EventLoop loop;
    private final PacketPool pool;
    private final SplittableRandom rng;
    private final long delayPs;
    private final long rateBps;
    private final String name;
    private PacketSink to;
    private int toPort;
    private SwitchPort source;
    private static final LinkMonitor[] NO_WATCHERS = {};
    private LinkMonitor[] watchers = NO_WATCHERS; // shared while empty: a large fabric has tens of thousands of links
    private double lossProbability;
    private boolean up = true;

    /** Packets in flight, two words each: [2j] arrival time ps, [2j + 1] packet id; a power-of-two ring. */
    private long[] ring = new long[2 * INITIAL_RING];
    private int head;
    private int count;
    private boolean scheduled;

    private long packets;
    private long dataPackets;
    private long bytes;
    private long dropped;
    private long lossDrops;

    /** A link of {@code rateBps} (the sender's serialization rate) and {@code delayPs}, drawing loss from {@code rng}. */
    public Link(EventLoop loop, PacketPool pool, long rateBps, long delayPs, SplittableRandom rng, String name) {
        this.loop = loop;
        this.pool = pool;
        this.rateBps = rateBps;
        this.delayPs = delayPs;
        this.rng = rng;
        this.name = name;
    }

    /** Connects the far end: packets arrive at {@code sink} on its in-port {@code port}. */
    public void connect(PacketSink sink, int port) {
        this.to = sink;
        this.toPort = port;
        if (sink instanceof Switch sw) {
            sw.setIngress(port, this);
        }
    }

    /** Called by the port that sends on this link (one per link). */
    void setSource(SwitchPort port) {
        this.source = port;
    }

    /** {@code m} hears of every change of this link's state. */
    void watch(LinkMonitor m) {
        watchers = java.util.Arrays.copyOf(watchers, watchers.length + 1);
        watchers[watchers.length - 1] = m;
    }

    /** The output port feeding this link (the one a PFC pause from the far end stops). */
    public SwitchPort source() { return source; }

    /** The far end, or null before {@link #connect}. */
    public PacketSink sink() { return to; }

    /** The far end's in-port number of this link. */
    public int sinkPort() { return toPort; }

    /** Sets the random loss probability of this link (0..1); callable at any virtual time. */
    public void setLoss(double p) {
        if (!(p >= 0 && p <= 1)) {
            throw new IllegalArgumentException("loss probability must be in [0, 1], got " + p);
        }
        lossProbability = p;
    }
    /** Random loss probability (0..1). */
    public double loss() { return lossProbability; }

    /**
     * Takes the link down or brings it up. Going down drops everything in flight, which on a port without PFC
     * includes the packets it has queued but not yet serialized (that port hands packets over at enqueue time
     * with their departure times); the port keeps serializing into the dead link, as a real port does.
     */
    public void setUp(boolean isUp) {
        if (isUp != up) {
            for (LinkMonitor w : watchers) {
                w.changed();
            }
        }
        if (!isUp && up) {
            while (count > 0) {
                Packet p = pool.get(ring[2 * head + 1]);
                head = (head + 1) & ((ring.length >>> 1) - 1);
                count--;
                dropped++;
                pool.release(p);
            }
        }
        up = isUp;
    }

    /** False while the link is down (it drops everything). */
    public boolean isUp() { return up; }
    /** Line rate, bits per second. */
    public long rateBps() { return rateBps; }
    /** Propagation delay, picoseconds. */
    public long delayPs() { return delayPs; }
    /** The link's name, e.g. {@code p0.leaf0>p0.spine1}. */
    public String name() { return name; }
    /** Packets that entered the link (including later drops). */
    public long packets() { return packets; }
    /** Data packets that entered the link (including later drops). */
    public long dataPackets() { return dataPackets; }
    /** Bytes that entered the link, counted at their wire size. */
    public long bytes() { return bytes; }
    /** Packets lost (random loss or link down). */
    public long dropped() { return dropped; }
    /** Packets lost to random loss ({@link #setLoss}), a part of {@link #dropped}. */
    public long lossDrops() { return lossDrops; }

    /**
     * Called by the sending port with the time {@code departPs} (now or later, never before an earlier packet's)
     * at which the last bit of {@code p} ({@code wireBytes} on the wire) is serialized; it arrives one delay
     * later. Loss and the link's state are decided now.
     */
    void send(Packet p, int wireBytes, long departPs) {
        packets++;
        bytes += wireBytes;
        if (p.data) {
            dataPackets++;
        }
        boolean lost = up && lossProbability > 0 && rng.nextDouble() < lossProbability;
        if (!up || lost) {
            dropped++;
            if (lost) {
                lossDrops++;
            }
            pool.release(p);
            return;
        }
        if (count == ring.length >>> 1) {
            growRing();
        }
        long[] r = ring;
        int tail = (head + count) & ((r.length >>> 1) - 1);
        long at = departPs + delayPs;
        r[2 * tail] = at;
        r[2 * tail + 1] = p.id;
        count++;
        if (!scheduled) {
            scheduled = true;
            loop.schedule(at, this, 0);
        }
    }

    private void growRing() {
        int n = ring.length >>> 1;
        long[] r = new long[4 * n];
        for (int i = 0; i < count; i++) {
            int j = (head + i) & (n - 1);
            r[2 * i] = ring[2 * j];
            r[2 * i + 1] = ring[2 * j + 1];
        }
        ring = r;
        head = 0;
    }

    @Override
    public void onEvent(long arg) {
        scheduled = false;
        long now = loop.nowPs();
        while (count > 0 && ring[2 * head] <= now) {
            Packet p = pool.get(ring[2 * head + 1]);
            head = (head + 1) & ((ring.length >>> 1) - 1);
            count--;
            to.receive(p, toPort);
        }
        if (count > 0 && !scheduled) {
            scheduled = true;
            loop.schedule(ring[2 * head], this, 0);
        }
    }
}
