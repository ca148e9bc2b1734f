package io.metaroce.core;

/**
 * A completion queue (spec VERBS-5). Completions are appended by the engine and polled by the application in
 * order. The queue grows past its nominal capacity rather than lose a completion; each completion stored past
 * it is counted as an overrun (a sizing error the application should fix).
 */
public final class CompletionQueue {
    private final int capacity;
    private long[] wrIds;
    private WcStatus[] statuses;
    private WcOpcode[] opcodes;
    private int[] byteLens;
    private int[] imms;
    private boolean[] hasImms;
    private int[] qpns;
    private int head;
    private int size;
    private long overruns;

    CompletionQueue(int capacity) {
        if (capacity < 1) {
            throw new IllegalArgumentException("CQ capacity must be >= 1, got " + capacity);
        }
        this.capacity = capacity;
        allocate(Integer.highestOneBit(capacity - 1 | 1) << 1);
    }

    private void allocate(int n) {
        long[] w = new long[n];
        WcStatus[] s = new WcStatus[n];
        WcOpcode[] o = new WcOpcode[n];
        int[] b = new int[n];
        int[] im = new int[n];
        boolean[] hi = new boolean[n];
        int[] q = new int[n];
        for (int i = 0; i < size; i++) {
            int j = (head + i) & (wrIds.length - 1);
            w[i] = wrIds[j];
            s[i] = statuses[j];
            o[i] = opcodes[j];
            b[i] = byteLens[j];
            im[i] = imms[j];
            hi[i] = hasImms[j];
            q[i] = qpns[j];
        }
        wrIds = w;
        statuses = s;
        opcodes = o;
        byteLens = b;
        imms = im;
        hasImms = hi;
        qpns = q;
        head = 0;
    }

    void push(long wrId, WcStatus status, WcOpcode opcode, int byteLen, int imm, boolean hasImm, int qpn) {
        if (size == wrIds.length) {
            allocate(wrIds.length * 2);
        }
        if (size >= capacity) {
            overruns++;
        }
        int j = (head + size) & (wrIds.length - 1);
        wrIds[j] = wrId;
        statuses[j] = status;
        opcodes[j] = opcode;
        byteLens[j] = byteLen;
        imms[j] = imm;
        hasImms[j] = hasImm;
        qpns[j] = qpn;
        size++;
    }

    /** Moves the oldest completion into {@code wc}; returns false when the queue is empty. */
    public boolean poll(WorkCompletion wc) {
        if (size == 0) {
            return false;
        }
        wc.wrId = wrIds[head];
        wc.status = statuses[head];
        wc.opcode = opcodes[head];
        wc.byteLen = byteLens[head];
        wc.immediate = imms[head];
        wc.hasImmediate = hasImms[head];
        wc.qpn = qpns[head];
        statuses[head] = null;
        head = (head + 1) & (wrIds.length - 1);
        size--;
        return true;
    }

    /** Completions waiting to be polled. */
    public int size() {
        return size;
    }

    public int capacity() {
        return capacity;
    }

    /** Completions stored beyond the nominal capacity since creation. */
    public long overruns() {
        return overruns;
    }
}
