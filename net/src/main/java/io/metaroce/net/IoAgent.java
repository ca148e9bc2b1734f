package io.metaroce.net;

import io.metaroce.core.Engine;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.Transmit;
import io.metaroce.core.wire.Opcode;
import org.jctools.queues.atomic.MpscAtomicArrayQueue;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A device's I/O agent: the duty cycle of ARCHITECTURE.md, after Aeron's agents. One {@link #doWork} call takes
 * queued control commands and every QP's posted work requests, drains the receive sockets (every datagram
 * waiting, up to a bound) into the engine, and only then fires the engine's timers, so that datagrams that
 * arrived during a stall are seen before any timer judges them lost; then it drains the engine's transmits
 * into batches, one {@code sendmmsg} per send socket (runs of equal-size datagrams to one peer become one UDP
 * GSO message), and publishes completions and QP state. It owns no thread: the device runs it on its own
 * thread, and a test can drive it step by step.
 */
final class IoAgent {
    /** Most datagrams taken from one receive socket per duty cycle (then the cycle sends and comes back). */
    static final int RX_BUDGET = 1024;
    /** Most transmit batches per duty cycle (then the cycle receives and comes back). */
    static final int TX_BATCHES = 8;

    /**
     * The device's connection manager, which takes CM datagrams and has timers of its own. It is called with the
     * real monotonic time (it reads that clock itself), not the engine's stall-clamped one.
     */
    interface ControlPlane {
        void handle(long nowNs, MemorySegment dgram, int len, int fromAddr, int fromPort);

        void onTimer(long nowNs);
    }

    private final Engine engine;
    private final SocketSet sockets;
    private final ControlPlane control;
    private final StallClock clock;
    private final double injectLoss;
    private final SplittableRandom lossRng;
    private final PacketBatch rxBatch;
    private final PacketBatch txBatch;
    private final GroSplitter splitter;
    private final GroSplitter.Sink deliver = this::deliver;
    private final Transmit tx = new Transmit();
    private final int[] usedSockets;
    private final int[][] bySocket;
    private final int[] countBySocket;
    final MpscAtomicArrayQueue<Runnable> commands = new MpscAtomicArrayQueue<>(1 << 16);
    final MpscAtomicArrayQueue<DeviceQp> doorbells;
    final List<DeviceCq> cqs = new ArrayList<>();
    final List<DeviceQp> qps = new ArrayList<>();
    /** The device QP of each engine QP: the engine names the QPs it touched ({@link Engine#pollTouched()}). */
    private final IdentityHashMap<QueuePair, DeviceQp> byQp = new IdentityHashMap<>();
    private long nextDeadlineNs = Engine.NO_DEADLINE;
    private long nowNs;
    private long realNs;
    private int rxEcn;
    private int rxDscp;
    /** REL-17: the DSCP a trimming switch marks the packets it cut to their headers with; -1: none. */
    private int trimmedDscp = -1;
    private int rxAddr;
    private int rxPort;
    private long rxArrivalNs;
    private long rxLeftOutNs;

    // statistics: written here, read on this thread (stats calls) or as a racy snapshot
    long rxDatagrams;
    long rxBuffers;
    long rxTruncated;
    long txDatagrams;
    long txSendDrops;
    long injectedDrops;
    long cmPackets;
    long dutyCycles;
    long rejectedPosts;

    /** REL-17: datagrams arriving with IP DSCP {@code dscp} are packets a switch trimmed (-1: none are). */
    void trimmedDscp(int dscp) {
        trimmedDscp = dscp;
    }

    IoAgent(Engine engine, SocketSet sockets, ControlPlane control, Arena arena, int batch, int txBatch, int maxQps,
            double injectLoss, long seed, long stallClampNs, long realNowNs) {
        this.engine = engine;
        this.sockets = sockets;
        this.control = control;
        this.injectLoss = injectLoss;
        this.lossRng = new SplittableRandom(seed ^ 0x5DEECE66DL);
        this.clock = new StallClock(realNowNs, stallClampNs);
        int slot = Math.max(engine.maxDatagramLength(), 2048);
        boolean gro = sockets.rx[0].gro();
        this.rxBatch = new PacketBatch(arena, batch, gro ? 65_536 : slot);
        this.txBatch = new PacketBatch(arena, txBatch, slot);
        this.splitter = new GroSplitter(rxBatch);
        this.usedSockets = new int[txBatch];
        this.bySocket = new int[txBatch][txBatch];
        this.countBySocket = new int[txBatch];
        this.doorbells = new MpscAtomicArrayQueue<>(Math.max(1024, maxQps));
        engine.trackTouched(); // publish() visits the QPs the engine touched, not all of them every cycle
        engine.gatherTransmit(true); // every socket sends the pieces (LinuxUdp as iovecs, ChannelUdp flattened)
    }

    /** Agent thread: {@code q} joins this agent's QPs. */
    void add(DeviceQp q) {
        qps.add(q);
        byQp.put(q.qp, q);
    }

    /** The engine's clock (stall-clamped), as of the last duty cycle. */
    StallClock clock() {
        return clock;
    }

    /** The next engine deadline, in engine time (or {@link Engine#NO_DEADLINE}). */
    long nextDeadlineNs() {
        return nextDeadlineNs;
    }

