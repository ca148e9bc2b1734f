package io.metaroce.sim.fabric;

import io.metaroce.core.wire.Ecn;
import java.lang.foreign.MemorySegment;

/**
 * One datagram in flight: a pooled object owning a buffer (a segment, made once, large enough for the engine's
 * largest datagram or, from a pool of two sizes, for a header-only one; {@link PacketPool} cuts the buffers of a
 * chunk of packets from one array). Identified by
 * {@link #id} so events can carry it as a long.
 */
public final class Packet {
    /** The CE codepoint, {@link Ecn#CE} (one definition; this name stays for code not yet switched to Ecn). */
    public static final int ECN_CE = Ecn.CE;

    final int id;
    /** The packet's buffer (the engine's datagram view), {@link PacketPool#capacity()} or {@link PacketPool#smallCapacity()} bytes. */
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

    /**
     * What the fabric reads of a packet in flight, carried beside it in a link's ring so that a switch routes and
     * queues it without reading the packet object (a cache miss per hop in a large fabric): the route word
     * ({@code src << 32 | dst}) and the info word ({@code pathId << 32 | length << 3 | data << 2 | ecn}).
     */
    static long route(Packet p) {
        return (long) p.src << 32 | (p.dst & 0xFFFF_FFFFL);
    }

    /** The info word of {@code p} (see {@link #route}). */
    static long info(Packet p) {
        return (long) p.pathId << 32 | (p.length & 0x1FFF_FFFFL) << 3 | (p.data ? INFO_DATA : 0) | (p.ecn & 3);
    }

    /** The info word's data flag. */
    static final long INFO_DATA = 4;

    /** Destination host of a route word. */
    static int routeDst(long route) { return (int) route; }
    /** Sending host of a route word. */
    static int routeSrc(long route) { return (int) (route >>> 32); }
    /** Path id (ECMP entropy) of an info word. */
    static int infoPath(long info) { return (int) (info >>> 32); }
    /** Datagram length of an info word. */
    static int infoLength(long info) { return (int) info >>> 3; }
    /** ECN codepoint of an info word. */
    static int infoEcn(long info) { return (int) info & 3; }
    /** True when the info word is a data packet's. */
    static boolean infoData(long info) { return (info & INFO_DATA) != 0; }

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
