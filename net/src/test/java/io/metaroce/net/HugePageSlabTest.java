package io.metaroce.net;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Buffers from huge-page mappings: aligned, disjoint, zeroed, spanning chunks, advised where THP is on. */
class HugePageSlabTest {
    @Test
    void buffersAreAlignedDisjointZeroedAndWritable() {
        try (Arena arena = Arena.ofShared()) {
            HugePageSlab slab = new HugePageSlab(arena);
            List<MemorySegment> bufs = new ArrayList<>();
            long total = 0;
            // thousands of QPs' buffers: more than one chunk, of mixed sizes
            for (int i = 0; total < HugePageSlab.CHUNK + (8 << 20); i++) {
                long size = i % 3 == 0 ? 4096 : 131_072 + i;
                MemorySegment b = slab.allocate(size, 4096);
                assertEquals(size, b.byteSize());
                assertEquals(0, b.address() % 4096, "page aligned");
                assertEquals(0, b.get(ValueLayout.JAVA_BYTE, 0));
                assertEquals(0, b.get(ValueLayout.JAVA_BYTE, size - 1));
                b.set(ValueLayout.JAVA_BYTE, 0, (byte) i);
                b.set(ValueLayout.JAVA_BYTE, size - 1, (byte) i);
                bufs.add(b);
                total += size;
            }
            bufs.sort((a, b) -> Long.compareUnsigned(a.address(), b.address()));
            for (int i = 1; i < bufs.size(); i++) {
                MemorySegment prev = bufs.get(i - 1);
                assertTrue(prev.address() + prev.byteSize() <= bufs.get(i).address(), "disjoint");
            }
            MemorySegment big = slab.allocate(HugePageSlab.CHUNK + 1, 64); // larger than a chunk
            big.set(ValueLayout.JAVA_BYTE, HugePageSlab.CHUNK, (byte) 7);
            assertEquals(7, big.get(ValueLayout.JAVA_BYTE, HugePageSlab.CHUNK));
        }
    }

    @Test
    void badArgumentsAreRefused() {
        try (Arena arena = Arena.ofConfined()) {
            HugePageSlab slab = new HugePageSlab(arena);
            assertThrows(IllegalArgumentException.class, () -> slab.allocate(0, 4096));
            assertThrows(IllegalArgumentException.class, () -> slab.allocate(10, 3000));
            assertThrows(IllegalArgumentException.class, () -> slab.allocate(10, 4L << 20));
        }
    }

    @Test
    void buffersDieWithTheirArena() {
        MemorySegment b;
        try (Arena arena = Arena.ofShared()) {
            b = new HugePageSlab(arena).allocate(4096, 4096);
            assertTrue(b.scope().isAlive());
        }
        assertFalse(b.scope().isAlive());
    }

    /** Where the kernel offers THP on request, the mapping is marked eligible for huge pages (smaps). */
    @Test
    void mappingsAreAdvisedForHugePagesWhereTheKernelOffersThem() throws IOException {
        Path mode = Path.of("/sys/kernel/mm/transparent_hugepage/enabled");
        boolean offered = LinuxUdp.unavailableReason() == null && Files.exists(mode)
                && !Files.readString(mode).contains("[never]");
        try (Arena arena = Arena.ofShared()) {
            HugePageSlab slab = new HugePageSlab(arena);
            MemorySegment b = slab.allocate(4096, 4096);
            if (!offered) {
                assertEquals(0, slab.advisedBytes());
                return;
            }
            assertEquals(HugePageSlab.CHUNK, slab.advisedBytes());
            String vma = vmaOf(b.address());
            assertTrue(vma.matches("(?s).*\\nTHPeligible:\\s+1\\n.*"), vma);
            assertTrue(vma.matches("(?s).*\\nVmFlags:[a-z ]* hg( .*|\\n.*|)"), "MADV_HUGEPAGE: " + vma);
        }
    }

    /** The smaps block of the mapping that holds {@code addr}. */
    private static String vmaOf(long addr) throws IOException {
        String[] blocks = Files.readString(Path.of("/proc/self/smaps")).split("\n(?=[0-9a-f]+-[0-9a-f]+ )");
        for (String b : blocks) {
            String[] range = b.substring(0, b.indexOf(' ')).split("-");
            long lo = HexFormat.fromHexDigitsToLong(range[0]);
            long hi = HexFormat.fromHexDigitsToLong(range[1]);
            if (Long.compareUnsigned(addr, lo) >= 0 && Long.compareUnsigned(addr, hi) < 0) {
                return b;
            }
        }
        return "no mapping holds " + Long.toHexString(addr);
    }
}
