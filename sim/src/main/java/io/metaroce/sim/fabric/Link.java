package io.metaroce.sim.fabric;

import io.metaroce.sim.event.EventHandler;
import io.metaroce.sim.event.EventLoop;

import java.util.SplittableRandom;

/**
 * A unidirectional wire: propagation delay, random loss, up/down. Serialization happens at the sending
 * {@link SwitchPort}; the link only delays. Like htsim's pipe it keeps exactly one pending event: packets in
 * flight sit in a FIFO ring (arrival times are monotonic) and only the head is scheduled.
 *
 * <p>The ring is also the sending port's queue: a port without a serial mode hands each packet over when it
 * queues it, with its departure time, so the packets it still holds are the ring's newest entries, and it reads
 * them there ({@link #queueSeq}) instead of keeping a queue of its own. So that the port sees every packet it
 * queued, a packet the link loses (random loss, link down) keeps its entry, without its packet: the link skips
 * such entries and schedules no event for them.
 */
public final class Link implements EventHandler {
    /** Initial in-flight ring size (grows by doubling): small, as a large fabric has tens of thousands of links. */
    private static final int INITIAL_RING = 8;
    private static final LinkMonitor[] NO_WATCHERS = {};

    /**
     * What a packet's passage does not read (name, rate, watchers, drop counters): in an object of its own, so that
     * the fields every packet reads fit in fewer cache lines of the link (a large fabric has thousands of links, and
     * reading one is a cache miss per line).
     */
    private static final class Rare {
        final long rateBps;
        final String name;
        SwitchPort source;
        LinkMonitor[] watchers = NO_WATCHERS; // shared while empty: a large fabric has tens of thousands of links
        long dropped;
        long lossDrops;

        Rare(long rateBps, String name) {
            this.rateBps = rateBps;
            this.name = name;
        }
    }

    private final Rare rare;
    private final EventLoop loop;
    private final PacketPool pool;
    private final SplittableRandom rng;
    private final long delayPs;
    private PacketSink to;
    private Switch toSwitch; // the far end when it is a switch: it routes from the ring's words, not the packet
    private int toPort;
    private double lossProbability;
    private boolean up = true;

    /**
     * Packets in flight, a power-of-two ring of {@code inFlight.length} entries: {@code ring[3j]} the arrival time
     * ps of {@code inFlight[j]} (the packet itself: delivering it reads no pool table; null when it was lost),
     * {@code ring[3j + 1]} and {@code ring[3j + 2]} its route and info words ({@link Packet#route}): what the far
     * switch reads to route and queue it, so that a hop through a switch does not read the packet. Entries are
     * numbered by the order they entered (an int that may wrap); entry {@code e} is at {@code j = e & (length - 1)}.
     */
    long[] ring = new long[RING_STRIDE * INITIAL_RING];
    private Packet[] inFlight = new Packet[INITIAL_RING];
    static final int RING_STRIDE = 3;
    /** The next entry to deliver; {@code count} entries from it are in flight. */
    private int head;
    private int count;
    /** The next entry to enter. */
    private int tail;
    /**
     * The oldest entry the sending port still reads (its queue's head, set by the port; {@link #tail} for a port
     * in a serial mode, which keeps its own queue): entries from the earlier of it and {@link #head} stay in the
     * ring.
     */
    int queueSeq;
    private boolean scheduled;

    private long packets;
    private long dataPackets;
    private long bytes;

    /** A link of {@code rateBps} (the sender's serialization rate) and {@code delayPs}, drawing loss from {@code rng}. */
    public Link(EventLoop loop, PacketPool pool, long rateBps, long delayPs, SplittableRandom rng, String name) {
        this.loop = loop;
        this.pool = pool;
        this.rare = new Rare(rateBps, name);
        this.delayPs = delayPs;
        this.rng = rng;
    }

    /** Connects the far end: packets arrive at {@code sink} on its in-port {@code port}. */
    public void connect(PacketSink sink, int port) {
        this.to = sink;
        this.toSwitch = sink instanceof Switch sw ? sw : null;
        this.toPort = port;
        if (toSwitch != null) {
            toSwitch.setIngress(port, this);
        }
    }

    /** Called by the port that sends on this link (one per link). */
    void setSource(SwitchPort port) {
        rare.source = port;
    }

    /** {@code m} hears of every change of this link's state. */
    void watch(LinkMonitor m) {
        LinkMonitor[] w = java.util.Arrays.copyOf(rare.watchers, rare.watchers.length + 1);
        w[w.length - 1] = m;
        rare.watchers = w;
    }

