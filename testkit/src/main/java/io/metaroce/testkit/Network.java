package io.metaroce.testkit;

import io.metaroce.core.wire.Ecn;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.Transmit;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;

import java.lang.foreign.MemorySegment;
import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;

/**
 * A deterministic N-endpoint network on virtual time, for tests, demos and benchmarks of the engine (in the
 * manner of quinn's {@code Pair}). Each plane is one switch: every node has one port per plane; a datagram is
 * serialized on the sender's port, crosses a link, waits in the switch's output queue for the receiver (finite
 * buffer, drop-tail, ECN marking above a threshold), is serialized again and crosses the second link.
 *
 * <p>Faults: random loss (everywhere, per plane, per path), a scripted {@link DropRule}, reordering by random
 * extra delay, duplication, corruption of one byte, forced ECN marking, and taking a path or a plane down and up
 * (now or at a scheduled virtual time); switch ports may trim what their buffer cannot take (REL-17). All randomness
 * comes from one seed. Nothing here reads a clock.
 */
public final class Network {
    /** Decides to drop one datagram in flight (scripted faults). */
    @FunctionalInterface
    public interface DropRule {
        boolean drop(Datagram d);
    }

    /** Extra delay for one datagram in flight, in ns (scripted stalls); 0 for none. */
    @FunctionalInterface
    public interface DelayRule {
        long extraDelayNs(long nowNs, Datagram d);
    }

    /** Sees every datagram delivered to a node. */
    @FunctionalInterface
    public interface Observer {
        void delivered(long nowNs, Datagram d);
    }

    /** One datagram in flight; its bytes are a private copy. */
    public static final class Datagram {
        final byte[] bytes;
        final int src;
        final int dst;
        final int plane;
        final int pathId;
        final int opcode;
        int ecn = Ecn.ECT0;
        /** Cut to its headers by a full switch buffer ({@link #setTrimming}); handed to the engine as such. */
        boolean trimmed;

        Datagram(byte[] bytes, int src, int dst, int plane, int pathId, int opcode) {
            this.bytes = bytes;
            this.src = src;
            this.dst = dst;
            this.plane = plane;
            this.pathId = pathId;
            this.opcode = opcode;
        }

