package io.metaroce.net;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * A batch of datagram slots in native memory, with per-slot metadata: length, IPv4 address and port (the
 * destination when sending, the source when receiving), the received ECN codepoint, GRO segment size and
 * truncation, and
 * which socket a transmit slot belongs to. Slices are made once, so filling and draining allocate nothing.
 */
final class PacketBatch {
    final int capacity;
    final int slotSize;
    final MemorySegment buffers;
    final MemorySegment[] slots;
    final int[] length;
    final int[] addr;
    final int[] port;
    final int[] ecn;
    /** Received only: the IP header's DSCP (0 where the transport cannot read it: the channel fallback). */
    final int[] dscp;
    final int[] segmentSize;
    /** Received only: the datagram was longer than its slot and arrived cut short (MSG_TRUNC). */
    final boolean[] truncated;
    final int[] socket;
    /**
     * Received only: when the datagram arrived, on {@link System#nanoTime()}'s clock: the kernel's receive time
     * where the socket reports it (SO_TIMESTAMPNS), else when the receive call handed the batch over.
     */
    final long[] arrivalNs;
    /**
     * Transmit only: payload bytes of slot i left in a registered region ({@code Engine.gatherTransmit}); 0 when the
     * slot holds the whole datagram. When not 0 the datagram is slot[0, headerLength) + the payload +
     * slot[headerLength, headerLength + 4) (the CRC), and {@code length} counts all three.
     */
    final int[] gatherLength;
    final int[] headerLength;
    final MemorySegment[] gatherSegment;
    final long[] gatherOffset;
    int count;

    PacketBatch(Arena arena, int capacity, int slotSize) {
        this.capacity = capacity;
        this.slotSize = slotSize;
        this.buffers = arena.allocate((long) capacity * slotSize, 64);
        this.slots = new MemorySegment[capacity];
        for (int i = 0; i < capacity; i++) {
            slots[i] = buffers.asSlice((long) i * slotSize, slotSize);
        }
        this.length = new int[capacity];
        this.addr = new int[capacity];
        this.port = new int[capacity];
        this.ecn = new int[capacity];
        this.dscp = new int[capacity];
        this.segmentSize = new int[capacity];
        this.truncated = new boolean[capacity];
        this.socket = new int[capacity];
        this.arrivalNs = new long[capacity];
        this.gatherLength = new int[capacity];
        this.headerLength = new int[capacity];
        this.gatherSegment = new MemorySegment[capacity];
        this.gatherOffset = new long[capacity];
    }

    /** Native address of slot {@code i}'s gathered payload (valid while {@code gatherLength[i] > 0}). */
    long gatherAddress(int i) {
        return gatherSegment[i].address() + gatherOffset[i];
    }

    /**
     * Makes slot {@code i} hold its whole datagram (for a socket that cannot send pieces): the CRC moves behind
     * where the payload goes and the payload is copied in. A no-op for a slot that already does.
     */
    void flatten(int i) {
        int g = gatherLength[i];
        if (g == 0) {
            return;
        }
        int h = headerLength[i];
        MemorySegment slot = slots[i];
        MemorySegment.copy(slot, h, slot, h + g, length[i] - h - g);
        MemorySegment.copy(gatherSegment[i], gatherOffset[i], slot, h, g);
        gatherLength[i] = 0;
        gatherSegment[i] = null;
    }
}
