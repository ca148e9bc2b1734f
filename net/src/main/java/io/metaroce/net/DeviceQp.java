package io.metaroce.net;

import io.metaroce.core.MemoryRegion;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcOpcode;
import io.metaroce.core.WcStatus;

/**
 * An application's handle on a queue pair of a {@link Device}: posts are validated here, on the caller's
 * thread, written into the QP's own ring of work-request slots and announced to the device's agent with a
 * doorbell (once until the agent takes them); they never block and allocate nothing. Returns
 * {@link QueuePair#OK}, {@link QueuePair#EINVAL} (bad arguments) or {@link QueuePair#ENOMEM} (send queue or
 * ring full: poll completions and retry). One thread at a time posts to a QP (as with a verbs QP without
 * its lock); different QPs may be posted to from different threads.
 */
public final class DeviceQp {
    final Device device;
    final QueuePair qp;
    final DeviceCq sendCq;
    final DeviceCq recvCq;
    private final int sqDepth;
    private final int qpn;
    private final WorkRing ring;
    private final WorkRing.Poster refusals = this::refused;
    private long posted;
    volatile long retired;
    /** Agent thread: posts the engine refused (already reported as completions). */
    long extraRetired;
    /** Agent thread: what it last published in {@link #retired} and {@link #state}. */
    long publishedRetired;
    QpState publishedState = QpState.RESET;
    volatile QpState state = QpState.RESET;

    DeviceQp(Device device, QueuePair qp, DeviceCq sendCq, DeviceCq recvCq, int sqDepth, int rqDepth) {
        this.device = device;
        this.qp = qp;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.sqDepth = sqDepth;
        this.qpn = qp.qpn();
        this.ring = new WorkRing(Math.min(1 << 14, sqDepth + rqDepth));
    }

    public int qpn() {
        return qpn;
    }

    /**
     * Work requests posted to this QP and not yet taken by the device's agent (still in the QP's ring): a count
     * that stays above 0 while the agent is idle means a post was never announced.
     */
    public int postedNotTaken() {
        return ring.pending();
    }

    /** The QP's state as last published by the agent. */
    public QpState state() {
        return state;
    }

    public DeviceCq sendCq() {
        return sendCq;
    }

    public DeviceCq recvCq() {
        return recvCq;
    }

    private int checkLocal(MemoryRegion mr, long offset, int length) {
        if (mr == null || length < 0 || offset < 0 || offset > mr.length() || length > mr.length() - offset) {
            return QueuePair.EINVAL;
        }
        if (posted - retired >= sqDepth) {
            return QueuePair.ENOMEM;
        }
        return QueuePair.OK;
    }

    private int post(byte op, long wrId, MemoryRegion mr, long off, int len, long va, int rkey, int imm, int flags) {
        int rc = checkLocal(mr, off, len);
        if (rc != QueuePair.OK) {
            return rc;
        }
        if (!ring.offer(op, wrId, mr, off, len, va, rkey, imm, flags)) {
            return QueuePair.ENOMEM;
        }
        posted++;
        ringDoorbell();
        return QueuePair.OK;
    }

    /** Tells the agent this QP's ring has work, unless it was told already and has not taken it yet. */
    private void ringDoorbell() {
        if (ring.announce()) {
            device.doorbell(this);
        }
    }

    /** Agent thread: takes every work request posted so far into the engine; returns how many. */
    int drain() {
        return ring.drain(qp, refusals);
    }

    private void refused(byte op, long wrId, int rc) {
        // The engine refused a post the application could not know was bad (e.g. the QP is not connected
        // yet): report it as a completion instead of losing it, and keep the outstanding count honest.
        device.rejectedPost();
        if (op == WorkRing.RECV) {
            recvCq.offerDirect(wrId, WcStatus.LOC_QP_OP_ERR, WcOpcode.RECV, qpn);
        } else {
            extraRetired++;
            sendCq.offerDirect(wrId, WcStatus.LOC_QP_OP_ERR, WcOpcode.SEND, qpn);
        }
    }

    public int postWrite(long wrId, MemoryRegion mr, long off, int len, long remoteVa, int rkey, int flags) {
        return post(WorkRing.WRITE, wrId, mr, off, len, remoteVa, rkey, 0, flags);
    }

    public int postWriteImm(long wrId, MemoryRegion mr, long off, int len, long remoteVa, int rkey, int imm,
                            int flags) {
        return post(WorkRing.WRITE_IMM, wrId, mr, off, len, remoteVa, rkey, imm, flags);
    }

    public int postSend(long wrId, MemoryRegion mr, long off, int len, int flags) {
        return post(WorkRing.SEND, wrId, mr, off, len, 0, 0, 0, flags);
    }

    public int postSendImm(long wrId, MemoryRegion mr, long off, int len, int imm, int flags) {
        return post(WorkRing.SEND_IMM, wrId, mr, off, len, 0, 0, imm, flags);
    }

    public int postRead(long wrId, MemoryRegion mr, long off, int len, long remoteVa, int rkey, int flags) {
        return post(WorkRing.READ, wrId, mr, off, len, remoteVa, rkey, 0, flags);
    }

    /** Posts a receive; receives are not counted against the send queue (ENOMEM only when the ring is full). */
    public int postRecv(long wrId, MemoryRegion mr, long off, int len) {
        if (mr == null || len < 0 || off < 0 || off > mr.length() || len > mr.length() - off) {
            return QueuePair.EINVAL;
        }
        if (!ring.offer(WorkRing.RECV, wrId, mr, off, len, 0, 0, 0, 0)) {
            return QueuePair.ENOMEM;
        }
        ringDoorbell();
        return QueuePair.OK;
    }

    /** Moves the QP to ERROR (outstanding work is flushed). */
    public void close() {
        device.submit(() -> {
            drain(); // what was posted before close is flushed with the rest
            qp.modifyToError();
        });
    }

    @Override
    public String toString() {
        return "DeviceQp " + qpn + " " + state;
    }
}
