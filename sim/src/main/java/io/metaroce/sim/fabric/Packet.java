package io.metaroce.sim.fabric;

import io.metaroce.core.wire.Ecn;
import java.lang.foreign.MemorySegment;

/**
 * One datagram in flight: a pooled object owning a buffer (a segment, made once, large enough for the engine's
 * largest datagram; {@link PacketPool} cuts the buffers of a chunk of packets from one array). Identified by
 * {@link #id} so events can carry it as a long.
 */
public final class Packet {
    /** The CE codepoint, {@link Ecn#CE} (one definition; this name stays for code not yet switched to Ecn). */
    public static final int ECN_CE = Ecn.CE;

    final int id;
    /** The packet's buffer (the engine's datagram view), {@link PacketPool#capacity()} bytes. */
    public final MemorySegment seg;
    /** Datagram length in bytes (as carried; the wire adds {@code wireOverheadBytes}). */
    public int length;
    /** Sending host. */
    public int src;
    /** Destination host. */
    public int dst;
    /** Fabric plane the packet travels on. */
    public int plane;
    /** ECMP entropy of the packet's path (its UDP source port). */
    public int pathId;
    /** ECN codepoint (2 bits). */
    public int ecn;
    /** Transport opcode, for counters and traces. */
    public int opcode;
    /** True for data-bearing packets (and READ requests). */
    public boolean data;
    /** Cut to its headers by a trimming switch ({@code fabric.trimming}); reset when released to the pool. */
    boolean trimmed;
    /** In-port of the switch currently holding the packet (PFC ingress accounting); set on arrival. */
    int inPort;
    /**
     * Transport-private fields for transports that model headers instead of encoding bytes (the RoCEv2
     * baseline): a connection id, a sequence number, a packet kind and one spare word. The MetaRoCE transport
     * carries real datagrams in {@link #buf} and ignores them.
     */
    public int flow;
    /** Transport-private: sequence number (see {@link #flow}). */
    public int seq;
    /** Transport-private: packet kind (see {@link #flow}). */
    public int kind;
    /** Transport-private: a spare word (see {@link #flow}). */
    public long aux;

    Packet(int id, MemorySegment seg) {
        this.id = id;
        this.seg = seg;
    }

    /** The packet's pool id (events carry it as their argument). */
    public int id() { return id; }
    /** Datagram length in bytes. */
    public int length() { return length; }
    /** Sending host. */
    public int src() { return src; }
    /** Destination host. */
    public int dst() { return dst; }
    /** Fabric plane. */
    public int plane() { return plane; }
    /** ECMP entropy of the path. */
    public int pathId() { return pathId; }
    /** ECN codepoint. */
    public int ecn() { return ecn; }
    /** Transport opcode. */
    public int opcode() { return opcode; }
    /** True for data-bearing packets (and READ requests). */
    public boolean isData() { return data; }
    /** True when a switch trimmed this data packet to its headers instead of dropping it. */
    public boolean isTrimmed() { return trimmed; }
}
