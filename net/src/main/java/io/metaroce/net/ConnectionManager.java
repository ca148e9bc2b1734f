package io.metaroce.net;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QpState;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmHeader;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.MalformedPacketException;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * Connection set-up over UDP in the spirit of rdma_cm (spec CM-*), run on the device's agent thread. The
 * initiator sends CM_REQ (its QPN, initial PSN, MTU, paths, port and plane addresses) to the listener's plane-0
 * address and retries with doubling backoff; the listener creates a QP, moves it to RTS and answers CM_REP (or
 * CM_REJ with a reason); the initiator moves its QP to RTS and confirms with CM_RTU. The connection id makes
 * every step idempotent: a repeated REQ gets the same REP, a repeated REP the same RTU.
 */
final class ConnectionManager {
    /** REJ reason INVALID_PARAMS (CM-9): MTU, path count or plane count differ from the listener's. */
    static final int REJ_PARAMETERS = 2;
    /** REJ reason CONSUMER (CM-9): nobody listens on this device. */
    static final int REJ_NO_LISTENER = 4;
    private static final long FIRST_RETRY_NS = 5_000_000;

    private final Device device;
    private final SplittableRandom rng;
    final PacketBatch batch;
    final int[] index0 = {0};
    private final MemorySegment scratch;
    private final Packet packet = new Packet();
    private final BaseHeader base = new BaseHeader();
    final LinkedBlockingQueue<DeviceQp> accepted = new LinkedBlockingQueue<>();
    private ProtectionDomain listenPd;
    private DeviceCq listenScq;
    private DeviceCq listenRcq;

    private static final class Pending {
        DeviceQp qp;
        int toAddr;
        int toPort;
        int psn;
        long connId;
        long deadlineNs;
        long nextRetryNs;
        long backoffNs;
        int attempts;
        boolean connected;
        CompletableFuture<Void> future;
        String server;
    }

    private final Map<Long, Pending> pending = new HashMap<>();
    private final Map<Long, CmMessage> replies = new HashMap<>();
    private final Map<Long, Object[]> awaitingRtu = new HashMap<>();

    ConnectionManager(Device device) {
        this.device = device;
        this.rng = new SplittableRandom(device.engine().hashCode() ^ System.nanoTime());
        this.batch = new PacketBatch(device.arena(), 1, 2048);
        this.scratch = device.arena().allocate(2048);
    }

    void listen(ProtectionDomain pd, DeviceCq scq, DeviceCq rcq) {
        listenPd = pd;
        listenScq = scq;
        listenRcq = rcq;
    }

    private List<byte[]> myPlanes() {
        List<byte[]> l = new ArrayList<>();
        for (int a : device.planeAddrs()) {
            l.add(Ipv4.bytes(a));
        }
        return l;
    }

    void connect(DeviceQp qp, InetSocketAddress server, long timeoutMs, CompletableFuture<Void> f) {
        if (qp.qp.state() != QpState.INIT) {
            f.completeExceptionally(new IllegalStateException("QP " + qp.qpn() + " is " + qp.qp.state()
                    + ", not INIT: connect a fresh QP"));
            return;
        }
        Pending p = new Pending();
        p.qp = qp;
        p.toAddr = Ipv4.of(server.getAddress());
        p.toPort = server.getPort();
        p.psn = rng.nextInt();
        p.connId = rng.nextLong();
        long now = System.nanoTime();
        p.deadlineNs = now + timeoutMs * 1_000_000L;
        p.backoffNs = FIRST_RETRY_NS;
        p.nextRetryNs = now;
        p.future = f;
        p.server = server.toString();
        pending.put(p.connId, p);
        onTimer(now);
    }

    void onTimer(long now) {
        if (!awaitingRtu.isEmpty()) {
            // A lost RTU: the initiator's first packet proves it is ready (like rdma_cm's "established" event).
            for (Long id : List.copyOf(awaitingRtu.keySet())) {
                DeviceQp qp = (DeviceQp) awaitingRtu.get(id)[0];
                if (qp.qp.counters().get(io.metaroce.core.Counter.RX_DATA_PACKETS) > 0
                        || qp.qp.counters().get(io.metaroce.core.Counter.RX_ACKS) > 0) {
                    established(id);
                }
            }
        }
        if (pending.isEmpty()) {
            return;
        }
        for (Iterator<Pending> it = pending.values().iterator(); it.hasNext(); ) {
            Pending p = it.next();
            if (p.connected) {
                continue;
            }
            if (now - p.deadlineNs >= 0) {
                it.remove();
                p.future.completeExceptionally(new IllegalStateException("connect to " + p.server
                        + " timed out after " + p.attempts + " CM_REQ attempts: no CM_REP (is a listener running "
                        + "there, on the same port, and reachable on plane 0?)"));
                continue;
            }
            if (now - p.nextRetryNs >= 0) {
                p.attempts++;
                p.nextRetryNs = now + p.backoffNs;
                p.backoffNs = Math.min(p.backoffNs * 2, 500_000_000L);
                EngineConfig c = device.config();
                send(new CmMessage(Opcode.CM_REQ, p.connId, p.qp.qpn(), 0, p.psn, c.mtu, c.paths, 0,
                        device.port(), 0, myPlanes()), 0, p.qp.qpn(), p.toAddr, p.toPort);
            }
        }
    }

