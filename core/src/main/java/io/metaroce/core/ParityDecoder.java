package io.metaroce.core;

import io.metaroce.core.wire.Opcode;

import java.lang.foreign.MemorySegment;

/**
 * REL-18, receiver side: rebuilds the one missing segment of a group from the group's PARITY and its other segments,
 * which were placed in final memory already; it is then a received segment of its message like any other. A PARITY
 * that arrives while two or more of its group's segments are missing is held (up to {@link #CAPACITY} per QP, the
 * oldest evicted first) until the group is one short, whole or its message retires. Holding arrays and buffers are
 * made on first use.
 */
final class ParityDecoder {
    static final int CAPACITY = 8;

    /** A PARITY held until its group is one short: what its header said, and its payload (made on first use). */
    private static final class Held {
        boolean used;
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
     * A checked PARITY for segments {@code [first, first + n)} of message {@code msn} of opcode {@code opOf} and
     * {@code lengthOf} bytes (within the receive window; {@code m} its entry, which agrees with both, or null when no
     * segment of it arrived yet), its payload in {@code src[srcOff, +len)}, the group's placement ({@code rkey},
     * {@code va}: WRITE, WRITE_IMM). Returns true when it rebuilt a segment of {@code m}.
     */
    boolean onParity(InboundMessages.Msg m, int msnOf, int opOf, int lengthOf, int firstSeg, int n, int key,
                     long addr, MemorySegment src, long srcOff, int len) {
        int missing = m == null ? n : n - present(m, firstSeg, n);
        if (missing == 0) {
            c.count(Counter.PARITY_UNUSED);
            return false;
        }
        if (missing == 1) {
            return rebuild(m, firstSeg, n, key, addr, src, srcOff, len);
        }
        Held h = slot();
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

    /** Segment {@code seg} of {@code m} was just placed; returns true when a held PARITY then rebuilt another. */
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
                h.used = false;
                holding--;
                rebuilt |= rebuild(m, h.first, h.count, h.rkey, h.va, h.payload, 0, h.payloadLength);
            } else if (missing == 0) {
                drop(h);
            }
        }
        return rebuilt;
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

    private void drop(Held h) {
        h.used = false;
        holding--;
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
     * Rebuilds the one missing segment of {@code [firstSeg, firstSeg + n)} of {@code m}: the parity XOR every other
     * segment of the group, read from where it was placed, written where the missing one goes. False (and the parity
     * counted unused) when that memory is no longer there: the WRITE's region was deregistered, the SEND's receive
     * is gone.
     */
    private boolean rebuild(InboundMessages.Msg m, int firstSeg, int n, int key, long addr, MemorySegment src,
                            long srcOff, int len) {
        int mtu = c.cfg.mtu;
        int s = firstSeg;
        while (SendWqe.bit(m.bits, s)) {
            s++;
        }
        boolean write = m.op == Opcode.WRITE || m.op == Opcode.WRITE_IMM;
        MemoryRegion mr;
        long base; // the region offset of segment firstSeg
        if (write) {
            mr = c.engine.regionByRkey(key);
            long groupBytes = Math.min((long) m.length - (long) firstSeg * mtu, (long) n * mtu);
            if (mr == null || mr.pd() != c.pd || (mr.access() & Access.REMOTE_WRITE) == 0 || !mr.contains(addr, groupBytes)) {
                c.count(Counter.PARITY_UNUSED);
                return false;
            }
            base = addr - mr.address();
        } else {
            int r = c.rq.indexOf(m.rsn);
            if (r < 0) {
                c.count(Counter.PARITY_UNUSED);
                return false;
            }
            mr = c.rq.mrs[r];
            base = c.rq.offsets[r] + (long) firstSeg * mtu;
        }
        int lenS = segmentBytes(m, s, mtu);
        if (lenS > 0 && !c.cfg.elidePayload) {
            Xor xor = c.engine.xor();
            xor.start(src, srcOff, len);
            MemorySegment region = mr.segment();
            for (int k = firstSeg; k < firstSeg + n; k++) {
                if (k != s) {
                    xor.add(region, base + (long) (k - firstSeg) * mtu, segmentBytes(m, k, mtu));
                }
            }
            xor.writeTo(region, base + (long) (s - firstSeg) * mtu, lenS);
        }
        SendWqe.set(m.bits, s);
        m.count++;
        c.count(Counter.PARITY_REBUILT);
        return true;
    }

    private static int segmentBytes(InboundMessages.Msg m, int seg, int mtu) {
        return (int) Math.min(mtu, (long) m.length - (long) seg * mtu);
    }
}