        public int src() { return src; }
        public int dst() { return dst; }
        public int plane() { return plane; }
        public int pathId() { return pathId; }
        public int opcode() { return opcode; }
        public int length() { return bytes.length; }
        /** A copy of the datagram's bytes. */
        public byte[] bytes() { return bytes.clone(); }
        public int ecn() { return ecn; }
        /** PSN field of the base header. */
        public int psn() { return MemorySegment.ofArray(bytes).get(java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED
                .withOrder(java.nio.ByteOrder.BIG_ENDIAN), BaseHeader.PSN); }
        /** Flags field of the base header. */
        public int flags() { return u16(BaseHeader.FLAGS); }
        /** True for packets that carry data or a READ request. */
        public boolean isData() { return Opcode.isData(opcode) || opcode == Opcode.READ_REQ; }
        /** MSN of a data packet or READ request (first field of their extension header). */
        public int msn() { return bytes.length >= BaseHeader.LENGTH + 4 ? MemorySegment.ofArray(bytes).get(
                java.lang.foreign.ValueLayout.JAVA_INT_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN),
                BaseHeader.LENGTH) : -1; }
        private int u16(int off) { return (bytes[off] & 0xFF) << 8 | bytes[off + 1] & 0xFF; }
        /** Payload length field of the base header. */
        public int payloadLength() { return bytes.length >= BaseHeader.LENGTH
                ? (bytes[BaseHeader.PAYLOAD_LENGTH] & 0xFF) << 8 | bytes[BaseHeader.PAYLOAD_LENGTH + 1] & 0xFF : 0; }
    }

    private static final int EV_ARRIVE_SWITCH = 0;
    private static final int EV_DELIVER = 1;
    private static final int EV_WAKE = 2;
    private static final int EV_ACTION = 3;

    private record Event(long timeNs, long seq, int kind, int node, Datagram d, Runnable action)
            implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Long.compare(timeNs, o.timeNs);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final class Node {
        final int index;
        final Engine engine;
        final long[] egressBusyUntil;
        long wakeAt = Engine.NO_DEADLINE;
        /** A scripted scheduling stall: until then the host's engine is not driven ({@link #stall}). */
        long stalledUntilNs = Long.MIN_VALUE;
        /** Datagrams that reached the host during its stall, with their arrival times, oldest first. */
        final ArrayDeque<Datagram> held = new ArrayDeque<>();
        final ArrayDeque<Long> heldArrivalNs = new ArrayDeque<>();
        /** Paths whose backlog a host draining after a stall has not read yet ({@link #stallDrainingByPath}), or null. */
        TreeSet<Integer> drainPending;

        Node(int index, Engine engine, int planes) {
            this.index = index;
            this.engine = engine;
            this.egressBusyUntil = new long[planes];
        }
    }

    /** Output queue of one switch port (towards one node on one plane). */
    private static final class Port {
        final ArrayDeque<long[]> queue = new ArrayDeque<>(); // {finishNs, bytes}
        long bytes;
        long busyUntil;
        long maxBytes;
    }

    private final int planes;
    private final long rateBps;
    private final long linkDelayNs;
    private final long bufferBytes;
    private final long ecnThresholdBytes;
    private final Node[] nodes;
    private final Port[][] ports;
    private final PriorityQueue<Event> events = new PriorityQueue<>();
    private final SplittableRandom faultRng;
    private final MemorySegment txBuf;
    private final Transmit tx = new Transmit();
    private long seq;
    private long nowNs;

    private double loss;
    private final double[] planeLoss;
    private double[] pathLoss = new double[0];
    private final boolean[] planeDown;
    private boolean[] pathDown = new boolean[0];
    private double reorderProbability;
    private long reorderMaxDelayNs;
    private double duplicateProbability;
    private double corruptProbability;
    private boolean trimming;
    private double ecnMarkProbability;
    private DropRule dropRule;
    private DelayRule delayRule;
    private Observer observer;

    private long droppedByFault;
    private long droppedData;
    private long droppedByBuffer;
    private long ecnMarked;
    private long delivered;
    private long duplicated;
    private long corrupted;
    private long trimmed;
    private long reordered;
    private long eventsProcessed;

    /**
     * A network of {@code nodes} engines with {@code config}, each plane a switch with ports of {@code rateBps},
     * links of {@code linkDelayNs}, {@code bufferBytes} per output queue and ECN marking above
     * {@code ecnThresholdBytes} of queue. Every engine and every fault draws from streams split off {@code seed}.
     */
    public Network(long seed, int nodes, EngineConfig config, long rateBps, long linkDelayNs, long bufferBytes,
                   long ecnThresholdBytes) {
        SplittableRandom master = new SplittableRandom(seed);
        this.planes = config.planes;
        this.rateBps = rateBps;
        this.linkDelayNs = linkDelayNs;
        this.bufferBytes = bufferBytes;
        this.ecnThresholdBytes = ecnThresholdBytes;
        this.nodes = new Node[nodes];
        for (int i = 0; i < nodes; i++) {
            this.nodes[i] = new Node(i, new Engine(config, master.split()), planes);
        }
        this.ports = new Port[nodes][planes];
        for (int i = 0; i < nodes; i++) {
            for (int p = 0; p < planes; p++) {
                ports[i][p] = new Port();
            }
        }
        this.faultRng = master.split();
        this.planeLoss = new double[planes];
        this.planeDown = new boolean[planes];
        this.txBuf = MemorySegment.ofArray(new byte[this.nodes[0].engine.maxDatagramLength() + 64]);
    }

    /** Datacenter-like defaults: 100 Gb/s ports, 1 us links, 1 MiB buffers, ECN above 100 KiB. */
    public static Network datacenter(long seed, int nodes, EngineConfig config) {
        return new Network(seed, nodes, config, 100_000_000_000L, 1_000, 1 << 20, 100 << 10);
    }

    public Engine engine(int node) {
        return nodes[node].engine;
    }

    public int size() {
        return nodes.length;
    }

    public long nowNs() {
        return nowNs;
    }

    /** Connects {@code a} (on node {@code na}) and {@code b} (on node {@code nb}) with the given initial PSNs. */
    public void connect(int na, QueuePair a, int nb, QueuePair b, int psnA, int psnB) {
        a.connect(nb, b.qpn(), psnA, psnB);
        b.connect(na, a.qpn(), psnB, psnA);
    }

    // ---------------------------------------------------------------- faults

    /** Random loss probability applied to every datagram. */
    public void setLoss(double p) { loss = p; }
    public void setPlaneLoss(int plane, double p) { planeLoss[plane] = p; }
    public void setPathLoss(int pathId, double p) {
        if (pathId >= pathLoss.length) {
            pathLoss = java.util.Arrays.copyOf(pathLoss, pathId + 1);
        }
        pathLoss[pathId] = p;
    }
    public void setPlaneUp(int plane, boolean up) { planeDown[plane] = !up; }
    public void setPathUp(int pathId, boolean up) {
        if (pathId >= pathDown.length) {
            pathDown = java.util.Arrays.copyOf(pathDown, pathId + 1);
        }
        pathDown[pathId] = !up;
    }
    /** With probability {@code p} a datagram is held back by a random extra delay up to {@code maxDelayNs}. */
    public void setReorder(double p, long maxDelayNs) { reorderProbability = p; reorderMaxDelayNs = maxDelayNs; }
    public void setDuplicate(double p) { duplicateProbability = p; }
    public void setCorrupt(double p) { corruptProbability = p; }
    /**
     * REL-17: a switch port whose buffer cannot take a data packet cuts it to its first
     * {@link io.metaroce.core.wire.Packet#TRIMMED_LENGTH} bytes and
     * forwards that ahead of its queue (as UET switches do) instead of dropping it; the receiver gets it as trimmed.
     */
    public void setTrimming(boolean on) { trimming = on; }

    /** Marks CE with probability {@code p} regardless of queue depth. */
    public void setEcnMarkProbability(double p) { ecnMarkProbability = p; }
    public void setDropRule(DropRule rule) { dropRule = rule; }
    public void setDelayRule(DelayRule rule) { delayRule = rule; }
    public void setObserver(Observer o) { observer = o; }

    /** Runs {@code action} at virtual time {@code atNs} (a scripted fault or application step). */
    public void at(long atNs, Runnable action) {
        events.add(new Event(Math.max(atNs, nowNs), seq++, EV_ACTION, -1, null, action));
    }

    /**
     * A scheduling stall of host {@code node} from {@code fromNs} for {@code durationNs}, as of a descheduled I/O
     * thread: its engine is not called at all (no timers, no transmits); datagrams that reach the host wait, as in
     * a socket's buffer, and are handed over when the stall ends, each with its arrival time, before the host's
     * timers run (the order of the net module's duty cycle).
     */
    public void stall(int node, long fromNs, long durationNs) {
        Node n = nodes[node];
        at(fromNs, () -> n.stalledUntilNs = fromNs + durationNs);
        at(fromNs + durationNs, () -> {
            n.stalledUntilNs = Long.MIN_VALUE;
            while (!n.held.isEmpty()) {
                handOver(n, n.heldArrivalNs.pollFirst(), n.held.pollFirst());
            }
            n.engine.handleTimeout(nowNs);
        });
    }

    /**
     * A stall of host {@code node} as {@link #stall}, but at its end the backlog is handed over one path at a time
     * (the lowest path id first, each path's datagrams in arrival order), {@code perPathGapNs} apart, with the host's
     * timers run and its transmits sent after each path's: a receiver that reads its socket backlog as GRO buffers,
     * one flow's after another's, and acknowledges after each receive batch. Until its turn, a path's datagrams that
     * arrive after the stall queue behind its backlog, as in a socket.
     */
    public void stallDrainingByPath(int node, long fromNs, long durationNs, long perPathGapNs) {
        Node n = nodes[node];
        long endNs = fromNs + durationNs;
        at(fromNs, () -> n.stalledUntilNs = endNs);
        at(endNs, () -> {
            n.stalledUntilNs = Long.MIN_VALUE;
            TreeSet<Integer> pending = new TreeSet<>();
            for (Datagram d : n.held) {
                pending.add(d.pathId);
            }
            n.drainPending = pending;
            long at = endNs;
            for (int pathId : pending) {
                at(at, () -> drainPath(n, pathId));
                at += perPathGapNs;
            }
        });
    }

    /** Hands host {@code n} its held datagrams of {@code pathId} ({@link #stallDrainingByPath}), then its timers. */
    private void drainPath(Node n, int pathId) {
        n.drainPending.remove(pathId);
        Iterator<Datagram> d = n.held.iterator();
        Iterator<Long> at = n.heldArrivalNs.iterator();
        while (d.hasNext()) {
            Datagram g = d.next();
            long arrivalNs = at.next();
            if (g.pathId == pathId) {
                d.remove();
                at.remove();
                handOver(n, arrivalNs, g);
            }
        }
        if (n.drainPending.isEmpty()) {
            n.drainPending = null;
        }
        n.engine.handleTimeout(nowNs);
    }

    private boolean stalled(Node n) {
        return nowNs < n.stalledUntilNs;
    }

    /** Delivers raw bytes to {@code node} now, as if received on {@code plane} (bad-input tests). */
    public void inject(int node, byte[] datagram, int ecn) {
        Engine e = nodes[node].engine;
        e.handleDatagram(nowNs, MemorySegment.ofArray(datagram.clone()), datagram.length, ecn);
        pump(nodes[node]);
    }

    // ---------------------------------------------------------------- running

    /**
     * Processes events until {@code done} holds (checked between events) or virtual time would pass
     * {@code limitNs}; returns whether {@code done} held.
     */
    public boolean runUntil(BooleanSupplier done, long limitNs) {
        for (Node n : nodes) {
            pump(n);
        }
        while (true) {
            if (done.getAsBoolean()) {
                return true;
            }
            Event ev = events.peek();
            if (ev == null || ev.timeNs > limitNs) {
                if (limitNs > nowNs && limitNs != Long.MAX_VALUE) {
                    nowNs = limitNs;
                }
                return done.getAsBoolean();
            }
            events.poll();
            nowNs = ev.timeNs;
            eventsProcessed++;
            switch (ev.kind) {
                case EV_ARRIVE_SWITCH -> arriveAtSwitch(ev.d);
                case EV_DELIVER -> deliver(ev.d);
                case EV_WAKE -> {
                    Node n = nodes[ev.node];
                    if (n.wakeAt == ev.timeNs) {
                        n.wakeAt = Engine.NO_DEADLINE;
                    }
                    if (stalled(n)) {
                        n.wakeAt = Engine.NO_DEADLINE; // timed again when the stall ends
                        continue;
                    }
                    n.engine.handleTimeout(nowNs);
                    pump(n);
                }
                default -> {
                    ev.action.run();
                    for (Node n : nodes) {
                        pump(n);
                    }
                }
            }
        }
    }

    /** Runs until virtual time {@code untilNs}. */
    public void runFor(long durationNs) {
        long end = nowNs + durationNs;
        runUntil(() -> false, end);
    }

    private void pump(Node n) {
        if (stalled(n)) {
            return;
        }
        Engine e = n.engine;
        int len;
        while ((len = e.pollTransmit(nowNs, txBuf, tx)) > 0) {
            byte[] copy = new byte[len];
            MemorySegment.copy(txBuf, java.lang.foreign.ValueLayout.JAVA_BYTE, 0, copy, 0, len);
            Datagram d = new Datagram(copy, n.index, tx.peer(), tx.plane(), tx.pathId(), tx.opcode());
            long start = Math.max(nowNs, n.egressBusyUntil[d.plane]);
            long done = start + txTimeNs(len);
            n.egressBusyUntil[d.plane] = done;
            events.add(new Event(done + linkDelayNs, seq++, EV_ARRIVE_SWITCH, d.dst, d, null));
        }
        long deadline = e.pollTimeout();
        if (deadline != Engine.NO_DEADLINE) {
            long at = Math.max(deadline, nowNs + 1);
            if (at < n.wakeAt) {
                n.wakeAt = at;
                events.add(new Event(at, seq++, EV_WAKE, n.index, null, null));
            }
        }
    }

    private long txTimeNs(int bytes) {
        return Math.max(1, bytes * 8_000_000_000L / rateBps);
    }

    private double pathLossOf(int pathId) {
        return pathId < pathLoss.length ? pathLoss[pathId] : 0;
    }

    private boolean pathIsDown(int pathId) {
        return pathId < pathDown.length && pathDown[pathId];
    }

    private void arriveAtSwitch(Datagram d) {
        if (d.dst < 0 || d.dst >= nodes.length) {
            droppedByFault++;
            return;
        }
        if (planeDown[d.plane] || pathIsDown(d.pathId)
                || chance(loss) || chance(planeLoss[d.plane]) || chance(pathLossOf(d.pathId))
                || (dropRule != null && dropRule.drop(d))) {
            droppedByFault++;
            if (d.isData()) {
                droppedData++;
            }
            return;
        }
        Port port = ports[d.dst][d.plane];
        while (!port.queue.isEmpty() && port.queue.peekFirst()[0] <= nowNs) {
            port.bytes -= port.queue.pollFirst()[1];
        }
        if (port.bytes + d.bytes.length > bufferBytes) {
            droppedByBuffer++;
            if (d.isData()) {
                droppedData++;
                int cut = io.metaroce.core.wire.Packet.TRIMMED_LENGTH;
                if (trimming && d.bytes.length > cut) { // the headers go ahead of the queue (REL-17)
                    Datagram t = new Datagram(java.util.Arrays.copyOf(d.bytes, cut), d.src, d.dst, d.plane, d.pathId,
                            d.opcode);
                    t.trimmed = true;
                    trimmed++;
                    events.add(new Event(nowNs + txTimeNs(cut) + linkDelayNs, seq++, EV_DELIVER, d.dst, t, null));
                }
            }
            return;
        }
        if (Ecn.capable(d.ecn) && (port.bytes > ecnThresholdBytes || chance(ecnMarkProbability))) {
            d.ecn = Ecn.CE;
            ecnMarked++;
        }
        long start = Math.max(nowNs, port.busyUntil);
        long done = start + txTimeNs(d.bytes.length);
        port.busyUntil = done;
        port.bytes += d.bytes.length;
        port.maxBytes = Math.max(port.maxBytes, port.bytes);
        port.queue.addLast(new long[] {done, d.bytes.length});
        long at = done + linkDelayNs;
        if (delayRule != null) {
            at += Math.max(0, delayRule.extraDelayNs(nowNs, d));
        }
        if (chance(reorderProbability)) {
            at += 1 + (long) (faultRng.nextDouble() * reorderMaxDelayNs);
            reordered++;
        }
        if (chance(corruptProbability)) {
            int i = faultRng.nextInt(d.bytes.length);
            d.bytes[i] ^= (byte) (1 + faultRng.nextInt(255));
            corrupted++;
        }
        events.add(new Event(at, seq++, EV_DELIVER, d.dst, d, null));
        if (chance(duplicateProbability)) {
            Datagram dup = new Datagram(d.bytes.clone(), d.src, d.dst, d.plane, d.pathId, d.opcode);
            dup.ecn = d.ecn;
            duplicated++;
            events.add(new Event(at + 1 + faultRng.nextLong(Math.max(1, linkDelayNs)), seq++, EV_DELIVER, d.dst,
                    dup, null));
        }
    }

    private boolean chance(double p) {
        return p > 0 && faultRng.nextDouble() < p;
    }

    private void deliver(Datagram d) {
        delivered++;
        Node n = nodes[d.dst];
        if (observer != null) {
            observer.delivered(nowNs, d);
        }
        if (stalled(n) || n.drainPending != null && n.drainPending.contains(d.pathId)) {
            n.held.addLast(d);
            n.heldArrivalNs.addLast(nowNs);
            return;
        }
        handOver(n, nowNs, d);
        pump(n);
    }

    /** Hands {@code d}, which reached host {@code n} at {@code arrivalNs}, to its engine. */
    private void handOver(Node n, long arrivalNs, Datagram d) {
        if (d.trimmed) {
            n.engine.handleTrimmed(nowNs, MemorySegment.ofArray(d.bytes), d.bytes.length);
        } else {
            n.engine.handleDatagram(nowNs, arrivalNs, MemorySegment.ofArray(d.bytes), d.bytes.length, d.ecn);
        }
    }

    // ---------------------------------------------------------------- statistics

    public long droppedByFault() { return droppedByFault; }
    public long droppedByBuffer() { return droppedByBuffer; }
    /** Data and READ-request datagrams dropped, by faults or full buffers. */
    public long droppedData() { return droppedData; }
    public long ecnMarked() { return ecnMarked; }
    public long delivered() { return delivered; }
    public long duplicated() { return duplicated; }
    public long corrupted() { return corrupted; }
    /** Data packets cut to their headers by full buffers ({@link #setTrimming}; also counted as buffer drops). */
    public long trimmed() { return trimmed; }
    public long reordered() { return reordered; }
    public long eventsProcessed() { return eventsProcessed; }
    /** Deepest the output queue towards {@code node} on {@code plane} has been, in bytes. */
    public long maxQueueBytes(int node, int plane) { return ports[node][plane].maxBytes; }
    public long rateBps() { return rateBps; }
    public long linkDelayNs() { return linkDelayNs; }
}
