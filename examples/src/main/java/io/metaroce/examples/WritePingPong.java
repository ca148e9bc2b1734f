package io.metaroce.examples;

import io.metaroce.core.Access;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WorkCompletion;
import io.metaroce.net.BufferExchange;
import io.metaroce.net.BufferInfo;
import io.metaroce.net.Device;
import io.metaroce.net.DeviceCq;
import io.metaroce.net.DeviceQp;

import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Arrays;
import java.util.Locale;

/**
 * A ping-pong between two processes with RDMA WRITE and SEND/RECV, the pattern of most RDMA request/response
 * programs: the client WRITEs {@code SIZE} bytes straight into the server's buffer and then SENDs a small
 * "ping" that tells the server the data is there; the server checks the bytes, WRITEs them back into the
 * client's buffer and SENDs "pong". Because a receive completes only after every earlier message of the
 * connection has landed (spec ORD-4), the SEND is all the notification a WRITE needs.
 *
 * <pre>
 * java io.metaroce.examples.WritePingPong server 127.0.0.1:7471 [SIZE [ITERS]]
 * java io.metaroce.examples.WritePingPong client 127.0.0.1 127.0.0.1:7471 [SIZE [ITERS]]
 * </pre>
 * The server's port 0 picks a free one; the server prints {@code listening on ADDR:PORT}. The client's first
 * address is its own (the plane it sends from). SIZE (bytes, default 4096) and ITERS (default 1000) must be
 * the same on both sides. Exit code 0 when every byte came back as sent, 1 on a failure, 2 on bad arguments.
 */
public final class WritePingPong {
    private static final String USAGE = "WritePingPong server ADDR:PORT [SIZE [ITERS]]"
            + " | WritePingPong client MY_ADDR SERVER_ADDR:PORT [SIZE [ITERS]]";

    // Work request ids: the application chooses them; the completion hands them back.
    private static final long WR_WRITE = 1;
    private static final long WR_PING = 2;
    private static final long WR_PONG = 3;

    private WritePingPong() {
    }

    /**
     * Runs one side.
     *
     * @param args {@code server ADDR:PORT [SIZE [ITERS]]} or {@code client MY_ADDR SERVER_ADDR:PORT [SIZE [ITERS]]}
     */
    public static void main(String[] args) {
        Support.main(USAGE, () -> {
            if (args.length >= 2 && args[0].equals("server")) {
                serve(Support.hostPort(args[1]), Support.intArg(args, 2, 4096, "SIZE"),
                        Support.intArg(args, 3, 1000, "ITERS"));
            } else if (args.length >= 3 && args[0].equals("client")) {
                ping(Support.address(args[1]), Support.hostPort(args[2]), Support.intArg(args, 3, 4096, "SIZE"),
                        Support.intArg(args, 4, 1000, "ITERS"));
            } else {
                throw Support.usage("expected 'server' or 'client' and addresses");
            }
        });
    }

