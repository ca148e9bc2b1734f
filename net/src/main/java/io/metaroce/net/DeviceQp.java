package io.metaroce.net;

import io.metaroce.core.MemoryRegion;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;

/**
 * An application's handle on a queue pair of a {@link Device}: posts are validated here, on the caller's
 * thread, and handed to the device's agent through a lock-free queue; they never block. Returns
 * {@link QueuePair#OK}, {@link QueuePair#EINVAL} (bad arguments) or {@link QueuePair#ENOMEM} (send queue or
 * command queue full: poll completions and retry).
 */
public final class DeviceQp {
    final Device device;
    final QueuePair qp;
    final DeviceCq sendCq;
    final DeviceCq recvCq;
    private final int sqDepth;
    private final int qpn;
    private long posted;
    volatile long retired;
    /** Agent thread: posts the engine refused (already reported as completions). */
    long extraRetired;
    /** Agent thread: what it last published in {@link #retired} and {@link #state}. */
    long publishedRetired;
    QpState publishedState = QpState.RESET;
    volatile QpState state = QpState.RESET;

    DeviceQp(Device device, QueuePair qp, DeviceCq sendCq, DeviceCq recvCq, int sqDepth) {
        this.device = device;
        this.qp = qp;
        this.sendCq = sendCq;
        this.recvCq = recvCq;
        this.sqDepth = sqDepth;
        this.qpn = qp.qpn();
    }

    public int qpn() {
        return qpn;
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

    private int submit(Runnable r) {
        if (!device.submit(r)) {
            return QueuePair.ENOMEM;
        }
        posted++;
        return QueuePair.OK;
    }

    public int postWrite(long wrId, MemoryRegion mr, long off, int len, long remoteVa, int rkey, int flags) {
        int rc = checkLocal(mr, off, len);
        return rc != QueuePair.OK ? rc : submit(() -> device.posted(this,
                qp.postWrite(wrId, mr, off, len, remoteVa, rkey, flags), wrId));
    }

    public int postWriteImm(long wrId, MemoryRegion mr, long off, int len, long remoteVa, int rkey, int imm,
                            int flags) {
        int rc = checkLocal(mr, off, len);
        return rc != QueuePair.OK ? rc : submit(() -> device.posted(this,
                qp.postWriteImm(wrId, mr, off, len, remoteVa, rkey, imm, flags), wrId));
    }

    public int postSend(long wrId, MemoryRegion mr, long off, int len, int flags) {
        int rc = checkLocal(mr, off, len);
        return rc != QueuePair.OK ? rc : submit(() -> device.posted(this, qp.postSend(wrId, mr, off, len, flags), wrId));
    }

    public int postSendImm(long wrId, MemoryRegion mr, long off, int len, int imm, int flags) {
        int rc = checkLocal(mr, off, len);
        return rc != QueuePair.OK ? rc : submit(() -> device.posted(this,
                qp.postSendImm(wrId, mr, off, len, imm, flags), wrId));
    }

    public int postRead(long wrId, MemoryRegion mr, long off, int len, long remoteVa, int rkey, int flags) {
        int rc = checkLocal(mr, off, len);
        return rc != QueuePair.OK ? rc : submit(() -> device.posted(this,
                qp.postRead(wrId, mr, off, len, remoteVa, rkey, flags), wrId));
    }

    /** Posts a receive; receives are not counted against the send queue. */
    public int postRecv(long wrId, MemoryRegion mr, long off, int len) {
        if (mr == null || len < 0 || off < 0 || off > mr.length() || len > mr.length() - off) {
            return QueuePair.EINVAL;
        }
        return device.submit(() -> device.postedRecv(this, qp.postRecv(wrId, mr, off, len), wrId))
                ? QueuePair.OK : QueuePair.ENOMEM;
    }

    /** Moves the QP to ERROR (outstanding work is flushed). */
    public void close() {
        device.submit(qp::modifyToError);
    }

    @Override
    public String toString() {
        return "DeviceQp " + qpn + " " + state;
    }
}
