package io.metaroce.conformance.target;

import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmHeader;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.MalformedPacketException;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * A sans-IO connection manager (spec CM-1..CM-16) for the in-process target: it parses the tester's CM
 * datagrams, drives the engine's QP through its verbs ({@code createQp}, {@code modifyToRtr}, {@code
 * modifyToRts}, {@code modifyToError}) and emits its own CM datagrams through the host, on the host's virtual
 * time. No sockets, threads or clocks: every input carries the time, {@link #nextDeadline} tells when it must
 * be called again. One device, one peer (the tester); the listener accepts what this device runs (one MTU,
 * path count and plane count, CM-6) and the initiator runs one attempt.
 */
final class CmEndpoint {
    /** REJ reasons (CM-9). */
    static final int REJ_NO_RESOURCES = 1;
    static final int REJ_INVALID_PARAMS = 2;
    static final int REJ_STALE = 5;
    /** CM-4: first REQ / DREQ retransmission timeout, doubled at each retry. */
    static final long FIRST_RETRY_NS = 1_000_000;
    /** CM-4: retransmissions before the attempt fails. */
    static final int MAX_RETRIES = 8;
    private static final int MIN_MTU = 64;
    private static final int MAX_MTU = 65_000;

    /** What the CM needs from the device it runs on. */
    interface Device {
        /** A fresh QP in RESET on the device's PD and CQs. */
        QueuePair newQp();

        /** Emits one datagram now. */
        void emit(byte[] datagram);

        /** The device configuration. */
        EngineConfig config();
    }

    /** One connection (attempt) by connection id. */
    private static final class Conn {
        final long cid;
        final boolean initiator;
        QueuePair qp;
        int localPsn;
        int peerQpn;
        /** Responder: the REQ decided on and the answer (REP or REJ) repeated for duplicates (CM-5). */
        CmMessage req;
        CmMessage answer;
        /** Responder: REP sent, waiting for RTU or the first data packet (CM-8). */
        boolean awaitingRtu;
        /** Initiator: REP accepted. */
        boolean connected;
        /** The attempt failed or the connection was closed. */
        boolean closed;
        /** Initiator: the REQ to retransmit, the next retry time and timeout, attempts so far. */
        CmMessage request;
        long retryAtNs = Engine.NO_DEADLINE;
        long backoffNs = FIRST_RETRY_NS;
        int retries;
        /** Disconnected by the peer's DREQ: answer duplicates until this time (TIME_WAIT, CM-10). */
        long timeWaitUntilNs = Engine.NO_DEADLINE;

        Conn(long cid, boolean initiator) {
            this.cid = cid;
            this.initiator = initiator;
        }
    }

    private final Device device;
    private final Map<Long, Conn> conns = new HashMap<>();
    private final Packet packet = new Packet();
    private final BaseHeader base = new BaseHeader();
    private boolean listening;
    private int listenPsn;
    private long malformed;

    CmEndpoint(Device device) {
        this.device = device;
    }

    /** Whether {@code datagram} carries a CM opcode (it then belongs to the CM, CM-15). */
    static boolean isCm(byte[] datagram, int length) {
        return length > BaseHeader.OPCODE && Opcode.isCm(datagram[BaseHeader.OPCODE] & 0xFF);
    }

    /** CM datagrams dropped as malformed (CM-11; the CM's own DROP_MALFORMED). */
    long malformed() {
        return malformed;
    }

    /** Makes this device accept CM_REQs (qp LISTEN), announcing initial PSN {@code psn} (CM-12) in its REPs. */
    void listen(int psn) {
        listening = true;
        listenPsn = psn;
    }

    /**
     * Starts a connection attempt (qp LISTEN's counterpart, qp CONNECT) with {@code qp} in INIT, connection
     * id {@code cid} and initial PSN {@code psn}: sends the CM_REQ now.
     */
    void connect(long nowNs, QueuePair qp, long cid, int psn) {
        Conn c = new Conn(cid, true);
        c.qp = qp;
        c.localPsn = psn;
        EngineConfig cfg = device.config();
        c.request = new CmMessage(Opcode.CM_REQ, cid, qp.qpn(), 0, psn, cfg.mtu, cfg.paths, 0,
                Packet.DEFAULT_UDP_PORT, 0, planes(cfg));
        conns.put(cid, c);
        send(nowNs, c.request);
        c.retryAtNs = nowNs + c.backoffNs;
    }

    /** The earliest time {@link #onTimeout} has something to do, or {@link Engine#NO_DEADLINE}. */
    long nextDeadline() {
        long d = Engine.NO_DEADLINE;
        for (Conn c : conns.values()) {
            if (c.retryAtNs != Engine.NO_DEADLINE && (d == Engine.NO_DEADLINE || c.retryAtNs - d < 0)) {
                d = c.retryAtNs;
            }
        }
        return d;
    }

    /** Retransmits what is due at {@code nowNs} (CM-4) and fails attempts whose retries are exhausted. */
    void onTimeout(long nowNs) {
        for (Conn c : conns.values()) {
            if (c.retryAtNs == Engine.NO_DEADLINE || nowNs - c.retryAtNs < 0) {
                continue;
            }
            if (c.retries >= MAX_RETRIES) {
                c.retryAtNs = Engine.NO_DEADLINE;
                fail(c);
                continue;
            }
            c.retries++;
            c.backoffNs *= 2;
            c.retryAtNs = nowNs + c.backoffNs;
            send(nowNs, c.request);
        }
    }

    /**
     * Called after the engine handled a datagram: a responder QP that received data from the initiator is
     * ready (implicit RTU, CM-8).
     */
    void afterData() {
        for (Conn c : conns.values()) {
            if (c.awaitingRtu && (c.qp.counters().get(Counter.RX_DATA_PACKETS) > 0
                    || c.qp.counters().get(Counter.RX_ACKS) > 0)) {
                established(c);
            }
        }
    }

    /** Handles one CM datagram from the tester at {@code nowNs}. */
    void handle(long nowNs, byte[] datagram, int length) {
        MemorySegment seg = MemorySegment.ofArray(datagram);
        if (packet.check(seg, length) != Packet.OK) {
            malformed++;
            return;
        }
        base.wrap(seg, 0);
        CmMessage m;
        try {
            m = CmMessage.parse(base.opcode(), seg, BaseHeader.LENGTH, base.payloadLength());
        } catch (MalformedPacketException | IllegalArgumentException e) {
            malformed++;
            return;
        }
        if ((m.opcode() == Opcode.CM_REQ || m.opcode() == Opcode.CM_REP) && (m.mtu() < MIN_MTU || m.mtu() > MAX_MTU)) {
            malformed++;
            return;
        }
        switch (m.opcode()) {
            case Opcode.CM_REQ -> onRequest(nowNs, m);
            case Opcode.CM_REP -> onReply(nowNs, m);
            case Opcode.CM_RTU -> onRtu(m);
            case Opcode.CM_DREQ -> onDisconnect(nowNs, m);
            case Opcode.CM_REJ -> onReject(m);
            default -> malformed++;
        }
    }

    private void onRequest(long nowNs, CmMessage req) {
        Conn c = conns.get(req.connectionId());
        if (c != null) {
            if (c.initiator) {
                return; // our own attempt's id: no transition (CM-16)
            }
            if (c.req.equals(req)) {
                send(nowNs, c.answer); // CM-5: the same answer, no second QP
            } else {
                send(nowNs, reject(req.connectionId(), req.senderQpn(), REJ_STALE));
            }
            return;
        }
        if (!listening) {
            return; // nobody listens: no state to answer from (CM-16)
        }
        c = new Conn(req.connectionId(), false);
        c.req = req;
        c.peerQpn = req.senderQpn();
        conns.put(c.cid, c);
        EngineConfig cfg = device.config();
        if (req.mtu() != cfg.mtu || req.paths() != cfg.paths || req.planes().size() != cfg.planes) {
            c.answer = reject(c.cid, req.senderQpn(), REJ_INVALID_PARAMS); // CM-6: one MTU, path and plane count
            c.closed = true;
            send(nowNs, c.answer);
            return;
        }
        QueuePair qp;
        try {
            qp = device.newQp();
        } catch (IllegalStateException | IllegalArgumentException e) {
            c.answer = reject(c.cid, req.senderQpn(), REJ_NO_RESOURCES);
            c.closed = true;
            send(nowNs, c.answer);
            return;
        }
        c.qp = qp;
        c.localPsn = listenPsn;
        qp.modifyToInit();
        qp.modifyToRtr(EngineHost.TESTER_PEER, req.senderQpn(), req.initialPsn());
        c.awaitingRtu = true;
        c.answer = new CmMessage(Opcode.CM_REP, c.cid, qp.qpn(), req.senderQpn(), c.localPsn, cfg.mtu, cfg.paths,
                0, Packet.DEFAULT_UDP_PORT, 0, planes(cfg)); // CM-13: never CAP_AUTH
        send(nowNs, c.answer);
    }

    private void onReply(long nowNs, CmMessage rep) {
        Conn c = conns.get(rep.connectionId());
        if (c == null || !c.initiator || c.closed || rep.peerQpn() != c.qp.qpn()) {
            return; // CM-11/CM-16: unknown attempt or no transition
        }
        if (!c.connected) {
            EngineConfig cfg = device.config();
            c.retryAtNs = Engine.NO_DEADLINE;
            if (rep.mtu() != cfg.mtu || rep.paths() != cfg.paths || rep.planes().size() != cfg.planes) {
                // CM-6: a REP above what we proposed MUST be rejected; this device runs only what it proposed
                send(nowNs, reject(c.cid, rep.senderQpn(), REJ_INVALID_PARAMS, c.qp.qpn()));
                fail(c);
                return;
            }
            c.peerQpn = rep.senderQpn();
            c.qp.modifyToRtr(EngineHost.TESTER_PEER, rep.senderQpn(), rep.initialPsn());
            c.qp.modifyToRts(c.localPsn);
            c.connected = true;
        } else if (rep.senderQpn() != c.peerQpn) {
            return;
        }
        // CM-7: RTU, again for a duplicate REP (our RTU was lost)
        send(nowNs, new CmMessage(Opcode.CM_RTU, c.cid, c.qp.qpn(), c.peerQpn, 0, 0, 0, 0, 0, 0, List.of()));
    }

    private void onRtu(CmMessage rtu) {
        Conn c = conns.get(rtu.connectionId());
        if (c != null && !c.initiator && c.awaitingRtu && rtu.peerQpn() == c.qp.qpn()
                && rtu.senderQpn() == c.peerQpn) {
            established(c);
        }
    }

    private void established(Conn c) {
        c.awaitingRtu = false;
        if (c.qp.state() == QpState.RTR) {
            c.qp.modifyToRts(c.localPsn);
        }
    }

    private void onReject(CmMessage rej) {
        Conn c = conns.get(rej.connectionId());
        if (c == null || !c.initiator || c.connected || c.closed) {
            return; // CM-16
        }
        c.retryAtNs = Engine.NO_DEADLINE; // CM-9: every reason (undefined ones as CONSUMER) ends the attempt
        fail(c);
    }

    private void onDisconnect(long nowNs, CmMessage dreq) {
        Conn c = conns.get(dreq.connectionId());
        if (c == null || c.qp == null || dreq.peerQpn() != c.qp.qpn()) {
            return; // CM-10: unknown connection
        }
        boolean live = !c.closed && (c.connected || !c.initiator);
        boolean timeWait = c.timeWaitUntilNs != Engine.NO_DEADLINE && nowNs - c.timeWaitUntilNs < 0;
        if (!live && !timeWait) {
            return;
        }
        if (live) {
            c.closed = true;
            c.awaitingRtu = false;
            c.qp.modifyToError();
            c.timeWaitUntilNs = nowNs + device.config().connectionTimeoutNs;
        }
        send(nowNs, new CmMessage(Opcode.CM_DREQ, c.cid, c.qp.qpn(), c.peerQpn, 0, 0, 0, 0, 0, 0, List.of()));
    }

    private void fail(Conn c) {
        c.closed = true;
        if (c.qp.state() != QpState.ERROR) {
            c.qp.modifyToError();
        }
    }

    private static CmMessage reject(long cid, int peerQpn, int reason) {
        return reject(cid, peerQpn, reason, 0);
    }

    private static CmMessage reject(long cid, int peerQpn, int reason, int ownQpn) {
        return new CmMessage(Opcode.CM_REJ, cid, ownQpn, peerQpn, 0, 0, 0, 0, 0, reason, List.of());
    }

    /** This device's plane addresses as it announces them (in process: 127.0.1.k). */
    private static List<byte[]> planes(EngineConfig cfg) {
        List<byte[]> l = new ArrayList<>();
        for (int i = 0; i < cfg.planes; i++) {
            l.add(new byte[] {127, 0, 1, (byte) (i + 1)});
        }
        return l;
    }

    /** Emits {@code m} (CM-2: unsequenced, path 0, PSN 0, floor 0, flags 0, QPNs from the message). */
    private void send(long nowNs, CmMessage m) {
        int ext = m.encodedLength();
        byte[] buf = new byte[BaseHeader.LENGTH + ext + Packet.CRC_LENGTH];
        MemorySegment seg = MemorySegment.ofArray(buf);
        base.wrap(seg, 0).version(Packet.VERSION).opcode(m.opcode()).flags(0).destQpn(m.peerQpn()).pathId(0)
                .payloadLength(ext - CmHeader.FIXED_LENGTH).psn(0).psnFloor(0).srcQpn(m.senderQpn()).timestampNs(nowNs);
        m.emit(seg, BaseHeader.LENGTH);
        packet.seal(seg, BaseHeader.LENGTH + ext);
        device.emit(buf);
    }
}