    private static void serve(InetSocketAddress at, int size, int iters) throws IOException, InterruptedException {
        // The arena closes after the device (resources close in reverse order); shared, because the
        // device's I/O thread reads and writes the memory.
        try (Arena arena = Arena.ofShared(); Device device = Support.open(at.getAddress(), at.getPort(), "pingpong-server")) {
            // 1. Resources: a protection domain, one CQ for sends and receives, registered memory.
            ProtectionDomain pd = device.allocPd();
            DeviceCq cq = device.createCq(64);
            MemoryRegion in = device.registerMemory(pd, arena.allocate(size, 4096),
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE); // the client WRITEs here
            MemoryRegion ctrl = device.registerMemory(pd, arena.allocate(16, 8), Access.LOCAL_WRITE);

            // 2. Accept one connection (listen + accept); its QP uses the PD and CQ given to listen().
            DeviceQp qp = Support.acceptOne(device, pd, cq);

            // 3. Receives first (the client's buffer message, then its first ping), then swap buffer info.
            BufferExchange exchange = BufferExchange.prepare(device, pd, qp);
            Support.check(qp.postRecv(WR_PING, ctrl, 0, 8), "post the first ping receive");
            BufferInfo peer = exchange.sendThenReceive(BufferInfo.of(in), Support.TIMEOUT_MS);
            if (!peer.contains(0, size)) {
                throw new IOException("the client's buffer holds " + peer.length() + " bytes, less than " + size);
            }

            // 4. Serve: wait for ping i, check the bytes, echo them back with a WRITE, then SEND pong i.
            WorkCompletion wc = new WorkCompletion();
            MemorySegment expected = arena.allocate(size, 8);
            for (int i = 0; i < iters; i++) {
                Support.await(cq, wc, 1, "ping " + i);
                long seq = ctrl.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
                Support.fill(expected, i);
                if (seq != i || in.segment().mismatch(expected) != -1) {
                    throw new IOException("ping " + i + ": " + (seq != i ? "sequence " + seq : "data differs"));
                }
                if (i + 1 < iters) {
                    Support.check(qp.postRecv(WR_PING, ctrl, 0, 8), "post a ping receive");
                }
                Support.check(qp.postWrite(WR_WRITE, in, 0, size, peer.address(), peer.rkey(), QueuePair.SIGNALED),
                        "post the echo WRITE");
                ctrl.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 8, i);
                Support.check(qp.postSend(WR_PONG, ctrl, 8, 8, QueuePair.SIGNALED), "post pong");
                Support.await(cq, wc, 2, "echo " + i);
            }
            System.out.printf(Locale.ROOT, "served %d ping-pongs of %d bytes; data verified%n", iters, size);
        }
    }

    private static void ping(InetAddress me, InetSocketAddress server, int size, int iters)
            throws IOException {
        // The arena closes after the device (resources close in reverse order); shared, because the
        // device's I/O thread reads and writes the memory.
        try (Arena arena = Arena.ofShared(); Device device = Support.open(me, 0, "pingpong-client")) {
            ProtectionDomain pd = device.allocPd();
            DeviceCq cq = device.createCq(64);
            MemoryRegion out = device.registerMemory(pd, arena.allocate(size, 4096), Access.LOCAL_WRITE);
            MemoryRegion in = device.registerMemory(pd, arena.allocate(size, 4096),
                    Access.LOCAL_WRITE | Access.REMOTE_WRITE); // the server WRITEs its echo here
            MemoryRegion ctrl = device.registerMemory(pd, arena.allocate(16, 8), Access.LOCAL_WRITE);

            // A QP starts in INIT: receives may be posted before connecting, so the server's first message finds one.
            DeviceQp qp = device.createQp(pd, cq, cq);
            BufferExchange exchange = BufferExchange.prepare(device, pd, qp);
            device.connect(qp, server, Support.TIMEOUT_MS);
            BufferInfo peer = exchange.receiveThenSend(BufferInfo.of(in), Support.TIMEOUT_MS);
            if (!peer.contains(0, size)) {
                throw new IOException("the server's buffer holds " + peer.length() + " bytes, less than " + size);
            }

            WorkCompletion wc = new WorkCompletion();
            long[] rttNs = new long[iters];
            for (int i = 0; i < iters; i++) {
                Support.fill(out.segment(), i);
                long t0 = System.nanoTime();
                Support.check(qp.postRecv(WR_PONG, ctrl, 0, 8), "post the pong receive"); // before the ping: no RNR
                Support.check(qp.postWrite(WR_WRITE, out, 0, size, peer.address(), peer.rkey(), QueuePair.SIGNALED),
                        "post the WRITE");
                ctrl.segment().set(ValueLayout.JAVA_LONG_UNALIGNED, 8, i);
                Support.check(qp.postSend(WR_PING, ctrl, 8, 8, QueuePair.SIGNALED), "post ping");
                // three completions in any order: the WRITE's, the ping's and the pong's receive
                Support.await(cq, wc, 3, "ping-pong " + i);
                rttNs[i] = System.nanoTime() - t0;
                if (ctrl.segment().get(ValueLayout.JAVA_LONG_UNALIGNED, 0) != i
                        || in.segment().mismatch(out.segment()) != -1) {
                    throw new IOException("pong " + i + ": the echo differs from what was sent");
                }
            }
            Support.linger(); // this side received the last message: let its ACK leave
            Arrays.sort(rttNs);
            System.out.printf(Locale.ROOT, "%d ping-pongs of %d bytes: round trip p50 %.1f us, p99 %.1f us; "
                            + "data verified%n", iters, size, rttNs[iters / 2] / 1e3,
                    rttNs[Math.min(iters - 1, (int) (iters * 0.99))] / 1e3);
        }
    }
}
