package io.metaroce.testkit.stress;

import io.metaroce.core.Access;
import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Engine;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcOpcode;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import java.util.SplittableRandom;

/**
 * One end of a connection in a case: its QP, one registered region holding every buffer this end owns (sources
 * and sinks of its own work, targets and receive buffers of the peer's work) laid out without overlap, a model
 * of what every byte of that region must hold, and the progress of its work. A finished buffer is verified and
 * then overwritten with a marker, in memory and in the model, so that a late duplicate placement shows as a
 * mismatch at the end.
 */
final class QpEnd {
    final int node;
    final int index;
    final Engine engine;
    final QueuePair qp;
    final List<StressOp> ops;
    QpEnd peer;
    MemoryRegion mem;
    byte[] model;
    /** Per own op: offset of its local buffer (source, or READ sink) in this region. */
    long[] localOff;
    /** Per own op: offset of its target (WRITE, WRITE_IMM, READ source) or receive buffer in the peer's region. */
    long[] remoteOff;
    /** Per receive this end posts: the peer's op that consumes it, its offset and length here. */
    int[] recvOp;
    long[] recvOff;
    int[] recvLen;
    int posted;
    int retired;
    int recvsPosted;
    int recvsDone;
    private long bump;

    QpEnd(int node, int index, Engine engine, ProtectionDomain pd, CompletionQueue scq, CompletionQueue rcq,
          List<StressOp> ops) {
        this.node = node;
        this.index = index;
        this.engine = engine;
        this.qp = engine.createQp(pd, scq, rcq);
        this.ops = ops;
    }

    /** Lays out this end's own buffers and the targets of the peer's work in the two regions (sizes only). */
    static void layout(QpEnd a, QpEnd b, SplittableRandom r) {
        place(a, b, r);
        place(b, a, r);
    }

    private static void place(QpEnd req, QpEnd resp, SplittableRandom r) {
        int n = req.ops.size();
        req.localOff = new long[n];
        req.remoteOff = new long[n];
        int receives = 0;
        for (StressOp op : req.ops) {
            receives += op.kind().consumesReceive() ? 1 : 0;
        }
        resp.recvOp = new int[receives];
        resp.recvOff = new long[receives];
        resp.recvLen = new int[receives];
        int k = 0;
        for (int i = 0; i < n; i++) {
            StressOp op = req.ops.get(i);
            req.localOff[i] = req.take(op.length(), op.skew(), r);
            if (op.kind().consumesReceive()) {
                int len = op.kind() == OpKind.WRITE_IMM ? r.nextInt(17) : op.length() + r.nextInt(17);
                resp.recvOp[k] = i;
                resp.recvLen[k] = len;
                resp.recvOff[k] = resp.take(len, op.skew(), r);
                req.remoteOff[i] = resp.recvOff[k];
                k++;
            }
            if (op.kind().writesRemote() || op.kind() == OpKind.READ) {
                req.remoteOff[i] = resp.take(op.length(), op.skew(), r);
            }
        }
    }

    private long take(int len, int skew, SplittableRandom r) {
        long off = bump + skew;
        bump = off + len + r.nextInt(24);
        return off;
    }

    /** Registers the region and fills it (and its model) with seeded random bytes. */
    void allocate(ProtectionDomain pd, Arena arena, SplittableRandom r) {
        int size = (int) Math.max(64, bump + 64);
        model = new byte[size];
        for (int i = 0; i < size; i++) {
            model[i] = (byte) r.nextInt();
        }
        MemorySegment seg = arena.allocate(size, 64);
        MemorySegment.copy(model, 0, seg, ValueLayout.JAVA_BYTE, 0, size);
        mem = engine.registerMemory(pd, seg, Access.ALL);
    }

    /** Posts the receives the peer's work consumes; returns an error text or null. */
    String postReceives() {
        while (recvsPosted < recvOp.length) {
            int k = recvsPosted;
            int rc = qp.postRecv(k, mem, recvOff[k], recvLen[k]);
            if (rc == QueuePair.ENOMEM) {
                return null; // the rest after completions free room
            }
            if (rc != QueuePair.OK) {
                return "postRecv " + k + " on " + where() + " returned " + rc;
            }
            recvsPosted++;
        }
        return null;
    }

    /** Posts as much of this end's work as its send queue takes; returns an error text or null. */
    String postWork() {
        while (posted < ops.size()) {
            int i = posted;
            StressOp op = ops.get(i);
            int flags = op.signaled() ? QueuePair.SIGNALED : 0;
            long remote = peer.mem.address() + remoteOff[i];
            int rkey = peer.mem.rkey();
            int rc = switch (op.kind()) {
                case WRITE -> qp.postWrite(i, mem, localOff[i], op.length(), remote, rkey, flags);
                case WRITE_IMM -> qp.postWriteImm(i, mem, localOff[i], op.length(), remote, rkey, op.imm(), flags);
                case SEND -> qp.postSend(i, mem, localOff[i], op.length(), flags);
                case SEND_IMM -> qp.postSendImm(i, mem, localOff[i], op.length(), op.imm(), flags);
                case READ -> qp.postRead(i, mem, localOff[i], op.length(), remote, rkey, flags);
            };
            if (rc == QueuePair.ENOMEM) {
                return null;
            }
            if (rc != QueuePair.OK) {
                return "post of op " + i + " (" + op.kind() + " " + op.length() + " B) on " + where() + " returned "
                        + rc;
            }
            posted++;
        }
        return null;
    }

