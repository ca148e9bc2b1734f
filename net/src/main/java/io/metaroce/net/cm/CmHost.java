package io.metaroce.net.cm;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.QueuePair;
import io.metaroce.core.wire.CmMessage;

import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * What a {@link CmEndpoint} needs from the device it runs on, and how it reports connection events. A peer is
 * named by an opaque {@code long} chosen by the host (the real datapath packs an IPv4 address and a UDP port;
 * a host with one peer may use 0): the endpoint hands back the value it got with the datagram.
 */
public interface CmHost {
    /** A fresh QP in INIT for an accepted connection; null when none can be created (CM_REJ NO_RESOURCES). */
    QueuePair newQp();

    /**
     * The engine's peer handle for the sender of {@code m} (a CM_REQ or CM_REP: its plane addresses and UDP port,
     * CM-14), reached at {@code remote}.
     */
    int peerHandle(long remote, CmMessage m);

    /** Sends {@code length} bytes of {@code datagram} (a sealed CM packet) to {@code remote} now. */
    void emit(MemorySegment datagram, int length, long remote);

    /** The device's engine configuration (its MTU, path count and plane count). */
    EngineConfig config();

    /** This device's address per plane (4 or 16 bytes each), as announced in a REQ or REP. */
    List<byte[]> planeAddresses();

    /** The UDP port this device receives datapath packets on (CM-14). */
    int udpPort();

    /**
     * The initial PSN (CM-12) of the next accepted connection. A host with a pre-shared key MUST draw it from a
     * cryptographically secure generator (AUTH-15: a replayed CM_REQ then gets new keys).
     */
    int responderInitialPsn();

    /**
     * The source a CM datagram from {@code remote} is rate-limited as ({@code CmRateLimit}): by default
     * {@code remote} itself; the real datapath gives the IPv4 address without the UDP port, which a sender can vary.
     */
    default long source(long remote) {
        return remote;
    }

    /**
     * Whether this device's QPs can run a connection with these values. The engine has one MTU, path count and
     * plane count per device, so by default only its own values (CM-6 lets a responder lower them when its QPs
     * can run less than the device maximum; a host whose QPs can, overrides this).
     */
    default boolean canRun(int mtu, int paths, int planes) {
        EngineConfig c = config();
        return mtu == c.mtu && paths == c.paths && planes == c.planes;
    }

    /**
     * AUTH-9: the pre-shared key (16..64 bytes) from which this device derives the keys of every connection it
     * makes or accepts, or null when it does not authenticate. A device with a key accepts only authenticated
     * connections.
     */
    default byte[] authKey() {
        return null;
    }

    /** AUTH-9: whether this device asks for encrypted payloads (only with {@link #authKey()}). */
    default boolean encryptPayloads() {
        return false;
    }

    /**
     * Whether a CM_REQ reaching a device that does not listen gets CM_REJ CONSUMER (a quick, clear failure for the
     * initiator) rather than being ignored (CM-16).
     */
    default boolean refuseWithoutListener() {
        return false;
    }

    /** Responder: {@code qp} reached RTS (RTU or first data packet, CM-8): hand it to the application. */
    default void accepted(QueuePair qp, long remote) {
    }

    /**
     * Responder with a key: the attempt of {@code qp} was neither confirmed by a CM_RTU nor by data within
     * TIME_WAIT (AUTH-15: a replayed CM_REQ, or an initiator that went away); {@code qp} is in ERROR and was never
     * handed to the application.
     */
    default void abandoned(QueuePair qp) {
    }

    /** Initiator: attempt {@code cid} succeeded; {@code qp} is in RTS (CM-7). */
    default void connected(long cid, QueuePair qp) {
    }

    /** Initiator: attempt {@code cid} failed; {@code qp} is in ERROR; {@code why} is one sentence. */
    default void failed(long cid, QueuePair qp, String why) {
    }

    /**
     * The connection of {@code qp} is closed (CM-10): the peer's CM_DREQ moved it to ERROR ({@code byPeer}), or
     * our own close finished its exchange or gave up ({@code answered} tells whether the peer's CM_DREQ came).
     */
    default void disconnected(QueuePair qp, boolean byPeer, boolean answered) {
    }
}
