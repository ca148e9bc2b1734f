package io.metaroce.sim;

/** A free list of {@link Packet}s indexed by id; grows on demand, never shrinks. */
public final class PacketPool {
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

    public Packet alloc() {
        allocations++;
        if (freeCount > 0) {
            return all[free[--freeCount]];
        }
        if (created == all.length) {
            all = java.util.Arrays.copyOf(all, created * 2);
            free = java.util.Arrays.copyOf(free, created * 2);
        }
        Packet p = new Packet(created, capacity);
        all[created++] = p;
        return p;
    }

    public void release(Packet p) {
        free[freeCount++] = p.id;
    }

    public Packet get(long id) {
        return all[(int) id];
    }

    /** Packets ever created (the pool's high-water mark). */
    public int created() { return created; }
    /** Packets currently in use. */
    public int inUse() { return created - freeCount; }
    public long allocations() { return allocations; }
}
