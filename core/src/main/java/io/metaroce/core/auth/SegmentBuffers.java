package io.metaroce.core.auth;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;

/**
 * Two {@link ByteBuffer} views (input and output) of each recently seen segment, for the {@code Cipher} API, which
 * takes buffers, not segments. A small direct-mapped table keyed by segment identity: a driver that reuses its
 * transmit and receive slots gets the same views back, so steady-state traffic makes no new views.
 */
final class SegmentBuffers {
    private static final int SLOTS = 128;
    private final MemorySegment[] keys = new MemorySegment[SLOTS];
    private final ByteBuffer[] ins = new ByteBuffer[SLOTS];
    private final ByteBuffer[] outs = new ByteBuffer[SLOTS];
    private int slot;

    /** The input view of {@code seg}; call before {@link #out} for the same segment. */
    ByteBuffer in(MemorySegment seg) {
        slot = System.identityHashCode(seg) & (SLOTS - 1);
        if (keys[slot] != seg) {
            ins[slot] = seg.asByteBuffer();
            outs[slot] = seg.asByteBuffer();
            keys[slot] = seg;
        }
        return ins[slot].clear();
    }

    /** The output view of the segment last passed to {@link #in}. */
    ByteBuffer out(MemorySegment seg) {
        return outs[slot].clear();
    }
}
