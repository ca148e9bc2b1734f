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
    final int[] segmentSize;
    /** Received only: the datagram was longer than its slot and arrived cut short (MSG_TRUNC). */
    final boolean[] truncated;
    final int[] socket;
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
        this.segmentSize = new int[capacity];
        this.truncated = new boolean[capacity];
        this.socket = new int[capacity];
    }
}
