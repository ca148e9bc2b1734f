package io.metaroce.net;

import io.metaroce.core.MemoryRegion;
import io.metaroce.core.QueuePair;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A queue pair's ring of work-request slots, from the one application thread that posts to the QP to the
 * device's agent thread, and the ring's doorbell flag: each post fills a slot of primitive fields (no object per
 * post) and publishes it; {@link #announce} tells the poster whether it must queue the ring for the agent (once
 * until the agent's next {@link #drain}); the agent takes every published slot and posts it to the engine's QP.
 * Lock-free and single-producer single-consumer.
 *
 * <p>The flag and the tail form a Dekker pair: the poster writes the tail, then reads the flag; the agent clears
 * the flag, then reads the tail. At least one of them must see the other's write, or a post is left in the ring
 * with no doorbell and nothing ever takes it (the perf ping-pong hang of issue 11: the ping waited in its ring
 * forever, 0 bytes in flight). Release stores and acquire loads do not give that: a store followed by a load of
 * another variable may be reordered (the JMM allows it, and x86's store buffer does it), so both could read the
 * old values. These four accesses are therefore volatile (sequentially consistent), the rest stay plain.
 */
final class WorkRing {
    static final byte WRITE = 1;
    static final byte WRITE_IMM = 2;
    static final byte SEND = 3;
    static final byte SEND_IMM = 4;
    static final byte READ = 5;
    static final byte RECV = 6;

    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    private static final VarHandle RUNG;
    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(WorkRing.class, "head", long.class);
            TAIL = l.findVarHandle(WorkRing.class, "tail", long.class);
            RUNG = l.findVarHandle(WorkRing.class, "rung", int.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /** What the agent does with each work request it takes (the engine QP's post, and reporting a refusal). */
    interface Poster {
        /** A post the engine refused with {@code rc}: report it. */
        void refused(byte op, long wrId, int rc);
    }

    private final int mask;
    private final byte[] op;
    private final long[] wrId;
    private final MemoryRegion[] mr;
    private final long[] offset;
    private final int[] length;
    private final long[] remoteVa;
    private final int[] rkey;
    private final int[] imm;
    private final int[] flags;
    @SuppressWarnings("unused") private volatile long head;
    @SuppressWarnings("unused") private volatile long tail;
    /** 1 from a poster's {@link #announce} until the agent's next {@link #drain}. */
    @SuppressWarnings("unused") private volatile int rung;

    /** A ring of at least {@code capacity} slots (rounded up to a power of two). */
    WorkRing(int capacity) {
        int n = Integer.highestOneBit(Math.max(2, capacity) - 1) << 1;
        mask = n - 1;
        op = new byte[n];
        wrId = new long[n];
        mr = new MemoryRegion[n];
        offset = new long[n];
        length = new int[n];
        remoteVa = new long[n];
        rkey = new int[n];
        imm = new int[n];
        flags = new int[n];
    }

    int capacity() {
        return mask + 1;
    }

    /**
     * Work requests published by the poster and not yet taken by the agent's {@link #drain} (any thread may ask;
     * the two ends are read one after the other, so under concurrent posts the figure is a moment's, never
     * negative and at most the ring's capacity).
     */
    int pending() {
        long h = (long) HEAD.getVolatile(this);
        long t = (long) TAIL.getVolatile(this);
        return (int) Math.max(0, Math.min(mask + 1, t - h));
    }

    /**
     * Producer: fills and publishes a slot (a volatile store of the tail, see the class comment); false when the
     * ring is full.
     */
    boolean offer(byte o, long id, MemoryRegion m, long off, int len, long va, int key, int immediate, int fl) {
        long t = (long) TAIL.getOpaque(this);
        if (t - (long) HEAD.getAcquire(this) > mask) {
            return false;
        }
        int i = (int) (t & mask);
        op[i] = o;
        wrId[i] = id;
        mr[i] = m;
        offset[i] = off;
        length[i] = len;
        remoteVa[i] = va;
        rkey[i] = key;
        imm[i] = immediate;
        flags[i] = fl;
        TAIL.setVolatile(this, t + 1);
        return true;
    }

    /**
     * Producer, after {@link #offer}: true when the caller must queue this ring for the agent, i.e. it was not
     * announced since the agent's last {@link #drain} (a volatile read of the flag, after the tail's store).
     */
    boolean announce() {
        return (int) RUNG.getVolatile(this) == 0 && RUNG.compareAndSet(this, 0, 1);
    }

    /**
     * Consumer: clears the doorbell flag (a post from now on announces itself again), then posts every published
     * slot to {@code qp} in order; returns how many.
     */
    int drain(QueuePair qp, Poster poster) {
        RUNG.setVolatile(this, 0); // first, and volatile: see the class comment
        long h = (long) HEAD.getOpaque(this);
        long t = (long) TAIL.getVolatile(this);
        for (long k = h; k != t; k++) {
            int i = (int) (k & mask);
            MemoryRegion m = mr[i];
            mr[i] = null; // the ring does not keep regions alive
            int rc = switch (op[i]) {
                case WRITE -> qp.postWrite(wrId[i], m, offset[i], length[i], remoteVa[i], rkey[i], flags[i]);
                case WRITE_IMM -> qp.postWriteImm(wrId[i], m, offset[i], length[i], remoteVa[i], rkey[i], imm[i],
                        flags[i]);
                case SEND -> qp.postSend(wrId[i], m, offset[i], length[i], flags[i]);
                case SEND_IMM -> qp.postSendImm(wrId[i], m, offset[i], length[i], imm[i], flags[i]);
                case READ -> qp.postRead(wrId[i], m, offset[i], length[i], remoteVa[i], rkey[i], flags[i]);
                default -> qp.postRecv(wrId[i], m, offset[i], length[i]);
            };
            if (rc != QueuePair.OK) {
                poster.refused(op[i], wrId[i], rc);
            }
        }
        HEAD.setRelease(this, t);
        return (int) (t - h);
    }
}
