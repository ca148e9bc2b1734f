package io.metaroce.bench;

import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * CPU time and bytes allocated per data packet of {@link EngineBench}'s engine pair with authentication off, tag
 * and encrypt (spec section 10), measured on the thread's own CPU clock so that other processes on a shared
 * machine do not count: rounds interleave the three modes (off, tag, encrypt, off, ...), and the min, median and
 * max of each are printed with the ratio of medians to "off". Both engines run on this thread, so a packet's
 * figure covers its seal at the sender and its open at the receiver (and one ACK's: {@code ackBundle} is off here, so each data packet is acknowledged by its own sealed ACK).
 *
 * <pre>java -cp bench/target/benchmarks.jar io.metaroce.bench.AuthCost [payload] [rounds] [batches per round]</pre>
 */
public final class AuthCost {
    private AuthCost() {
    }

    public static void main(String[] args) {
        int payload = args.length > 0 ? Integer.parseInt(args[0]) : 4096;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 7;
        int batches = args.length > 2 ? Integer.parseInt(args[2]) : 200;
        String[] modes = {"off", "tag", "encrypt"};
        EngineBench[] benches = new EngineBench[modes.length];
        for (int m = 0; m < modes.length; m++) {
            EngineBench b = new EngineBench();
            b.payload = payload;
            b.packetsPerMessage = 16;
            b.datagramBuffers = "split";
            b.transmit = "copy"; // AUTH never gathers (PacketWriter.finish seals a copied packet)
            b.auth = modes[m];
            b.setup();
            benches[m] = b;
        }
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        System.out.printf(Locale.ROOT, "warming up (%d batches of %d packets per mode)...%n", 5 * batches,
                EngineBench.BATCH);
        for (int m = 0; m < modes.length; m++) {
            for (int i = 0; i < 5 * batches; i++) {
                benches[m].engine();
            }
        }
        List<List<double[]>> samples = new ArrayList<>();
        for (int m = 0; m < modes.length; m++) {
            samples.add(new ArrayList<>());
        }
        for (int r = 0; r < rounds; r++) {
            for (int m = 0; m < modes.length; m++) {
                long cpu0 = mx.getCurrentThreadCpuTime();
                long alloc0 = mx.getThreadAllocatedBytes(tid);
                for (int i = 0; i < batches; i++) {
                    benches[m].engine();
                }
                double packets = (double) batches * EngineBench.BATCH;
                samples.get(m).add(new double[] {(mx.getCurrentThreadCpuTime() - cpu0) / packets,
                        (mx.getThreadAllocatedBytes(tid) - alloc0) / packets});
            }
            System.out.printf(Locale.ROOT, "round %d/%d done%n", r + 1, rounds);
        }
        for (EngineBench b : benches) {
            b.tearDown(); // checks data, drops and retransmissions
        }
        double offMedian = median(samples.get(0), 0);
        System.out.printf(Locale.ROOT, "%n%d B payload, %d rounds interleaved, CPU time of this thread per data packet"
                + " (seal + open + its share of ACKs)%n", payload, rounds);
        System.out.printf(Locale.ROOT, "%8s %10s %10s %10s %12s %9s %10s%n", "auth", "min ns", "median ns", "max ns",
                "Gb/s/core", "vs off", "B/packet");
        for (int m = 0; m < modes.length; m++) {
            List<double[]> s = samples.get(m);
            double med = median(s, 0);
            System.out.printf(Locale.ROOT, "%8s %10.0f %10.0f %10.0f %12.2f %9.3f %10.0f%n", modes[m], min(s, 0), med,
                    max(s, 0), payload * 8 / med, offMedian / med, median(s, 1));
        }
    }

    private static double[] column(List<double[]> s, int k) {
        return s.stream().mapToDouble(v -> v[k]).sorted().toArray();
    }

    private static double median(List<double[]> s, int k) {
        double[] c = column(s, k);
        return c[c.length / 2];
    }

    private static double min(List<double[]> s, int k) {
        return Arrays.stream(column(s, k)).min().orElse(0);
    }

    private static double max(List<double[]> s, int k) {
        return Arrays.stream(column(s, k)).max().orElse(0);
    }
}