    /** The output port feeding this link (the one a PFC pause from the far end stops). */
    public SwitchPort source() { return rare.source; }

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
            for (LinkMonitor w : rare.watchers) {
                w.changed();
            }
        }
        if (!isUp && up) {
            while (count > 0) { // the entries stay for the sending port, which still counts them as queued
                int j = head & (inFlight.length - 1);
                Packet p = inFlight[j];
                inFlight[j] = null;
                head++;
                count--;
                if (p != null) {
                    rare.dropped++;
                    pool.release(p);
                }
            }
        }
        up = isUp;
    }

    /** False while the link is down (it drops everything). */
    public boolean isUp() { return up; }
    /** Line rate, bits per second. */
    public long rateBps() { return rare.rateBps; }
    /** Propagation delay, picoseconds. */
    public long delayPs() { return delayPs; }
    /** The link's name, e.g. {@code p0.leaf0>p0.spine1}. */
    public String name() { return rare.name; }
    /** Packets that entered the link (including later drops). */
    public long packets() { return packets; }
    /** Data packets that entered the link (including later drops). */
    public long dataPackets() { return dataPackets; }
    /** Bytes that entered the link, counted at their wire size. */
    public long bytes() { return bytes; }
    /** Packets lost (random loss or link down). */
    public long dropped() { return rare.dropped; }
    /** Packets lost to random loss ({@link #setLoss}), a part of {@link #dropped}. */
    public long lossDrops() { return rare.lossDrops; }

    /**
     * Called by the sending port in a serial mode with the time {@code departPs} (now or later, never before an
     * earlier packet's) at which the last bit of {@code p} ({@code wireBytes} on the wire) is serialized; it arrives
     * one delay later. Loss and the link's state are decided now.
     */
    void send(Packet p, int wireBytes, long departPs) {
        send(p, Packet.route(p), Packet.info(p), wireBytes, departPs);
        queueSeq = tail; // the port keeps its own queue
    }

    /** As {@link #send(Packet, int, long)}, with the packet's route and info words ({@link Packet#route}). */
    void send(Packet p, long route, long info, int wireBytes, long departPs) {
        packets++;
        bytes += wireBytes;
        if (Packet.infoData(info)) {
            dataPackets++;
        }
        boolean lost = up && lossProbability > 0 && rng.nextDouble() < lossProbability;
        if (!up || lost) {
            rare.dropped++;
            if (lost) {
                rare.lossDrops++;
            }
            pool.release(p);
            p = null; // the entry stays for the sending port's queue; the link skips it
        }
        Packet[] f = inFlight;
        int keepFrom = queueSeq - head < 0 ? queueSeq : head;
        if (tail - keepFrom == f.length) {
            growRing(keepFrom);
            f = inFlight;
        }
        int j = tail & (f.length - 1);
        long at = departPs + delayPs;
        long[] r = ring;
        r[RING_STRIDE * j] = at;
        r[RING_STRIDE * j + 1] = route;
        r[RING_STRIDE * j + 2] = info;
        f[j] = p;
        tail++;
        if (p == null && count == 0) {
            head = tail; // nothing in flight ahead of it: skipped at once (an entry with a packet heads the flight)
            return;
        }
        count++;
        if (p != null && !scheduled) {
            scheduled = true;
            loop.schedule(at, this, 0);
        }
    }

    /** Doubles the ring, keeping the entries from {@code keepFrom} on at their numbers. */
    private void growRing(int keepFrom) {
        int n = inFlight.length;
        long[] a = new long[RING_STRIDE * 2 * n];
        Packet[] f = new Packet[2 * n];
        for (int e = keepFrom; e != tail; e++) {
            int j = e & (n - 1);
            int k = e & (2 * n - 1);
            System.arraycopy(ring, RING_STRIDE * j, a, RING_STRIDE * k, RING_STRIDE);
            f[k] = inFlight[j];
        }
        ring = a;
        inFlight = f;
    }

    /** The head of the ring: arrival time and packet slot, what {@link #onEvent} reads first. */
    @Override
    public long warm() {
        int h = head & (inFlight.length - 1);
        return ring[RING_STRIDE * h] + (inFlight[h] == null ? 1 : 0);
    }

    /** The output port the far switch will queue the ring's head packet on (see {@link Switch#warm}). */
    @Override
    public long warmFurther() {
        if (count == 0 || toSwitch == null) {
            return 0;
        }
        int h = head & (inFlight.length - 1);
        return toSwitch.warm(ring[RING_STRIDE * h + 1], ring[RING_STRIDE * h + 2]);
    }

    @Override
    public void onEvent(long arg) {
        scheduled = false;
        long now = loop.nowPs();
        while (count > 0) {
            int h = head & (inFlight.length - 1);
            Packet p = inFlight[h]; // the slot keeps its reference: pooled packets live for the whole run
            if (p != null && ring[RING_STRIDE * h] > now) {
                break;
            }
            head++;
            count--;
            if (p == null) {
                continue; // lost: nothing arrives (and no event is scheduled for it)
            }
            if (toSwitch != null) {
                toSwitch.forward(p, toPort, ring[RING_STRIDE * h + 1], ring[RING_STRIDE * h + 2]);
            } else {
                to.receive(p, toPort);
            }
        }
        if (count > 0 && !scheduled) {
            scheduled = true;
            loop.schedule(ring[RING_STRIDE * (head & (inFlight.length - 1))], this, 0);
        }
    }
}
