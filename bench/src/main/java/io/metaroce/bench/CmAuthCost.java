package io.metaroce.bench;

import io.metaroce.core.auth.CmAuth;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmHeader;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;

import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;

/**
 * The cost of sealing connection-manager messages (spec AUTH-11, AUTH-12): CPU time and bytes allocated per CM
 * message on the thread's own CPU clock (other processes on a shared machine do not count), for what a CM does
 * with each message it sends and receives: write the header and extension, seal (sealed mode), add the CRC, then
 * check WIRE-8, open (sealed mode) and parse. Rounds interleave the modes (unsealed, sealed, unsealed, ...); the
 * min, median and max of each are printed, and the difference of medians is the MAC's cost per message. A
 * CM_REQ with {@code planes} plane entries (the longest message) and a CM_DREQ (the shortest) are measured.
 *
 * <pre>java -cp bench/target/benchmarks.jar io.metaroce.bench.CmAuthCost [planes] [rounds] [messages per round]</pre>
 */
public final class CmAuthCost {
    private CmAuthCost() {
    }

    public static void main(String[] args) {
        int planes = args.length > 0 ? Integer.parseInt(args[0]) : 4;
        int rounds = args.length > 1 ? Integer.parseInt(args[1]) : 9;
        int perRound = args.length > 2 ? Integer.parseInt(args[2]) : 200_000;
        if (planes < 1 || planes > CmHeader.MAX_PLANES || rounds < 1 || perRound < 1) {
            System.err.println("usage: CmAuthCost [planes 1..16] [rounds >= 1] [messages per round >= 1]");
            System.exit(2);
        }
        List<byte[]> addrs = new ArrayList<>();
        for (int i = 0; i < planes; i++) {
            addrs.add(new byte[] {10, 0, (byte) i, 1});
        }
        CmMessage[] messages = {
            new CmMessage(Opcode.CM_REQ, 0x0123456789abcdefL, 0xa01, 0, 0x1000, 4096, 16, CmMessage.CAP_AUTH, 4793,
                    0, addrs),
            new CmMessage(Opcode.CM_DREQ, 0x0123456789abcdefL, 0xa01, 0xb02, 0, 0, 0, 0, 0, 0, List.of())};
        CmAuth auth = new CmAuth("a pre-shared key of 32 bytes, ok".getBytes(StandardCharsets.US_ASCII));
        MemorySegment buf = MemorySegment.ofArray(new byte[1024]);
        Packet packet = new Packet();
        BaseHeader base = new BaseHeader();
        com.sun.management.ThreadMXBean mx = (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        long tid = Thread.currentThread().threadId();
        String[] modes = {"unsealed", "sealed"};
        System.out.printf(Locale.ROOT, "warming up (%d messages per mode and kind)...%n", 5 * perRound);
        long sink = 0;
        for (CmMessage m : messages) {
            for (int mode = 0; mode < 2; mode++) {
                sink += loop(m, mode == 1 ? auth : null, 5 * perRound, buf, packet, base);
            }
        }
        for (CmMessage m : messages) {
            List<List<double[]>> samples = List.of(new ArrayList<>(), new ArrayList<>());
            for (int r = 0; r < rounds; r++) {
                for (int mode = 0; mode < 2; mode++) {
                    long cpu0 = mx.getCurrentThreadCpuTime();
                    long alloc0 = mx.getThreadAllocatedBytes(tid);
                    sink += loop(m, mode == 1 ? auth : null, perRound, buf, packet, base);
                    samples.get(mode).add(new double[] {(mx.getCurrentThreadCpuTime() - cpu0) / (double) perRound,
                            (mx.getThreadAllocatedBytes(tid) - alloc0) / (double) perRound});
                }
            }
            int len = BaseHeader.LENGTH + m.encodedLength() + CmAuth.TRAILER_LENGTH + Packet.CRC_LENGTH;
            System.out.printf(Locale.ROOT, "%n%s (%d B sealed), %d rounds interleaved, CPU ns per message sent and "
                    + "received (encode, seal, CRC, check, open, parse)%n", Opcode.name(m.opcode()), len, rounds);
            System.out.printf(Locale.ROOT, "%10s %10s %10s %10s %10s%n", "mode", "min ns", "median ns", "max ns",
                    "B/message");
            for (int mode = 0; mode < 2; mode++) {
                List<double[]> s = samples.get(mode);
                System.out.printf(Locale.ROOT, "%10s %10.0f %10.0f %10.0f %10.0f%n", modes[mode], stat(s, 0, 0),
                        stat(s, 0, 1), stat(s, 0, 2), stat(s, 1, 1));
            }
            System.out.printf(Locale.ROOT, "%10s %10s %10.0f%n", "MAC cost", "", stat(samples.get(1), 0, 1)
                    - stat(samples.get(0), 0, 1));
        }
        if (sink == 42) {
            System.out.println(); // keeps the work observable
        }
    }

    /** {@code n} times: encode {@code m}, seal when {@code auth} is set, CRC; then check, open, parse. */
    private static long loop(CmMessage m, CmAuth auth, int n, MemorySegment buf, Packet packet, BaseHeader base) {
        long sink = 0;
        for (int i = 0; i < n; i++) {
            int ext = m.encodedLength();
            base.wrap(buf, 0).version(Packet.VERSION).opcode(m.opcode()).flags(0).destQpn(m.peerQpn()).pathId(0)
                    .payloadLength(ext - CmHeader.FIXED_LENGTH).psn(0).psnFloor(0).srcQpn(m.senderQpn())
                    .timestampNs(i);
            m.emit(buf, BaseHeader.LENGTH);
            int len = BaseHeader.LENGTH + ext;
            if (auth != null) {
                len = auth.seal(buf, len, i);
            }
            len = packet.seal(buf, len);
            if (packet.check(buf, len) != Packet.OK || auth != null && auth.open(buf, len) != CmAuth.OK) {
                throw new IllegalStateException("a message the bench sealed does not open");
            }
            CmMessage parsed = CmMessage.parse(m.opcode(), buf, BaseHeader.LENGTH, ext - CmHeader.FIXED_LENGTH);
            sink += parsed.connectionId();
        }
        return sink;
    }

    /** Column {@code k} of {@code s}: its min ({@code which} 0), median (1) or max (2). */
    private static double stat(List<double[]> s, int k, int which) {
        double[] c = s.stream().mapToDouble(v -> v[k]).sorted().toArray();
        return which == 0 ? c[0] : which == 1 ? c[c.length / 2] : Arrays.stream(c).max().orElse(0);
    }
}
