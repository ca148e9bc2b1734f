package io.metaroce.net;

import io.metaroce.core.CompletionQueue;
import io.metaroce.core.WorkCompletion;

/**
 * An application's completion queue on a {@link Device}: the agent moves the engine's completions into a
 * lock-free single-consumer ring that one application thread polls.
 */
public final class DeviceCq {
    final CompletionQueue engineCq;
    private final CompletionRing ring;
    private final WorkCompletion scratch = new WorkCompletion();
    private boolean pendingScratch;

    DeviceCq(CompletionQueue engineCq, int capacity) {
        this.engineCq = engineCq;
        this.ring = new CompletionRing(capacity);
    }

    /** Agent thread: publishes the engine's completions; returns how many. */
    int publish() {
        int n = 0;
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

    /** Agent thread: a completion made by the device itself (a refused post). */
    void offerDirect(long wrId, io.metaroce.core.WcStatus status, io.metaroce.core.WcOpcode op, int qpn) {
        ring.offer(wrId, status, op, 0, 0, false, qpn);
    }

    /** Application thread: the oldest completion into {@code wc}, or false when none. Never blocks. */
    public boolean poll(WorkCompletion wc) {
        return ring.poll(wc);
    }
}
