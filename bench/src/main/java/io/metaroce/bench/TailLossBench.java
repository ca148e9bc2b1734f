package io.metaroce.bench;

import io.metaroce.core.Access;
import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;
import io.metaroce.testkit.Network;
import io.metaroce.core.unit.Quantity;
import io.metaroce.core.wire.BaseHeader;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.SplittableRandom;

/**
 * Chained messages under random loss, on virtual time: what a lost packet at the end of a collective step costs.
 * One QP writes {@code --messages} messages of {@code --bytes} one after another, each posted when the previous one
 * completes (a step of a ring collective waits for the previous one the same way), over a two-node network of
 * 100 Gb/s ports and 1 us links that drops {@code --loss} of all datagrams (data and control, end to end). Prints
 * the message time (p50 / p99 / mean) over all messages, and {@code tail_recovery_us}: for the messages that lost a
 * packet, the time from the message's last original transmission to its completion (p50 / p99), beside the same
 * time for messages that lost nothing. Usage: {@code bench/tail-loss.sh [--loss 0.01] [--bytes 256KiB]
 * [--messages 2000] [--paths 16] [--seed 1] [--tail-copy true] [--tail-probes 2] [--missing-nak true]
 * [--parity-tail 0]}.
 */
public final class TailLossBench {
    private TailLossBench() {
    }

