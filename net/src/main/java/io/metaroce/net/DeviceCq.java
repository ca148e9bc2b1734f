package io.metaroce.net;

import io.metaroce.core.CompletionQueue;
import io.metaroce.core.WcOpcode;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;

/**
 * An application's completion queue on a {@link Device}: the agent moves the engine's completions into a
 * lock-free single-consumer ring that one application thread polls.
 */
public final class DeviceCq {
    private static final WcStatus[] STATUSES = WcStatus.values();
    private static final WcOpcode[] OPCODES = WcOpcode.values();

    final CompletionQueue engineCq;
    private final CompletionRing ring;
    private final WorkCompletion scratch = new WorkCompletion();
    private boolean pendingScratch;
    // the device's own completions that found the ring full, oldest first (a growable circular queue)
    private long[] directWrId = new long[8];
    private byte[] directStatus = new byte[8];
    private byte[] directOp = new byte[8];
    private int[] directQpn = new int[8];
    private int directHead;
    private int directCount;

    DeviceCq(CompletionQueue engineCq, int capacity) {
        this.engineCq = engineCq;
        this.ring = new CompletionRing(capacity);
    }

    /** Agent thread: publishes the device's own completions, then the engine's; returns how many. */
    int publish() {
        int n = 0;
        while (directCount > 0) {
            int i = directHead;
            if (!ring.offer(directWrId[i], STATUSES[directStatus[i]], OPCODES[directOp[i]], 0, 0, false,
                    directQpn[i])) {
                return n; // the application is behind: keep them for the next cycle
            }
            directHead = (i + 1) % directWrId.length;
            directCount--;
            n++;
        }
        while (true) {
            if (!pendingScratch) {
                if (!engineCq.poll(scratch)) {
                    return n;
                }
                pendingScratch = true;
            }
            if (!ring.offer(scratch.wrId(), scratch.status(), scratch.opcode(), scratch.byteLen(),
                    scratch.immediate(), scratch.hasImmediate(), scratch.qpn())) {
                return n; // the application is behind: keep it for the next cycle
            }
            pendingScratch = false;
            n++;
        }
    }

    /**
     * Agent thread: a completion made by the device itself (a refused post). Goes straight to the ring when it
     * has room and nothing is waiting before it; else it waits, in order, for the next {@link #publish}.
     */
    void offerDirect(long wrId, WcStatus status, WcOpcode op, int qpn) {
        if (directCount == 0 && ring.offer(wrId, status, op, 0, 0, false, qpn)) {
            return;
        }
        if (directCount == directWrId.length) {
            growDirect();
        }
        int i = (directHead + directCount) % directWrId.length;
        directWrId[i] = wrId;
        directStatus[i] = (byte) status.ordinal();
        directOp[i] = (byte) op.ordinal();
        directQpn[i] = qpn;
        directCount++;
    }

    private void growDirect() {
        int n = directWrId.length;
        long[] w = new long[n * 2];
        byte[] st = new byte[n * 2];
        byte[] o = new byte[n * 2];
        int[] q = new int[n * 2];
        for (int k = 0; k < directCount; k++) {
            int i = (directHead + k) % n;
            w[k] = directWrId[i];
            st[k] = directStatus[i];
            o[k] = directOp[i];
            q[k] = directQpn[i];
        }
        directWrId = w;
        directStatus = st;
        directOp = o;
        directQpn = q;
        directHead = 0;
    }

    /** Agent thread: the device's completions waiting for room in the ring. */
    int pendingDirect() {
        return directCount;
    }

    /** Application thread: the oldest completion into {@code wc}, or false when none. Never blocks. */
    public boolean poll(WorkCompletion wc) {
        return ring.poll(wc);
    }
}
