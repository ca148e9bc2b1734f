package io.metaroce.net;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.VarHandle;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.ByteOrder;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

/**
 * UDP/IPv4 through the Linux kernel with the Foreign Function &amp; Memory API: {@code sendmmsg} and
 * {@code recvmmsg} batches, ECT(0) on every datagram ({@code IP_TOS}), the ECN codepoint of every received
 * datagram ({@code IP_RECVTOS}, read from the control message), receive offload ({@code UDP_GRO}) where the
 * kernel has it, {@code SO_REUSEADDR}/{@code SO_REUSEPORT} and large socket buffers. Layouts are those of
 * x86-64 and aarch64 Linux (LP64).
 */
final class LinuxUdp implements UdpSocket {
    private static final int AF_INET = 2;
    private static final int SOCK_DGRAM = 2;
    private static final int SOCK_NONBLOCK = 0x800;
    private static final int SOL_SOCKET = 1;
    private static final int SO_REUSEADDR = 2;
    private static final int SO_SNDBUF = 7;
    private static final int SO_RCVBUF = 8;
    private static final int SO_REUSEPORT = 15;
    private static final int SO_SNDBUFFORCE = 32;
    private static final int SO_RCVBUFFORCE = 33;
    private static final int IPPROTO_IP = 0;
    private static final int IP_TOS = 1;
    private static final int IP_RECVTOS = 13;
    private static final int IPPROTO_UDP = 17;
    private static final int UDP_GRO = 104;
    private static final int UDP_SEGMENT = 103;
    /** Most segments one GSO send may carry (the kernel's UDP_MAX_SEGMENTS). */
    private static final int GSO_MAX_SEGMENTS = 64;
    /** Most bytes one GSO send may carry (a UDP datagram's limit, less headers). */
    private static final int GSO_MAX_BYTES = 65_000;
    private static final int MSG_DONTWAIT = 0x40;
    private static final int MSG_TRUNC = 0x20;
    private static final int EAGAIN = 11;
    private static final int EINTR = 4;

    // struct msghdr (56 bytes) inside struct mmsghdr (64 bytes)
    private static final int MMSG_SIZE = 64;
    private static final int MSG_NAME = 0;
    private static final int MSG_NAMELEN = 8;
    private static final int MSG_IOV = 16;
    private static final int MSG_IOVLEN = 24;
    private static final int MSG_CONTROL = 32;
    private static final int MSG_CONTROLLEN = 40;
    private static final int MSG_FLAGS = 48;
    private static final int MSG_LEN = 56;
    private static final int IOVEC_SIZE = 16;
    /** Most iovecs one datagram needs: headers, gathered payload, CRC. */
    private static final int IOV_PER_DATAGRAM = 3;
    private static final int SOCKADDR_SIZE = 16;
    /** Control buffer per message: IP_TOS (24 bytes), UDP_GRO (24), SO_TIMESTAMPNS (32), room to spare. */
    private static final int CONTROL_SIZE = 128;
    /** SO_TIMESTAMPNS (= SCM_TIMESTAMPNS): the kernel's receive time of each datagram, CLOCK_REALTIME. */
    private static final int SO_TIMESTAMPNS = 35;
    private static final int CLOCK_REALTIME = 0;
    private static final int CLOCK_MONOTONIC = 1;

