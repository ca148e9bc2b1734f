package io.metaroce.sim.roce;

import io.metaroce.sim.event.Timer;
import io.metaroce.sim.fabric.Packet;

/**
 * State of one RoCEv2 connection (a QP pair) of {@link RoceTransport}: the requester side on the source host
 * (PSNs, posted messages, pacing, retry state, DCQCN) and the responder side on the destination host
 * (expected PSN, ACK coalescing, NAK and CNP state). PSNs are kept as longs (no wrap in a run) and carried
 * as their low 32 bits in {@link Packet#seq}. Compact: the DCQCN state is made at the first CNP.
 */
final class RoceQp {
    final int id;
    final int src;
    final int dst;
    final int plane;
    /** UDP source port entropy (49152 + pathId); a controller may re-pin the QP by changing it. */
    int pathId;
    final Timer rto;
    /** Null until the first CNP (line rate). */
    Dcqcn dcqcn;

    // requester ---------------------------------------------------------------------------------------
    /** Oldest unacknowledged PSN. */
    long sndUna;
    /** Next PSN to send (moved back by go-back-N). */
    long sndNxt;
    /** One past the highest PSN ever sent (resends are below it). */
    long maxSent;
    /** One past the last PSN of the posted messages. */
    long endPsn;
    /** Earliest time the pacer lets this QP send its next packet. */
    long nextSendPs;
    /** Tie-break among QPs of one port with equal {@link #nextSendPs} (order of entry). */
    long heapOrder;
    /** Index in its port's send heap, -1 when not queued. */
    int heapPos = -1;
    long lastProgressPs;
    int retries;
    boolean failed;

    /** Posted, not yet completed messages: a ring of (first PSN, end PSN, bytes, tag). */
    private long[] msgStart = new long[2];
    private long[] msgEnd = new long[2];
    private long[] msgBytes = new long[2];
    private long[] msgTag = new long[2];
    private int head;
    private int count;
    /** Offset from the head of the message holding {@link #sndNxt}. */
    private int cursor;

    // responder ---------------------------------------------------------------------------------------
    /** Next PSN the responder accepts. */
    long expected;
    /** Payload bytes accepted in order. */
    long received;
    int ackPending;
    /** A NAK went out for the current gap (one per episode, cleared by the next in-order packet). */
    boolean nakSent;
    long lastCnpPs = Long.MIN_VALUE;

    RoceQp(int id, int src, int dst, int plane, int pathId, Timer rto) {
        this.id = id;
        this.src = src;
        this.dst = dst;
        this.plane = plane;
        this.pathId = pathId;
        this.rto = rto;
    }

    /** Appends a message of {@code bytes} in {@code packets} packets. */
    void post(long bytes, long packets, long tag) {
        if (count == msgEnd.length) {
            int n = count * 2;
            msgStart = unroll(msgStart, n);
            msgEnd = unroll(msgEnd, n);
            msgBytes = unroll(msgBytes, n);
            msgTag = unroll(msgTag, n);
            head = 0;
        }
        int slot = (head + count) & (msgEnd.length - 1);
        msgStart[slot] = endPsn;
        endPsn += packets;
        msgEnd[slot] = endPsn;
        msgBytes[slot] = bytes;
        msgTag[slot] = tag;
        count++;
    }

    private long[] unroll(long[] a, int n) {
        long[] b = new long[n];
        for (int i = 0; i < count; i++) {
            b[i] = a[(head + i) & (a.length - 1)];
        }
        return b;
    }

    int messages() { return count; }

    /** True if the oldest message is fully acknowledged. */
    boolean headAcked() { return count > 0 && msgEnd[head] <= sndUna; }

    long headTag() { return msgTag[head]; }

    /** Removes the oldest message. */
    void popHead() {
        head = (head + 1) & (msgEnd.length - 1);
        count--;
        if (cursor > 0) {
            cursor--;
        }
    }

    /** Points the cursor at the message holding {@code psn} (a posted, uncompleted PSN); returns its slot. */
    int seek(long psn) {
        int mask = msgEnd.length - 1;
        while (cursor < count - 1 && msgEnd[(head + cursor) & mask] <= psn) {
            cursor++;
        }
        while (cursor > 0 && msgStart[(head + cursor) & mask] > psn) {
            cursor--;
        }
        return (head + cursor) & mask;
    }

    long start(int slot) { return msgStart[slot]; }
    long end(int slot) { return msgEnd[slot]; }
    long bytes(int slot) { return msgBytes[slot]; }
    long tag(int slot) { return msgTag[slot]; }
}
