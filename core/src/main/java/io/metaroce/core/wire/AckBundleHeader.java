package io.metaroce.core.wire;

import java.lang.foreign.MemorySegment;

/**
 * The ACK bundle (opcode {@link Opcode#ACK_BUNDLE}, spec WIRE-4a and ACK-11): one datagram carrying the per-path
 * acknowledgements of several paths of one QP. The 8-byte extension holds what an ACK carries for the whole QP
 * (grant, rx MSN); the payload is {@code payloadLength / 48} entries, each the per-path part of an ACK. The base
 * header's path id names the path the bundle is sent on (its first entry's); its PSN field is 0.
 *
 * <pre>
 * extension (8 bytes)                 entry i (48 bytes, at 8 + 48 i)
 *  0               4               8   0       2       4               8                               16
 *  +---------------+---------------+   +-------+-------+---------------+-------------------------------+
 *  | grant (Mb/s)  |    rx MSN     |   |path id|CE cnt |   cum PSN     |    echoed timestamp (ns)      |
 *  +---------------+---------------+   +-------+-------+---------------+-------------------------------+
 *                                      |  SACK word 0 .. SACK word 3 (4 x u64, as in the ACK)          | 48
 *                                      +---------------------------------------------------------------+
 * </pre>
 *
 * Entry {@code i} means exactly what an ACK with path id {@code pathId(i)} and the same fields means:
 * {@link #expand} writes that ACK.
 */
public final class AckBundleHeader {
    /** An unbound view; call wrap before use. */
    public AckBundleHeader() {
    }

    /** Length of the extension (before the entries). */
    public static final int LENGTH = 8;
    public static final int GRANT_MBPS = 0;
    public static final int RX_MSN = 4;
    /** Length of one entry. */
    public static final int ENTRY_LENGTH = 48;
    public static final int ENTRY_PATH_ID = 0;
    public static final int ENTRY_CE_COUNT = 2;
    public static final int ENTRY_CUM_PSN = 4;
    public static final int ENTRY_ECHO_TIMESTAMP = 8;
    public static final int ENTRY_SACK = 16;

    private MemorySegment seg;
    private long base;

    /** Points this view at the extension, {@code seg[offset, ...)} (the base header ends at {@code offset}). */
    public AckBundleHeader wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.base = offset;
        return this;
    }

    /** Entries that fit a payload of {@code payloadLength} bytes, or -1 when it is not a whole number of them. */
    public static int entries(int payloadLength) {
        return payloadLength > 0 && payloadLength % ENTRY_LENGTH == 0 ? payloadLength / ENTRY_LENGTH : -1;
    }

    /** Most entries a datagram of at most {@code maxDatagramLength} bytes can carry. */
    public static int maxEntries(int maxDatagramLength) {
        return (maxDatagramLength - BaseHeader.LENGTH - LENGTH - Packet.CRC_LENGTH) / ENTRY_LENGTH;
    }

    /** Rate granted to this sender by the receiver, in Mb/s of datagram bytes; 0 means no cap (as the ACK's). */
    public int grantMbps() { return Bytes.i32(seg, base + GRANT_MBPS); }
    public AckBundleHeader grantMbps(int v) { Bytes.i32(seg, base + GRANT_MBPS, v); return this; }
    /** The lowest MSN the receiver has not yet retired (as the ACK's). */
    public int rxMsn() { return Bytes.i32(seg, base + RX_MSN); }
    public AckBundleHeader rxMsn(int v) { Bytes.i32(seg, base + RX_MSN, v); return this; }

    private long entry(int i) {
        return base + LENGTH + (long) ENTRY_LENGTH * i;
    }

    public int pathId(int i) { return Bytes.u16(seg, entry(i) + ENTRY_PATH_ID); }
    public AckBundleHeader pathId(int i, int v) { Bytes.u16(seg, entry(i) + ENTRY_PATH_ID, v); return this; }
    public int ceCount(int i) { return Bytes.u16(seg, entry(i) + ENTRY_CE_COUNT); }
    public AckBundleHeader ceCount(int i, int v) {
        Bytes.u16(seg, entry(i) + ENTRY_CE_COUNT, Math.min(v, 0xFFFF));
        return this;
    }
    public int cumPsn(int i) { return Bytes.i32(seg, entry(i) + ENTRY_CUM_PSN); }
    public AckBundleHeader cumPsn(int i, int v) { Bytes.i32(seg, entry(i) + ENTRY_CUM_PSN, v); return this; }
    public long echoTimestampNs(int i) { return Bytes.i64(seg, entry(i) + ENTRY_ECHO_TIMESTAMP); }
    public AckBundleHeader echoTimestampNs(int i, long v) {
        Bytes.i64(seg, entry(i) + ENTRY_ECHO_TIMESTAMP, v);
        return this;
    }
    /** SACK word {@code w} (0..3) of entry {@code i}. */
    public long sackWord(int i, int w) { return Bytes.i64(seg, entry(i) + ENTRY_SACK + 8L * w); }
    public AckBundleHeader sackWord(int i, int w, long v) {
        Bytes.i64(seg, entry(i) + ENTRY_SACK + 8L * w, v);
        return this;
    }

    /**
     * Writes into {@code out[0, 88)} the ACK (base header and ACK extension, no CRC) that entry {@code i} of the
     * checked bundle {@code bundle} stands for: the bundle's base header with opcode ACK, the entry's path id and
     * payload length 0; the entry's fields with the bundle's grant and rx MSN.
     */
    public static void expand(MemorySegment bundle, int i, MemorySegment out, BaseHeader b, AckBundleHeader x,
                              AckHeader a) {
        MemorySegment.copy(bundle, 0, out, 0, BaseHeader.LENGTH);
        x.wrap(bundle, BaseHeader.LENGTH);
        b.wrap(out, 0).opcode(Opcode.ACK).pathId(x.pathId(i)).payloadLength(0);
        a.wrap(out, BaseHeader.LENGTH).cumPsn(x.cumPsn(i)).ceCount(x.ceCount(i)).reserved(0)
                .echoTimestampNs(x.echoTimestampNs(i)).grantMbps(x.grantMbps()).rxMsn(x.rxMsn());
        for (int w = 0; w < 4; w++) {
            a.sackWord(w, x.sackWord(i, w));
        }
    }
}
