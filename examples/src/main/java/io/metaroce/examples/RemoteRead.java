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
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.Locale;

/**
 * One-sided RDMA READ between two processes: the server exports a buffer (registered with
 * {@link Access#REMOTE_READ}) and tells the client where it is; the client READs all of it into its own memory,
 * with several READs in flight, without the server's application doing anything meanwhile, checks the bytes,
 * and SENDs "done" so that the server knows it may close.
 *
 * <pre>
 * java io.metaroce.examples.RemoteRead server 127.0.0.1:7472 [SIZE]
 * java io.metaroce.examples.RemoteRead client 127.0.0.1 127.0.0.1:7472
 * </pre>
 * SIZE is the exported buffer's size in bytes (default 16 MiB); the client learns it from the buffer message,
 * and the tag of that message carries the seed of the bytes, so the client can check them. Exit code 0 when
 * every byte read matched, 1 on a failure, 2 on bad arguments.
 */
public final class RemoteRead {
    private static final String USAGE = "RemoteRead server ADDR:PORT [SIZE] | RemoteRead client MY_ADDR SERVER_ADDR:PORT";
    /** Bytes per READ. */
    private static final int CHUNK = 64 * 1024;
    /** READs in flight at once (at most the send queue's depth). */
    private static final int IN_FLIGHT = 16;
    private static final long WR_DONE = 1L << 62;

    private RemoteRead() {
    }

    /**
     * Runs one side.
     *
     * @param args {@code server ADDR:PORT [SIZE]} or {@code client MY_ADDR SERVER_ADDR:PORT}
     */
    public static void main(String[] args) {
        Support.main(USAGE, () -> {
            if (args.length >= 2 && args[0].equals("server")) {
                export(Support.hostPort(args[1]), Support.intArg(args, 2, 16 << 20, "SIZE"));
            } else if (args.length == 3 && args[0].equals("client")) {
                read(Support.address(args[1]), Support.hostPort(args[2]));
            } else {
                throw Support.usage("expected 'server' or 'client' and addresses");
            }
        });
    }

    private static void export(InetSocketAddress at, int size) throws IOException, InterruptedException {
        // The arena closes after the device (resources close in reverse order); shared, because the
        // device's I/O thread reads and writes the memory.
        try (Arena arena = Arena.ofShared(); Device device = Support.open(at.getAddress(), at.getPort(), "read-server")) {
            ProtectionDomain pd = device.allocPd();
            DeviceCq cq = device.createCq(16);
            int seed = (int) System.nanoTime();
            MemorySegment data = arena.allocate(size, 4096);
            Support.fill(data, seed);
            MemoryRegion exported = device.registerMemory(pd, data, Access.LOCAL_WRITE | Access.REMOTE_READ);
            MemoryRegion ctrl = device.registerMemory(pd, arena.allocate(8, 8), Access.LOCAL_WRITE);

            DeviceQp qp = Support.acceptOne(device, pd, cq);
            BufferExchange exchange = BufferExchange.prepare(device, pd, qp);
            Support.check(qp.postRecv(WR_DONE, ctrl, 0, 8), "post the receive for done");
            BufferInfo whole = BufferInfo.of(exported);
            exchange.sendThenReceive(new BufferInfo(whole.address(), whole.length(), whole.rkey(), seed),
                    Support.TIMEOUT_MS);
            // Nothing to do while the client READs: the device answers READs without the application.
            WorkCompletion wc = new WorkCompletion();
            Support.await(cq, wc, 1, "waiting for done");
            Support.linger(); // this side received the last message: let its ACK leave
            System.out.printf(Locale.ROOT, "exported %d bytes; the client read them%n", size);
        }
    }

    private static void read(InetAddress me, InetSocketAddress server) throws IOException {
        // The arena closes after the device (resources close in reverse order); shared, because the
        // device's I/O thread reads and writes the memory.
        try (Arena arena = Arena.ofShared(); Device device = Support.open(me, 0, "read-client")) {
            ProtectionDomain pd = device.allocPd();
            DeviceCq cq = device.createCq(IN_FLIGHT + 4);
            MemoryRegion ctrl = device.registerMemory(pd, arena.allocate(8, 8), Access.LOCAL_WRITE);
            DeviceQp qp = device.createQp(pd, cq, cq);
            BufferExchange exchange = BufferExchange.prepare(device, pd, qp);
            device.connect(qp, server, Support.TIMEOUT_MS);
            // This side exports nothing: it sends an empty buffer message.
            BufferInfo remote = exchange.receiveThenSend(new BufferInfo(0, 0, 0, 0), Support.TIMEOUT_MS);

            // The READs' sink: LOCAL_WRITE, because the device writes the data read into it.
            MemoryRegion sink = device.registerMemory(pd, arena.allocate(Math.max(1, remote.length()), 4096),
                    Access.LOCAL_WRITE);
            long t0 = System.nanoTime();
            long posted = 0;
            long done = 0;
            long chunks = (remote.length() + CHUNK - 1) / CHUNK;
            WorkCompletion wc = new WorkCompletion();
            while (done < chunks) {
                while (posted < chunks && posted - done < IN_FLIGHT) {
                    long off = posted * CHUNK;
                    int len = (int) Math.min(CHUNK, remote.length() - off);
                    int rc = qp.postRead(posted, sink, off, len, remote.address() + off, remote.rkey(),
                            QueuePair.SIGNALED);
                    if (rc == QueuePair.ENOMEM) {
                        break; // send queue full: poll first
                    }
                    Support.check(rc, "post READ " + posted);
                    posted++;
                }
                Support.await(cq, wc, 1, "READ " + done);
                done++;
            }
            double seconds = (System.nanoTime() - t0) / 1e9;
            MemorySegment expected = arena.allocate(Math.max(1, remote.length()), 8);
            Support.fill(expected, remote.tag());
            long at = sink.segment().mismatch(expected);
            if (at != -1) {
                throw new IOException("byte " + at + " read differs from the server's");
            }
            Support.check(qp.postSend(WR_DONE, ctrl, 0, 8, QueuePair.SIGNALED), "post done");
            Support.await(cq, wc, 1, "done");
            System.out.printf(Locale.ROOT, "read %d bytes in %.1f ms (%.2f Gb/s); data verified%n",
                    remote.length(), seconds * 1e3, remote.length() * 8 / seconds / 1e9);
        }
    }
}
