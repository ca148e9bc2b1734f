package io.metaroce.examples;

import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;
import io.metaroce.net.Device;
import io.metaroce.net.DeviceCq;
import io.metaroce.net.DeviceOptions;
import io.metaroce.net.DeviceQp;

import java.io.IOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.locks.LockSupport;

/** The few lines both examples share: arguments, opening a device, waiting for completions, lingering. */
final class Support {
    /** How long a step may take before the program gives up, in milliseconds. */
    static final long TIMEOUT_MS = 10_000;

    private Support() {
    }

    /** {@code HOST:PORT} or {@code [IPv6]:PORT}; exits with a one-line message on anything else. */
    static InetSocketAddress hostPort(String text) {
        int colon = text.lastIndexOf(':');
        String host = colon > 0 ? text.substring(0, colon) : "";
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        try {
            int port = Integer.parseInt(text.substring(colon + 1));
            if (!host.isEmpty() && port >= 0 && port <= 65_535) {
                return new InetSocketAddress(address(host), port);
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw usage("expected HOST:PORT, got " + text);
    }

    static InetAddress address(String host) {
        try {
            return InetAddress.getByName(host);
        } catch (UnknownHostException e) {
            throw usage("unknown host " + host);
        }
    }

    /** An int argument at {@code index}, or {@code dflt} when absent. */
    static int intArg(String[] args, int index, int dflt, String name) {
        if (args.length <= index) {
            return dflt;
        }
        try {
            int v = Integer.parseInt(args[index]);
            if (v > 0) {
                return v;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw usage(name + " must be a positive integer, got " + args[index]);
    }

    static IllegalArgumentException usage(String message) {
        return new IllegalArgumentException(message);
    }

    /**
     * A device with one plane on {@code local}: the server passes the port it listens on (0 = any free one),
     * the client 0. Both sides use the same engine defaults, so they agree on MTU and paths.
     */
    static Device open(InetAddress local, int port, String name) throws IOException {
        return Device.open(new DeviceOptions().planes(List.of(local)).port(port).name(name));
    }

    /**
     * Listens with {@code pd} and {@code cq} (for sends and receives), prints {@code listening on ADDR:PORT}
     * and waits up to a minute for one client's connection.
     */
    static DeviceQp acceptOne(Device device, ProtectionDomain pd, DeviceCq cq) throws IOException, InterruptedException {
        device.listen(pd, cq, cq);
        System.out.printf(Locale.ROOT, "listening on %s:%d%n",
                device.planeAddresses().get(0).getAddress().getHostAddress(), device.port());
        System.out.flush();
        DeviceQp qp = device.accept(60_000);
        if (qp == null) {
            throw new IOException("no client within 60 s");
        }
        return qp;
    }

    /**
     * Polls {@code cq} until {@code n} completions have arrived, each successful (the last one stays in {@code wc}).
     * A completion with an error status, or no completion for {@link #TIMEOUT_MS}, is an IOException naming
     * {@code what}.
     */
    static void await(DeviceCq cq, WorkCompletion wc, int n, String what) throws IOException {
        long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000;
        for (int got = 0; got < n; ) {
            if (cq.poll(wc)) {
                if (wc.status() != WcStatus.SUCCESS) {
                    throw new IOException(what + ": work request " + wc.wrId() + " completed with " + wc.status());
                }
                got++;
                deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000;
            } else if (System.nanoTime() - deadline > 0) {
                throw new IOException(what + ": no completion within " + TIMEOUT_MS + " ms");
            } else {
                Thread.yield(); // the device's I/O thread may share this core; Thread.onSpinWait() if it does not
            }
        }
    }

    /** Deterministic bytes from {@code seed}: the sender writes them, the receiver checks them. */
    static void fill(MemorySegment seg, long seed) {
        long x = seed * 0x9E37_79B9_7F4A_7C15L;
        for (long off = 0; off < seg.byteSize(); off++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
            seg.set(ValueLayout.JAVA_BYTE, off, (byte) (x >>> 56));
        }
    }

    /** A post returns OK, EINVAL (bad arguments) or ENOMEM (queue full: poll and retry). */
    static void check(int rc, String what) throws IOException {
        if (rc != QueuePair.OK) {
            throw new IOException("cannot " + what + ": " + (rc == QueuePair.ENOMEM ? "queue full (ENOMEM)"
                    : rc == QueuePair.EINVAL ? "bad arguments (EINVAL)" : "error " + rc));
        }
    }

    /**
     * The side that receives the last message waits a moment before closing its device, so that the
     * acknowledgement of that message leaves (closing a device does not flush what it has not sent yet;
     * without the ACK the peer's last SEND would time out).
     */
    static void linger() {
        LockSupport.parkNanos(200_000_000L);
    }

    /** Runs {@code body}, turning a bad argument or an I/O failure into a one-line message and exit code. */
    static void main(String usage, Body body) {
        try {
            body.run();
        } catch (IllegalArgumentException e) {
            System.err.println("error: " + e.getMessage());
            System.err.println("usage: " + usage);
            System.exit(2);
        } catch (IOException | IllegalStateException e) {
            System.err.println("error: " + e.getMessage());
            System.exit(1);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            System.exit(1);
        }
    }

    /** A program's body. */
    @FunctionalInterface
    interface Body {
        void run() throws IOException, InterruptedException;
    }
}