    /** One duty cycle at real time {@code realNowNs}; returns the work done (0: nothing to do). */
    int doWork(long realNowNs) throws IOException {
        long now = clock.advance(realNowNs);
        nowNs = now;
        realNs = realNowNs;
        int work = 0;
        Runnable r;
        while ((r = commands.poll()) != null) {
            r.run();
            work++;
        }
        DeviceQp q;
        while ((q = doorbells.poll()) != null) {
            work += q.drain();
            publish(q); // a refused post retires without the engine (extraRetired)
        }
        work += receive();
        if (nextDeadlineNs != Engine.NO_DEADLINE && nextDeadlineNs - now <= 0) {
            engine.handleTimeout(now);
            work++;
        }
        control.onTimer(realNowNs);
        work += transmit(now);
        nextDeadlineNs = engine.pollTimeout();
        for (int i = 0, n = cqs.size(); i < n; i++) {
            work += cqs.get(i).publish();
        }
        QueuePair touched;
        while ((touched = engine.pollTouched()) != null) {
            DeviceQp d = byQp.get(touched);
            if (d != null) {
                publish(d);
            }
        }
        dutyCycles++;
        return work;
    }

    private static void publish(DeviceQp q) {
        long done = q.qp.sendsRetired() + q.extraRetired;
        if (done != q.publishedRetired) { // volatile writes only on change: thousands of QPs stay cheap
            q.publishedRetired = done;
            q.retired = done;
        }
        QpState st = q.qp.state();
        if (st != q.publishedState) {
            q.publishedState = st;
            q.state = st;
        }
    }

    /** Every datagram waiting on every receive socket (up to {@link #RX_BUDGET} per socket) into the engine. */
    private int receive() throws IOException {
        int work = 0;
        for (UdpSocket s : sockets.rx) {
            int taken = 0;
            while (taken < RX_BUDGET) {
                int n = s.receive(rxBatch);
                for (int i = 0; i < n; i++) {
                    rxBuffers++;
                    if (rxBatch.truncated[i]) {
                        rxTruncated++; // longer than any datagram of ours: not parsed
                        continue;
                    }
                    rxEcn = rxBatch.ecn[i];
                    rxDscp = rxBatch.dscp[i];
                    rxAddr = rxBatch.addr[i];
                    rxPort = rxBatch.port[i];
                    rxArrivalNs = clock.engineTimeOf(rxBatch.arrivalNs[i]);
                    rxLeftOutNs = clock.leftOutNs(rxBatch.arrivalNs[i]); // ACK-12: the peer's clock kept running
                    taken += splitter.split(i, rxBatch.length[i], rxBatch.segmentSize[i], deliver);
                }
                work += n;
                if (n < rxBatch.capacity) {
                    break; // the socket is empty
                }
            }
        }
        return work;
    }

    private void deliver(MemorySegment dgram, int len, int slot) {
        rxDatagrams++;
        if (len >= 2 && Opcode.isCm(dgram.get(ValueLayout.JAVA_BYTE, 1) & 0xFF)) {
            cmPackets++;
            control.handle(realNs, dgram, len, rxAddr, rxPort);
            return;
        }
        if (injectLoss > 0 && lossRng.nextDouble() < injectLoss) {
            injectedDrops++;
            return;
        }
        if (rxDscp == trimmedDscp) {
            engine.handleTrimmed(nowNs, dgram, len); // REL-17: the receiver NAKs it at once
            return;
        }
        engine.handleDatagram(nowNs, rxArrivalNs, rxLeftOutNs, dgram, len, rxEcn); // processed as of its arrival
    }

    /** Drains the engine's transmits, a batch at a time, each batch one send call per socket it uses. */
    private int transmit(long now) throws IOException {
        int total = 0;
        for (int b = 0; b < TX_BATCHES; b++) {
            int n = 0;
            int used = 0;
            while (n < txBatch.capacity) {
                int len = engine.pollTransmit(now, txBatch.slots[n], tx);
                if (len == 0) {
                    break;
                }
                int peer = tx.peer();
                txBatch.length[n] = len;
                int gathered = tx.payloadLength();
                txBatch.gatherLength[n] = gathered;
                if (gathered > 0) { // the payload leaves from its registered region (scatter-gather send)
                    txBatch.headerLength[n] = tx.headerLength();
                    txBatch.gatherSegment[n] = tx.payloadSegment();
                    txBatch.gatherOffset[n] = tx.payloadOffset();
                }
                txBatch.addr[n] = sockets.peerAddr(peer, tx.plane());
                txBatch.port[n] = sockets.peerPort(peer);
                int s = sockets.txIndex(peer, tx.pathId());
                int u = 0;
                while (u < used && usedSockets[u] != s) {
                    u++;
                }
                if (u == used) {
                    usedSockets[used++] = s;
                    countBySocket[u] = 0;
                }
                bySocket[u][countBySocket[u]++] = n;
                n++;
            }
            if (n == 0) {
                return total;
            }
            for (int u = 0; u < used; u++) {
                int k = countBySocket[u];
                int sent = sockets.tx(usedSockets[u]).send(txBatch, bySocket[u], k);
                txSendDrops += k - sent;
            }
            txDatagrams += n;
            total += n;
            if (n < txBatch.capacity) {
                return total;
            }
        }
        return total;
    }
}
