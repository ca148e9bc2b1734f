package io.metaroce.core;

import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.random.RandomGenerator;

/**
 * A device's registered memory regions, found by rkey: an rkey is a random tag over the region's index, so a key of a
 * deregistered region, or a guessed one, names nothing (BAD-3).
 */
final class MemoryRegions {
    private final List<MemoryRegion> mrs = new ArrayList<>();
    private final RandomGenerator rng;
    private long nextHeapVa = 0x10_0000_0000L;

    MemoryRegions(RandomGenerator rng) {
        this.rng = rng;
        mrs.add(null); // index 0 is never used
    }

    /** See {@link Engine#registerMemory}; {@code access} is already checked. */
    MemoryRegion register(ProtectionDomain pd, MemorySegment segment, int access) {
        if (mrs.size() > Engine.INDEX_MASK) {
            throw new IllegalStateException("too many memory regions");
        }
        long va;
        if (segment.isNative()) {
            va = segment.address();
        } else {
            va = nextHeapVa;
            nextHeapVa += (segment.byteSize() + 0xFFFF) & ~0xFFFFL;
        }
        int index = mrs.size();
        int tag = 1 + rng.nextInt(0xFFF - 1);
        int key = tag << Engine.INDEX_BITS | index;
        MemoryRegion mr = new MemoryRegion(pd, segment, va, key, key, access);
        mrs.add(mr);
        return mr;
    }

    /** Deregisters {@code mr}: from now on its keys are rejected. */
    void deregister(MemoryRegion mr) {
        int index = mr.rkey() & Engine.INDEX_MASK;
        if (index < mrs.size() && mrs.get(index) == mr) {
            mrs.set(index, null);
            mr.invalidate();
        }
    }

    /** The valid region {@code rkey} names, or null. */
    MemoryRegion byRkey(int rkey) {
        int index = rkey & Engine.INDEX_MASK;
        if (index <= 0 || index >= mrs.size()) {
            return null;
        }
        MemoryRegion mr = mrs.get(index);
        return mr != null && mr.rkey() == rkey && mr.isValid() ? mr : null;
    }
}
