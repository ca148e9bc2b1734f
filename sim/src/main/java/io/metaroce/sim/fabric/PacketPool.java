package io.metaroce.sim.fabric;

import java.lang.foreign.MemorySegment;

/**
 * A free list of {@link Packet}s indexed by id; grows on demand, never shrinks. Buffers come in size classes:
 * {@link #capacity()} bytes (the largest datagram) and, when the pool is made with a smaller second size,
 * {@link #smallCapacity()} bytes for the many datagrams that are headers only (a simulated data packet with its
 * payload elided, an ACK) and sizes doubling from it in between, for ACK bundles and NAKs: {@link #alloc(int)} picks
 * the smallest that fits. A simulation holds every packet in flight, and the pool every packet that ever was at
 * once, so at 1,024 hosts the buffers were most of the heap when every packet had room for the largest ACK bundle,
 * and at 8,192 hosts with 64 paths full-size buffers for ACK bundles of ~10 paths were most of ~290 MB of byte
 * arrays.
 */
public final class PacketPool {
    private static final int CHUNK = 64;
    private final int capacity;
    private final int smallCapacity;
    /** The buffer sizes, ascending: {@link #smallCapacity} first, {@link #capacity} last. */
    private final int[] sizes;
    private Packet[] all = new Packet[256];
    /** Per size class: the ids of its free packets, and how many. */
    private final int[][] free;
    private final int[] freeCount;
    /** Per size class: packets made, each of which may come back to its free list. */
    private final int[] madeCount;
    private int created;
    private long allocations;
    private MemorySegment scratch;

    /** A pool of packets whose buffers hold {@code capacity} bytes. */
    public PacketPool(int capacity) {
        this(capacity, capacity);
    }

    /**
     * A pool of packets of several buffer sizes: {@code capacity} bytes, {@code smallCapacity} bytes for
     * {@link #alloc(int)} of at most that length, and sizes doubling from it while the next is within 80% of
     * {@code capacity}.
     */
    public PacketPool(int capacity, int smallCapacity) {
        if (capacity <= 0 || smallCapacity <= 0 || smallCapacity > capacity) {
            throw new IllegalArgumentException("packet buffers of " + capacity + " and " + smallCapacity + " bytes");
        }
        this.capacity = capacity;
        this.smallCapacity = smallCapacity;
        int n = 1;
        for (long s = smallCapacity; s < capacity && 2 * s * 5 <= 4L * capacity; s *= 2) {
            n++;
        }
        sizes = new int[smallCapacity < capacity ? n + 1 : 1];
        for (int i = 0; i < sizes.length - 1; i++) {
            sizes[i] = smallCapacity << i;
        }
        sizes[sizes.length - 1] = capacity;
        free = new int[sizes.length][256];
        freeCount = new int[sizes.length];
        madeCount = new int[sizes.length];
    }

    /** Bytes the largest packet buffer holds: the largest datagram. */
    public int capacity() { return capacity; }

    /** Bytes the smaller buffers hold ({@link #capacity()} when the pool has one size). */
    public int smallCapacity() { return smallCapacity; }

    /** True when the pool has buffers of several sizes ({@link #alloc(int)} then picks the smallest that fits). */
    public boolean sized() { return smallCapacity < capacity; }

    /** A free packet with a buffer of {@link #capacity()} bytes (a new one when none is free). */
    public Packet alloc() {
        return take(sizes.length - 1);
    }

    /** A free packet whose buffer holds at least {@code length} bytes: the smallest size that fits. */
    public Packet alloc(int length) {
        int c = 0;
        while (c < sizes.length - 1 && sizes[c] < length) {
            c++;
        }
        return take(c);
    }

    private Packet take(int sizeClass) {
        allocations++;
        if (freeCount[sizeClass] == 0) {
            grow(CHUNK, sizeClass);
        }
        return all[free[sizeClass][--freeCount[sizeClass]]];
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
            grow(Math.min(CHUNK, n - created), sizes.length - 1);
        }
    }

    /**
     * Creates {@code n} packets with buffers of size class {@code sizeClass}: the buffers first, as slices of one array
     * (one array header and one memory session for the chunk instead of one per packet: ~50 B less per packet, and
     * the pool holds every packet in flight), then the small headers together (so that the fields the fabric reads
     * on every hop sit in a few cache lines and pages, not one per 4 KB buffer).
     */
    private void grow(int n, int sizeClass) {
        int size = sizes[sizeClass];
        if (created + n > all.length) {
            all = java.util.Arrays.copyOf(all, Math.max(all.length * 2, created + n));
        }
        int[] list = free[sizeClass];
        madeCount[sizeClass] += n;
        if (madeCount[sizeClass] > list.length) {
            free[sizeClass] = list = java.util.Arrays.copyOf(list, Math.max(list.length * 2, madeCount[sizeClass]));
        }
        MemorySegment chunk = MemorySegment.ofArray(new byte[Math.multiplyExact(n, size)]);
        MemorySegment[] bufs = new MemorySegment[n];
        for (int i = 0; i < n; i++) {
            bufs[i] = chunk.asSlice((long) i * size, size);
        }
        for (int i = n - 1; i >= 0; i--) {
            Packet p = new Packet(created + i, bufs[i]);
            all[created + i] = p;
            list[freeCount[sizeClass]++] = created + i;
        }
        created += n;
    }

    /** Returns {@code p} to the pool; it must not be used after. */
    public void release(Packet p) {
        p.trimmed = false;
        long size = p.seg.byteSize();
        int c = 0;
        while (sizes[c] != size) {
            c++;
        }
        free[c][freeCount[c]++] = p.id;
    }

    /** The packet whose {@link Packet#id} is {@code id}. */
    public Packet get(long id) {
        return all[(int) id];
    }

    /** Packets ever created: the high-water mark of packets in use, rounded up to chunks of 64 per size. */
    public int created() { return created; }
    /** Packets currently in use. */
    public int inUse() {
        int n = created;
        for (int c : freeCount) {
            n -= c;
        }
        return n;
    }
    /** Packets handed out by {@link #alloc} since the pool was made. */
    public long allocations() { return allocations; }
}