    private void send(CmMessage m, int destQpn, int srcQpn, int toAddr, int toPort) {
        int ext = m.encodedLength();
        int payload = ext - CmHeader.FIXED_LENGTH;
        base.wrap(scratch, 0).version(Packet.VERSION).opcode(m.opcode()).flags(0).destQpn(destQpn).pathId(0)
                .payloadLength(payload).psn(0).psnFloor(0).srcQpn(srcQpn).timestampNs(System.nanoTime());
        m.emit(scratch, BaseHeader.LENGTH);
        int len = packet.seal(scratch, BaseHeader.LENGTH + ext);
        device.sendControl(scratch, len, toAddr, toPort);
    }

    void handle(long now, MemorySegment dgram, int len, int fromAddr, int fromPort) {
        if (packet.check(dgram, len) != Packet.OK) {
            return;
        }
        base.wrap(dgram, 0);
        CmMessage m;
        try {
            m = CmMessage.parse(base.opcode(), dgram, BaseHeader.LENGTH, base.payloadLength());
        } catch (MalformedPacketException e) {
            return;
        }
        switch (m.opcode()) {
            case Opcode.CM_REQ -> onRequest(m, fromAddr, fromPort);
            case Opcode.CM_REP -> onReply(m, fromAddr, fromPort);
            case Opcode.CM_REJ -> onReject(m);
            case Opcode.CM_RTU -> established(m.connectionId());
            default -> { } // DREQ is handled by the application closing its QP
        }
    }

    private void onRequest(CmMessage req, int fromAddr, int fromPort) {
        CmMessage done = replies.get(req.connectionId());
        if (done != null) {
            send(done, req.senderQpn(), done.senderQpn(), fromAddr, fromPort); // idempotent: same answer
            return;
        }
        EngineConfig c = device.config();
        if (listenPd == null) {
            send(reject(req, REJ_NO_LISTENER), req.senderQpn(), 0, fromAddr, fromPort);
            return;
        }
        if (req.mtu() != c.mtu || req.paths() != c.paths || req.planes().size() != c.planes) {
            send(reject(req, REJ_PARAMETERS), req.senderQpn(), 0, fromAddr, fromPort);
            return;
        }
        DeviceQp qp = device.newQp(listenPd, listenScq, listenRcq);
        int peer = device.addPeer(addrs(req.planes()), req.udpPort());
        int psn = rng.nextInt();
        // CM-8: the passive side receives from now on (RTR) but sends only once the initiator is known to be
        // ready (RTU, or its first packet), so that its first message is not lost to a peer still in INIT.
        qp.qp.modifyToRtr(peer, req.senderQpn(), req.initialPsn());
        qp.state = qp.qp.state();
        CmMessage rep = new CmMessage(Opcode.CM_REP, req.connectionId(), qp.qpn(), req.senderQpn(), psn, c.mtu,
                c.paths, 0, device.port(), 0, myPlanes());
        replies.put(req.connectionId(), rep);
        awaitingRtu.put(req.connectionId(), new Object[] {qp, psn});
        send(rep, req.senderQpn(), qp.qpn(), fromAddr, fromPort);
    }

    /** The passive side's QP becomes RTS and is handed to the application. */
    private void established(long connId) {
        Object[] e = awaitingRtu.remove(connId);
        if (e == null) {
            return;
        }
        DeviceQp qp = (DeviceQp) e[0];
        if (qp.qp.state() == QpState.RTR) {
            qp.qp.modifyToRts((Integer) e[1]);
            qp.state = qp.qp.state();
            accepted.add(qp);
        }
    }

    private CmMessage reject(CmMessage req, int reason) {
        return new CmMessage(Opcode.CM_REJ, req.connectionId(), 0, req.senderQpn(), 0, 0, 0, 0, device.port(),
                reason, List.of());
    }

    private static int[] addrs(List<byte[]> planes) {
        int[] a = new int[planes.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = Ipv4.of(planes.get(i));
        }
        return a;
    }

    private void onReply(CmMessage rep, int fromAddr, int fromPort) {
        Pending p = pending.get(rep.connectionId());
        if (p == null || rep.peerQpn() != p.qp.qpn()) {
            return;
        }
        if (!p.connected) {
            if (rep.planes().size() != device.planes()) {
                pending.remove(rep.connectionId());
                p.future.completeExceptionally(new IllegalStateException("listener has " + rep.planes().size()
                        + " planes, this device " + device.planes()));
                return;
            }
            int peer = device.addPeer(addrs(rep.planes()), rep.udpPort());
            p.qp.qp.connect(peer, rep.senderQpn(), p.psn, rep.initialPsn());
            p.qp.state = p.qp.qp.state();
            p.connected = true;
            p.future.complete(null);
        }
        // RTU, again for a repeated REP (our RTU was lost)
        send(new CmMessage(Opcode.CM_RTU, rep.connectionId(), p.qp.qpn(), rep.senderQpn(), p.psn, 0, 0, 0,
                device.port(), 0, List.of()), rep.senderQpn(), p.qp.qpn(), fromAddr, fromPort);
    }

    private void onReject(CmMessage rej) {
        Pending p = pending.remove(rej.connectionId());
        if (p != null && !p.connected) {
            String why = switch (rej.reason()) {
                case REJ_NO_LISTENER -> "CONSUMER: no listener on that device";
                case REJ_PARAMETERS -> "INVALID_PARAMS: MTU, path count or plane count differ from the listener's";
                case 1 -> "NO_RESOURCES";
                case 3 -> "UNSUPPORTED";
                case 5 -> "STALE";
                default -> "reason " + rej.reason();
            };
            p.future.completeExceptionally(new IllegalStateException("connection to " + p.server
                    + " rejected: " + why));
        }
    }
}
