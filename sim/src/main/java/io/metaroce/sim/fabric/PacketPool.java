package io.metaroce.sim.fabric;

import java.lang.foreign.MemorySegment;

/**
 * A free list of {@link Packet}s indexed by id; grows on demand, never shrinks. Buffers come in up to two sizes:
 * {@link #capacity()} bytes (the largest datagram) and, when the pool is made with a smaller second size,
 * {@link #smallCapacity()} bytes for the many datagrams that are headers only (a simulated data packet with its
 * payload elided, an ACK). A simulation holds every packet in flight, so at 1,024 hosts the buffers were most of
 * the heap when every packet had room for the largest ACK bundle.
 */
public final class PacketPool {
    private static final int CHUNK = 64;
    private final int capacity;
    private final int smallCapacity;
    private Packet[] all = new Packet[256];
    private int[] free = new int[256];
    private int freeCount;
    private int[] freeSmall = new int[256];
    private int freeSmallCount;
    private int created;
    private long allocations;
    private MemorySegment scratch;

    /** A pool of packets whose buffers hold {@code capacity} bytes. */
    public PacketPool(int capacity) {
        this(capacity, capacity);
    }

    /**
     * A pool of packets of two buffer sizes: {@code capacity} bytes, and {@code smallCapacity} bytes for
     * {@link #alloc(int)} of at most that length.
     */
    public PacketPool(int capacity, int smallCapacity) {
        if (capacity <= 0 || smallCapacity <= 0 || smallCapacity > capacity) {
            throw new IllegalArgumentException("packet buffers of " + capacity + " and " + smallCapacity + " bytes");
        }
        this.capacity = capacity;
        this.smallCapacity = smallCapacity;
    }

    /** Bytes the largest packet buffer holds: the largest datagram. */
    public int capacity() { return capacity; }

    /** Bytes the smaller buffers hold ({@link #capacity()} when the pool has one size). */
    public int smallCapacity() { return smallCapacity; }

    /** True when the pool has buffers of two sizes ({@link #alloc(int)} then picks the smaller where it fits). */
    public boolean sized() { return smallCapacity < capacity; }

    /** A free packet with a buffer of {@link #capacity()} bytes (a new one when none is free). */
    public Packet alloc() {
        allocations++;
        if (freeCount == 0) {
            grow(CHUNK, capacity);
        }
        return all[free[--freeCount]];
    }

    /** A free packet whose buffer holds at least {@code length} bytes: a small one when it fits. */
    public Packet alloc(int length) {
        if (length > smallCapacity || !sized()) {
            return alloc();
        }
        allocations++;
        if (freeSmallCount == 0) {
            grow(CHUNK, smallCapacity);
        }
        return all[freeSmall[--freeSmallCount]];
    }

    /**
     * A buffer of {@link #capacity()} bytes to write a datagram into before its length is known, then copy into
     * {@link #alloc(int)}'s packet: one per pool (a simulation runs on one thread), made on first use.
     */
    public MemorySegment scratch() {
        if (scratch == null) {
            scratch = MemorySegment.ofArray(new byte[capacity]);
        }
        return scratch;
    }

    /** Makes sure at least {@code n} packets exist (to size the pool before a run), all free. */
    public void reserve(int n) {
        while (created < n) {
            grow(Math.min(CHUNK, n - created), capacity);
        }
    }

    /**
     * Creates {@code n} packets with {@code size}-byte buffers: the buffers first, as slices of one array (one
     * array header and one memory session for the chunk instead of one per packet: ~50 B less per packet, and the
     * pool holds every packet in flight), then the small headers together (so that the fields the fabric reads on
     * every hop sit in a few cache lines and pages, not one per 4 KB buffer).
     */
    private void grow(int n, int size) {
        if (created + n > all.length) {
            int length = Math.max(all.length * 2, created + n);
            all = java.util.Arrays.copyOf(all, length);
            free = java.util.Arrays.copyOf(free, length);
            freeSmall = java.util.Arrays.copyOf(freeSmall, length);
        }
        MemorySegment chunk = MemorySegment.ofArray(new byte[Math.multiplyExact(n, size)]);
        MemorySegment[] bufs = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            bufs[i] = chunk.asSlice((long) i * size, size);
        }
        boolean small = size < capacity;
        for (int i = n - 1; i >= 0; i--) {
            Packet p = new Packet(created + i, bufs[i]);
            all[created + i] = p;
            if (small) {
                freeSmall[freeSmallCount++] = created + i;
            } else {
                free[freeCount++] = created + i;
            }
        }
        created += n;
    }

    /** Returns {@code p} to the pool; it must not be used after. */
    public void release(Packet p) {
        p.trimmed = false;
        if (p.seg.byteSize() < capacity) {
            freeSmall[freeSmallCount++] = p.id;
        } else {
            free[freeCount++] = p.id;
        }
    }

    /** The packet whose {@link Packet#id} is {@code id}. */
    public Packet get(long id) {
        return all[(int) id];
    }

    /** Packets ever created: the high-water mark of packets in use, rounded up to chunks of 64 per size. */
    public int created() { return created; }
    /** Packets currently in use. */
    public int inUse() { return created - freeCount - freeSmallCount; }
    /** Packets handed out by {@link #alloc} since the pool was made. */
    public long allocations() { return allocations; }
}
