package io.metaroce.core;

/**
 * FIFO of segments to send again (spec REL-4): which queue and serial of the message, which segment, how many times
 * it was sent, and the earliest time it may go (RNR and BUSY hold it back). Starts small (most QPs never resend)
 * and doubles as needed; in steady state it reuses its arrays.
 */
final class RetransmitQueue {
    private static final int INITIAL = 4;
    /** Set in an entry's attempt count for an extra copy of a resend (REL-22); {@link #headAttempt} masks it. */
    private static final int COPY = 1 << 30;
    private byte[] queue = new byte[INITIAL];
    private long[] serial = new long[INITIAL];
    private int[] seg = new int[INITIAL];
    private int[] attempt = new int[INITIAL];
    private long[] notBefore = new long[INITIAL];
    private int head;
    private int size;

    boolean isEmpty() {
        return size == 0;
    }

    int size() {
        return size;
    }

    void push(int q, long ser, int sg, int att, long notBeforeNs) {
        if (size == queue.length) {
            grow();
        }
        int i = (head + size) & (queue.length - 1);
        queue[i] = (byte) q;
        serial[i] = ser;
        seg[i] = sg;
        attempt[i] = att;
        notBefore[i] = notBeforeNs;
        size++;
    }

    /**
     * REL-22: queues an extra copy of a resend that went with attempt count {@code att}: it goes with the same
     * attempt and makes no copies of its own ({@link #headIsCopy}).
     */
    void pushCopy(int q, long ser, int sg, int att) {
        push(q, ser, sg, att | COPY, 0);
    }

    private void grow() {
        int n = queue.length * 2;
        byte[] q = new byte[n];
        long[] se = new long[n];
        int[] sg = new int[n];
        int[] at = new int[n];
        long[] nb = new long[n];
        for (int k = 0; k < size; k++) {
            int i = (head + k) & (queue.length - 1);
            q[k] = queue[i];
            se[k] = serial[i];
            sg[k] = seg[i];
            at[k] = attempt[i];
            nb[k] = notBefore[i];
        }
        queue = q;
        serial = se;
        seg = sg;
        attempt = at;
        notBefore = nb;
        head = 0;
    }

    int headQueue() { return queue[head]; }
    long headSerial() { return serial[head]; }
    int headSeg() { return seg[head]; }
    int headAttempt() { return attempt[head] & ~COPY; }
    boolean headIsCopy() { return (attempt[head] & COPY) != 0; }
    long headNotBefore() { return notBefore[head]; }

    void pop() {
        head = (head + 1) & (queue.length - 1);
        size--;
    }

    void clear() {
        head = 0;
        size = 0;
    }
}
