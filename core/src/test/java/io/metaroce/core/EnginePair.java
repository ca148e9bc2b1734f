package io.metaroce.core;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.SplittableRandom;

/**
 * Test fixture without a network: engines A (seed 1) and B (seed 2), one connected QP each, a source region at A
 * and a sink region at B; the test moves datagrams between them itself.
 */
final class EnginePair {
    final Engine a;
    final Engine b;
    final CompletionQueue cqa;
    final QueuePair qa;
    final QueuePair qb;
    final MemoryRegion src;
    final MemoryRegion dst;

    EnginePair(EngineConfig cfg, MemorySegment source, MemorySegment sink) {
        a = new Engine(cfg, new SplittableRandom(1));
        b = new Engine(cfg, new SplittableRandom(2));
        ProtectionDomain pa = a.allocPd();
        ProtectionDomain pb = b.allocPd();
        cqa = a.createCq(16);
        CompletionQueue cqb = b.createCq(16);
        qa = a.createQp(pa, cqa, cqa);
        qb = b.createQp(pb, cqb, cqb);
        src = a.registerMemory(pa, source, Access.ALL);
        dst = b.registerMemory(pb, sink, Access.ALL);
        qa.connect(2, qb.qpn(), 1000, 5000);
        qb.connect(1, qa.qpn(), 5000, 1000);
    }

    /** A pair over fresh 4 KiB regions. */
    EnginePair(EngineConfig cfg) {
        this(cfg, Arena.ofAuto().allocate(4096, 64), Arena.ofAuto().allocate(4096, 64));
    }
}
