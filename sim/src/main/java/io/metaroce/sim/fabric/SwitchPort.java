package io.metaroce.sim.fabric;

import io.metaroce.core.wire.Ecn;
import io.metaroce.sim.event.EventHandler;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Units;
import java.util.SplittableRandom;

/**
 * An output queue feeding one {@link Link}: finite buffer in bytes, drop-tail, and RED-style ECN marking of
 * ECT packets on the instantaneous queue (no marking below kmin, linear to pmax at kmax, always above kmax).
 * Serializes one packet at a time at the link's rate. Sizes are wire sizes: the datagram plus a configured
 * overhead, or a fixed size for control packets.
 *
 * <p>Without PFC the port costs no event of its own: a FIFO at a constant rate knows at enqueue time when each
 * packet's last bit leaves ({@code max(now, previous departure) + serialization}), so the packet is handed to
 * the link at once with that departure time, and the port's queue is the newest entries of the link's ring (the
 * arrival time less the link's delay is the departure, the info word gives the size): the port keeps only where
 * its queue starts there, and moves that past the packets already departed whenever it looks at its queue. The
 * queue a packet sees on arrival (drop-tail, ECN) is exactly the one of a port that serializes packet by packet;
 * one event per hop is saved (htsim's queue and pipe cost two).
 *
 * <p>PFC: with {@link #setPfc} on, the port serializes packet by packet with one pending event (the end of the
 * current transmission), and the receiver at the far end of the link can {@link #PFC_PAUSE pause} it (an event
 * scheduled on this port one link delay after the receiver decided); a paused port finishes the packet it is
 * serializing, then holds until {@link #PFC_RESUME resumed}. Pauses and paused time are counted.
 *
 * <p>ECN at dequeue ({@link #setEcnAtDequeue}): the mark is decided on the queue left behind a packet when its
 * last bit leaves (what a switch marking at dequeue sees; it signals congestion one queueing delay sooner than
 * the queue found on arrival). The port then serializes packet by packet, as with PFC.
 */
public final class SwitchPort implements EventHandler {
    /** Event argument: the current transmission ended. */
    static final long TX_DONE = 0;
    /** Event argument: a PFC XOFF from the far end arrives. */
    public static final long PFC_PAUSE = 1;
    /** Event argument: a PFC XON from the far end arrives. */
    static final long PFC_RESUME = 2;
    private static final int INITIAL_RING = 16;

    /**
     * What the serial modes (PFC, ECN at dequeue, trimming) and the rare events (drops, pauses) keep: in an object
     * of its own so that the fields every packet reads (queue, thresholds, link) fit in two cache lines of the port;
     * a large fabric has thousands of ports, and reading a port is a cache miss per line.
     */
    private static final class Rare {
        boolean pfc;
        int[] prio = new int[0]; // trimmed packets' ids (trimming only), served first
        int[] prioLengths = new int[0];
        int prioHead;
        int prioCount;
        long prioBytes;
        boolean txPrio; // the packet being serialized is the priority queue's head
        long trimmed;
        boolean busy;
        boolean paused;
        long pausedSincePs;
        long dropped;
        long droppedData;
        long pfcPauses;
        long pfcPausedPs;
        Switch owner;
    }

    private final Rare rare = new Rare();
    private final EventLoop loop;
    private final PacketPool pool;
    private final Link link;
    private final SplittableRandom rng;
    private final long psPerByteFixed;
    private final long bufferBytes;
    private final long kminBytes;
    private final long kmaxBytes;
    private final double pmax;
    private int wireOverhead;
    private int controlWire;

    private boolean ecnAtDequeue;
    private boolean trimming;
    private boolean serial; // packet by packet with an event per transmission: PFC, ECN at dequeue or trimming
    /**
     * The queue in a serial mode, two words per packet in one array (one cache line holds four packets): [2j] the
     * packet id, [2j + 1] its wire size (a transmission touches no packet). A ring of {@code slots.length / 2}
     * entries, a power of two; empty until a serial mode is set (without one the queue is in the link's ring).
     */
    private long[] slots = NO_SLOTS;
    private static final long[] NO_SLOTS = {};
    private long lastDepartPs;
    private int head;
    private int count;
    private long queuedBytes;