    /** A send completion for this end; returns an error text or null. */
    String onSendCompletion(WorkCompletion wc) {
        long id = wc.wrId();
        if (wc.status() != WcStatus.SUCCESS) {
            return wc.status() + " for op " + id + " " + opText((int) id) + " on " + where();
        }
        if (id < retired || id >= posted) {
            return "completion of op " + id + " on " + where() + " not expected (retired " + retired + ", posted "
                    + posted + "): twice or never posted";
        }
        for (int i = retired; i < id; i++) {
            if (ops.get(i).signaled()) {
                return "completion of op " + id + " on " + where() + " before signaled op " + i + ": out of order";
            }
        }
        if (!ops.get((int) id).signaled()) {
            return "completion of unsignaled op " + id + " on " + where();
        }
        WcOpcode expected = switch (ops.get((int) id).kind()) {
            case WRITE, WRITE_IMM -> WcOpcode.RDMA_WRITE;
            case READ -> WcOpcode.RDMA_READ;
            default -> WcOpcode.SEND;
        };
        if (wc.opcode() != expected) {
            return "op " + id + " on " + where() + " completed as " + wc.opcode() + ", expected " + expected;
        }
        while (retired <= id) {
            String bad = retire(retired);
            if (bad != null) {
                return bad;
            }
            retired++;
        }
        return null;
    }

    /** Checks what a finished op of this end must have done at the requester's side of the verification. */
    private String retire(int i) {
        StressOp op = ops.get(i);
        if (op.kind() == OpKind.WRITE) {
            return verifyAndMark(this, localOff[i], peer, remoteOff[i], op.length(), "WRITE op " + i);
        }
        if (op.kind() == OpKind.READ) {
            return verifyAndMark(peer, remoteOff[i], this, localOff[i], op.length(), "READ op " + i);
        }
        return null; // WRITE_IMM and SENDs are checked by the receive completion
    }

    /** A receive completion for this end (the responder of the peer's op); returns an error text or null. */
    String onRecvCompletion(WorkCompletion wc) {
        long k = wc.wrId();
        if (wc.status() != WcStatus.SUCCESS) {
            return wc.status() + " for receive " + k + " on " + where();
        }
        if (k != recvsDone) {
            return "receive completion " + k + " on " + where() + ", expected " + recvsDone
                    + (k < recvsDone ? ": twice" : ": out of order");
        }
        int i = recvOp[(int) k];
        StressOp op = peer.ops.get(i);
        WcOpcode expected = op.kind() == OpKind.WRITE_IMM ? WcOpcode.RECV_RDMA_WITH_IMM : WcOpcode.RECV;
        if (wc.opcode() != expected || wc.byteLen() != op.length() || wc.hasImmediate() != op.kind().hasImmediate()
                || (op.kind().hasImmediate() && wc.immediate() != op.imm())) {
            return "receive " + k + " on " + where() + " for peer op " + i + " " + peer.opText(i) + " completed as "
                    + wc;
        }
        recvsDone++;
        return verifyAndMark(peer, peer.localOff[i], this, peer.remoteOff[i], op.length(),
                op.kind() + " op " + i + " (receive " + k + ")");
    }

    /** Compares {@code len} bytes of dst's region with src's, then overwrites dst's with a marker. */
    private static String verifyAndMark(QpEnd src, long srcOff, QpEnd dst, long dstOff, int len, String what) {
        if (len == 0) {
            return null;
        }
        MemorySegment s = src.mem.segment().asSlice(srcOff, len);
        MemorySegment d = dst.mem.segment().asSlice(dstOff, len);
        long at = s.mismatch(d);
        if (at >= 0) {
            return what + " of " + src.where() + " -> " + dst.where() + ": byte " + at + " of " + len
                    + " differs after completion";
        }
        byte marker = (byte) (0xA5 ^ (int) dstOff);
        d.fill(marker);
        java.util.Arrays.fill(dst.model, (int) dstOff, (int) dstOff + len, marker);
        return null;
    }

    /** Compares the whole region with its model: a byte out of place or placed late shows here. */
    String checkRegion() {
        MemorySegment seg = mem.segment();
        long at = MemorySegment.mismatch(seg, 0, model.length, MemorySegment.ofArray(model), 0, model.length);
        return at < 0 ? null : "region of " + where() + " differs from the model at offset " + at
                + " (a stray or late duplicate placement)";
    }

    boolean finished() {
        return retired == ops.size() && recvsDone == recvOp.length;
    }

    String opText(int i) {
        StressOp op = ops.get(i);
        return op.kind() + " " + op.length() + " B";
    }

    String where() {
        return "node " + node + " qp#" + index + " (0x" + Integer.toHexString(qp.qpn()) + ")";
    }
}
