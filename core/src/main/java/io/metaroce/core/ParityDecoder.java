package io.metaroce.core;

import io.metaroce.core.wire.Opcode;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * REL-18, REL-20, receiver side: rebuilds missing segments of a group from the group's parities and its other
 * segments, which were placed in final memory already; a rebuilt segment is then a received segment of its message
 * like any other. A PARITY rebuilds one missing segment, a PARITY_Q one, the two together any two. A parity that
 * arrives while more of its group's segments are missing than the parities at hand rebuild is held (up to
 * {@link #CAPACITY} per QP, the oldest evicted first) until they can, the group is whole or its message retires.
 * Holding arrays and buffers are made on first use.
 */
final class ParityDecoder {
    static final int CAPACITY = 8;

    /** A parity held until its group can be rebuilt: which kind, what its header said, and its payload. */
    private static final class Held {
        boolean used;
        boolean q;
        int msn;
        int op;
        int length;
        int first;
        int count;
        int rkey;
        long va;
        MemorySegment payload;
        int payloadLength;
    }

    private final QpCore c;
    private Held[] held;
    private int holding;
    private int evict;
    /** Where the group being rebuilt lies ({@link #locate}): its memory and the region offset of its first segment. */
    private MemoryRegion groupRegion;
    private long groupBase;
    private int groupFirst;
    /** REL-20's arithmetic, one segment each (made on first use). */
    private byte[] accP;
    private byte[] accQ;
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
     * A checked PARITY ({@code q} false) or PARITY_Q for segments {@code [first, first + n)} of message {@code msn} of
     * opcode {@code opOf} and {@code lengthOf} bytes (within the receive window; {@code m} its entry, which agrees with
     * both, or null when no segment of it arrived yet), its payload in {@code src[srcOff, +len)}, the group's placement
     * ({@code rkey}, {@code va}: WRITE, WRITE_IMM). Returns true when it rebuilt a segment of {@code m}.
     */
    boolean onParity(boolean q, InboundMessages.Msg m, int msnOf, int opOf, int lengthOf, int firstSeg, int n,
                     int key, long addr, MemorySegment src, long srcOff, int len) {
        int missing = m == null ? n : n - present(m, firstSeg, n);
        if (missing == 0) {
            c.count(Counter.PARITY_UNUSED);
            return false;
        }
        if (missing == 1) {
            return rebuildOne(q, m, firstSeg, n, key, addr, src, srcOff, len);
        }
        if (missing == 2 && m != null) {
            Held t = other(msnOf, m.op, m.length, firstSeg, n, !q);
            if (t != null) {
                release(t);
                return q ? rebuildTwo(m, firstSeg, n, key, addr, t.payload, 0, src, srcOff, len)
                        : rebuildTwo(m, firstSeg, n, key, addr, src, srcOff, t.payload, 0, len);
            }
        }
        Held h = slot();
        h.q = q;
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
        return false;
    }

    /** Segment {@code seg} of {@code m} was just placed; returns true when a held parity then rebuilt another. */
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
            int missing = h.count - present(m, h.first, h.count);
            if (missing == 1) {
                release(h);
                rebuilt |= rebuildOne(h.q, m, h.first, h.count, h.rkey, h.va, h.payload, 0, h.payloadLength);
            } else if (missing == 0) {
                drop(h);
            } else if (missing == 2) {
                Held t = other(h.msn, m.op, m.length, h.first, h.count, !h.q);
                if (t != null) {
                    release(h);
                    release(t);
                    Held p = h.q ? t : h;
                    Held q = h.q ? h : t;
                    rebuilt |= rebuildTwo(m, h.first, h.count, h.rkey, h.va, p.payload, 0, q.payload, 0,
                            h.payloadLength);
                }
            }
        }
        return rebuilt;
    }

    /** The held parity of kind {@code q} for the same group of the same message, or null. */
    private Held other(int msn, int op, int length, int first, int count, boolean q) {
        if (holding == 0) {
            return null;
        }
        for (Held t : held) {
            if (t.used && t.q == q && t.msn == msn && t.first == first && t.count == count && t.op == op
                    && t.length == length) {
                return t;
            }
        }
        return null;
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

    /** The first segment of {@code [from, end)} of {@code m} not received. */
    private static int nextMissing(InboundMessages.Msg m, int from) {
        int s = from;
        while (SendWqe.bit(m.bits, s)) {
            s++;
        }
        return s;
    }

    private void received(InboundMessages.Msg m, int s) {
        SendWqe.set(m.bits, s);
        m.count++;
        c.count(Counter.PARITY_REBUILT);
    }

    /**
     * Rebuilds the one missing segment of {@code [firstSeg, firstSeg + n)} of {@code m} from its PARITY (the XOR of
     * the parity and every other segment of the group) or, {@code q}, its PARITY_Q (the same sum with segment
     * {@code firstSeg + i} weighted by 2^i, divided by the missing one's weight), each other segment read from where it
     * was placed, the result written where the missing one goes.
     */
    private boolean rebuildOne(boolean q, InboundMessages.Msg m, int firstSeg, int n, int key, long addr,
                               MemorySegment src, long srcOff, int len) {
        if (!locate(m, firstSeg, n, key, addr)) {
            return false;
        }
        int mtu = c.cfg.mtu;
        int s = nextMissing(m, firstSeg);
        int lenS = segmentBytes(m, s, mtu);
        if (lenS > 0 && !c.cfg.elidePayload) {
            MemorySegment region = groupRegion.segment();
            if (q) {
                byte[] acc = load(src, srcOff, len, accQ());
                for (int k = firstSeg; k < firstSeg + n; k++) {
                    if (k != s) {
                        Gf256.mulAdd(acc, readSegment(m, k, len), len, Gf256.pow2(k - firstSeg));
                    }
                }
                Gf256.scale(acc, lenS, Gf256.div(1, Gf256.pow2(s - firstSeg)));
                MemorySegment.copy(acc, 0, region, ValueLayout.JAVA_BYTE, groupBase + (long) (s - firstSeg) * mtu, lenS);
            } else {
                Xor xor = c.engine.xor();
                xor.start(src, srcOff, len);
                for (int k = firstSeg; k < firstSeg + n; k++) {
                    if (k != s) {
                        xor.add(region, groupBase + (long) (k - firstSeg) * mtu, segmentBytes(m, k, mtu));
                    }
                }
                xor.writeTo(region, groupBase + (long) (s - firstSeg) * mtu, lenS);
            }
        }
        received(m, s);
        return true;
    }

    /**
     * REL-20: rebuilds the two missing segments {@code x < y} of {@code [firstSeg, firstSeg + n)} of {@code m} from its
     * PARITY {@code p} and PARITY_Q {@code q} (payloads of {@code len} bytes). With the other segments taken out,
     * {@code P' = D[x] + D[y]} and {@code Q' = 2^i D[x] + 2^j D[y]} ({@code i}, {@code j} their places in the group),
     * so {@code D[x] = (2^j P' + Q') / (2^i + 2^j)} and {@code D[y] = P' + D[x]}.
     */
    private boolean rebuildTwo(InboundMessages.Msg m, int firstSeg, int n, int key, long addr, MemorySegment p,
                               long pOff, MemorySegment q, long qOff, int len) {
        if (!locate(m, firstSeg, n, key, addr)) {
            c.count(Counter.PARITY_UNUSED); // the second parity: locate counted the first
            return false;
        }
        int mtu = c.cfg.mtu;
        int x = nextMissing(m, firstSeg);
        int y = nextMissing(m, x + 1);
        if (!c.cfg.elidePayload && len > 0) {
            byte[] ap = load(p, pOff, len, accP());
            byte[] aq = load(q, qOff, len, accQ());
            for (int k = firstSeg; k < firstSeg + n; k++) {
                if (k != x && k != y) {
                    byte[] d = readSegment(m, k, len);
                    for (int b = 0; b < len; b++) {
                        ap[b] ^= d[b];
                    }
                    Gf256.mulAdd(aq, d, len, Gf256.pow2(k - firstSeg));
                }
            }
            int gi = Gf256.pow2(x - firstSeg);
            int gj = Gf256.pow2(y - firstSeg);
            Gf256.mulAdd(aq, ap, len, gj); // aq = 2^j P' + Q' = (2^i + 2^j) D[x]
            Gf256.scale(aq, len, Gf256.div(1, gi ^ gj));
            for (int b = 0; b < len; b++) {
                ap[b] ^= aq[b]; // D[y] = P' + D[x]
            }
            MemorySegment region = groupRegion.segment();
            MemorySegment.copy(aq, 0, region, ValueLayout.JAVA_BYTE, groupBase + (long) (x - firstSeg) * mtu,
                    segmentBytes(m, x, mtu));
            MemorySegment.copy(ap, 0, region, ValueLayout.JAVA_BYTE, groupBase + (long) (y - firstSeg) * mtu,
                    segmentBytes(m, y, mtu));
        }
        received(m, x);
        received(m, y);
        return true;
    }

    private byte[] accP() {
        if (accP == null) {
            accP = new byte[c.cfg.mtu];
        }
        return accP;
    }

    private byte[] accQ() {
        if (accQ == null) {
            accQ = new byte[c.cfg.mtu];
        }
        return accQ;
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
