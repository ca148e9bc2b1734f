package io.metaroce.cli;

import io.metaroce.core.WorkCompletion;
import io.metaroce.core.Access;
import io.metaroce.core.Counter;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.net.Device;
import io.metaroce.net.DeviceCq;
import io.metaroce.net.DeviceOptions;
import io.metaroce.net.DeviceQp;
import io.metaroce.net.DeviceStats;

import java.io.IOException;
import java.io.PrintStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/** A real RDMA WRITE transfer between two devices over loopback UDP, with receiver-side injected loss. */
final class LoopbackDemo {
    /** What one run measured (wall-clock time, real sockets). */
    record Result(long bytes, double seconds, double goodputGbps, long injectedDrops, long retransmits,
                  long timeouts, boolean dataCorrect, String transport) {
    }

    private LoopbackDemo() {
    }

    static Result run(long bytes, int paths, double loss, PrintStream progress) throws IOException, InterruptedException {
        List<InetAddress> planes = new ArrayList<>();
        for (int i = 1; i <= 4; i++) {
            planes.add(InetAddress.getByName("127.0.0." + i));
        }
        // The device defaults for hosts whose cores are shared (timers that ride out scheduling stalls).
        EngineConfig cfg = DeviceOptions.realNetworkDefaults().paths(paths);
        try (Device a = Device.open(new DeviceOptions().planes(planes).port(0).engine(cfg).seed(1).name("demo-a")
                .injectLossForTesting(loss));
             Device b = Device.open(new DeviceOptions().planes(planes).port(0).engine(cfg).seed(2).name("demo-b")
                     .injectLossForTesting(loss))) {
            ProtectionDomain pa = a.allocPd();
            ProtectionDomain pb = b.allocPd();
            DeviceCq ca = a.createCq(1024);
            DeviceCq cb = b.createCq(1024);
            b.listen(pb, cb, cb);
            DeviceQp qa = a.createQp(pa, ca, ca);
            a.connect(qa, new InetSocketAddress(planes.get(0), b.port()), 5_000);
            if (b.accept(5_000) == null) {
                throw new IllegalStateException("loopback peer did not accept");
            }
            MemorySegment src = Arena.ofAuto().allocate(bytes, 4096);
            MemorySegment dst = Arena.ofAuto().allocate(bytes, 4096);
            SplittableRandom r = new SplittableRandom(7);
            for (long i = 0; i + 8 <= bytes; i += 8) {
                src.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
            }
            MemoryRegion ms = a.registerMemory(pa, src, Access.LOCAL_WRITE);
            MemoryRegion md = b.registerMemory(pb, dst, Access.ALL);
            int chunk = 1 << 20;
            int messages = (int) (bytes / chunk);
            WorkCompletion wc = new WorkCompletion();
            long t0 = System.nanoTime();
            int posted = 0;
            int done = 0;
            boolean ok = true;
            long lastReport = t0;
            while (done < messages) {
                while (posted < messages && posted - done < 32) {
                    if (qa.postWrite(posted, ms, (long) posted * chunk, chunk, md.address() + (long) posted * chunk,
                            md.rkey(), QueuePair.SIGNALED) != QueuePair.OK) {
                        break;
                    }
                    posted++;
                }
                if (ca.poll(wc)) {
                    ok &= wc.status() == WcStatus.SUCCESS;
                    done++;
                } else {
                    LockSupport.parkNanos(20_000);
                }
                long now = System.nanoTime();
                if (progress != null && now - lastReport > 1_000_000_000L) {
                    progress.printf(Locale.ROOT, "  ... %d of %d MiB%n", done, messages);
                    lastReport = now;
                }
                if (now - t0 > 120_000_000_000L) {
                    throw new IllegalStateException("loopback transfer stalled: " + done + "/" + messages
                            + "\n" + a.stats().format());
                }
            }
            double secs = (System.nanoTime() - t0) / 1e9;
            DeviceStats sa = a.stats();
            DeviceStats sb = b.stats();
            return new Result(bytes, secs, bytes * 8 / secs / 1e9, sa.injectedDrops() + sb.injectedDrops(),
                    sa.counters().getOrDefault(Counter.RETRANSMITS, 0L),
                    sa.counters().getOrDefault(Counter.TIMEOUTS, 0L), ok && src.mismatch(dst) == -1,
                    a.transportName());
        }
    }
}
