package io.metaroce.sim.transport;

import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Engine;
import io.metaroce.core.Transmit;
import io.metaroce.core.WorkCompletion;
import io.metaroce.core.wire.Opcode;
import io.metaroce.sim.event.EventHandler;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Timer;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.CrossTraffic;
import io.metaroce.sim.fabric.Packet;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.PacketSink;
import io.metaroce.sim.fabric.SwitchPort;
import java.lang.foreign.MemorySegment;

/**
 * A host: one core {@link Engine} and one NIC port per plane. Received packets go to
 * {@code engine.handleDatagram} (packets a switch trimmed to {@code engine.handleTrimmed}); then the engine's transmit queue is drained into pooled packets queued on the
 * NIC port of the plane it names, and one wake-up timer is kept at the engine's {@code pollTimeout}.
 */
public final class Host implements PacketSink {
    /** Sees the completions (send and receive) polled from the host's completion queue. */
    @FunctionalInterface
    public interface CompletionListener {
        /** Called with each completion {@code wc} polled at {@code host}, at virtual time {@code nowPs}. */
        void completed(Host host, WorkCompletion wc, long nowPs);
    }

    private final int index;
    private final Engine engine;
    private final EventLoop loop;
    private final PacketPool pool;
    private final SwitchPort[] nics;
    private final Transmit tx = new Transmit();
    private final Timer wake;
    private final WorkCompletion wc = new WorkCompletion();
    /** Sees every data packet a host hands to its NICs (originals and retransmissions). */
    @FunctionalInterface
    public interface DataTap {
        /** Host {@code host} sends the data packet in {@code seg} (headers from offset 0) at {@code nowPs}. */
        void sent(int host, java.lang.foreign.MemorySegment seg, long nowPs);
    }

    private CompletionQueue cq;
    private DataTap tap;
    private CompletionListener listener;
    private long txPackets;
    private long txDataPackets;
    private long rxPackets;
    private long crossPackets;
    private boolean pumping;
    private boolean pumpAgain;
    /** Entropy + 1 per (destination, path) a controller re-pinned, at dst * MAX_PATHS + path; null until then. */
    private int[] steering;
    private static final int MAX_PATHS = 256;

    /** Host {@code index} with {@code engine}, sending on {@code nics[plane]}. */
    public Host(int index, Engine engine, EventLoop loop, PacketPool pool, SwitchPort[] nics) {
        this.index = index;
        this.engine = engine;
        this.loop = loop;
        this.pool = pool;
        this.nics = nics.clone();
        this.wake = new Timer(loop, new Wake());
    }

    /** The host's index in the fabric. */
    public int index() { return index; }
    /** The host's MetaRoCE engine. */
    public Engine engine() { return engine; }
    /** The host's NIC output port on {@code plane}. */
    public SwitchPort nic(int plane) { return nics[plane]; }
    /** Packets the host sent (data and control). */
    public long txPackets() { return txPackets; }
    /** Data packets the host sent. */
    public long txDataPackets() { return txDataPackets; }
    /** Packets delivered to the host (every kind). */
    public long rxPackets() { return rxPackets; }
    /** Cross-traffic filler packets received and discarded. */
    public long crossPackets() { return crossPackets; }
    /** The engine wake-up timer (for event accounting). */
    public Timer wakeTimer() { return wake; }

    /**
     * Re-pins this host's packets to {@code dst} on engine path {@code pathId} (0..255) to ECMP entropy
     * {@code entropy} (the UDP source port offset the switches hash), as a controller rewriting a flow's source
     * port would; the engine does not notice.
     */
    public void steer(int dst, int pathId, int entropy) {
        if (dst < 0 || pathId < 0 || pathId >= MAX_PATHS || entropy < 0) {
            throw new IllegalArgumentException("steer dst " + dst + " path " + pathId + " entropy " + entropy);
        }
        int need = (dst + 1) * MAX_PATHS;
        if (steering == null || steering.length < need) {
            steering = steering == null ? new int[need] : java.util.Arrays.copyOf(steering, need);
        }
        steering[dst * MAX_PATHS + pathId] = entropy + 1;
    }

    /** The ECMP entropy of this host's packets to {@code dst} on engine path {@code pathId}. */
    public int entropy(int dst, int pathId) {
        int i = dst * MAX_PATHS + pathId;
        return steering == null || i >= steering.length || steering[i] == 0 ? pathId : steering[i] - 1;
    }

    /** {@code t} sees every data packet this host sends from now on (null: none). */
    public void tapData(DataTap t) {
        this.tap = t;
    }

