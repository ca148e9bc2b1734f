package io.metaroce.core.wire;

import java.lang.foreign.MemorySegment;

/**
 * The 16-byte extension of PROBE and PROBE_REPLY packets (spec WIRE-6, PATH-*). A PROBE carries a probe id;
 * the reply echoes the id and the probe's timestamp, on the same path id.
 *
 * <pre>
 *  0                               8                               16
 *  +-------------------------------+-------------------------------+
 *  |          probe id             |  echoed timestamp (reply)     |
 *  +-------------------------------+-------------------------------+
 * </pre>
 */
public final class ProbeHeader {
    /** An unbound view; call wrap before use. */
    public ProbeHeader() {
    }

    public static final int LENGTH = 16;
    public static final int PROBE_ID = 0;
    public static final int ECHO_TIMESTAMP = 8;

    private MemorySegment seg;
    private long base;

    public ProbeHeader wrap(MemorySegment seg, long offset) {
        this.seg = seg;
        this.base = offset;
        return this;
    }

    public long probeId() { return Bytes.i64(seg, base + PROBE_ID); }
    public ProbeHeader probeId(long v) { Bytes.i64(seg, base + PROBE_ID, v); return this; }
    public long echoTimestampNs() { return Bytes.i64(seg, base + ECHO_TIMESTAMP); }
    public ProbeHeader echoTimestampNs(long v) { Bytes.i64(seg, base + ECHO_TIMESTAMP, v); return this; }
}
