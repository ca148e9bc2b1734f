package io.metaroce.net.cm;

import io.metaroce.core.auth.CmAuth;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.Opcode;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * What a {@link CmEndpoint} receives and sends, as datagrams: the codec's checks (WIRE-8), the per-source rate limit
 * in front of any MAC, the seal of the host's pre-shared key (AUTH-11..AUTH-13) with this endpoint's message counter
 * (AUTH-12), and the counters of what went in and out. The endpoint keeps the connections and their state machines.
 */
final class CmWire {
    /** Where a datagram that failed AUTH-13 goes, parsed without trusting it (AUTH-14). */
    interface Unauthenticated {
        void refused(long nowNs, CmMessage untrusted, long remote);
    }

    private final CmHost host;
    private final CmSettings settings;
    private final long[] counters;
    private final CmCodec codec;
    private final MemorySegment out = MemorySegment.ofArray(new byte[CmCodec.MAX_LENGTH]);
    /** AUTH-11: the sealer under the CM key of {@link #authPsk} (the host's key; made again if it changes). */
    private CmAuth auth;
    private byte[] authPsk;
    /** The per-source limit in front of {@link #auth}'s MAC check (null: off, or no key). */
    private CmRateLimit limiter;
    /** AUTH-12: this endpoint's CM message counter, the number of messages it has sealed. */
    private long sealedCount;

    CmWire(CmHost host, CmSettings settings, long[] counters) {
        this.host = host;
        this.settings = settings;
        this.counters = counters;
        this.codec = new CmCodec(counters);
    }

    /**
     * One CM datagram from {@code remote}: the message it carries, or null when it was dropped (malformed, rate
     * limited or failing its seal; counted). A datagram failing its seal is handed to {@code refused} first.
     */
    CmMessage receive(long nowNs, MemorySegment datagram, int length, long remote, Unauthenticated refused) {
        counters[CmCounter.CM_RX_PACKETS.ordinal()]++;
        if (!codec.wellFormed(datagram, length)) {
            return null; // WIRE-8, counted
        }
        CmAuth a = auth();
        if (a != null && limiter != null && !limiter.admit(nowNs, host.source(remote))) { // before any MAC
            counters[CmCounter.CM_DROP_RATE_LIMITED.ordinal()]++;
            return null;
        }
        if (a != null && a.open(datagram, length) != CmAuth.OK) { // AUTH-13: before any field is trusted
            counters[CmCounter.CM_DROP_AUTH.ordinal()]++;
            CmMessage untrusted = codec.parse(datagram, false);
            if (untrusted != null) {
                refused.refused(nowNs, untrusted, remote);
            }
            return null;
        }
        return codec.parse(datagram, true); // AUTH-16: without a key a trailer is not part of the message
    }

    /** Sends {@code m}, sealed when the host has a key (AUTH-13: every message but AUTH-14's refusal). */
    void send(long nowNs, CmMessage m, long remote) {
        CmAuth a = auth();
        emit(nowNs, m, remote, a, a == null ? 0 : sealedCount++);
    }

    /** Sends {@code m} without a seal: only AUTH-14's answer to a request that failed its seal. */
    void sendUnsealed(long nowNs, CmMessage m, long remote) {
        emit(nowNs, m, remote, null, 0);
    }

    private void emit(long nowNs, CmMessage m, long remote, CmAuth a, long counter) {
        int len = codec.encode(m, nowNs, out, a, counter);
        counters[CmCounter.CM_TX_PACKETS.ordinal()]++;
        if (m.opcode() == Opcode.CM_REJ) {
            counters[CmCounter.CM_REJECTS_SENT.ordinal()]++;
        }
        host.emit(out, len, remote);
    }

    /** AUTH-11: the sealer of the host's pre-shared key, or null when it has none. */
    private CmAuth auth() {
        byte[] psk = host.authKey();
        if (psk == null) {
            return null;
        }
        if (psk != authPsk) {
            auth = new CmAuth(psk);
            authPsk = psk;
            limiter = CmRateLimit.forKey(settings, psk);
        }
        return auth;
    }

    static CmMessage rtu(CmConnection c) {
        return new CmMessage(Opcode.CM_RTU, c.key.cid(), c.qp.qpn(), c.peerQpn, 0, 0, 0, 0, 0, 0, List.of()); // CM-1
    }

    static CmMessage dreq(CmConnection c) {
        return new CmMessage(Opcode.CM_DREQ, c.key.cid(), c.qp.qpn(), c.peerQpn, 0, 0, 0, 0, 0, 0, List.of());
    }

    static CmMessage reject(long cid, int ownQpn, int peerQpn, int reason) {
        return new CmMessage(Opcode.CM_REJ, cid, ownQpn, peerQpn, 0, 0, 0, 0, 0, reason, List.of()); // CM-1: port 0
    }
}
