package io.metaroce.core;

import io.metaroce.core.wire.AckBundleHeader;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;

/** How long an engine's datagrams get, from its configuration: what its buffers must hold (WIRE-19, VERBS-16). */
final class DatagramSizes {
    private DatagramSizes() {
    }

    /**
     * Largest datagram: a PARITY over full segments (REL-18: its header is 4 bytes longer than a data packet's), the
     * AUTH trailer and the CRC.
     */
    static int max(EngineConfig cfg) {
        return Packet.datagramLength(Opcode.PARITY, cfg.mtu) + BaseHeader.AUTH_TRAILER_LENGTH;
    }

    /**
     * Largest data datagram: headers, one MTU of payload, the AUTH trailer and the CRC (WIRE-19's {@code mtu + 68}
     * and the trailer). An ACK bundle fills at most this much (ACK-11); a plane's backlog is counted in it (PATH-19).
     */
    static int maxData(EngineConfig cfg) {
        return Packet.datagramLength(Opcode.WRITE, cfg.mtu) + BaseHeader.AUTH_TRAILER_LENGTH;
    }

    /**
     * Bytes a transmit or receive buffer needs: {@link #max}, or with {@link EngineConfig#elidePayload} only the longest
     * header and its CRC (with {@link EngineConfig#ackBundle}, at least the longest ACK bundle the QP's paths make,
     * which carries no payload to elide: ACK-11).
     */
    static int buffer(EngineConfig cfg) {
        if (!cfg.elidePayload) {
            return max(cfg);
        }
        if (!cfg.ackBundle) {
            return Packet.maxHeaderLength();
        }
        int entries = Math.min(cfg.paths, AckBundleHeader.maxEntries(maxData(cfg)));
        int bundle = Packet.datagramLength(Opcode.ACK_BUNDLE, entries * AckBundleHeader.ENTRY_LENGTH)
                + BaseHeader.AUTH_TRAILER_LENGTH;
        return Math.max(Packet.maxHeaderLength(), bundle);
    }
}