    public static void main(String[] args) {
        double loss = 0.01;
        long bytes = 256 << 10;
        int messages = 2000;
        int paths = 16;
        long seed = 1;
        boolean tailCopy = true;
        int tailProbes = new EngineConfig().tailProbes;
        boolean missingNak = new EngineConfig().missingNak;
        int parityTail = 0;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                fail("option " + args[i] + " needs a value");
            }
            String v = args[i + 1];
            try {
                switch (args[i]) {
                    case "--loss" -> loss = Quantity.fraction(v);
                    case "--bytes" -> bytes = Quantity.bytes(v);
                    case "--messages" -> messages = Integer.parseInt(v);
                    case "--paths" -> paths = Integer.parseInt(v);
                    case "--seed" -> seed = Long.parseLong(v);
                    case "--tail-copy" -> tailCopy = Boolean.parseBoolean(v);
                    case "--tail-probes" -> tailProbes = Integer.parseInt(v);
                    case "--missing-nak" -> missingNak = Boolean.parseBoolean(v);
                    case "--parity-tail" -> parityTail = Integer.parseInt(v);
                    default -> fail("unknown option " + args[i] + " (--loss --bytes --messages --paths --seed --tail-copy "
                            + "--tail-probes --missing-nak --parity-tail)");
                }
            } catch (IllegalArgumentException e) {
                fail("bad value for " + args[i] + ": " + e.getMessage());
            }
        }
        if (bytes < 1 || bytes > Integer.MAX_VALUE || messages < 1 || paths < 1 || paths > 256 || loss < 0 || loss >= 1
                || tailProbes < 1 || tailProbes > 8 || parityTail != 0 && (parityTail < 2 || parityTail > 255)) {
            fail("need 1 <= bytes < 2 GiB, messages >= 1, 1 <= paths <= 256, 0 <= loss < 1, 1 <= tail-probes <= 8, "
                    + "parity-tail 0 or 2..255");
        }
        run(loss, (int) bytes, messages, paths, seed, tailCopy, tailProbes, missingNak, parityTail);
    }

    private static void fail(String msg) {
        System.err.println("tail-loss: " + msg);
        System.exit(2);
    }

    private static void run(double loss, int bytes, int messages, int paths, long seed, boolean tailCopy,
                            int tailProbes, boolean missingNak, int parityTail) {
        EngineConfig cfg = new EngineConfig().paths(paths).planes(Math.min(4, paths)).mtu(4096)
                .txRateBps(100_000_000_000L).tailCopy(tailCopy).tailProbes(tailProbes).missingNak(missingNak)
                .parityTailSegments(parityTail);
        Network net = Network.datacenter(seed, 2, cfg);
        SplittableRandom drops = new SplittableRandom(seed * 31 + 7);
        boolean[] lost = new boolean[messages];
        int[] current = {0};
        long[] lastSendNs = {0};
        net.setDropRule(d -> {
            boolean data = d.isData() && d.src() == 0;
            if (data && (d.flags() & BaseHeader.FLAG_RETRANSMIT) == 0) {
                lastSendNs[0] = net.nowNs(); // the newest original data packet of the current message
            }
            boolean drop = drops.nextDouble() < loss;
            if (drop && data) {
                lost[current[0]] = true;
            }
            return drop;
        });
        Engine a = net.engine(0);
        Engine b = net.engine(1);
        ProtectionDomain pa = a.allocPd();
        ProtectionDomain pb = b.allocPd();
        CompletionQueue cqa = a.createCq(64);
        CompletionQueue cqb = b.createCq(64);
        QueuePair qa = a.createQp(pa, cqa, cqa);
        QueuePair qb = b.createQp(pb, cqb, cqb);
        net.connect(0, qa, 1, qb, 1, 1);
        Arena arena = Arena.ofAuto();
        MemoryRegion src = a.registerMemory(pa, arena.allocate(bytes, 64), Access.LOCAL_WRITE);
        MemoryRegion dst = b.registerMemory(pb, arena.allocate(bytes, 64), Access.ALL);
        long[] messageNs = new long[messages];
        long[] tailNs = new long[messages];
        WorkCompletion wc = new WorkCompletion();
        long started = System.nanoTime();
        for (int m = 0; m < messages; m++) {
            current[0] = m;
            long t0 = net.nowNs();
            if (qa.postWrite(m, src, 0, bytes, dst.address(), dst.rkey(), QueuePair.SIGNALED) != QueuePair.OK) {
                fail("post failed at message " + m);
            }
            boolean[] done = {false};
            boolean ok = net.runUntil(() -> {
                while (cqa.poll(wc)) {
                    if (wc.status() != WcStatus.SUCCESS) {
                        fail("message " + wc.wrId() + " completed " + wc.status());
                    }
                    done[0] = true;
                }
                return done[0];
            }, t0 + 10_000_000_000L);
            if (!ok) {
                fail("message " + m + " did not complete within 10 s of virtual time");
            }
            messageNs[m] = net.nowNs() - t0;
            tailNs[m] = net.nowNs() - lastSendNs[0];
            if (m % 500 == 499) {
                System.err.printf("  %d/%d messages%n", m + 1, messages);
            }
        }
        long wallMs = (System.nanoTime() - started) / 1_000_000;
        int lossy = 0;
        for (boolean l : lost) {
            lossy += l ? 1 : 0;
        }
        long[] lossyTail = new long[lossy];
        long[] cleanTail = new long[messages - lossy];
        for (int m = 0, i = 0, j = 0; m < messages; m++) {
            if (lost[m]) {
                lossyTail[i++] = tailNs[m];
            } else {
                cleanTail[j++] = tailNs[m];
            }
        }
        long lossless = (long) bytes * 8 / 100; // ns at 100 Gb/s
        System.out.printf("tail-loss: %d messages of %d B, %d paths, loss %.3f%% of all datagrams (end to end), "
                + "seed %d, 100 Gb/s, 1 us links, tail copies %s, %d tail-loss probe(s) per progress, MISSING NAKs %s, "
                + "tail PARITY %s%n", messages, bytes, paths, loss * 100, seed, tailCopy ? "on" : "off", tailProbes,
                missingNak ? "on" : "off", parityTail == 0 ? "off" : "over the last " + parityTail + " segments");
        System.out.printf("message_us            p50 %.1f  p99 %.1f  mean %.1f  (serialisation alone %.1f)%n",
                pct(messageNs, 50), pct(messageNs, 99), mean(messageNs), lossless / 1e3);
        System.out.printf("tail_recovery_us      p50 %.1f  p90 %.1f  p99 %.1f  max %.1f  over %d messages that lost a "
                + "data packet%n", pct(lossyTail, 50), pct(lossyTail, 90), pct(lossyTail, 99), pct(lossyTail, 100), lossy);
        System.out.printf("tail_us (no loss)     p50 %.1f  p99 %.1f  over %d messages%n",
                pct(cleanTail, 50), pct(cleanTail, 99), cleanTail.length);
        System.out.printf("counters              retransmits %d  timeouts %d  sack_gaps %d  rack_losses %d  "
                        + "tail_losses %d  tail_copies %d  tx_probes %d  missing_losses %d  (wall %d ms)%n",
                a.counters().get(Counter.RETRANSMITS), a.counters().get(Counter.TIMEOUTS),
                a.counters().get(Counter.SACK_GAPS), a.counters().get(Counter.RACK_LOSSES),
                a.counters().get(Counter.TAIL_LOSSES), a.counters().get(Counter.TAIL_COPIES),
                a.counters().get(Counter.TX_PROBES), a.counters().get(Counter.MISSING_LOSSES), wallMs);
        System.out.printf("path 0                srtt %.1f us  rttvar %.1f us  min rtt %.1f us%n",
                qa.path(0).srttNs() / 1e3, qa.path(0).rttvarNs() / 1e3, qa.path(0).minRttNs() / 1e3);
    }

    private static double pct(long[] v, int p) {
        if (v.length == 0) {
            return Double.NaN;
        }
        long[] s = v.clone();
        Arrays.sort(s);
        return s[Math.min(s.length - 1, (int) Math.ceil(p / 100.0 * s.length) - 1)] / 1e3;
    }

    private static double mean(long[] v) {
        double sum = 0;
        for (long x : v) {
            sum += x;
        }
        return v.length == 0 ? Double.NaN : sum / v.length / 1e3;
    }
}
