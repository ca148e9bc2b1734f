package io.metaroce.core;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * A registered memory region: a {@link MemorySegment} with a virtual address range, an lkey for local use,
 * an rkey for remote access and access flags (spec VERBS-3). Data is placed straight into the segment.
 */
public final class MemoryRegion {
    private final ProtectionDomain pd;
    private final MemorySegment segment;
    private final long va;
    private final int lkey;
    private final int rkey;
    private final int access;
    private boolean valid = true;
    /** The segment's byte-buffer view for CRCs of gathered payloads, made on first use (engine thread). */
    private ByteBuffer crcView;

    MemoryRegion(ProtectionDomain pd, MemorySegment segment, long va, int lkey, int rkey, int access) {
        this.pd = pd;
        this.segment = segment;
        this.va = va;
        this.lkey = lkey;
        this.rkey = rkey;
        this.access = access;
    }

    public ProtectionDomain pd() { return pd; }
    public MemorySegment segment() { return segment; }
    /** Virtual address of the region's first byte, as peers name it. */
    public long address() { return va; }
    public long length() { return segment.byteSize(); }
    public int lkey() { return lkey; }
    public int rkey() { return rkey; }
    public int access() { return access; }
    public boolean isValid() { return valid; }

    /**
     * The whole region as a byte buffer, made once: a gathered payload's CRC32C reads it through this view, so a
     * device with thousands of regions sending allocates nothing per packet (a per-engine cache of views keyed by
     * segment held 128, and 4,000 QPs' regions made a new view for nearly every packet: ~18 MB/s of garbage and a
     * young collection every second on the test bed). Only for native regions of at most 2 GiB.
     */
    ByteBuffer crcView() {
        ByteBuffer v = crcView;
        if (v == null) {
            v = segment.asByteBuffer();
            crcView = v;
        }
        return v;
    }

    void invalidate() {
        valid = false;
    }

    /** True when [va, va + len) lies inside the region; overflow-safe for any inputs. */
    public boolean contains(long addr, long len) {
        if (len < 0) {
            return false;
        }
        long off = addr - va;
        return Long.compareUnsigned(addr, va) >= 0 && off >= 0 && off <= length() && len <= length() - off;
    }

    /** True when [offset, offset + len) is inside the region. */
    boolean containsOffset(long offset, long len) {
        return offset >= 0 && len >= 0 && offset <= length() && len <= length() - offset;
    }

    @Override
    public String toString() {
        return String.format("MR[va=0x%x len=%d lkey=0x%x rkey=0x%x access=%d]", va, length(), lkey, rkey, access);
    }
}