    private static final ValueLayout.OfShort BE_SHORT = ValueLayout.JAVA_SHORT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfInt BE_INT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);
    private static final ValueLayout.OfLong LONG = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfInt INT = ValueLayout.JAVA_INT_UNALIGNED;

    private static final Native NATIVE = Native.load();

    /** The native functions, or the reason they are missing. */
    private record Native(MethodHandle socket, MethodHandle setsockopt, MethodHandle bind,
                          MethodHandle connect, MethodHandle getsockname, MethodHandle sendmmsg, MethodHandle recvmmsg,
                          MethodHandle close, MethodHandle clockGettime, StructLayout capture, VarHandle errno,
                          String unavailable) {
        @SuppressWarnings("restricted")
        static Native load() {
            try {
                if (!System.getProperty("os.name", "").toLowerCase(java.util.Locale.ROOT).contains("linux")) {
                    return unavailable("not Linux");
                }
                Linker linker = Linker.nativeLinker();
                SymbolLookup libc = linker.defaultLookup();
                StructLayout capture = Linker.Option.captureStateLayout();
                VarHandle errno = capture.varHandle(MemoryLayout.PathElement.groupElement("errno"));
                Linker.Option err = Linker.Option.captureCallState("errno");
                return new Native(
                        linker.downcallHandle(libc.find("socket").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT), err),
                        linker.downcallHandle(libc.find("setsockopt").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT, JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), err),
                        linker.downcallHandle(libc.find("bind").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), err),
                        linker.downcallHandle(libc.find("connect").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT), err),
                        linker.downcallHandle(libc.find("getsockname").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, ADDRESS), err),
                        linker.downcallHandle(libc.find("sendmmsg").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT), err),
                        linker.downcallHandle(libc.find("recvmmsg").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS, JAVA_INT, JAVA_INT, ADDRESS), err),
                        linker.downcallHandle(libc.find("close").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT)),
                        linker.downcallHandle(libc.find("clock_gettime").orElseThrow(),
                                FunctionDescriptor.of(JAVA_INT, JAVA_INT, ADDRESS)),
                        capture, errno, null);
            } catch (RuntimeException | Error e) {
                return unavailable(e.toString());
            }
        }

        static Native unavailable(String why) {
            return new Native(null, null, null, null, null, null, null, null, null, null, null, why);
        }
    }

    /** Null when this platform can use {@link LinuxUdp}; otherwise why not. */
    static String unavailableReason() {
        return NATIVE.unavailable;
    }

    private final Arena arena = Arena.ofShared();
    private final int fd;
    private final InetSocketAddress local;
    private final boolean gro;
    private final MemorySegment errState;
    private final MemorySegment intArg;
    // send side: scratch mmsghdr array, an iovec and a sockaddr per slot of the batch in use
    private MemorySegment txHdrs;
    private MemorySegment txIov;
    private MemorySegment txAddr;
    private PacketBatch txFor;
    private MemorySegment txGsoIov;
    private MemorySegment txGsoControl;
    private int[] msgSegments;
    private boolean gso;
    private SendStats stats = new SendStats();
    // connect()ed destination (IPv4 as an int, port), or port -1: sends to it leave msg_name empty
    private int connectedAddr;
    private int connectedPort = -1;
    // receive side
    private MemorySegment rxHdrs;
    private MemorySegment rxIov;
    private MemorySegment rxAddr;
    private MemorySegment rxControl;
    private PacketBatch rxFor;
    /** Received datagrams carry the kernel's receive time (SO_TIMESTAMPNS). */
    private boolean stamps;
    private MemorySegment realtime;
    private MemorySegment monotonic;

    LinuxUdp(InetSocketAddress bindTo, int bufferBytes, boolean wantGro, boolean reusePort) throws IOException {
        this(bindTo, bufferBytes, wantGro, reusePort, false);
    }

    /** With {@code wantGso}, runs of equal-length datagrams to one destination go out as one UDP_SEGMENT send. */
    LinuxUdp(InetSocketAddress bindTo, int bufferBytes, boolean wantGro, boolean reusePort, boolean wantGso)
            throws IOException {
        this.gso = wantGso;
        if (NATIVE.unavailable != null) {
            throw new IOException("FFM datapath unavailable: " + NATIVE.unavailable);
        }
        errState = arena.allocate(NATIVE.capture);
        intArg = arena.allocate(JAVA_INT);
        fd = (int) call(NATIVE.socket, "socket", AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
        try {
            setInt(SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
            if (reusePort) {
                setInt(SOL_SOCKET, SO_REUSEPORT, 1, "SO_REUSEPORT");
            }
            // Large buffers: the FORCE variants pass the sysctl limits when we are root.
            if (!trySetInt(SOL_SOCKET, SO_RCVBUFFORCE, bufferBytes)) {
                trySetInt(SOL_SOCKET, SO_RCVBUF, bufferBytes);
            }
            if (!trySetInt(SOL_SOCKET, SO_SNDBUFFORCE, bufferBytes)) {
                trySetInt(SOL_SOCKET, SO_SNDBUF, bufferBytes);
            }
            setInt(IPPROTO_IP, IP_TOS, 2, "IP_TOS (ECT(0))");
            setInt(IPPROTO_IP, IP_RECVTOS, 1, "IP_RECVTOS");
            gro = wantGro && trySetInt(IPPROTO_UDP, UDP_GRO, 1);
            stamps = trySetInt(SOL_SOCKET, SO_TIMESTAMPNS, 1);
            MemorySegment sa = arena.allocate(SOCKADDR_SIZE);
            writeSockaddr(sa, 0, bindTo.getAddress(), bindTo.getPort());
            call(NATIVE.bind, "bind to " + bindTo, fd, sa, SOCKADDR_SIZE);
            MemorySegment len = arena.allocate(JAVA_INT);
            len.set(JAVA_INT, 0, SOCKADDR_SIZE);
            call(NATIVE.getsockname, "getsockname", fd, sa, len);
            local = new InetSocketAddress(bindTo.getAddress(), Short.toUnsignedInt(sa.get(BE_SHORT, 2)));
        } catch (IOException | RuntimeException e) {
            close();
            throw e;
        }
    }

    private long call(MethodHandle h, String what, Object... args) throws IOException {
        Object[] full = new Object[args.length + 1];
        full[0] = errState;
        System.arraycopy(args, 0, full, 1, args.length);
        int r;
        try {
            r = (int) h.invokeWithArguments(full);
        } catch (Throwable t) {
            throw new IOException(what + " failed: " + t, t);
        }
        if (r < 0) {
            int e = (int) NATIVE.errno.get(errState, 0L);
            throw new IOException(what + " failed: errno " + e + " (" + Errno.name(e) + ")");
        }
        return r;
    }

    private void setInt(int level, int opt, int value, String what) throws IOException {
        intArg.set(JAVA_INT, 0, value);
        call(NATIVE.setsockopt, "setsockopt " + what, fd, level, opt, intArg, 4);
    }

    private boolean trySetInt(int level, int opt, int value) {
        try {
            setInt(level, opt, value, "option " + opt);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    private static void writeSockaddr(MemorySegment s, long off, InetAddress a, int port) {
        s.asSlice(off, SOCKADDR_SIZE).fill((byte) 0);
        s.set(ValueLayout.JAVA_SHORT_UNALIGNED, off, (short) AF_INET);
        s.set(BE_SHORT, off + 2, (short) port);
        s.set(BE_INT, off + 4, Ipv4.of(a));
    }

    @Override
    public boolean connect(int addr, int port) {
        MemorySegment sa = arena.allocate(SOCKADDR_SIZE);
        writeSockaddr(sa, 0, Ipv4.address(addr), port);
        try {
            call(NATIVE.connect, "connect", fd, sa, SOCKADDR_SIZE);
        } catch (IOException e) {
            return false; // stays unconnected: every send names its destination
        }
        connectedAddr = addr;
        connectedPort = port;
        return true;
    }

    @Override
    public void countInto(SendStats s) {
        stats = s;
    }

    /** The socket's file descriptor (for {@link Waiter}). */
    int fd() {
        return fd;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    private void prepareTx(PacketBatch b) {
        if (txFor == b) {
            return;
        }
        txHdrs = arena.allocate((long) MMSG_SIZE * b.capacity, 8);
        // up to three iovecs per datagram: headers, payload in its region, CRC (a gathered one, Transmit)
        txIov = arena.allocate((long) IOVEC_SIZE * IOV_PER_DATAGRAM * b.capacity, 8);
        txAddr = arena.allocate((long) SOCKADDR_SIZE * b.capacity, 8);
        txGsoIov = arena.allocate((long) IOVEC_SIZE * IOV_PER_DATAGRAM * b.capacity, 8);
        txGsoControl = arena.allocate((long) CONTROL_SIZE * b.capacity, 8);
        msgSegments = new int[b.capacity];
        txFor = b;
    }

    /** Sends made with UDP GSO so far (each carried several datagrams). */
    long gsoSends() {
        return stats.gsoMessages;
    }

    @Override
    public int send(PacketBatch batch, int[] indices, int n) throws IOException {
        if (n == 0) {
            return 0;
        }
        prepareTx(batch);
        int msgs = 0;
        int k = 0;
        while (k < n) {
            int i = indices[k];
            int len = batch.length[i];
            // A GSO run: same destination, every segment of length len but the last, which may be shorter.
            int run = 1;
            if (gso) {
                long bytes = len;
                while (k + run < n && run < GSO_MAX_SEGMENTS) {
                    int j = indices[k + run];
                    if (batch.addr[j] != batch.addr[i] || batch.port[j] != batch.port[i] || batch.length[j] > len
                            || bytes + batch.length[j] > GSO_MAX_BYTES) {
                        break;
                    }
                    bytes += batch.length[j];
                    run++;
                    if (batch.length[j] < len) {
                        break; // only the last segment may be short
                    }
                }
            }
            long h = (long) msgs * MMSG_SIZE;
            if (batch.port[i] == connectedPort && batch.addr[i] == connectedAddr) {
                txHdrs.set(LONG, h + MSG_NAME, 0L); // the connected route: no lookup per datagram
                txHdrs.set(INT, h + MSG_NAMELEN, 0);
            } else {
                long sa = (long) i * SOCKADDR_SIZE;
                txAddr.set(ValueLayout.JAVA_SHORT_UNALIGNED, sa, (short) AF_INET);
                txAddr.set(BE_SHORT, sa + 2, (short) batch.port[i]);
                txAddr.set(BE_INT, sa + 4, batch.addr[i]);
                txHdrs.set(LONG, h + MSG_NAME, txAddr.address() + sa);
                txHdrs.set(INT, h + MSG_NAMELEN, SOCKADDR_SIZE);
            }
            txHdrs.set(INT, h + MSG_FLAGS, 0);
            if (run == 1) {
                long iov = (long) i * IOV_PER_DATAGRAM * IOVEC_SIZE;
                int count = iovecs(txIov, iov, batch, i);
                txHdrs.set(LONG, h + MSG_IOV, txIov.address() + iov);
                txHdrs.set(LONG, h + MSG_IOVLEN, (long) count);
                txHdrs.set(LONG, h + MSG_CONTROL, 0L);
                txHdrs.set(LONG, h + MSG_CONTROLLEN, 0L);
            } else {
                long iov = (long) k * IOV_PER_DATAGRAM * IOVEC_SIZE;
                int count = 0;
                for (int r = 0; r < run; r++) {
                    count += iovecs(txGsoIov, iov + (long) count * IOVEC_SIZE, batch, indices[k + r]);
                }
                long c = (long) msgs * CONTROL_SIZE;
                txGsoControl.set(LONG, c, 18L); // CMSG_LEN(sizeof(uint16_t))
                txGsoControl.set(INT, c + 8, IPPROTO_UDP);
                txGsoControl.set(INT, c + 12, UDP_SEGMENT);
                txGsoControl.set(ValueLayout.JAVA_SHORT_UNALIGNED, c + 16, (short) len);
                txHdrs.set(LONG, h + MSG_IOV, txGsoIov.address() + iov);
                txHdrs.set(LONG, h + MSG_IOVLEN, (long) count);
                txHdrs.set(LONG, h + MSG_CONTROL, txGsoControl.address() + c);
                txHdrs.set(LONG, h + MSG_CONTROLLEN, 24L); // CMSG_SPACE(sizeof(uint16_t))
            }
            msgSegments[msgs++] = run;
            k += run;
        }
        int sentMsgs = 0;
        int sent = 0;
        SendStats st = stats;
        while (sentMsgs < msgs) {
            int r;
            st.sendCalls++;
            try {
                // the whole array on the first call (a slice is an object: only after a partial send)
                MemorySegment from = sentMsgs == 0 ? txHdrs : txHdrs.asSlice((long) sentMsgs * MMSG_SIZE);
                r = (int) NATIVE.sendmmsg.invokeExact(errState, fd, from, msgs - sentMsgs, 0);
            } catch (Throwable t) {
                throw new IOException("sendmmsg failed: " + t, t);
            }
            if (r < 0) {
                int e = (int) NATIVE.errno.get(errState, 0L);
                if (e == EINTR) {
                    continue;
                }
                if (e == EAGAIN) {
                    break; // socket buffer full: the rest are lost, the protocol resends them
                }
                if (msgSegments[sentMsgs] > 1 && (e == 22 || e == 5 || e == 95)) {
                    gso = false; // EINVAL/EIO/EOPNOTSUPP: this path cannot do GSO; plain sends from now on
                }
                // An unreachable or refused destination fails one message: skip it, send the rest.
                sentMsgs++;
                continue;
            }
            if (r == 0) {
                break;
            }
            for (int m = sentMsgs; m < sentMsgs + r; m++) {
                int segs = msgSegments[m];
                sent += segs;
                if (segs > 1) {
                    st.gsoMessages++;
                    st.gsoSegments += segs;
                }
            }
            st.messages += r;
            sentMsgs += r;
        }
        st.datagrams += sent;
        return sent;
    }

    /**
     * Writes the iovecs of datagram {@code i} of {@code b} at {@code iov[at]}: its slot, or for a gathered one the
     * slot's headers, the payload in its region and the slot's CRC. Returns how many (1 or 3).
     */
    private static int iovecs(MemorySegment iov, long at, PacketBatch b, int i) {
        long slot = b.slots[i].address();
        int g = b.gatherLength[i];
        if (g == 0) {
            iov.set(LONG, at, slot);
            iov.set(LONG, at + 8, b.length[i]);
            return 1;
        }
        int h = b.headerLength[i];
        iov.set(LONG, at, slot);
        iov.set(LONG, at + 8, h);
        iov.set(LONG, at + IOVEC_SIZE, b.gatherAddress(i));
        iov.set(LONG, at + IOVEC_SIZE + 8, g);
        iov.set(LONG, at + 2 * IOVEC_SIZE, slot + h);
        iov.set(LONG, at + 2 * IOVEC_SIZE + 8, b.length[i] - h - g);
        return 3;
    }

    private void prepareRx(PacketBatch b) {
        if (rxFor == b) {
            return;
        }
        rxHdrs = arena.allocate((long) MMSG_SIZE * b.capacity, 8);
        rxIov = arena.allocate((long) IOVEC_SIZE * b.capacity, 8);
        rxAddr = arena.allocate((long) SOCKADDR_SIZE * b.capacity, 8);
        rxControl = arena.allocate((long) CONTROL_SIZE * b.capacity, 8);
        for (int i = 0; i < b.capacity; i++) {
            rxIov.set(LONG, (long) i * IOVEC_SIZE, b.slots[i].address());
            rxIov.set(LONG, (long) i * IOVEC_SIZE + 8, b.slotSize);
        }
        rxFor = b;
    }

    @Override
    public int receive(PacketBatch batch) throws IOException {
        prepareRx(batch);
        int cap = batch.capacity;
        for (int i = 0; i < cap; i++) {
            long h = (long) i * MMSG_SIZE;
            rxHdrs.set(LONG, h + MSG_NAME, rxAddr.address() + (long) i * SOCKADDR_SIZE);
            rxHdrs.set(INT, h + MSG_NAMELEN, SOCKADDR_SIZE);
            rxHdrs.set(LONG, h + MSG_IOV, rxIov.address() + (long) i * IOVEC_SIZE);
            rxHdrs.set(LONG, h + MSG_IOVLEN, 1L);
            rxHdrs.set(LONG, h + MSG_CONTROL, rxControl.address() + (long) i * CONTROL_SIZE);
            rxHdrs.set(LONG, h + MSG_CONTROLLEN, (long) CONTROL_SIZE);
            rxHdrs.set(INT, h + MSG_FLAGS, 0);
        }
        int r;
        try {
            r = (int) NATIVE.recvmmsg.invokeExact(errState, fd, rxHdrs, cap, MSG_DONTWAIT, MemorySegment.NULL);
        } catch (Throwable t) {
            throw new IOException("recvmmsg failed: " + t, t);
        }
        if (r < 0) {
            int e = (int) NATIVE.errno.get(errState, 0L);
            if (e == EAGAIN || e == EINTR) {
                batch.count = 0;
                return 0;
            }
            throw new IOException("recvmmsg failed: errno " + e + " (" + Errno.name(e) + ")");
        }
        // arrival times on System.nanoTime's clock (CLOCK_MONOTONIC): the kernel's stamp where there is one,
        // else now (the moment the batch was handed over)
        long handedOver = System.nanoTime();
        long realtimeOffset = stamps ? realtimeMinusMonotonic() : 0;
        for (int i = 0; i < r; i++) {
            long h = (long) i * MMSG_SIZE;
            batch.arrivalNs[i] = handedOver;
            batch.length[i] = rxHdrs.get(INT, h + MSG_LEN);
            long sa = (long) i * SOCKADDR_SIZE;
            batch.port[i] = Short.toUnsignedInt(rxAddr.get(BE_SHORT, sa + 2));
            batch.addr[i] = rxAddr.get(BE_INT, sa + 4);
            batch.ecn[i] = 0;
            batch.dscp[i] = 0;
            batch.segmentSize[i] = 0;
            // A datagram longer than the slot arrives cut short: the caller must drop it, not parse it.
            batch.truncated[i] = (rxHdrs.get(INT, h + MSG_FLAGS) & MSG_TRUNC) != 0;
            // Walk the control messages: IP_TOS carries the DSCP and ECN bits, UDP_GRO the segment size.
            long clen = rxHdrs.get(LONG, h + MSG_CONTROLLEN);
            long base = (long) i * CONTROL_SIZE;
            long off = 0;
            while (off + 16 <= clen && off + 16 <= CONTROL_SIZE) {
                long len = rxControl.get(LONG, base + off);
                int level = rxControl.get(INT, base + off + 8);
                int type = rxControl.get(INT, base + off + 12);
                if (len < 16) {
                    break;
                }
                if (level == IPPROTO_IP && type == IP_TOS && len >= 17) {
                    int tos = rxControl.get(ValueLayout.JAVA_BYTE, base + off + 16) & 0xFF;
                    batch.ecn[i] = tos & 3;
                    batch.dscp[i] = tos >>> 2; // REL-17: a trimming switch marks what it cut with a codepoint
                } else if (level == IPPROTO_UDP && type == UDP_GRO && len >= 20) {
                    batch.segmentSize[i] = rxControl.get(INT, base + off + 16);
                } else if (level == SOL_SOCKET && type == SO_TIMESTAMPNS && len >= 32 && realtimeOffset != 0) {
                    long at = rxControl.get(LONG, base + off + 16) * 1_000_000_000L
                            + rxControl.get(LONG, base + off + 24) - realtimeOffset;
                    batch.arrivalNs[i] = at - handedOver < 0 ? at : handedOver;
                }
                off += (len + 7) & ~7L;
            }
        }
        batch.count = r;
        return r;
    }

    /** CLOCK_REALTIME minus CLOCK_MONOTONIC now, in ns (0 when the clocks cannot be read). */
    private long realtimeMinusMonotonic() {
        if (realtime == null) {
            realtime = arena.allocate(16, 8);
            monotonic = arena.allocate(16, 8);
        }
        try {
            int a = (int) NATIVE.clockGettime.invokeExact(CLOCK_REALTIME, realtime);
            int b = (int) NATIVE.clockGettime.invokeExact(CLOCK_MONOTONIC, monotonic);
            if (a != 0 || b != 0) {
                return 0;
            }
        } catch (Throwable t) {
            return 0;
        }
        return (realtime.get(LONG, 0) - monotonic.get(LONG, 0)) * 1_000_000_000L
                + realtime.get(LONG, 8) - monotonic.get(LONG, 8);
    }

    @Override
    public boolean seesEcn() {
        return true;
    }

    @Override
    public boolean gro() {
        return gro;
    }

    @Override
    public void close() {
        try {
            if (fd > 0) {
                NATIVE.close.invokeExact(fd);
            }
        } catch (Throwable ignored) {
            // nothing to recover on close
        }
        arena.close();
    }
}
