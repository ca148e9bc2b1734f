package io.metaroce.net;

import io.metaroce.core.WcOpcode;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A single-producer single-consumer ring of completions from the agent thread to one application thread,
 * lock-free (release/acquire on the indices), with primitive slots so nothing is allocated per completion.
 */
final class CompletionRing {
    private static final VarHandle HEAD;
    private static final VarHandle TAIL;
    static {
        try {
            MethodHandles.Lookup l = MethodHandles.lookup();
            HEAD = l.findVarHandle(CompletionRing.class, "head", long.class);
            TAIL = l.findVarHandle(CompletionRing.class, "tail", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private static final WcStatus[] STATUSES = WcStatus.values();
    private static final WcOpcode[] OPCODES = WcOpcode.values();

    private final int mask;
    private final long[] wrId;
    private final long[] packed; // status | opcode << 8 | hasImm << 16 | byteLen << 32
    private final int[] imm;
    private final int[] qpn;
    @SuppressWarnings("unused") private volatile long head;
    @SuppressWarnings("unused") private volatile long tail;

    CompletionRing(int capacity) {
        int n = Integer.highestOneBit(Math.max(2, capacity - 1)) << 1;
        mask = n - 1;
        wrId = new long[n];
        packed = new long[n];
        imm = new int[n];
        qpn = new int[n];
    }

    /** Producer: false when full (the caller keeps the completion and retries later). */
    boolean offer(long id, WcStatus status, WcOpcode opcode, int byteLen, int immediate, boolean hasImm, int qp) {
        long t = (long) TAIL.getOpaque(this);
        if (t - (long) HEAD.getAcquire(this) > mask) {
            return false;
        }
        int i = (int) (t & mask);
        wrId[i] = id;
        packed[i] = status.ordinal() | (long) opcode.ordinal() << 8 | (hasImm ? 1L << 16 : 0) | (long) byteLen << 32;
        imm[i] = immediate;
        qpn[i] = qp;
        TAIL.setRelease(this, t + 1);
        return true;
    }

    /** Consumer: moves the oldest completion into {@code wc}; false when empty. */
    boolean poll(WorkCompletion wc) {
        long h = (long) HEAD.getOpaque(this);
        if (h == (long) TAIL.getAcquire(this)) {
            return false;
        }
        int i = (int) (h & mask);
        long p = packed[i];
        wc.set(wrId[i], STATUSES[(int) (p & 0xFF)], OPCODES[(int) (p >>> 8 & 0xFF)], (int) (p >>> 32), imm[i],
                (p >>> 16 & 1) != 0, qpn[i]);
        HEAD.setRelease(this, h + 1);
        return true;
    }
}
