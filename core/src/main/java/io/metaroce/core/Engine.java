package io.metaroce.core;

import io.metaroce.core.wire.AckBundleHeader;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.Opcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * The sans-IO MetaRoCE engine of one device: a device context holding protection domains, memory regions,
 * completion queues and queue pairs, and the protocol machinery that moves their data (spec section 3).
 *
 * <h2>Contract</h2>
 * The engine has no sockets, threads or clock. A driver (the real datapath, the simulator, the conformance
 * tester, the test harness) owns time and I/O and calls, on one thread:
 * <ol>
 *   <li>{@link #handleDatagram(long, MemorySegment, int, int)} for every datagram received, with the time of
 *       arrival and the IP ECN field;</li>
 *   <li>{@link #handleTimeout(long)} whenever the time passes {@link #pollTimeout()};</li>
 *   <li>then {@link #pollTransmit(long, MemorySegment, Transmit)} repeatedly until it returns 0, sending each
 *       datagram it produces to {@link Transmit#peer()} on {@link Transmit#plane()} from the source port of
 *       {@link Transmit#pathId()};</li>
 *   <li>then {@link #pollTimeout()} to learn when to call {@code handleTimeout} next.</li>
 * </ol>
 * Application calls (register memory, create QPs, post work, poll CQs) happen on the same thread between those
 * calls. All times are nanoseconds on the driver's clock ({@code nowNs}); they need only be monotonic.
 * Deadlines compare wrap-safe. A {@code handleTimeout} with nothing expired is a no-op, so a driver may call it
 * early or spuriously. Randomness comes only from the generator handed to the constructor, so a run with the
 * same seed and the same inputs is bit-for-bit repeatable.
 *
 * <h2>Bad input</h2>
 * No input makes the engine throw, write outside a target region or stall other QPs: every rejected datagram is
 * counted in one {@code DROP_*} {@link Counter}. An internal failure while handling one datagram is caught,
 * counted as {@link Counter#DROP_MALFORMED} plus an internal-error count ({@link #internalErrors()}), and the
 * datagram dropped.
 */
public final class Engine {
    /** "No deadline" sentinel of {@link #pollTimeout()}. */
    public static final long NO_DEADLINE = Long.MAX_VALUE;
    static final int INDEX_BITS = 20;
    static final int INDEX_MASK = (1 << INDEX_BITS) - 1;

    private final EngineConfig cfg;
    private final RandomGenerator rng;
    final Counters counters = new Counters();
    final Packet packet = new Packet();
    /** ACK-11: unpacks received ACK bundles. */
    final AckBundleReader ackBundles = new AckBundleReader();
    private final BaseHeader base = new BaseHeader();
    private final List<QueuePair> qps = new ArrayList<>();
    private final MemoryRegions mrs;
    private final ArrayDeque<QueuePair> ready = new ArrayDeque<>();
    private Xor xor;
    /** QPs touched since the driver last drained them (null: not tracked, {@link #trackTouched()}). */
    private ArrayDeque<QueuePair> touched;
    private final TimerHeap<QueuePair> timers = new TimerHeap<>();
    /** PATH-14: QPs' deadlines that only let them transmit ({@link SendDue}), served when the line is free. */
    private final TimerHeap<SendDue> sendDues = new TimerHeap<>();
    /** CC-5, HINT-3: pacing slots that QPs wait for, one timer per route ({@link PacingQueue}) or peer's grant. */
    private final TimerHeap<PacedSlot> pacing = new TimerHeap<>();
    private final HashMap<Integer, PeerLoad> peerLoads = new HashMap<>();
    /** PATH-14: when the device's next datagram may leave. */
    private final LineClock line;
    /** VERBS-19: bytes the QP at the head of {@link #ready} has sent in its current turn. */
    private int turnBytes;
    /** The latest time the driver called with (handleDatagram's arrival times are not earlier). */
    private long clockNs = Long.MIN_VALUE;
    /** ACK-12: real wait of the datagram being handled that its handling time leaves out, in ns. */
    private long rxLeftOutNs;
    /** The driver sends gathered datagrams ({@link #gatherTransmit}). */
    boolean gather;
    /** PATH-13: the engine-wide probe budget. */
    final ProbeBudget probeBudget;
    /** PATH-19: when each plane's port is free. */
    final PlaneClocks planeClocks;
    /** HINT-*: the receiver's grants. */
    final Grants grants;
    private int pdCount;
    private long internalErrors;
    private RuntimeException lastInternalError;

    /** Creates an engine with {@code config} (copied and validated) and its only source of randomness. */
    public Engine(EngineConfig config, RandomGenerator rng) {
        this.cfg = config.copy().validate();
        this.rng = rng;
        this.probeBudget = new ProbeBudget(cfg);
        this.planeClocks = new PlaneClocks(cfg);
        this.grants = new Grants(cfg);
        this.line = new LineClock(cfg);
        this.mrs = new MemoryRegions(rng);
        qps.add(null); // QP index 0 is never used
    }

    public EngineConfig config() {
        return cfg;
    }

    /** Device-wide counters: the sum over every QP plus drops that reached no QP. */
    public Counters counters() {
        return counters;
    }

    /** Internal failures caught while handling datagrams (0 in a correct engine; tests assert it). */
    public long internalErrors() {
        return internalErrors;
    }

    /** The last internal failure caught, for diagnosis, or null. */
    public RuntimeException lastInternalError() {
        return lastInternalError;
    }

    // ---------------------------------------------------------------- verbs objects

    public ProtectionDomain allocPd() {
        return new ProtectionDomain(this, ++pdCount);
    }

    /**
     * Registers {@code segment} for {@code access} ({@link Access} flags). The region's virtual address is the
     * segment's native address, or a unique synthetic one for heap segments.
     */
    public MemoryRegion registerMemory(ProtectionDomain pd, MemorySegment segment, int access) {
        if (pd == null || pd.engine() != this) {
            throw new IllegalArgumentException("protection domain belongs to another device");
        }
        if ((access & ~Access.ALL) != 0) {
            throw new IllegalArgumentException("unknown access flags: " + access);
        }
        return mrs.register(pd, segment, access);
    }

    /** Deregisters {@code mr}: from now on its keys are rejected. */
    public void deregister(MemoryRegion mr) {
        mrs.deregister(mr);
    }

    MemoryRegion regionByRkey(int rkey) {
        return mrs.byRkey(rkey);
    }

    public CompletionQueue createCq(int capacity) {
        return new CompletionQueue(capacity);
    }

    /** Creates an RC queue pair in RESET whose completions go to the given CQs. */
    public QueuePair createQp(ProtectionDomain pd, CompletionQueue sendCq, CompletionQueue recvCq) {
        if (pd == null || pd.engine() != this) {
            throw new IllegalArgumentException("protection domain belongs to another device");
        }
        if (qps.size() > INDEX_MASK) {
            throw new IllegalStateException("too many queue pairs");
        }
        int index = qps.size();
        int tag = 1 + rng.nextInt(0x7FE);
        QueuePair qp = new QueuePair(this, tag << INDEX_BITS | index, pd, sendCq, recvCq);
        qps.add(qp);
        return qp;
    }

    /** PATH-15: the shared in-flight totals of this engine's QPs to peer {@code peerHandle}. */
    PeerLoad peerLoad(int peerHandle) {
        return peerLoads.computeIfAbsent(peerHandle, h -> new PeerLoad(this, cfg));
    }

    /** The QP with this number, or null. */
    public QueuePair queuePair(int qpn) {
        int index = qpn & INDEX_MASK;
        if (index <= 0 || index >= qps.size()) {
            return null;
        }
        QueuePair qp = qps.get(index);
        return qp != null && qp.qpn() == qpn ? qp : null;
    }

    /** Every QP of this device, in creation order. */
    public List<QueuePair> queuePairs() {
        return qps.subList(1, qps.size());
    }

    // ---------------------------------------------------------------- sans-IO contract

    /**
     * Feeds one received datagram, {@code seg[0, length)}, that arrived at {@code nowNs} with IP ECN field
     * {@code ecn} (0-3; 3 = CE). The segment is only read during the call.
     */
    public void handleDatagram(long nowNs, MemorySegment seg, int length, int ecn) {
        handleDatagram(nowNs, nowNs, seg, length, ecn);
    }

    /**
     * Feeds one received datagram that arrived at {@code arrivalNs} and is handled at {@code nowNs}: a driver that
     * drains a backlog (it was busy, or not scheduled) passes the time the kernel received each datagram, or
     * handed its batch over. The datagram is processed as of its arrival: RTT samples, ACK timers and loss
     * detection by time count from it, so time it spent waiting in the socket is not taken for network delay.
     * {@code arrivalNs} is clamped into [the latest time this engine has been called with, {@code nowNs}], so
     * the engine's time never runs backwards.
     */
    public void handleDatagram(long nowNs, long arrivalNs, MemorySegment seg, int length, int ecn) {
        handleDatagram(nowNs, arrivalNs, 0, seg, length, ecn);
    }

    /**
     * As {@link #handleDatagram(long, long, MemorySegment, int, int)}, for a driver whose clock leaves scheduling
     * stalls out (the engine's time ran slower than real time while the datagram waited): {@code leftOutNs} is how
     * much longer, in real ns, the datagram waited since it reached the host than {@code nowNs - arrivalNs} says.
     * Only the ACK hold times this engine reports (ACK-12) count it: the peer's clock kept running.
     */
    public void handleDatagram(long nowNs, long arrivalNs, long leftOutNs, MemorySegment seg, int length, int ecn) {
        long at = arrivalNs - nowNs > 0 ? nowNs : arrivalNs;
        long clamped = 0;
        if (clockNs != Long.MIN_VALUE && at - clockNs < 0) {
            long to = nowNs - clockNs < 0 ? nowNs : clockNs;
            clamped = to - at;
            at = to;
        }
        see(at);
        rxLeftOutNs = Math.max(0, leftOutNs) + Math.max(0, clamped);
        handleAt(at, seg, length, ecn, false); // catches what the packet's handling throws
        rxLeftOutNs = 0;
    }

    /**
     * REL-17: feeds what is left, {@code seg[0, length)}, of a sequenced packet that a switch trimmed to its headers
     * because its buffer could not take it (packet trimming, as UET switches do). The driver knows it was trimmed from
     * the network (the codepoint the switch set, or the simulator's flag), not from the bytes. The receiver NAKs it
     * TRIMMED at once, so its sender resends it a round trip after the loss instead of detecting it later.
     */
    public void handleTrimmed(long nowNs, MemorySegment seg, int length) {
        see(nowNs);
        handleAt(nowNs, seg, length, 0, true);
    }

    /**
     * ACK-12: the hold clock's reading for a datagram being handled at engine time {@code atNs}: its arrival at the
     * host, on the engine's time line (earlier than {@code atNs} by what the engine's clock left out).
     */
    long heldAtNs(long atNs) {
        return atNs - rxLeftOutNs;
    }

    /** Remembers the latest time the engine was called with. */
    private void see(long nowNs) {
        if (nowNs - clockNs > 0 || clockNs == Long.MIN_VALUE) {
            clockNs = nowNs;
        }
    }

    private void handleAt(long nowNs, MemorySegment seg, int length, int ecn, boolean trimmed) {
        counters.inc(Counter.RX_PACKETS);
        counters.add(Counter.RX_BYTES, Math.max(0, length));
        try {
            int r = trimmed ? packet.checkTrimmed(seg, length)
                    : cfg.elidePayload ? packet.checkElided(seg, length) : packet.check(seg, length);
            if (r == Packet.BAD_OPCODE && trimmed && Opcode.isParity(seg.get(ValueLayout.JAVA_BYTE, 1))) {
                counters.inc(Counter.PARITY_UNUSED); // REL-18, REL-20: a trimmed parity has nothing left to rebuild from
                return;
            }
            if (r != Packet.OK) {
                counters.inc(switch (r) {
                    case Packet.TRUNCATED -> Counter.DROP_TRUNCATED;
                    case Packet.BAD_CRC -> Counter.DROP_BAD_CRC;
                    case Packet.BAD_VERSION -> Counter.DROP_BAD_VERSION;
                    case Packet.BAD_OPCODE -> Counter.DROP_BAD_OPCODE;
                    default -> Counter.DROP_BAD_LENGTH;
                });
                return;
            }
            base.wrap(seg, 0);
            QueuePair qp = queuePair(base.destQpn());
            if (qp == null) {
                counters.inc(Counter.DROP_UNKNOWN_QP);
                return;
            }
            if (trimmed) {
                qp.handleTrimmed(seg, length);
            } else {
                qp.handle(nowNs, seg, length, ecn);
            }
            reschedule(qp);
            offer(qp, nowNs);
        } catch (RuntimeException e) {
            internalErrors++;
            lastInternalError = e;
            counters.inc(Counter.DROP_MALFORMED);
        }
    }

    /** Fires every timer due at {@code nowNs}; spurious calls are no-ops. O(log n) per QP due. */
    public void handleTimeout(long nowNs) {
        see(nowNs);
        QueuePair qp;
        while ((qp = timers.peek()) != null && qp.cachedDeadline - nowNs <= 0) {
            qp.onTimeout(nowNs);
            reschedule(qp);
            if (qp.cachedDeadline - nowNs <= 0) {
                // Still due after its timers ran: only a transmit can satisfy it (a probe waiting for the
                // engine's probe budget). It goes to the ready queue; pollTransmit puts it back in the heap.
                timers.remove(qp);
                markReady(qp);
            } else {
                offer(qp, nowNs);
            }
        }
        SendDue due;
        while (!line.busyAt(nowNs) && (due = sendDues.peek()) != null && due.cachedDeadline - nowNs <= 0) {
            // PATH-14: it may transmit now; it is in the ready queue, and pollTransmit times it again
            sendDues.remove(due);
            due.qp.onSendDue();
            markReady(due.qp);
        }
        PacedSlot slot;
        while ((slot = pacing.peek()) != null && slot.cachedDeadline - nowNs <= 0) {
            pacing.remove(slot);
            slot.fire();
        }
    }

    /** CC-5, HINT-3: times {@code slot}'s next pacing slot at {@code atNs}. */
    void armPacing(PacedSlot slot, long atNs) {
        slot.cachedDeadline = atNs;
        pacing.update(slot);
    }

    /** Recomputes {@code qp}'s next deadline and its place in the timer heap. */
    void reschedule(QueuePair qp) {
        place(qp, qp.nextDeadline());
    }

    /** Puts {@code qp} in the timer heap at {@code deadline}, and its send-only deadline in {@link #sendDues}. */
    private void place(QueuePair qp, long deadline) {
        qp.cachedDeadline = deadline;
        timers.update(qp);
        sendDues.update(qp.sendDue);
    }

    /**
     * Writes the next datagram to send into {@code out} (which must hold {@link #maxDatagramLength()}: mtu + 72 bytes,
     * and the AUTH trailer) and describes it in
     * {@code tx}; returns its length, or 0 when nothing may be sent now.
     */
    public int pollTransmit(long nowNs, MemorySegment out, Transmit tx) {
        see(nowNs);
        if (line.busyAt(nowNs)) {
            return 0; // the device's line rate (PATH-14)
        }
        while (!ready.isEmpty()) {
            QueuePair qp = ready.peekFirst();
            int n = qp.poll(nowNs, out, tx);
            ready.pollFirst();
            touch(qp);
            if (n > 0 && line.on()) {
                planeClocks.sent(tx.plane(), n, nowNs); // PATH-19
                line.sent(n, nowNs);
            }
            place(qp, qp.nextDeadlineAfterPoll());
            if (n == 0 && qp.pacingToken != null) {
                // PATH-18: woken for a route's slot, it sent no data: the next waiter's turn comes
                qp.pacingToken.handBack(qp);
            }
            if (n > 0 && waitsForMore(qp, nowNs)) {
                qp.inReady = false;
                turnBytes = 0;
                return n;
            }
            if (n > 0) {
                // VERBS-19: round robin among QPs with work; a turn carries up to txQuantumBytes (0: one datagram)
                turnBytes += n;
                if (turnBytes < cfg.txQuantumBytes) {
                    ready.addFirst(qp);
                } else {
                    turnBytes = 0;
                    ready.addLast(qp);
                }
                return n;
            }
            qp.inReady = false;
            turnBytes = 0;
        }
        return 0;
    }

    /** Puts {@code qp} in the ready queue, unless {@link #waitsForMore} finds it has nothing to send. */
    private void offer(QueuePair qp, long nowNs) {
        if (qp.inReady || !waitsForMore(qp, nowNs)) {
            markReady(qp);
        } else {
            touch(qp);
        }
    }

    /** PATH-14: with a line rate, whether {@code qp} could send nothing when the line is next free (now, if it is). */
    private boolean waitsForMore(QueuePair qp, long nowNs) {
        return line.on() && !qp.canSendBy(line.nextSendNs(nowNs));
    }

    /**
     * With {@code on}, {@link #pollTransmit} may leave a data packet's payload in the registered region it comes
     * from instead of copying it into {@code out}: {@link Transmit#payloadLength()} then says where it is, and the
     * driver sends header, payload and CRC as one datagram (scatter-gather). Only payloads in native memory of at
     * most 2 GiB are gathered; others are copied as without it. Off by default.
     */
    public void gatherTransmit(boolean on) {
        gather = on;
    }

    /** The earliest time {@link #handleTimeout} has work, or {@link #NO_DEADLINE}. O(1). */
    public long pollTimeout() {
        long free = line.freeNs();
        // PATH-14: a route's pacing slot and a QP's deadline that only lets it transmit count from when the line is free
        long send = Math.min(pacing.peekDeadline(), sendDues.peekDeadline());
        if (send != NO_DEADLINE && send < free) {
            send = free;
        }
        long d = Math.min(timers.peekDeadline(), send);
        if (!ready.isEmpty() && free != Long.MIN_VALUE && free < d) {
            d = free; // QPs wait in the ready queue for the line rate
        }
        return d;
    }

    /** REL-18: the parity accumulator every QP of this engine shares (one thread runs them all), made on first use. */
    Xor xor() {
        if (xor == null) {
            xor = new Xor(cfg.mtu);
        }
        return xor;
    }

    /** Largest datagram this engine produces or takes, what its buffers hold ({@link DatagramSizes#max}). */
    public int maxDatagramLength() {
        return DatagramSizes.max(cfg);
    }

    /** Largest data datagram ({@link DatagramSizes#maxData}): an ACK bundle fills at most this much. */
    public int maxDataDatagramLength() {
        return DatagramSizes.maxData(cfg);
    }

    /** Bytes a transmit or receive buffer needs ({@link DatagramSizes#buffer}: less with elided payloads). */
    public int bufferLength() {
        return DatagramSizes.buffer(cfg);
    }

    /** {@link #bufferLength()} of an engine built from {@code cfg}, without building one. */
    public static int bufferLength(EngineConfig cfg) {
        return DatagramSizes.buffer(cfg);
    }

    /**
     * From now on, the engine lists every QP whose state or {@link QueuePair#sendsRetired()} may have changed, or that
     * received, timed out or sent, for {@link #pollTouched()}: a driver that mirrors QP state to other threads then
     * visits only those, not every QP after every event. Off by default (an undrained list would grow).
     */
    public void trackTouched() {
        if (touched == null) {
            touched = new ArrayDeque<>();
        }
    }

    /** The next QP touched since it was last returned, or null; see {@link #trackTouched()}. */
    public QueuePair pollTouched() {
        QueuePair qp = touched == null ? null : touched.poll();
        if (qp != null) {
            qp.touched = false;
        }
        return qp;
    }

    void touch(QueuePair qp) {
        if (touched != null && !qp.touched) {
            qp.touched = true;
            touched.add(qp);
        }
    }

    void markReady(QueuePair qp) {
        touch(qp);
        if (!qp.inReady) {
            qp.inReady = true;
            ready.addLast(qp);
        }
    }

    /** Senders currently counted active by the grant logic. */
    public int activeSenderCount() {
        return grants.activeCount();
    }
}