    private long enqueued;
    private long marked;
    private long maxQueuedBytes;

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
        link.setSource(this);
    }

    /**
     * Sets the wire size accounting: {@code overhead} bytes added to every datagram, and a fixed
     * {@code controlBytes} for non-data packets (0 = datagram + overhead).
     */
    public void setWireSize(int overhead, int controlBytes) {
        this.wireOverhead = overhead;
        this.controlWire = controlBytes;
    }

    /** Bytes {@code p} occupies on the wire and in buffers. */
    public int wireLength(Packet p) {
        return wireLength(p.length, p.data);
    }

    private int wireLength(int length, boolean data) {
        int w = !data && controlWire > 0 ? controlWire : length + wireOverhead;
        return Math.max(1, w);
    }

    /**
     * Serializes packet by packet with an event per transmission, so that the far end can pause the port
     * (needed for PFC; off by default, when departures are computed at enqueue time). Set before traffic.
     */
    public void setPfc(boolean on) {
        if (count > 0) {
            throw new IllegalStateException("PFC mode changes only on an empty port");
        }
        rare.pfc = on;
        updateSerial();
    }

    /**
     * Decides ECN marks on the queue behind a packet as it leaves ({@code true}) instead of the queue it finds on
     * arrival ({@code false}, the default). Set before traffic.
     */
    public void setEcnAtDequeue(boolean on) {
        if (count > 0) {
            throw new IllegalStateException("the ECN marking point changes only on an empty port");
        }
        this.ecnAtDequeue = on;
        updateSerial();
    }

    /** Trims data packets the buffer cannot take instead of dropping them (see the class comment). */
    public void setTrimming(boolean on) {
        if (count > 0) {
            throw new IllegalStateException("trimming changes only on an empty port");
        }
        this.trimming = on;
        updateSerial();
        if (on && rare.prio.length == 0) {
            rare.prio = new int[INITIAL_RING];
            rare.prioLengths = new int[INITIAL_RING];
        }
    }

    /** Serial when any mode needs it; the port's own queue exists from then on. */
    private void updateSerial() {
        this.serial = rare.pfc || ecnAtDequeue || trimming;
        if (serial && slots.length == 0) {
            slots = new long[2 * INITIAL_RING];
        }
    }

    /** The switch this port belongs to (PFC ingress accounting); null for a host NIC. */
    void setOwner(Switch sw) {
        rare.owner = sw;
    }

    /** The link the port transmits on. */
    public Link link() { return link; }
    /** Bytes queued now, including the packet being serialized. */
    public long queuedBytes() {
        settle();
        return queuedBytes;
    }
    /** Deepest queue seen, bytes. */
    public long maxQueuedBytes() { return maxQueuedBytes; }
    /** Packets taken into the queue. */
    public long enqueued() { return enqueued; }
    /** Packets dropped because the buffer was full. */
    public long dropped() { return rare.dropped; }
    /** Data packets dropped because the buffer was full. */
    public long droppedData() { return rare.droppedData; }
    /** Packets marked CE. */
    public long ecnMarked() { return marked; }
    /** Data packets trimmed to their headers instead of dropped. */
    public long trimmed() { return rare.trimmed; }
    /** PFC: times this port was paused by the downstream receiver (XOFF received); 0 without PFC. */
    public long pfcPauses() { return rare.pfcPauses; }
    /** PFC: total virtual time this port spent paused; 0 without PFC. */
    public long pfcPausedPs() { return rare.paused ? rare.pfcPausedPs + loop.nowPs() - rare.pausedSincePs : rare.pfcPausedPs; }
    /** PFC: true while paused. */
    public boolean isPaused() { return rare.paused; }
    /** Packets waiting (including the one being serialized). */
    public int queuedPackets() {
        settle();
        return count;
    }

    /** Without a serial mode: forgets the packets whose last bit has left by now (its queue's start moves on). */
    private void settle() {
        if (serial) {
            return;
        }
        if (count == 0) {
            return;
        }
        long now = loop.nowPs();
        Link l = link;
        if (lastDepartPs <= now) { // everything has left (the usual case on a lightly loaded port): no ring read
            l.queueSeq += count;
            count = 0;
            queuedBytes = 0;
            return;
        }
        long[] r = l.ring;
        int mask = r.length / Link.RING_STRIDE - 1;
        long departedBy = now + l.delayPs(); // the arrival time of a packet whose last bit left at now
        int e = l.queueSeq;
        int j;
        // the last packet is still there, so the loop stops before the queue empties
        while (r[Link.RING_STRIDE * (j = e & mask)] <= departedBy) {
            long info = r[Link.RING_STRIDE * j + 2];
            queuedBytes -= wireLength(Packet.infoLength(info), Packet.infoData(info));
            e++;
            count--;
        }
        l.queueSeq = e;
    }

    /** Queues {@code p} (or drops it when the buffer is full), taking ownership. */
    public void enqueue(Packet p) {
        enqueue(p, p.inPort, Packet.route(p), Packet.info(p));
    }

    /**
     * Queues {@code p}, arrived on its switch's in-port {@code inPort}, from its route and info words
     * ({@link Packet#route}): without a serial mode the packet object is only written when it is marked or dropped.
     */
    void enqueue(Packet p, int inPort, long route, long info) {
        settle();
        long q = queuedBytes;
        boolean data = Packet.infoData(info);
        int wire = wireLength(Packet.infoLength(info), data);
        if (q + wire > bufferBytes) {
            if (trimming && data && !p.trimmed) {
                p.inPort = inPort;
                if (trim(p)) {
                    return;
                }
            }
            rare.dropped++;
            if (data) {
                rare.droppedData++;
            }
            pool.release(p);
            return;
        }
        if (!ecnAtDequeue && mark(p, Packet.infoEcn(info), q)) {
            info = info & ~3L | Ecn.CE;
        }
        enqueued++;
        queuedBytes = q + wire;
        if (queuedBytes > maxQueuedBytes) {
            maxQueuedBytes = queuedBytes;
        }
        if (!serial) {
            count++;
            long now = loop.nowPs();
            long depart = Math.max(now, lastDepartPs) + Units.txTimePsFast(wire, psPerByteFixed);
            lastDepartPs = depart;
            link.send(p, route, info, wire, depart); // the link's ring keeps it as the newest of this queue
            return;
        }
        if (count == slots.length >>> 1) {
            grow();
        }
        long[] s = slots;
        int tail = (head + count) & ((s.length >>> 1) - 1);
        s[2 * tail + 1] = wire;
        count++;
        s[2 * tail] = p.id;
        p.inPort = inPort;
        if (rare.owner != null) {
            rare.owner.buffered(p.inPort, wire);
        }
        if (!rare.busy && !rare.paused) {
            startNext();
        }
    }

    /** Cuts {@code p} to its headers into the priority queue; false when that queue is full too. */
    private boolean trim(Packet p) {
        int length = p.length;
        p.length = Math.min(length, io.metaroce.core.wire.Packet.TRIMMED_LENGTH); // the headers (REL-17)
        int wire = wireLength(p);
        if (rare.prioBytes + wire > bufferBytes / 8) {
            p.length = length;
            return false;
        }
        p.trimmed = true;
        rare.trimmed++;
        if (rare.prioCount == rare.prio.length) {
            int n = rare.prio.length;
            int[] r = new int[n * 2];
            int[] l = new int[n * 2];
            for (int i = 0; i < rare.prioCount; i++) {
                r[i] = rare.prio[(rare.prioHead + i) & (n - 1)];
                l[i] = rare.prioLengths[(rare.prioHead + i) & (n - 1)];
            }
            rare.prio = r;
            rare.prioLengths = l;
            rare.prioHead = 0;
        }
        int tail = (rare.prioHead + rare.prioCount) & (rare.prio.length - 1);
        rare.prio[tail] = p.id;
        rare.prioLengths[tail] = wire;
        rare.prioCount++;
        rare.prioBytes += wire;
        if (rare.owner != null) {
            rare.owner.buffered(p.inPort, wire);
        }
        if (!rare.busy && !rare.paused) {
            startNext();
        }
        return true;
    }

    /**
     * RED-style marking of packet {@code p}, whose ECN codepoint is {@code ecn}, on a queue of {@code q} bytes;
     * true when it was marked CE.
     */
    private boolean mark(Packet p, int ecn, long q) {
        if (Ecn.capable(ecn) && pmax > 0 && kminBytes >= 0 && q > kminBytes) {
            if (q >= kmaxBytes || rng.nextDouble() < pmax * (q - kminBytes) / (kmaxBytes - kminBytes)) {
                p.ecn = Ecn.CE;
                marked++;
                return true;
            }
        }
        return false;
    }

    private void grow() {
        int n = slots.length >>> 1;
        long[] s = new long[4 * n];
        for (int i = 0; i < count; i++) {
            int j = (head + i) & (n - 1);
            s[2 * i] = slots[2 * j];
            s[2 * i + 1] = slots[2 * j + 1];
        }
        slots = s;
        head = 0;
    }

    private void startNext() {
        rare.busy = true;
        rare.txPrio = rare.prioCount > 0;
        int wire = rare.txPrio ? rare.prioLengths[rare.prioHead] : (int) slots[2 * head + 1];
        loop.schedule(loop.nowPs() + Units.txTimePsFast(wire, psPerByteFixed), this, 0);
    }

    /** The queue's state an enqueue reads first: the last departure and where the queue starts in the link. */
    @Override
    public long warm() {
        return lastDepartPs + link.queueSeq;
    }

    @Override
    public void onEvent(long arg) {
        if (arg != TX_DONE) {
            pfcSignal(arg == PFC_PAUSE);
            return;
        }
        Packet p;
        int wire;
        if (rare.txPrio) {
            p = pool.get(rare.prio[rare.prioHead]);
            wire = rare.prioLengths[rare.prioHead];
            rare.prioBytes -= wire;
            rare.prioHead = (rare.prioHead + 1) & (rare.prio.length - 1);
            rare.prioCount--;
        } else {
            p = pool.get(slots[2 * head]);
            wire = (int) slots[2 * head + 1];
            queuedBytes -= wire;
            head = (head + 1) & ((slots.length >>> 1) - 1);
            count--;
        }
        rare.busy = false;
        if (rare.owner != null) {
            rare.owner.released(p.inPort, wire);
        }
        if (ecnAtDequeue) {
            mark(p, p.ecn, queuedBytes);
        }
        link.send(p, wire, loop.nowPs());
        if ((count > 0 || rare.prioCount > 0) && !rare.paused) {
            startNext();
        }
    }

    private void pfcSignal(boolean pause) {
        if (!rare.pfc) {
            throw new IllegalStateException("PFC signal to a port without PFC mode: " + link.name());
        }
        if (pause == rare.paused) {
            return;
        }
        rare.paused = pause;
        if (pause) {
            rare.pfcPauses++;
            rare.pausedSincePs = loop.nowPs();
            return; // a transmission in progress ends normally; the next one waits
        }
        rare.pfcPausedPs += loop.nowPs() - rare.pausedSincePs;
        if (!rare.busy && (count > 0 || rare.prioCount > 0)) {
            startNext();
        }
    }
}
