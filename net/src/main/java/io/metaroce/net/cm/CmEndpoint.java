package io.metaroce.net.cm;

import static io.metaroce.net.cm.CmWire.dreq;
import static io.metaroce.net.cm.CmWire.reject;
import static io.metaroce.net.cm.CmWire.rtu;

import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.auth.AuthKeys;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.Opcode;

import java.lang.foreign.MemorySegment;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A sans-IO connection manager (spec CM-1..CM-16, state machines of section 08). It parses CM datagrams, drives
 * the engine's QPs through their verbs ({@code modifyToRtr}, {@code modifyToRts}, {@code modifyToError}) and
 * emits its own datagrams through its {@link CmHost}. No sockets, threads or clocks: every input carries the time
 * in ns, {@link #nextDeadline} tells when {@link #onTimer} must run. Both sides: a listener accepts REQs
 * ({@link #listen}), an initiator runs attempts ({@link #connect}), either side closes ({@link #disconnect}).
 * Not thread safe: one driver thread.
 */
public final class CmEndpoint {
    private final CmHost host;
    private final CmSettings settings;
    private final long[] counters = new long[CmCounter.all().length];
    private final CmWire wire;
    /** AUTH-14: where a datagram that failed its seal goes (one object for the endpoint's life). */
    private final CmWire.Unauthenticated refused = this::unauthenticated;
    private final CmConnections conns = new CmConnections();
    private boolean listening;

    /** A connection manager for {@code host} with the timers of {@code settings}. */
    public CmEndpoint(CmHost host, CmSettings settings) {
        this.host = host;
        this.settings = settings;
        this.wire = new CmWire(host, settings, counters);
    }

    /** Makes this device accept CM_REQs from now on. */
    public void listen() {
        listening = true;
    }

    /** The value of {@code c}. */
    public long counter(CmCounter c) {
        return counters[c.ordinal()];
    }

    /** Every counter by name, in declaration order. */
    public Map<String, Long> counters() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (CmCounter c : CmCounter.all()) {
            m.put(c.name(), counters[c.ordinal()]);
        }
        return m;
    }

    /** Connections and remembered attempts (for leak checks). */
    public int connectionCount() {
        return conns.size();
    }

    /**
     * Starts attempt {@code cid} (CM-3: unique among ours, random) for {@code qp} (in INIT) toward {@code remote}
     * with initial PSN {@code psn} (CM-12): sends the CM_REQ now and retransmits it (CM-4) until an answer, the
     * retries are exhausted or {@code deadlineNs} ({@link Engine#NO_DEADLINE}: none) passes.
     */
    public void connect(long nowNs, QueuePair qp, long cid, int psn, long remote, long deadlineNs) {
        CmConnection.Key key = new CmConnection.Key(remote, cid);
        if (conns.contains(key)) {
            throw new IllegalArgumentException("connection id " + Long.toHexString(cid) + " already in use");
        }
        CmConnection c = new CmConnection(key, true, CmState.REQ_SENT);
        c.qp = qp;
        c.localPsn = psn;
        c.deadlineNs = deadlineNs;
        EngineConfig cfg = host.config();
        CmMessage req = new CmMessage(Opcode.CM_REQ, cid, qp.qpn(), 0, psn, cfg.mtu, cfg.paths,
                offeredCaps() | CmMessage.CAP_MISSING_NAK, host.udpPort(), 0, host.planeAddresses()); // CM-13
        c.req = req;
        conns.put(c);
        wire.send(nowNs, req, remote);
        c.arm(req, nowNs, settings.firstRetryNs());
        conns.changed();
    }

    /**
     * Closes the connection of {@code qp} (CM-10): the QP goes to ERROR (flushing its work), a CM_DREQ is sent
     * and retransmitted until the peer's CM_DREQ or the retries run out. An attempt still waiting for its REP
     * fails instead. Returns false when {@code qp} has no open connection here.
     */
    public boolean disconnect(long nowNs, QueuePair qp) {
        CmConnection c = conns.ofQp(qp.qpn());
        if (c == null) {
            return false;
        }
        switch (c.state) {
            case REQ_SENT -> {
                fail(c, "closed by the application before the listener answered");
                return true;
            }
            case REP_SENT, ESTABLISHED -> {
                conns.rtuDone(c);
                toError(c.qp);
                c.state = CmState.DREQ_SENT;
                c.forgetAtNs = Engine.NO_DEADLINE; // AUTH-15's limit no longer applies: the close runs its course
                CmMessage dreq = dreq(c);
                wire.send(nowNs, dreq, c.key.remote());
                c.disarm();
                c.arm(dreq, nowNs, settings.firstRetryNs());
                conns.changed();
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    /** The earliest time {@link #onTimer} has something to do, or {@link Engine#NO_DEADLINE}. */
    public long nextDeadline() {
        return conns.nextDeadline();
    }

    /**
     * Runs what is due at {@code nowNs}: retransmissions (CM-4, CM-10), attempts whose retries or deadline ran
     * out, the end of TIME_WAIT and of remembered REJs. Cheap when nothing is due.
     */
    public void onTimer(long nowNs) {
        checkImplicitRtu();
        long d = nextDeadline();
        if (d == Engine.NO_DEADLINE || nowNs - d < 0) {
            return;
        }
        for (CmConnection c : conns.snapshot()) {
            if (c.forgetAtNs != Engine.NO_DEADLINE && nowNs - c.forgetAtNs >= 0) {
                boolean unconfirmed = c.state == CmState.REP_SENT;
                c.state = CmState.CLOSED;
                conns.remove(c);
                if (unconfirmed) { // AUTH-15: never established: its QP goes to ERROR
                    counters[CmCounter.CM_ATTEMPTS_FAILED.ordinal()]++;
                    toError(c.qp);
                    host.abandoned(c.qp);
                }
                continue;
            }
            if (c.deadlineNs != Engine.NO_DEADLINE && nowNs - c.deadlineNs >= 0 && c.state == CmState.REQ_SENT) {
                fail(c, "no answer to " + (c.retries + 1) + " CM_REQs");
                continue;
            }
            if (c.retryAtNs == Engine.NO_DEADLINE || nowNs - c.retryAtNs < 0) {
                continue;
            }
            int max = c.state == CmState.REQ_SENT || c.state == CmState.REP_SENT ? settings.maxReqRetries()
                    : settings.maxDreqRetries();
            if (c.retries >= max) {
                if (c.state == CmState.REP_SENT) {
                    c.disarm(); // CM-8: no more REPs; the attempt waits for data (an implicit RTU) or AUTH-15's end
                } else if (c.state == CmState.REQ_SENT) {
                    fail(c, "no answer to " + (c.retries + 1) + " CM_REQs");
                } else {
                    closed(c, false);
                }
                continue;
            }
            c.retries++;
            c.backoffNs = Math.min(c.backoffNs * 2, settings.maxBackoffNs());
            c.retryAtNs = nowNs + c.backoffNs;
            counters[CmCounter.CM_RETRANSMITS.ordinal()]++;
            wire.send(nowNs, c.retransmit, c.key.remote());
        }
        conns.changed();
    }

    /**
     * An implicit RTU (CM-8): a responder QP in RTR that has received a data packet or an ACK from its peer moves
     * to RTS. Call after handing datagrams to the engine; scans only the responders still waiting.
     */
    public void checkImplicitRtu() {
        List<CmConnection> waiting = conns.awaitingRtu();
        for (int i = waiting.size() - 1; i >= 0; i--) {
            CmConnection c = waiting.get(i);
            if (c.qp.counters().get(Counter.RX_DATA_PACKETS) > 0 || c.qp.counters().get(Counter.RX_ACKS) > 0) {
                established(c);
            }
        }
    }

    /** Handles one CM datagram from {@code remote} at {@code nowNs} (CM-15: the host's dispatch by opcode). */
    public void handle(long nowNs, MemorySegment datagram, int length, long remote) {
        CmMessage m = wire.receive(nowNs, datagram, length, remote, refused);
        if (m == null) {
            return; // malformed, rate limited or unauthenticated: counted
        }
        boolean handled = switch (m.opcode()) {
            case Opcode.CM_REQ -> onRequest(nowNs, m, remote);
            case Opcode.CM_REP -> onReply(nowNs, m, remote);
            case Opcode.CM_RTU -> onRtu(m, remote);
            case Opcode.CM_DREQ -> onDisconnect(nowNs, m, remote);
            case Opcode.CM_REJ -> onReject(m, remote);
            default -> false;
        };
        if (!handled) {
            counters[CmCounter.CM_IGNORED.ordinal()]++; // CM-16: no transition in this state
        }
    }

    /**
     * AUTH-14: a CM_REQ that failed AUTH-13 gets an unsealed CM_REJ UNSUPPORTED and leaves no state; an unsealed
     * answer to one of our attempts is only noted for the attempt's failure report. Nothing else happens.
     */
    private void unauthenticated(long nowNs, CmMessage m, long remote) {
        if (m.opcode() == Opcode.CM_REQ) {
            wire.sendUnsealed(nowNs, reject(m.connectionId(), 0, m.senderQpn(), CmReason.UNSUPPORTED), remote);
            return;
        }
        CmConnection c = conns.get(remote, m.connectionId());
        if (c != null && c.initiator && c.state == CmState.REQ_SENT
                && (m.opcode() == Opcode.CM_REP || m.opcode() == Opcode.CM_REJ)) {
            c.unauthenticatedAnswers++;
        }
    }

    private boolean onRequest(long nowNs, CmMessage req, long remote) {
        CmConnection c = conns.get(remote, req.connectionId());
        if (c != null) {
            if (c.initiator || c.answer == null) {
                return false; // our own attempt's id (CM-16)
            }
            if (c.state == CmState.REP_SENT || c.state == CmState.ESTABLISHED || c.state == CmState.REJECTED) {
                CmMessage answer = c.req.equals(req) ? c.answer
                        : reject(req.connectionId(), 0, req.senderQpn(), CmReason.STALE); // CM-5
                wire.send(nowNs, answer, remote);
                return true;
            }
            return false;
        }
        c = new CmConnection(new CmConnection.Key(remote, req.connectionId()), false, CmState.REP_SENT);
        c.req = req;
        c.peerQpn = req.senderQpn();
        if (!listening) {
            if (!host.refuseWithoutListener()) {
                return false; // nobody listens: no state to answer from (CM-16)
            }
            rejectAndRemember(nowNs, c, CmReason.CONSUMER);
            return true;
        }
        EngineConfig cfg = host.config();
        // CM-6: the smaller of both; refused when this device's QPs cannot run it
        int mtu = Math.min(req.mtu(), cfg.mtu);
        int paths = Math.min(req.paths(), cfg.paths);
        int planes = Math.min(req.planes().size(), cfg.planes);
        if (!host.canRun(mtu, paths, planes)) {
            rejectAndRemember(nowNs, c, CmReason.INVALID_PARAMS);
            return true;
        }
        byte[] psk = host.authKey();
        if (psk != null && (req.capabilities() & CmMessage.CAP_AUTH) == 0) {
            rejectAndRemember(nowNs, c, CmReason.UNSUPPORTED); // AUTH-9: a device with a key authenticates all
            return true;
        }
        int caps = psk == null ? 0 : CmMessage.CAP_AUTH | (req.capabilities() & offeredCaps() & CmMessage.CAP_ENCRYPT);
        boolean peerTakesMissing = (req.capabilities() & CmMessage.CAP_MISSING_NAK) != 0; // CM-13, REL-16
        if (peerTakesMissing) {
            caps |= CmMessage.CAP_MISSING_NAK;
        }
        QueuePair qp;
        try {
            qp = host.newQp();
        } catch (IllegalStateException | IllegalArgumentException e) {
            qp = null;
        }
        if (qp == null) {
            rejectAndRemember(nowNs, c, CmReason.NO_RESOURCES);
            return true;
        }
        c.qp = qp;
        c.localPsn = host.responderInitialPsn();
        if (psk != null) { // AUTH-3, AUTH-9: keys before RTR, from the values of the REQ and of our REP
            qp.enableAuth(AuthKeys.derive(psk, req.connectionId(), req.senderQpn(), qp.qpn(), req.initialPsn(),
                    c.localPsn, false, (caps & CmMessage.CAP_ENCRYPT) != 0));
        }
        if (!peerTakesMissing) {
            qp.disableMissingNaks(); // an initiator before REL-16 would fail the connection on code 7
        }
        qp.modifyToRtr(host.peerHandle(remote, req), req.senderQpn(), req.initialPsn());
        List<byte[]> mine = host.planeAddresses();
        c.answer = new CmMessage(Opcode.CM_REP, req.connectionId(), qp.qpn(), req.senderQpn(), c.localPsn, mtu, paths,
                caps, host.udpPort(), 0, mine.subList(0, Math.min(planes, mine.size()))); // CM-13, AUTH-9
        conns.put(c);
        conns.awaitRtu(c);
        if (psk != null) { // AUTH-15: a replayed REQ leaves no QP behind for longer than TIME_WAIT
            c.forgetAtNs = nowNs + settings.timeWaitNs();
            conns.changed();
        }
        // CM-8: the REP is sent again on CM-4's schedule until the RTU (or an implicit one) comes: a lost REP is also
        // recovered by the initiator's REQ retries, but a lost RTU only this way when the initiator waits for us
        c.arm(c.answer, nowNs, settings.firstRetryNs());
        conns.changed();
        wire.send(nowNs, c.answer, remote);
        return true;
    }

    /** AUTH-9: the capabilities this device offers in a CM_REQ and accepts in a CM_REP. */
    private int offeredCaps() {
        if (host.authKey() == null) {
            return 0;
        }
        return CmMessage.CAP_AUTH | (host.encryptPayloads() ? CmMessage.CAP_ENCRYPT : 0);
    }

    private void rejectAndRemember(long nowNs, CmConnection c, int reason) {
        c.state = CmState.REJECTED;
        c.answer = reject(c.key.cid(), 0, c.req.senderQpn(), reason);
        c.forgetAtNs = nowNs + settings.timeWaitNs();
        conns.put(c);
        wire.send(nowNs, c.answer, c.key.remote());
    }

    private boolean onReply(long nowNs, CmMessage rep, long remote) {
        CmConnection c = conns.get(remote, rep.connectionId());
        if (c == null || !c.initiator || rep.peerQpn() != c.qp.qpn()) {
            return false; // CM-16: unknown attempt
        }
        if (c.state == CmState.ESTABLISHED) {
            if (rep.senderQpn() != c.peerQpn) {
                return false;
            }
            wire.send(nowNs, rtu(c), remote); // CM-7: our RTU was lost
            return true;
        }
        if (c.state != CmState.REQ_SENT) {
            return false;
        }
        EngineConfig cfg = host.config();
        String unacceptable = null;
        if (rep.mtu() > cfg.mtu || rep.paths() > cfg.paths || rep.planes().size() > cfg.planes) {
            unacceptable = "the listener's CM_REP asks for more than this device proposed";
        } else if (!host.canRun(rep.mtu(), rep.paths(), rep.planes().size())) {
            unacceptable = "the listener lowered the connection to MTU " + rep.mtu() + ", " + rep.paths() + " paths, "
                    + rep.planes().size() + " planes, which this device cannot run (it runs MTU " + cfg.mtu + ", "
                    + cfg.paths + " paths, " + cfg.planes + " planes: start both sides with the same values)";
        }
        if (unacceptable != null) {
            wire.send(nowNs, reject(c.key.cid(), c.qp.qpn(), rep.senderQpn(), CmReason.INVALID_PARAMS), remote); // CM-6
            fail(c, unacceptable);
            return true;
        }
        int offered = offeredCaps() & (CmMessage.CAP_AUTH | CmMessage.CAP_ENCRYPT);
        int agreed = rep.capabilities() & (CmMessage.CAP_AUTH | CmMessage.CAP_ENCRYPT);
        if ((offered & CmMessage.CAP_AUTH) != (agreed & CmMessage.CAP_AUTH) || (agreed & ~offered) != 0) {
            wire.send(nowNs, reject(c.key.cid(), c.qp.qpn(), rep.senderQpn(), CmReason.UNSUPPORTED), remote); // AUTH-9
            fail(c, (offered & CmMessage.CAP_AUTH) != 0
                    ? "the listener does not authenticate packets (it has no pre-shared key); this device requires it"
                    : "the listener asks for packet authentication, which this device has no pre-shared key for");
            return true;
        }
        if (agreed != 0) { // AUTH-3: keys before RTR
            c.qp.enableAuth(AuthKeys.derive(host.authKey(), c.key.cid(), c.qp.qpn(), rep.senderQpn(), c.localPsn,
                    rep.initialPsn(), true, (agreed & CmMessage.CAP_ENCRYPT) != 0));
        }
        c.peerQpn = rep.senderQpn();
        c.disarm();
        if ((rep.capabilities() & CmMessage.CAP_MISSING_NAK) == 0) {
            c.qp.disableMissingNaks(); // CM-13, REL-16: a listener before REL-16 would fail the connection on code 7
        }
        c.qp.modifyToRtr(host.peerHandle(remote, rep), rep.senderQpn(), rep.initialPsn());
        c.qp.modifyToRts(c.localPsn);
        c.state = CmState.ESTABLISHED;
        conns.changed();
        counters[CmCounter.CM_ESTABLISHED.ordinal()]++;
        wire.send(nowNs, rtu(c), remote);
        host.connected(c.key.cid(), c.qp);
        return true;
    }

    private boolean onRtu(CmMessage rtu, long remote) {
        CmConnection c = conns.get(remote, rtu.connectionId());
        if (c == null || c.initiator || c.state != CmState.REP_SENT || rtu.peerQpn() != c.qp.qpn()
                || rtu.senderQpn() != c.peerQpn) {
            return false;
        }
        established(c);
        return true;
    }

    private void established(CmConnection c) {
        conns.rtuDone(c);
        if (c.state != CmState.REP_SENT) {
            return;
        }
        c.state = CmState.ESTABLISHED;
        c.forgetAtNs = Engine.NO_DEADLINE;
        c.disarm(); // CM-8: no more REPs
        conns.changed();
        if (c.qp.state() == QpState.RTR) {
            c.qp.modifyToRts(c.localPsn);
        }
        counters[CmCounter.CM_ESTABLISHED.ordinal()]++;
        host.accepted(c.qp, c.key.remote());
    }

    private boolean onReject(CmMessage rej, long remote) {
        CmConnection c = conns.get(remote, rej.connectionId());
        if (c != null && !c.initiator && c.state == CmState.REP_SENT && c.qp != null && rej.peerQpn() == c.qp.qpn()) {
            // the initiator refused our REP (CM-6): the QP created for it goes to ERROR and the attempt is forgotten
            counters[CmCounter.CM_REJECTS_RECEIVED.ordinal()]++;
            counters[CmCounter.CM_ATTEMPTS_FAILED.ordinal()]++;
            toError(c.qp);
            c.state = CmState.CLOSED;
            conns.remove(c);
            return true;
        }
        if (c == null || !c.initiator || c.state != CmState.REQ_SENT
                || rej.peerQpn() != 0 && rej.peerQpn() != c.qp.qpn()) {
            return false; // CM-16
        }
        counters[CmCounter.CM_REJECTS_RECEIVED.ordinal()]++;
        fail(c, "rejected: " + CmReason.describe(rej.reason())); // CM-9: every reason ends the attempt
        return true;
    }

    private boolean onDisconnect(long nowNs, CmMessage dreq, long remote) {
        CmConnection c = conns.get(remote, dreq.connectionId());
        if (c == null || c.qp == null || dreq.peerQpn() != c.qp.qpn()) {
            return false; // CM-10: unknown connection
        }
        switch (c.state) {
            case REP_SENT, ESTABLISHED -> {
                conns.rtuDone(c);
                toError(c.qp);
                c.state = CmState.TIME_WAIT;
                c.disarm();
                c.forgetAtNs = nowNs + settings.timeWaitNs();
                conns.changed();
                counters[CmCounter.CM_DISCONNECTS.ordinal()]++;
                wire.send(nowNs, dreq(c), remote);
                host.disconnected(c.qp, true, true);
                return true;
            }
            case TIME_WAIT -> {
                wire.send(nowNs, dreq(c), remote);
                return true;
            }
            case DREQ_SENT -> {
                closed(c, true); // the answer ends our retransmissions and is not answered
                return true;
            }
            default -> {
                return false;
            }
        }
    }

    private void closed(CmConnection c, boolean answered) {
        c.state = CmState.CLOSED;
        counters[CmCounter.CM_DISCONNECTS.ordinal()]++;
        conns.remove(c);
        host.disconnected(c.qp, false, answered);
    }

    private void fail(CmConnection c, String why) {
        c.state = CmState.CLOSED;
        counters[CmCounter.CM_ATTEMPTS_FAILED.ordinal()]++;
        toError(c.qp);
        conns.remove(c);
        if (c.unauthenticatedAnswers > 0) { // AUTH-14: say what was dropped
            why += "; the listener answered " + c.unauthenticatedAnswers + " time(s) without a valid seal, dropped "
                    + "(CM_DROP_AUTH): it has no pre-shared key or another one (start both sides with the same "
                    + "--auth-key), or the answers were forged";
        }
        host.failed(c.key.cid(), c.qp, why);
    }

    private static void toError(QueuePair qp) {
        if (qp.state() != QpState.ERROR) {
            qp.modifyToError();
        }
    }

    /** Forgets every connection and remembered attempt without a message (the device is going away). */
    public void clear() {
        conns.clear();
    }
}
