package io.metaroce.sim.transport;

import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.sim.event.Units;

import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * Measures {@code tail_recovery_us}: for every engine message (work request) that had a packet retransmitted,
 * the time from the original transmission of its last packet to its send completion. A lossless message's
 * completion takes about one RTT after that; a lost packet near the tail costs whatever the engine needs to
 * notice it (a NAK, a tail probe, an RTO). Retransmissions are seen by the header flag, so spurious ones count too.
 *
 * <p>Fed by the hosts' transmit tap ({@link Host.DataTap}) with every data packet as it leaves for the NIC, and
 * by the transport with every send completion (in posting order per connection). State per connection is a ring
 * of the outstanding messages, grown by doubling; nothing is allocated per packet.
 */
public final class TailRecoveryMeter implements Host.DataTap {
    /** Low bits of a QPN the engine indexes its QPs by: unique among one engine's live QPs. */
    private static final int QPN_INDEX_MASK = (1 << 20) - 1;

    private static final class Conn {
        final int qpn;
        boolean started;
        int baseMsn;
        long completed; // messages completed, the index of the oldest outstanding one
        long[] lastOriginalPs = new long[4]; // time + 1 of the last packet's original transmission, 0 = not yet
        boolean[] lost = new boolean[4];

        Conn(int qpn) {
            this.qpn = qpn;
        }
    }

    private Conn[][] byQpn; // [host][qpn index] -> the connection sending from that QP
    private long[] samplesPs = new long[64];
    private int samples;
    private long unmatched;
    private final BaseHeader base = new BaseHeader();
    private final DataHeader data = new DataHeader();

    TailRecoveryMeter(int hosts) {
        byQpn = new Conn[hosts][];
    }

    /** Registers a sending QP ({@code qpn} on host {@code host}); returns its handle for {@link #completed}. */
    Object register(int host, int qpn) {
        int i = qpn & QPN_INDEX_MASK;
        Conn[] t = byQpn[host];
        if (t == null || i >= t.length) {
            t = byQpn[host] = Arrays.copyOf(t == null ? new Conn[0] : t, Math.max(i + 1, t == null ? 16 : t.length * 2));
        }
        Conn c = new Conn(qpn);
        t[i] = c;
        return c;
    }

    @Override
    public void sent(int host, MemorySegment seg, long nowPs) {
        base.wrap(seg, 0);
        data.wrap(seg, BaseHeader.LENGTH);
        int src = base.srcQpn();
        Conn[] t = byQpn[host];
        int i = src & QPN_INDEX_MASK;
        Conn c = t != null && i < t.length ? t[i] : null;
        if (c == null || c.qpn != src) {
            unmatched++;
            return;
        }
        int msn = data.msn();
        if (!c.started) {
            c.started = true;
            c.baseMsn = msn; // the first packet a QP sends is the first of its first message
        }
        long index = (msn - c.baseMsn) & 0xFFFFFFFFL; // messages since the first, MSN wrap included
        if (index < c.completed) {
            return; // a late resend of a message already completed
        }
        while (index - c.completed >= c.lost.length) {
            grow(c);
        }
        int slot = (int) (index & (c.lost.length - 1));
        if ((base.flags() & BaseHeader.FLAG_RETRANSMIT) != 0) {
            c.lost[slot] = true;
            return;
        }
        if ((long) data.offset() + base.payloadLength() >= data.messageLength()) {
            c.lastOriginalPs[slot] = nowPs + 1;
        }
    }

    private static void grow(Conn c) {
        int n = c.lost.length;
        long[] t = new long[n * 2];
        boolean[] l = new boolean[n * 2];
        for (long k = c.completed; k < c.completed + n; k++) {
            t[(int) (k & (2 * n - 1))] = c.lastOriginalPs[(int) (k & (n - 1))];
            l[(int) (k & (2 * n - 1))] = c.lost[(int) (k & (n - 1))];
        }
        c.lastOriginalPs = t;
        c.lost = l;
    }

    /** The oldest outstanding message of {@code handle}'s connection completed at {@code nowPs}. */
    void completed(Object handle, long nowPs) {
        Conn c = (Conn) handle;
        int slot = (int) (c.completed & (c.lost.length - 1));
        if (c.lost[slot] && c.lastOriginalPs[slot] > 0) {
            if (samples == samplesPs.length) {
                samplesPs = Arrays.copyOf(samplesPs, samples * 2);
            }
            samplesPs[samples++] = nowPs - (c.lastOriginalPs[slot] - 1);
        }
        c.lost[slot] = false;
        c.lastOriginalPs[slot] = 0;
        c.completed++;
    }

    /** Messages with a retransmitted packet that completed. */
    int messages() { return samples; }

    /** Data packets from QPs not registered (must be 0). */
    long unmatched() { return unmatched; }

    /** The {@code q}-quantile (0..1) of the tail recovery times in microseconds, NaN without samples. */
    double quantileUs(double q) {
        if (samples == 0) {
            return Double.NaN;
        }
        long[] s = Arrays.copyOf(samplesPs, samples);
        Arrays.sort(s);
        int i = Math.min(samples - 1, Math.max(0, (int) Math.ceil(q * samples) - 1));
        return s[i] / (double) Units.PS_PER_US;
    }
}
