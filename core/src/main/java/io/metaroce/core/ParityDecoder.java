package io.metaroce.core;

import io.metaroce.core.wire.Opcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * REL-18, REL-20, REL-21, receiver side: rebuilds missing segments of a group from the group's parities and its other
 * segments, which were placed in final memory already; a rebuilt segment is then a received segment of its message
 * like any other. Repair {@code j} of a group (0: PARITY, 1: PARITY_Q, 2 and up: PARITY_R) is the sum of its segments
 * with segment i weighted by 2^(j*i) in GF(2^8), so {@code e} missing segments are {@code e} unknowns and any
 * {@code e} parities whose coefficients are independent rebuild them all ({@link ParitySolver}). Parities are held
 * (up to {@link #CAPACITY} per QP, the oldest evicted first) until their group can be rebuilt, the group is whole or
 * its message retires. Holding arrays and buffers are made on first use.
 */
final class ParityDecoder {
    static final int CAPACITY = 16;

    /** A parity held until its group can be rebuilt: which repair, what its header said, and its payload. */
    private static final class Held {
        boolean used;
        int repair;
        int msn;
        int op;
        int length;
        int first;
        int count;
        int rkey;
        long va;
        MemorySegment payload;
        int payloadLength;

        boolean sameGroup(Held o) {
            return o.msn == msn && o.first == first && o.count == count && o.op == op && o.length == length;
        }
    }

    private final QpCore c;
    private Held[] held;
    private int holding;
    private int evict;
    /** Where the group being rebuilt lies ({@link #locate}): its memory and the region offset of its first segment. */
    private MemoryRegion groupRegion;
    private long groupBase;
    private int groupFirst;
    /** The parities of the group being rebuilt, and the solver of their equations (made on first use). */
    private final Held[] group = new Held[CAPACITY];
    private ParitySolver solver;
    private final int[] missing = new int[CAPACITY];
    private final int[] repairs = new int[CAPACITY];
    /** Scratch, one segment each (made on first use): the residual of each parity used, and a segment read back. */
    private byte[][] residual;
    private byte[] out;
    private byte[] seg;

    ParityDecoder(QpCore c) {
        this.c = c;
    }

    void reset() {
        if (held != null) {
            for (Held h : held) {
                h.used = false;
            }
        }
        holding = 0;
    }

    /**
     * A checked parity, repair {@code repair} of segments {@code [first, first + n)} of message {@code msn} of
     * opcode {@code opOf} and {@code lengthOf} bytes (within the receive window; {@code m} its entry, which agrees with
     * both, or null when no segment of it arrived yet), its payload in {@code src[srcOff, +len)}, the group's placement
     * ({@code rkey}, {@code va}: WRITE, WRITE_IMM). Returns true when it rebuilt a segment of {@code m}.
     */
    boolean onParity(int repair, InboundMessages.Msg m, int msnOf, int opOf, int lengthOf, int firstSeg, int n,
                     int key, long addr, MemorySegment src, long srcOff, int len) {
        if (m != null && n - present(m, firstSeg, n) == 0) {
            c.count(Counter.PARITY_UNUSED);
            return false;
        }
        Held h = slot();
        h.repair = repair;
        h.msn = msnOf;
        h.op = opOf;
        h.length = lengthOf;
        h.first = firstSeg;
        h.count = n;
        h.rkey = key;
        h.va = addr;
        h.payloadLength = len;
        if (len > 0 && !c.cfg.elidePayload) {
            if (h.payload == null) {
                h.payload = MemorySegment.ofArray(new byte[c.cfg.mtu]);
            }
            MemorySegment.copy(src, srcOff, h.payload, 0, len);
        }
        for (Held t : held) {
            if (t.used && t != h && t.repair == repair && t.sameGroup(h)) {
                drop(t); // the same repair again (a duplicate): the newer one stands
            }
        }
        return m != null && rebuild(m, h);
    }

    /** Segment {@code seg} of {@code m} was just placed; returns true when held parities then rebuilt another. */
    boolean onSegment(InboundMessages.Msg m, int seg) {
        if (holding == 0) {
            return false;
        }
        boolean rebuilt = false;
        for (Held h : held) {
            if (!h.used) {
                continue;
            }
            if (c.inbound.relative(h.msn) < 0) {
                drop(h); // its message retired whole without it
                continue;
            }
            if (h.msn != m.msn || seg < h.first || seg >= h.first + h.count) {
                continue;
            }
            if (h.op != m.op || h.length != m.length) {
                drop(h); // held before any data of its message came, and that data disagrees with it
                continue;
            }
            rebuilt |= rebuild(m, h);
        }
        return rebuilt;
    }

    /**
     * Rebuilds every missing segment of {@code h}'s group of {@code m} if the group's held parities can: then they are
     * all released (those the rebuild did not need counted unused). A group found whole releases them all unused.
     */
    private boolean rebuild(InboundMessages.Msg m, Held h) {
        int e = 0;
        for (int s = h.first; s < h.first + h.count; s++) {
            if (!SendWqe.bit(m.bits, s)) {
                if (e == CAPACITY) {
                    return false; // more missing than any group's parities can rebuild
                }
                missing[e++] = s - h.first;
            }
        }
        int g = 0;
        for (Held t : held) {
            if (t.used && t.sameGroup(h)) {
                group[g++] = t;
            }
        }
        if (e == 0) {
            for (int k = 0; k < g; k++) {
                drop(group[k]);
            }
            return false;
        }
        if (g < e) {
            return false;
        }
        if (solver == null) {
            solver = new ParitySolver(CAPACITY);
        }
        for (int k = 0; k < g; k++) {
            repairs[k] = group[k].repair;
        }
        if (!solver.solve(repairs, g, missing, e)) {
            return false; // these parities' equations are dependent for these segments: wait for more
        }
        if (!locate(m, h.first, h.count, h.rkey, h.va)) {
            for (int k = 0; k < g; k++) {
                release(group[k]); // (locate counted one unused)
            }
            return false;
        }
        if (!c.cfg.elidePayload && h.payloadLength > 0) {
            place(m, h, g, e);
        }
        for (int k = 0; k < g; k++) {
            if (solver.used(k)) {
                release(group[k]);
            } else {
                drop(group[k]);
            }
        }
        for (int b = 0; b < e; b++) {
            received(m, h.first + missing[b]);
        }
        return true;
    }

    /**
     * Computes the {@code e} missing segments from the parities the solver chose and writes them where they go: each
     * chosen parity's residual (its payload minus the weighted segments at hand), then each missing segment as the
     * solver's combination of those residuals.
     */
    private void place(InboundMessages.Msg m, Held h, int g, int e) {
        int len = h.payloadLength;
        int mtu = c.cfg.mtu;
        if (residual == null) {
            residual = new byte[CAPACITY][];
            out = new byte[mtu];
        }
        for (int k = 0; k < g; k++) {
            if (solver.used(k)) {
                if (residual[k] == null) {
                    residual[k] = new byte[mtu];
                }
                load(group[k].payload, 0, len, residual[k]);
            }
        }
        for (int s = h.first; s < h.first + h.count; s++) {
            if (!SendWqe.bit(m.bits, s)) {
                continue;
            }
            byte[] d = readSegment(m, s, len); // read once, taken out of every chosen parity
            for (int k = 0; k < g; k++) {
                if (solver.used(k)) {
                    Gf256.mulAdd(residual[k], d, len, Gf256.coefficient(group[k].repair, s - h.first));
                }
            }
        }
        MemorySegment region = groupRegion.segment();
        for (int b = 0; b < e; b++) {
            Arrays.fill(out, 0, len, (byte) 0);
            for (int k = 0; k < g; k++) {
                int coef = solver.used(k) ? solver.weight(b, k) : 0;
                if (coef != 0) {
                    Gf256.mulAdd(out, residual[k], len, coef);
                }
            }
            int s = h.first + missing[b];
            MemorySegment.copy(out, 0, region, ValueLayout.JAVA_BYTE, groupBase + (long) missing[b] * mtu,
                    segmentBytes(m, s, mtu));
        }
    }

    private static int present(InboundMessages.Msg m, int firstSeg, int n) {
        int k = 0;
        for (int s = firstSeg; s < firstSeg + n; s++) {
            if (SendWqe.bit(m.bits, s)) {
                k++;
            }
        }
        return k;
    }

    private void release(Held h) {
        h.used = false;
        holding--;
    }

    private void drop(Held h) {
        release(h);
        c.count(Counter.PARITY_UNUSED);
    }

    /** A free holding slot, taken: the oldest one's (counted unused) when all are taken. */
    private Held slot() {
        if (held == null) {
            held = new Held[CAPACITY];
            for (int i = 0; i < CAPACITY; i++) {
                held[i] = new Held();
            }
        }
        Held free = null;
        for (int k = 0; k < CAPACITY && free == null; k++) {
            if (!held[k].used) {
                free = held[k];
            }
        }
        if (free == null) {
            free = held[evict];
            evict = (evict + 1) % CAPACITY;
            drop(free);
        }
        free.used = true;
        holding++;
        return free;
    }

    /**
     * Finds the memory of group {@code [firstSeg, firstSeg + n)} of {@code m} ({@link #groupRegion},
     * {@link #groupBase}). False (and the parity counted unused) when it is no longer there: the WRITE's region was
     * deregistered, the SEND's receive is gone.
     */
    private boolean locate(InboundMessages.Msg m, int firstSeg, int n, int key, long addr) {
        int mtu = c.cfg.mtu;
        groupFirst = firstSeg;
        if (m.op == Opcode.WRITE || m.op == Opcode.WRITE_IMM) {
            MemoryRegion mr = c.engine.regionByRkey(key);
            long groupBytes = Math.min((long) m.length - (long) firstSeg * mtu, (long) n * mtu);
            if (mr == null || mr.pd() != c.pd || (mr.access() & Access.REMOTE_WRITE) == 0 || !mr.contains(addr, groupBytes)) {
                c.count(Counter.PARITY_UNUSED);
                return false;
            }
            groupRegion = mr;
            groupBase = addr - mr.address();
        } else {
            int r = c.rq.indexOf(m.rsn);
            if (r < 0) {
                c.count(Counter.PARITY_UNUSED);
                return false;
            }
            groupRegion = c.rq.mrs[r];
            groupBase = c.rq.offsets[r] + (long) firstSeg * mtu;
        }
        return true;
    }

    private void received(InboundMessages.Msg m, int s) {
        SendWqe.set(m.bits, s);
        m.count++;
        c.count(Counter.PARITY_REBUILT);
        c.add(Counter.PARITY_REBUILT_BYTES, segmentBytes(m, s, c.cfg.mtu));
    }

    /** {@code src[off, off + len)} copied into {@code dst}. */
    private static byte[] load(MemorySegment src, long off, int len, byte[] dst) {
        MemorySegment.copy(src, ValueLayout.JAVA_BYTE, off, dst, 0, len);
        return dst;
    }

    /** Segment {@code k} of {@code m} as placed, padded with zeros to {@code len} bytes (a scratch array). */
    private byte[] readSegment(InboundMessages.Msg m, int k, int len) {
        if (seg == null) {
            seg = new byte[c.cfg.mtu];
        }
        int mtu = c.cfg.mtu;
        int lenK = Math.min(len, segmentBytes(m, k, mtu));
        MemorySegment.copy(groupRegion.segment(), ValueLayout.JAVA_BYTE, groupBase + (long) (k - groupFirst) * mtu,
                seg, 0, lenK);
        Arrays.fill(seg, lenK, len, (byte) 0);
        return seg;
    }

    private static int segmentBytes(InboundMessages.Msg m, int seg, int mtu) {
        return (int) Math.min(mtu, (long) m.length - (long) seg * mtu);
    }
}