    /** Polls {@code cq} after every engine call and reports its completions to {@code l}. */
    public void watchCompletions(CompletionQueue queue, CompletionListener l) {
        this.cq = queue;
        this.listener = l;
    }

    @Override
    public void receive(Packet p, int inPort) {
        if (p.kind == CrossTraffic.KIND) {
            crossPackets++; // filler for congestion, not for the engine
            pool.release(p);
            return;
        }
        rxPackets++;
        if (p.isTrimmed()) {
            engine.handleTrimmed(loop.nowNs(), p.seg, p.length); // REL-17: the receiver NAKs it at once
        } else {
            engine.handleDatagram(loop.nowNs(), p.seg, p.length, p.ecn);
        }
        pool.release(p);
        pump();
    }

    private void drain(long nowNs) {
        while (true) {
            Packet p = next(nowNs);
            if (p == null) {
                return;
            }
            int len = p.length;
            p.src = index;
            p.dst = tx.peer();
            p.plane = tx.plane();
            p.pathId = steering == null ? tx.pathId() : entropy(p.dst, tx.pathId());
            p.ecn = tx.ecn();
            p.opcode = tx.opcode();
            p.data = Opcode.hasUserPayload(p.opcode) || p.opcode == Opcode.READ_REQ; // a PARITY is as long as data
            p.kind = 0;
            txPackets++;
            if (p.data) {
                txDataPackets++;
                if (tap != null && Opcode.isData(p.opcode)) {
                    tap.sent(index, p.seg, loop.nowPs());
                }
            }
            nics[p.plane].enqueue(p);
        }
    }

    /**
     * The engine's next datagram in a pooled packet (null when it has none). From a pool of two buffer sizes the
     * engine writes into the pool's scratch buffer and the bytes it wrote are copied into a packet of the size they
     * need (with {@code elidePayload} a data packet's length counts a payload that is not written).
     */
    private Packet next(long nowNs) {
        if (pool.sized()) {
            MemorySegment scratch = pool.scratch();
            int len = engine.pollTransmit(nowNs, scratch, tx);
            if (len <= 0) {
                return null;
            }
            int written = tx.writtenLength();
            Packet p = pool.alloc(written);
            MemorySegment.copy(scratch, 0, p.seg, 0, written);
            p.length = len;
            return p;
        }
        Packet p = pool.alloc();
        int len = engine.pollTransmit(nowNs, p.seg, tx);
        if (len <= 0) {
            pool.release(p);
            return null;
        }
        p.length = len;
        return p;
    }

    /** The wake-up: runs the engine's timers; warmed ahead by the engine's next deadline (a read-only query). */
    private final class Wake implements EventHandler {
        @Override
        public void onEvent(long arg) {
            onWake();
        }

        @Override
        public long warm() {
            return engine.pollTimeout();
        }
    }

    private void onWake() {
        engine.handleTimeout(loop.nowNs());
        pump();
    }

    /**
     * Drains the engine's transmit queue onto the NICs and re-arms the wake-up; call after application calls.
     * A deadline already due is served at once (a spurious {@code handleTimeout} is a no-op by contract), a few
     * rounds at most, instead of costing an extra event. Re-entrant calls (a completion listener posting work on
     * this host) make the running pump go round again instead of recursing.
     */
    public void pump() {
        if (pumping) {
            pumpAgain = true; // a completion listener posted work: the running pump goes round again
            return;
        }
        pumping = true;
        try {
            do {
                pumpAgain = false;
                pumpOnce();
            } while (pumpAgain);
        } finally {
            pumping = false;
        }
    }

    private void pumpOnce() {
        long nowNs = loop.nowNs();
        long deadline = Engine.NO_DEADLINE;
        for (int round = 0; ; round++) {
            drain(nowNs);
            deadline = engine.pollTimeout();
            if (deadline == Engine.NO_DEADLINE || deadline - nowNs > 0 || round == 3) {
                break;
            }
            engine.handleTimeout(nowNs);
        }
        if (cq != null) {
            while (cq.poll(wc)) {
                listener.completed(this, wc, loop.nowPs());
            }
        }
        if (deadline == Engine.NO_DEADLINE) {
            return;
        }
        // engine time is ns; wake at the first ps of a later ns so nowNs has really reached the deadline
        long atPs = deadline - nowNs > 0 ? deadline * Units.PS_PER_NS : (nowNs + 1) * Units.PS_PER_NS;
        if (!wake.isArmed() || atPs < wake.atPs()) {
            wake.set(atPs, 0);
        }
    }
}
