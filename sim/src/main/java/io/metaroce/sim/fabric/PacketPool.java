package io.metaroce.sim.fabric;

import java.lang.foreign.MemorySegment;

/** A free list of {@link Packet}s indexed by id; grows on demand, never shrinks. */
public final class PacketPool {
    private static final int CHUNK = 64;
    private final int capacity;
    private Packet[] all = new Packet[256];
    private int[] free = new int[256];
    private int freeCount;
    private int created;
    private long allocations;

    /** A pool of packets whose buffers hold {@code capacity} bytes. */
    public PacketPool(int capacity) {
        this.capacity = capacity;
    }

    /** Bytes each packet's buffer holds: the largest datagram. */
    public int capacity() { return capacity; }

    /** A free packet (a new one when none is free), its fields reset. */
    public Packet alloc() {
        allocations++;
        if (freeCount == 0) {
            grow(CHUNK);
        }
        return all[free[--freeCount]];
    }

    /** Makes sure at least {@code n} packets exist (to size the pool before a run), all free. */
    public void reserve(int n) {
        while (created < n) {
            grow(Math.min(CHUNK, n - created));
        }
    }

    /**
     * Creates {@code n} packets: their buffers first, as slices of one array (one array header and one memory
     * session for the chunk instead of one per packet: ~50 B less per packet, and the pool holds every packet in
     * flight), then the small headers together (so that the fields the fabric reads on every hop sit in a few
     * cache lines and pages, not one per 4 KB buffer).
     */
    private void grow(int n) {
        if (created + n > all.length) {
            int size = Math.max(all.length * 2, created + n);
            all = java.util.Arrays.copyOf(all, size);
            free = java.util.Arrays.copyOf(free, size);
        }
        MemorySegment chunk = MemorySegment.ofArray(new byte[Math.multiplyExact(n, capacity)]);
        MemorySegment[] bufs = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            bufs[i] = chunk.asSlice((long) i * capacity, capacity);
        }
        for (int i = n - 1; i >= 0; i--) {
            Packet p = new Packet(created + i, bufs[i]);
            all[created + i] = p;
            free[freeCount++] = created + i;
        }
        created += n;
    }

    /** Returns {@code p} to the pool; it must not be used after. */
    public void release(Packet p) {
        p.trimmed = false;
        free[freeCount++] = p.id;
    }

    /** The packet whose {@link Packet#id} is {@code id}. */
    public Packet get(long id) {
        return all[(int) id];
    }

    /** Packets ever created: the high-water mark of packets in use, rounded up to chunks of 64. */
    public int created() { return created; }
    /** Packets currently in use. */
    public int inUse() { return created - freeCount; }
    /** Packets handed out by {@link #alloc} since the pool was made. */
    public long allocations() { return allocations; }
}
