package io.metaroce.bench;

import io.metaroce.net.Device;
import io.metaroce.net.DeviceCq;
import io.metaroce.net.DeviceOptions;
import io.metaroce.net.DeviceQp;
import io.metaroce.core.ProtectionDomain;

import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * How long closing many connections takes on the real datapath (issue 11: perf's teardown of 4,000 QPs closed
 * them one CM_DREQ at a time and ran 25+ minutes). Two devices on loopback in one JVM; device A connects N QPs to
 * device B, then closes them all, in rounds that alternate the two ways:
 * <ul>
 *   <li>{@code serial}: one {@link Device#disconnect} per QP, each waiting for its answer (what perf did);</li>
 *   <li>{@code together}: one {@link Device#disconnectAll} (every DREQ at once, one wait).</li>
 * </ul>
 * Then the case that made the 25 minutes: the peer is gone (B closed), so no DREQ is answered and each close waits
 * out the whole wait. {@code together} is measured on all N QPs; {@code serial} costs one full wait per QP, so it is
 * measured on a sample of QPs and its per-QP time printed beside the product. Run with
 * {@code bench/teardown.sh [N] [rounds] [waitMs] [goneSample]}; progress goes to stderr.
 */
public final class TeardownBench {
    private TeardownBench() {
    }

    public static void main(String[] args) throws Exception {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 1000;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 3;
        long waitMs = args.length > 2 ? Long.parseLong(args[2]) : 3_000;
        int goneSample = args.length > 3 ? Integer.parseInt(args[3]) : 5;
        System.out.printf(Locale.ROOT, "teardown of %d QPs (4 paths, loopback), wait for answers %d ms, %d rounds "
                + "alternating serial / together%n", n, waitMs, rounds);
        System.out.printf("%-9s %-8s %6s %12s %13s %11s%n", "round", "mode", "QPs", "connect_s", "teardown_s",
                "unanswered");
        for (int r = 1; r <= rounds; r++) {
            boolean serialFirst = r % 2 == 1;
            for (int k = 0; k < 2; k++) {
                boolean serial = (k == 0) == serialFirst;
                run(String.valueOf(r), serial, n, waitMs, false);
            }
        }
        run("peer gone", false, n, waitMs, true);
        if (goneSample > 0) {
            double s = run("peer gone", true, goneSample, waitMs, true);
            System.out.printf(Locale.ROOT, "serial with the peer gone: %.2f s per QP, so %d QPs would take %.0f s "
                    + "(%.1f min)%n", s / goneSample, n, s / goneSample * n, s / goneSample * n / 60);
        }
    }

    /** A loopback device as perf makes one: the real-network defaults with perf's 4 paths. */
    private static DeviceOptions options() throws Exception {
        return new DeviceOptions().planes(List.of(InetAddress.getByName("127.0.0.1"))).port(0)
                .engine(DeviceOptions.realNetworkDefaults().paths(4));
    }

    /** One measurement; returns the teardown time, s. */
    private static double run(String round, boolean serial, int n, long waitMs, boolean peerGone) throws Exception {
        try (Device a = Device.open(options())) {
            List<DeviceQp> qps = new ArrayList<>(n);
            long t0;
            double connectS;
            try (Device b = Device.open(options())) {
                ProtectionDomain pb = b.allocPd();
                DeviceCq cb = b.createCq(4 * n + 64);
                b.listen(pb, cb, cb);
                InetSocketAddress at = new InetSocketAddress(InetAddress.getByName("127.0.0.1"), b.port());
                ProtectionDomain pa = a.allocPd();
                DeviceCq ca = a.createCq(4 * n + 64);
                t0 = System.nanoTime();
                for (int i = 0; i < n; i++) {
                    DeviceQp q = a.createQp(pa, ca, ca);
                    a.connect(q, at, 10_000);
                    if (b.accept(10_000) == null) {
                        throw new IllegalStateException("QP " + i + " was not accepted");
                    }
                    qps.add(q);
                    if ((i + 1) % 250 == 0) {
                        System.err.printf("  %s %s: %d of %d connected%n", round, serial ? "serial" : "together",
                                i + 1, n);
                    }
                }
                connectS = (System.nanoTime() - t0) / 1e9;
                if (!peerGone) {
                    return report(round, serial, a, qps, waitMs, connectS);
                }
            }
            return report(round, serial, a, qps, waitMs, connectS);
        }
    }

    private static double report(String round, boolean serial, Device a, List<DeviceQp> qps, long waitMs,
                                 double connectS) {
        long t0 = System.nanoTime();
        int unanswered = 0;
        if (serial) {
            for (DeviceQp q : qps) {
                if (!a.disconnect(q, waitMs)) {
                    unanswered++;
                }
            }
        } else {
            unanswered = a.disconnectAll(qps, waitMs).size();
        }
        double s = (System.nanoTime() - t0) / 1e9;
        System.out.printf(Locale.ROOT, "%-9s %-8s %6d %12.2f %13.3f %11d%n", round, serial ? "serial" : "together",
                qps.size(), connectS, s, unanswered);
        System.out.flush();
        return s;
    }
}
