package io.metaroce.sim.roce;

import io.metaroce.core.wire.Ecn;
import io.metaroce.sim.event.EventHandler;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.event.Timer;
import io.metaroce.sim.event.Units;
import io.metaroce.sim.fabric.CrossTraffic;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.Packet;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.SwitchPort;
import io.metaroce.sim.transport.Transport;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * RoCEv2 as users run it today (see {@link RoceConfig}), modelled at the header level (no payload bytes):
 * reliable connections with one fixed path per QP, go-back-N on a PSN gap, and DCQCN rate control driven by
 * CNPs ({@link Dcqcn}).
 *
 * <ul>
 *   <li>Path: each QP gets a seeded plane and a seeded 14-bit path id, the UDP source port entropy
 *       ({@code 49152 + pathId}) by which ECMP pins it to one path. Further QPs between the same two hosts take
 *       the following planes in turn (the k-th on the first QP's plane + k), as deployments spread a host pair's
 *       QPs over their NICs: with one QP per plane per pair every plane carries one. ACK/NAK/CNP go back on
 *       the same plane with the same port.</li>
 *   <li>Requester: messages are sent in posting order, segmented into {@link RoceConfig#mtu} payloads, ECT(0),
 *       paced at the QP's DCQCN rate (line rate, the host link rate, until a CNP). QPs of one NIC port share
 *       it: the port sends one packet per serialization time, picking the QP whose pacer allows the earliest
 *       send (round robin among QPs at full rate), and holds back while the NIC queue is occupied (a PFC
 *       pause). A NAK rewinds to the NAKed PSN and resends everything from there; no acknowledged progress for
 *       {@link RoceConfig#rtoPs} rewinds to the oldest unacknowledged PSN; the {@code retryCount + 1}-th
 *       consecutive timeout errors the QP: every posted message (and any posted later) completes with
 *       {@code ok = false}.</li>
 *   <li>Responder: accepts PSNs in order only; an out-of-order packet is dropped and the first of a gap
 *       episode draws one NAK (sequence error) carrying the expected PSN; duplicates are re-acknowledged.
 *       Cumulative ACKs every {@link RoceConfig#ackEvery} packets and on each message's last packet. A
 *       CE-marked data packet draws a CNP, at most one per {@link RoceConfig#cnpIntervalPs} per QP.</li>
 * </ul>
 * Control packets go straight onto the NIC queue (ahead of data the pacer has not released yet). Everything
 * random is drawn from the stream given at construction, in connection order; time is the loop's.
 */
public final class RoceTransport implements Transport {
    /** {@link Packet#kind} of a data packet. */
    public static final int KIND_DATA = 0;
    /** {@link Packet#kind} of a cumulative ACK ({@link Packet#seq}: next expected PSN). */
    public static final int KIND_ACK = 1;
    /** {@link Packet#kind} of a NAK, sequence error ({@link Packet#seq}: the expected PSN to resend from). */
    public static final int KIND_NAK = 2;
    /** {@link Packet#kind} of a congestion notification packet. */
    public static final int KIND_CNP = 3;

    // InfiniBand BTH opcodes (RC): RDMA WRITE, the last packet with immediate data carrying the message tag
    static final int OP_WRITE_FIRST = 0x06;
    static final int OP_WRITE_MIDDLE = 0x07;
    static final int OP_WRITE_LAST_IMM = 0x09;
    static final int OP_WRITE_ONLY_IMM = 0x0B;
    static final int OP_ACKNOWLEDGE = 0x11;
    static final int OP_CNP = 0x81;

    private static final Listener NO_LISTENER = new Listener() {
        @Override public void delivered(int conn, long tag, long nowPs) { }
        @Override public void completed(int conn, long tag, long nowPs, boolean ok) { }
    };

    private final EventLoop loop;
    private final PacketPool pool;
    private final Fabric fabric;
    private final RoceConfig cfg;
    private final SplittableRandom rng;
    private final long lineBps;
    private final long linePsPerByte;
    private final SwitchPort[][] nics;
    private final RocePort[][] ports; // [host][plane]
    private final EventHandler rtoHandler = this::onRto;
    private final EventHandler flushHandler = this::onFlush;
    private RoceQp[] qps = new RoceQp[16];
    private int qpCount;
    /** Per (src, dst) pair: its first QP's plane and how many QPs it has (for spreading over planes). */
    private final Map<Long, int[]> pairPlanes = new java.util.HashMap<>();
    private Listener listener = NO_LISTENER;

    private final RoceCounters stats = new RoceCounters();

    /** A RoCEv2 endpoint on every host of {@code fabric}; attaches to every host's downlinks. */
    public RoceTransport(EventLoop loop, PacketPool pool, Fabric fabric, RoceConfig cfg, SplittableRandom rng) {
        cfg.validate();
        this.loop = loop;
        this.pool = pool;
        this.fabric = fabric;
        this.cfg = cfg;
        this.rng = rng;
        this.lineBps = fabric.config().hostRateBps;
        if (lineBps <= 0) {
            throw new IllegalArgumentException("host link rate must be > 0 b/s, got " + lineBps);
        }
        this.linePsPerByte = Units.psPerByteFixed(lineBps);
        int hosts = fabric.hosts();
        int planes = fabric.planes();
        nics = new SwitchPort[hosts][];
        ports = new RocePort[hosts][planes];
        EventHandler pumpHandler = this::onPump;
        for (int h = 0; h < hosts; h++) {
            nics[h] = fabric.nics(h);
            for (int p = 0; p < planes; p++) {
                ports[h][p] = new RocePort(h, p, planes, new Timer(loop, pumpHandler));
            }
            final int host = h;
            fabric.attach(h, (pkt, inPort) -> receive(host, pkt));
        }
    }

    @Override public String name() { return "rocev2"; }

    @Override
    public void setListener(Listener l) {
        this.listener = l == null ? NO_LISTENER : l;
    }

    @Override
    public int connect(int src, int dst) {
        int hosts = fabric.hosts();
        if (src < 0 || src >= hosts || dst < 0 || dst >= hosts) {
            throw new IllegalArgumentException("hosts must be in [0, " + hosts + "), got " + src + " -> " + dst);
        }
        if (src == dst) {
            throw new IllegalArgumentException("a connection needs two hosts, got " + src + " -> " + dst);
        }
        int seededPlane = rng.nextInt(fabric.planes());
        int pathId = rng.nextInt(1 << 14);
        int[] pair = pairPlanes.computeIfAbsent((long) src << 32 | dst, k -> new int[] {seededPlane, 0});
        int plane = (pair[0] + pair[1]++) % fabric.planes(); // the first QP keeps its seeded plane
        if (qpCount == qps.length) {
            qps = Arrays.copyOf(qps, qpCount * 2);
        }
        RoceQp qp = new RoceQp(qpCount, src, dst, plane, pathId, new Timer(loop, rtoHandler));
        qps[qpCount] = qp;
        return qpCount++;
    }

    @Override public int connections() { return qpCount; }
    @Override public int source(int conn) { return qp(conn).src; }
    @Override public int destination(int conn) { return qp(conn).dst; }
    @Override public long receivedBytes(int conn) { return qp(conn).received; }
    @Override public long dataPacketsSent() { return stats.dataPacketsSent; }

    /** The plane connection {@code conn} is pinned to. */
    public int plane(int conn) { return qp(conn).plane; }

    /** The path id (UDP source port minus 49152) of connection {@code conn}. */
    public int pathId(int conn) { return qp(conn).pathId; }

    /**
     * Re-pins connection {@code conn} to another path: its packets from now on (data, and the ACKs, NAKs and CNPs
     * answering them) carry UDP source port entropy {@code pathId} (0..16383), as a controller does by rewriting
     * a flow's source port. Packets already in the fabric keep their path, so the receiver may see a PSN gap.
     */
    public void setPathId(int conn, int pathId) {
        if (pathId < 0 || pathId >= 1 << 14) {
            throw new IllegalArgumentException("path id " + pathId + " outside 0..16383");
        }
        qp(conn).pathId = pathId;
    }

    /** The current DCQCN rate of {@code conn} in b/s (line rate before its first CNP). */
    public double rateBps(int conn) { return rateOf(qp(conn)); }

    /** True once {@code conn} errored after exhausting its retries. */
    public boolean failed(int conn) { return qp(conn).failed; }

    private RoceQp qp(int conn) {
        if (conn < 0 || conn >= qpCount) {
            throw new IllegalArgumentException("no connection " + conn + " (have " + qpCount + ")");
        }
        return qps[conn];
    }

    @Override
    public void send(int conn, long bytes, long tag) {
        RoceQp qp = qp(conn);
        if (bytes <= 0) {
            throw new IllegalArgumentException("message size must be > 0 bytes, got " + bytes);
        }
        qp.post(bytes, (bytes + cfg.mtu - 1) / cfg.mtu, tag);
        if (qp.failed) {
            loop.schedule(loop.nowPs(), flushHandler, conn); // the QP is in error: flush, as a NIC does
            return;
        }
        wake(qp);
    }

    @Override
    public Map<String, Long> counters() {
        long decreases = 0;
        long increases = 0;
        for (int i = 0; i < qpCount; i++) {
            Dcqcn d = qps[i].dcqcn;
            if (d != null) {
                decreases += d.decreases();
                increases += d.increases();
            }
        }
        return stats.toMap(decreases, increases, fabric.config().trimming);
    }

    // requester: pacing over the NIC port -----------------------------------------------------------------

    private double rateOf(RoceQp qp) {
        return qp.dcqcn == null ? lineBps : qp.dcqcn.rateBps();
    }

    private boolean sendable(RoceQp qp) {
        return !qp.failed && qp.sndNxt < qp.endPsn
                && (cfg.windowBytes <= 0 || (qp.sndNxt - qp.sndUna) * cfg.mtu < cfg.windowBytes);
    }

    /** Queues {@code qp} on its port if it has something to send, and lets the port send. */
    private void wake(RoceQp qp) {
        if (!sendable(qp)) {
            return;
        }
        RocePort port = ports[qp.src][qp.plane];
        if (qp.heapPos < 0) {
            port.push(qp);
        }
        pump(port);
    }

    private void onPump(long arg) {
        int planes = fabric.planes();
        pump(ports[(int) (arg / planes)][(int) (arg % planes)]);
    }

    /** Sends at most one data packet on {@code port} and arms its timer for the next opportunity. */
    private void pump(RocePort port) {
        long now = loop.nowPs();
        if (port.busyUntilPs > now) {
            port.arm(port.busyUntilPs);
            return;
        }
        SwitchPort nic = nics[port.host][port.plane];
        while (port.size > 0) {
            RoceQp qp = port.peek();
            if (!sendable(qp)) {
                port.pop();
                continue;
            }
            if (qp.nextSendPs > now) {
                port.arm(qp.nextSendPs);
                return;
            }
            if (nic.queuedBytes() >= cfg.mtu + cfg.headerBytes) {
                // the NIC has a full packet waiting (paused by PFC, or control packets ahead): try again later
                port.arm(now + Units.txTimePsFast(cfg.mtu + cfg.headerBytes, linePsPerByte));
                return;
            }
            port.pop();
            int len = sendData(qp, nic);
            qp.nextSendPs = now + Units.txTimePs(len, Math.max(1, (long) rateOf(qp)));
            port.push(qp);
            port.busyUntilPs = now + Units.txTimePsFast(len, linePsPerByte);
            port.arm(port.busyUntilPs);
            return;
        }
    }

    /** Sends PSN {@code sndNxt} of {@code qp}; returns the wire length. */
    private int sendData(RoceQp qp, SwitchPort nic) {
        long now = loop.nowPs();
        long psn = qp.sndNxt++;
        int slot = qp.seek(psn);
        long start = qp.start(slot);
        long bytes = qp.bytes(slot);
        int payload = (int) Math.min(cfg.mtu, bytes - (psn - start) * cfg.mtu);
        boolean first = psn == start;
        boolean last = psn == qp.end(slot) - 1;
        Packet p = pool.alloc();
        p.length = payload + cfg.headerBytes;
        p.src = qp.src;
        p.dst = qp.dst;
        p.plane = qp.plane;
        p.pathId = qp.pathId;
        p.ecn = Ecn.ECT0;
        p.opcode = first && last ? OP_WRITE_ONLY_IMM : first ? OP_WRITE_FIRST : last ? OP_WRITE_LAST_IMM
                : OP_WRITE_MIDDLE;
        p.data = true;
        p.flow = qp.id;
        p.seq = (int) psn;
        p.kind = KIND_DATA;
        p.aux = last ? qp.tag(slot) : 0;
        if (psn < qp.maxSent) {
            stats.retransmits++;
        } else {
            if (qp.sndUna == qp.maxSent) {
                qp.lastProgressPs = now; // first packet outstanding: the retry clock starts here
            }
            qp.maxSent = psn + 1;
        }
        if (!qp.rto.isArmed()) {
            qp.rto.set(qp.lastProgressPs + cfg.rtoPs, qp.id);
        }
        stats.dataPacketsSent++;
        if (qp.dcqcn != null) {
            qp.dcqcn.onBytesSent(p.length);
        }
        int len = p.length;
        nic.enqueue(p);
        return len;
    }

    private void sendControl(RoceQp qp, int kind, long psn) {
        Packet p = pool.alloc();
        p.length = cfg.controlBytes;
        p.src = qp.dst;
        p.dst = qp.src;
        p.plane = qp.plane;
        p.pathId = qp.pathId;
        p.ecn = Ecn.NOT_ECT;
        p.opcode = kind == KIND_CNP ? OP_CNP : OP_ACKNOWLEDGE;
        p.data = false;
        p.flow = qp.id;
        p.seq = (int) psn;
        p.kind = kind;
        p.aux = 0;
        nics[qp.dst][qp.plane].enqueue(p);
    }

    // receive path --------------------------------------------------------------------------------------

    private void receive(int host, Packet p) {
        boolean cross = p.kind == CrossTraffic.KIND; // filler congesting a path, not for the transport
        if (cross || p.isTrimmed()) { // a RoCEv2 NIC knows no trimming: the cut packet fails its ICRC
            if (cross) {
                stats.crossDiscarded++;
            } else {
                stats.trimmedDrops++;
            }
            pool.release(p);
            return;
        }
        int conn = p.flow;
        RoceQp qp = conn >= 0 && conn < qpCount ? qps[conn] : null;
        int kind = p.kind;
        boolean atResponder = kind == KIND_DATA;
        if (qp == null || host != (atResponder ? qp.dst : qp.src) || kind < KIND_DATA || kind > KIND_CNP) {
            stats.internalErrors++; // misrouted or corrupt: counted and dropped
            pool.release(p);
            return;
        }
        if (atResponder) {
            onData(qp, p);
            return;
        }
        long psn = unwrap(p.seq, qp.sndUna);
        pool.release(p);
        switch (kind) {
            case KIND_ACK -> onAck(qp, psn, false);
            case KIND_NAK -> onAck(qp, psn, true);
            default -> onCnp(qp);
        }
    }

    /** The long PSN nearest {@code ref} whose low 32 bits are {@code seq}. */
    private static long unwrap(int seq, long ref) {
        return ref + (seq - (int) ref); // int subtraction wraps: the signed distance
    }

    private void onData(RoceQp qp, Packet p) {
        long now = loop.nowPs();
        if (p.ecn == Ecn.CE) {
            stats.ceReceived++;
            if (qp.lastCnpPs == Long.MIN_VALUE || now - qp.lastCnpPs >= cfg.cnpIntervalPs) {
                qp.lastCnpPs = now;
                stats.cnpsSent++;
                sendControl(qp, KIND_CNP, 0);
            }
        }
        long psn = unwrap(p.seq, qp.expected);
        boolean last = p.opcode == OP_WRITE_LAST_IMM || p.opcode == OP_WRITE_ONLY_IMM;
        int payload = p.length - cfg.headerBytes;
        long tag = p.aux;
        pool.release(p);
        if (psn > qp.expected) {
            stats.outOfSequenceDrops++;
            if (!qp.nakSent) {
                qp.nakSent = true;
                stats.naksSent++;
                sendControl(qp, KIND_NAK, qp.expected);
            }
            return;
        }
        boolean inOrder = psn == qp.expected;
        if (inOrder) {
            qp.expected++;
            qp.received += payload;
            qp.nakSent = false;
        } else {
            stats.duplicates++;
        }
        if (++qp.ackPending >= cfg.ackEvery || last) {
            qp.ackPending = 0;
            stats.acksSent++;
            sendControl(qp, KIND_ACK, qp.expected);
        }
        if (inOrder && last) {
            listener.delivered(qp.id, tag, now);
        }
    }

    private void onAck(RoceQp qp, long psn, boolean nak) {
        if (nak) {
            stats.naksReceived++;
        }
        if (qp.failed) {
            return;
        }
        if (psn > qp.maxSent) {
            stats.internalErrors++; // acknowledges a PSN never sent
            return;
        }
        if (psn > qp.sndUna) {
            qp.sndUna = psn;
            qp.retries = 0;
            qp.lastProgressPs = loop.nowPs();
            if (qp.sndNxt < psn) {
                qp.sndNxt = psn;
            }
        }
        if (nak && psn >= qp.sndUna && psn < qp.sndNxt) {
            qp.sndNxt = psn; // go-back-N: resend everything from the NAKed PSN
        }
        completeAcked(qp);
        wake(qp);
    }

    private void completeAcked(RoceQp qp) {
        while (qp.headAcked() && !qp.failed) {
            long tag = qp.headTag();
            qp.popHead();
            listener.completed(qp.id, tag, loop.nowPs(), true);
        }
    }

    private void onCnp(RoceQp qp) {
        stats.cnpsReceived++;
        if (!cfg.dcqcn || qp.failed) {
            return;
        }
        if (qp.dcqcn == null) {
            qp.dcqcn = new Dcqcn(loop, cfg, lineBps);
        }
        qp.dcqcn.onCnp();
    }

    // retries ---------------------------------------------------------------------------------------------

    private void onRto(long arg) {
        RoceQp qp = qps[(int) arg];
        if (qp.failed || qp.sndUna >= qp.maxSent) {
            return; // nothing outstanding: the clock restarts with the next packet
        }
        long now = loop.nowPs();
        long deadline = qp.lastProgressPs + cfg.rtoPs;
        if (now < deadline) {
            qp.rto.set(deadline, arg);
            return;
        }
        stats.timeouts++;
        if (qp.retries >= cfg.retryCount) {
            fail(qp);
            return;
        }
        qp.retries++;
        qp.lastProgressPs = now;
        qp.sndNxt = qp.sndUna; // go back to the oldest unacknowledged PSN
        qp.rto.set(now + cfg.rtoPs, arg);
        wake(qp);
    }

    /** RETRY_EXC_ERR: the QP moves to error and flushes every posted message with an error completion. */
    private void fail(RoceQp qp) {
        qp.failed = true;
        stats.qpErrors++;
        qp.rto.cancel();
        if (qp.dcqcn != null) {
            qp.dcqcn.stop();
        }
        onFlush(qp.id);
    }

    private void onFlush(long arg) {
        RoceQp qp = qps[(int) arg];
        while (qp.messages() > 0) {
            long tag = qp.headTag();
            qp.popHead();
            listener.completed(qp.id, tag, loop.nowPs(), false);
        }
    }
}
