package io.metaroce.net;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

/**
 * Lets the agent sleep in the kernel until a datagram arrives on one of its sockets, a timer is due or an
 * application thread has queued work ({@code ppoll} on the receive sockets and an {@code eventfd}). On a host
 * whose cores are shared this costs a wake-up (tens of microseconds) but burns no CPU, so the peer's threads run.
 */
final class Waiter implements AutoCloseable {
    private static final int POLLIN = 1;
    private static final int EFD_NONBLOCK = 0x800;
    private static final MethodHandle PPOLL;
    private static final MethodHandle EVENTFD;
    private static final MethodHandle WRITE;
    private static final MethodHandle READ;
    private static final MethodHandle CLOSE;
    private static final String UNAVAILABLE;

    static {
        MethodHandle pp = null;
        MethodHandle ev = null;
        MethodHandle wr = null;
        MethodHandle rd = null;
        MethodHandle cl = null;
        String why = LinuxUdp.unavailableReason();
        if (why == null) {
            try {
                Linker l = Linker.nativeLinker();
                SymbolLookup libc = l.defaultLookup();
                pp = downcall(l, libc, "ppoll", FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, ADDRESS));
                ev = downcall(l, libc, "eventfd", FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT));
                wr = downcall(l, libc, "write", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
                rd = downcall(l, libc, "read", FunctionDescriptor.of(JAVA_LONG, JAVA_INT, ADDRESS, JAVA_LONG));
                cl = downcall(l, libc, "close", FunctionDescriptor.of(JAVA_INT, JAVA_INT));
            } catch (RuntimeException e) {
                why = e.toString();
            }
        }
        PPOLL = pp;
        EVENTFD = ev;
        WRITE = wr;
        READ = rd;
        CLOSE = cl;
        UNAVAILABLE = why;
    }

    @SuppressWarnings("restricted")
    private static MethodHandle downcall(Linker l, SymbolLookup libc, String name, FunctionDescriptor d) {
        return l.downcallHandle(libc.find(name).orElseThrow(), d);
    }

    static boolean available() {
        return UNAVAILABLE == null;
    }

    private final Arena arena = Arena.ofShared();
    private final MemorySegment fds;
    private final MemorySegment timespec;
    private final MemorySegment one;
    private final MemorySegment scratch;
    private final int nfds;
    private final int eventFd;

    Waiter(int[] socketFds) throws IOException {
        if (UNAVAILABLE != null) {
            throw new IOException("blocking waits unavailable: " + UNAVAILABLE);
        }
        try {
            eventFd = (int) EVENTFD.invokeExact(0, EFD_NONBLOCK);
        } catch (Throwable t) {
            throw new IOException("eventfd failed", t);
        }
        if (eventFd < 0) {
            throw new IOException("eventfd failed");
        }
        nfds = socketFds.length + 1;
        fds = arena.allocate(8L * nfds, 8);
        for (int i = 0; i < nfds; i++) {
            fds.set(JAVA_INT, 8L * i, i < socketFds.length ? socketFds[i] : eventFd);
            fds.set(ValueLayout.JAVA_SHORT, 8L * i + 4, (short) POLLIN);
        }
        timespec = arena.allocate(16, 8);
        one = arena.allocate(8, 8);
        one.set(JAVA_LONG, 0, 1L);
        scratch = arena.allocate(8, 8);
    }

    /** Sleeps until a socket is readable, {@link #wake()} is called or {@code timeoutNs} passes. */
    void await(long timeoutNs) {
        timespec.set(JAVA_LONG, 0, timeoutNs / 1_000_000_000L);
        timespec.set(JAVA_LONG, 8, timeoutNs % 1_000_000_000L);
        for (int i = 0; i < nfds; i++) {
            fds.set(ValueLayout.JAVA_SHORT, 8L * i + 6, (short) 0);
        }
        try {
            int r = (int) PPOLL.invokeExact(fds, (long) nfds, timespec, MemorySegment.NULL);
            if (r > 0 && fds.get(ValueLayout.JAVA_SHORT, 8L * (nfds - 1) + 6) != 0) {
                long ignored = (long) READ.invokeExact(eventFd, scratch, 8L); // reset the eventfd counter
            }
        } catch (Throwable t) {
            throw new IllegalStateException("ppoll failed", t);
        }
    }

    /** From any thread: ends a current or the next {@link #await}. */
    void wake() {
        try {
            long ignored = (long) WRITE.invokeExact(eventFd, one, 8L);
        } catch (Throwable t) {
            throw new IllegalStateException("eventfd write failed", t);
        }
    }

    @Override
    public void close() {
        try {
            int ignored = (int) CLOSE.invokeExact(eventFd);
        } catch (Throwable t) {
            // nothing to recover on close
        }
        arena.close();
    }
}
