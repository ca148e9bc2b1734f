package io.metaroce.net;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Buffers for registered memory, carved out of large anonymous mappings that the kernel is asked to back with
 * transparent huge pages ({@code madvise(MADV_HUGEPAGE)}, honoured when the system's THP mode is "madvise" or
 * "always"). The buffers of thousands of QPs then lie in a few hundred 2 MiB pages instead of a hundred thousand
 * 4 KiB ones, and the kernel's copies from and to them (the payload of every datagram sent and received) miss the
 * TLB far less (bench/net.sh part 5 under perf, 4 KiB pages: the kernel's send copy took 26% of the client I/O
 * thread's samples at 4,000 QPs, 2% at 1 QP, whose one buffer stays in the cache; with this slab it left the top of
 * the profile).
 *
 * <p>A mapping is reserved a chunk at a time and its pages are only touched when used, so the resident memory is
 * that of the buffers handed out (rounded up to a huge page). Where {@code mmap} is not available (not Linux) or
 * fails, buffers come from the arena as {@link Arena#allocate(long, long)} gives them. Either way they are zeroed
 * and freed when the arena closes. Thread safe.
 */
public final class HugePageSlab {
    /** The huge page size the mappings are aligned to (x86-64, arm64 with 4 KiB base pages). */
    static final long HUGE_PAGE = 2L << 20;
    /** Bytes reserved per mapping (address space only until used). */
    static final long CHUNK = 64L << 20;
    private static final int PROT_READ_WRITE = 0x1 | 0x2;
    private static final int MAP_PRIVATE_ANONYMOUS = 0x02 | 0x20;
    private static final int MADV_HUGEPAGE = 14;
    private static final Native NATIVE = Native.load();

    private final Arena arena;
    private MemorySegment chunk;
    private long used;
    private long advised;

    /** A slab whose buffers live as long as {@code arena}. */
    public HugePageSlab(Arena arena) {
        this.arena = arena;
    }

    /**
     * A zeroed buffer of {@code bytes} (at least 1) aligned to {@code align} (a power of two of at most 2 MiB),
     * valid until the arena closes.
     */
    public synchronized MemorySegment allocate(long bytes, long align) {
        if (bytes < 1 || align < 1 || Long.bitCount(align) != 1 || align > HUGE_PAGE) {
            throw new IllegalArgumentException("bytes " + bytes + ", align " + align);
        }
        long at = chunk == null ? 0 : alignUp(used, align);
        if (chunk == null || at + bytes > chunk.byteSize()) {
            MemorySegment m = map(Math.max(CHUNK, alignUp(bytes, HUGE_PAGE)));
            if (m == null) {
                return arena.allocate(bytes, align);
            }
            chunk = m;
            at = 0;
        }
        used = at + bytes;
        return chunk.asSlice(at, bytes);
    }

    /** Bytes of mappings the kernel accepted the huge-page advice for (0: none, e.g. THP off or not Linux). */
    public synchronized long advisedBytes() {
        return advised;
    }

    /** A new mapping of {@code len} bytes (a multiple of 2 MiB) starting on a 2 MiB boundary; null if none. */
    @SuppressWarnings("restricted")
    private MemorySegment map(long len) {
        if (NATIVE == null) {
            return null;
        }
        long total = len + HUGE_PAGE; // room to start on a huge page boundary
        long base;
        try {
            base = ((MemorySegment) NATIVE.mmap.invokeExact(MemorySegment.NULL, total, PROT_READ_WRITE,
                    MAP_PRIVATE_ANONYMOUS, -1, 0L)).address();
        } catch (Throwable e) {
            return null;
        }
        if (base == -1L || base == 0) {
            return null; // MAP_FAILED
        }
        long start = alignUp(base, HUGE_PAGE);
        try {
            if ((int) NATIVE.madvise.invokeExact(MemorySegment.ofAddress(start), len, MADV_HUGEPAGE) == 0) {
                advised += len;
            }
        } catch (Throwable e) {
            // no advice: ordinary pages
        }
        return MemorySegment.ofAddress(start).reinterpret(len, arena, s -> unmap(base, total));
    }

    private static void unmap(long base, long total) {
        try {
            int ignored = (int) NATIVE.munmap.invokeExact(MemorySegment.ofAddress(base), total);
        } catch (Throwable e) {
            // the process keeps the address space; nothing else to do at close
        }
    }

    private static long alignUp(long v, long align) {
        return (v + align - 1) & -align;
    }

    /** libc's mmap, madvise and munmap; null where they cannot be bound. */
    private record Native(MethodHandle mmap, MethodHandle madvise, MethodHandle munmap) {
        @SuppressWarnings("restricted")
        static Native load() {
            if (LinuxUdp.unavailableReason() != null) {
                return null;
            }
            try {
                Linker linker = Linker.nativeLinker();
                var libc = linker.defaultLookup();
                return new Native(
                        linker.downcallHandle(libc.find("mmap").orElseThrow(), FunctionDescriptor.of(ADDRESS,
                                ADDRESS, JAVA_LONG, JAVA_INT, JAVA_INT, JAVA_INT, JAVA_LONG)),
                        linker.downcallHandle(libc.find("madvise").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT)),
                        linker.downcallHandle(libc.find("munmap").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG)));
            } catch (RuntimeException | Error e) {
                return null;
            }
        }
    }
}
