package io.metaroce.sim.fabric;

import io.metaroce.core.wire.Ecn;
import java.lang.foreign.MemorySegment;

/**
 * One datagram in flight: a pooled object owning a byte buffer (and a segment view of it, made once) large
 * enough for the engine's largest datagram. Identified by {@link #id} so events can carry it as a long.
 */
public final class Packet {
    /** The CE codepoint, {@link Ecn#CE} (one definition; this name stays for code not yet switched to Ecn). */
    public static final int ECN_CE = Ecn.CE;

    final int id;
    final byte[] buf;
    public final MemorySegment seg;
    public int length;
    public int src;
    public int dst;
    public int plane;
    public int pathId;
    public int ecn;
    public int opcode;
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
    public int seq;
    public int kind;
    public long aux;

    Packet(int id, byte[] buf) {
        this.id = id;
        this.buf = buf;
        this.seg = MemorySegment.ofArray(buf);
    }

    public int id() { return id; }
    public int length() { return length; }
    public int src() { return src; }
    public int dst() { return dst; }
    public int plane() { return plane; }
    public int pathId() { return pathId; }
    public int ecn() { return ecn; }
    public int opcode() { return opcode; }
    /** True for data-bearing packets (and READ requests). */
    public boolean isData() { return data; }
    /** True when a switch trimmed this data packet to its headers instead of dropping it. */
    public boolean isTrimmed() { return trimmed; }
    /** The datagram bytes, {@code [0, length)}. */
    public byte[] bytes() { return buf; }
}
