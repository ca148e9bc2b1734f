package io.metaroce.net;

import io.metaroce.core.WorkCompletion;
import io.metaroce.core.Access;
import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * One end of a test-bed transfer, run as its own JVM inside a host namespace:
 * {@code server PLANES PORT BYTES SEED} or {@code client PLANES PORT BYTES SEED SERVER_ADDR}. The server
 * registers BYTES, sends its (va, rkey) to the client in a SEND, waits for the client's "done" SEND and checks
 * every byte against the seeded pattern; the client WRITEs the pattern in 1 MiB messages. Each prints its
 * counters as {@code COUNTER name value} lines and exits 0 only on success.
 */
public final class TestbedPeer {
    private TestbedPeer() {
    }

    public static void main(String[] args) throws Exception {
        String role = args[0];
        List<InetAddress> planes = new ArrayList<>();
        for (String a : args[1].split(",")) {
            planes.add(InetAddress.getByName(a));
        }
        int port = Integer.parseInt(args[2]);
        long bytes = Long.parseLong(args[3]);
        long seed = Long.parseLong(args[4]);
        EngineConfig cfg = new EngineConfig().paths(planes.size() * 2).mtu(8192).minRtoNs(5_000_000)
                .initialRtoNs(10_000_000).ackDelayNs(20_000).initialWindowPackets(16).probeIntervalNs(5_000_000)
                .maxRtoNs(200_000_000);
        try (Device d = Device.open(new DeviceOptions().planes(planes).port(port).engine(cfg).seed(seed)
                .name(role))) {
            boolean ok = role.equals("server") ? server(d, bytes, seed) : client(d, bytes, seed,
                    new InetSocketAddress(InetAddress.getByName(args[5]), port));
            DeviceStats s = d.stats();
            s.counters().forEach((k, v) -> System.out.println("COUNTER " + k + " " + v));
            System.out.println("COUNTER TX_SEND_DROPS " + s.txSendDrops());
            System.out.println(s.format());
            System.out.println(ok ? "RESULT ok" : "RESULT failed");
            System.out.flush();
            System.exit(ok ? 0 : 1);
        }
    }

    private static WorkCompletion next(DeviceCq cq, WorkCompletion wc, long timeoutNs) {
        long deadline = System.nanoTime() + timeoutNs;
        while (!cq.poll(wc)) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("no completion within " + timeoutNs / 1_000_000 + " ms");
            }
            LockSupport.parkNanos(20_000);
        }
        return wc;
    }

    private static boolean server(Device d, long bytes, long seed) {
        ProtectionDomain pd = d.allocPd();
        DeviceCq cq = d.createCq(1024);
        d.listen(pd, cq, cq);
        MemorySegment region = Arena.ofAuto().allocate(bytes, 4096);
        MemoryRegion mr = d.registerMemory(pd, region, Access.ALL);
        MemorySegment info = Arena.ofAuto().allocate(64);
        MemoryRegion infoMr = d.registerMemory(pd, info, Access.ALL);
        System.out.println("READY " + d.port());
        System.out.flush();
        DeviceQp qp;
        try {
            qp = d.accept(120_000);
        } catch (InterruptedException e) {
            return false;
        }
        if (qp == null) {
            System.out.println("no client");
            return false;
        }
        qp.postRecv(2, infoMr, 32, 16); // the client's "done"
        info.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, mr.address());
        info.set(ValueLayout.JAVA_LONG_UNALIGNED, 8, mr.rkey());
        info.set(ValueLayout.JAVA_LONG_UNALIGNED, 16, bytes);
        qp.postSend(1, infoMr, 0, 24, QueuePair.SIGNALED);
        WorkCompletion wc = new WorkCompletion();
        boolean ok = true;
        for (int i = 0; i < 2; i++) {
            next(cq, wc, 600_000_000_000L);
            ok &= wc.status() == WcStatus.SUCCESS;
            System.out.println("server completion " + wc);
        }
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i + 8 <= bytes; i += 8) {
            if (region.get(ValueLayout.JAVA_LONG_UNALIGNED, i) != r.nextLong()) {
                System.out.println("DATA mismatch at byte " + i);
                return false;
            }
        }
        System.out.println("DATA verified " + bytes + " bytes");
        return ok;
    }

    private static boolean client(Device d, long bytes, long seed, InetSocketAddress server) {
        ProtectionDomain pd = d.allocPd();
        DeviceCq cq = d.createCq(4096);
        DeviceQp qp = d.createQp(pd, cq, cq);
        MemorySegment info = Arena.ofAuto().allocate(64);
        MemoryRegion infoMr = d.registerMemory(pd, info, Access.ALL);
        qp.postRecv(100, infoMr, 0, 64);
        d.connect(qp, server, 30_000);
        WorkCompletion wc = new WorkCompletion();
        next(cq, wc, 30_000_000_000L);
        long va = info.get(ValueLayout.JAVA_LONG_UNALIGNED, 0);
        int rkey = (int) info.get(ValueLayout.JAVA_LONG_UNALIGNED, 8);
        MemorySegment src = Arena.ofAuto().allocate(bytes, 4096);
        SplittableRandom r = new SplittableRandom(seed);
        for (long i = 0; i + 8 <= bytes; i += 8) {
            src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }
        MemoryRegion ms = d.registerMemory(pd, src, Access.LOCAL_WRITE);
        int chunk = 1 << 20;
        int messages = (int) (bytes / chunk);
        System.out.println("STARTED");
        System.out.flush();
        long t0 = System.nanoTime();
        int posted = 0;
        int done = 0;
        boolean ok = true;
        while (done < messages) {
            while (posted < messages && posted - done < 16
                    && qp.postWrite(posted, ms, (long) posted * chunk, chunk, va + (long) posted * chunk, rkey,
                    QueuePair.SIGNALED) == QueuePair.OK) {
                posted++;
            }
            next(cq, wc, 120_000_000_000L);
            if (wc.status() != WcStatus.SUCCESS) {
                System.out.println("ERROR completion " + wc);
                ok = false;
            }
            done++;
        }
        double secs = (System.nanoTime() - t0) / 1e9;
        System.out.printf("GOODPUT %.3f Gb/s over %.2f s%n", bytes * 8 / secs / 1e9, secs);
        qp.postSend(101, infoMr, 0, 8, QueuePair.SIGNALED); // "done"
        next(cq, wc, 30_000_000_000L);
        ok &= wc.status() == WcStatus.SUCCESS;
        long failovers = d.stats().counters().getOrDefault(Counter.PATH_FAILOVERS, 0L);
        System.out.println("FAILOVERS " + failovers);
        return ok;
    }
}
