package io.metaroce.net.testbed;

import java.util.regex.Pattern;

/**
 * What {@link Testbed#up(TestbedSpec)} builds.
 *
 * @param name        short name; namespaces are {@code <name>-h<host>} and {@code <name>-sw<plane>}. 1 to 12
 *                    characters of {@code [A-Za-z0-9_-]}, starting with a letter or digit
 * @param hosts       hosts, 1..{@value #MAX_HOSTS}
 * @param planes      planes (one bridge each), 1..{@value #MAX_PLANES}
 * @param mtu         MTU of every link (veth ends and bridges), 576..65535
 * @param rateBps     bottleneck rate in bits per second of each switch port towards its host (tc htb); 0 =
 *                    unlimited (no qdisc added)
 * @param bufferBytes byte limit of the bfifo queue behind the htb class; 0 = no bfifo (the htb class keeps its
 *                    default packet fifo of txqueuelen packets). Ignored when {@code rateBps} is 0
 * @param lossRate    random loss in [0, 1] applied to every IPv4 frame each switch forwards (both directions;
 *                    changeable live with {@link Testbed#setLoss(double)})
 * @param ecnMarkBps  phantom-queue rate in bits per second: ECT packets towards a host are marked CE once the
 *                    bytes forwarded to that host have exceeded this rate by about one second's worth (see
 *                    {@link Testbed}); 0 = off
 * @param offloadsOff turn TSO, GSO and GRO off on every veth end, so that every packet the rules and qdiscs see
 *                    is one wire frame (recommended for loss and ECN experiments)
 */
public record TestbedSpec(String name, int hosts, int planes, int mtu, long rateBps, long bufferBytes,
                          double lossRate, long ecnMarkBps, boolean offloadsOff) {
    /** Most hosts: host h has address 10.(200+p).0.(h+1)/24. */
    public static final int MAX_HOSTS = 254;
    /** Most planes: plane p uses the subnet 10.(200+p).0.0/24. */
    public static final int MAX_PLANES = 56;
    /** The MTU {@link #of} picks. */
    public static final int DEFAULT_MTU = 9000;
    /** The nft limit's {@code burst}, as time at the meter rate (see {@link #ecnBurstBytes()}). */
    public static final long ECN_BURST_NANOS = 50_000;
    /** The htb token bucket holds this much time at the port rate (see {@link #htbBurstBytes()}). */
    public static final long HTB_BURST_NANOS = 200_000;
    /** Largest GSO/GRO super-packet a veth passes when offloads are on (gso_max_size). */
    static final int GSO_MAX = 65536;

    private static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,11}");

    /** Validates every field. */
    public TestbedSpec {
        if (name == null || !NAME.matcher(name).matches()) {
            throw new IllegalArgumentException("test bed name must be 1-12 characters of [A-Za-z0-9_-] starting "
                    + "with a letter or digit: " + name);
        }
        if (hosts < 1 || hosts > MAX_HOSTS) {
            throw new IllegalArgumentException("hosts must lie in 1.." + MAX_HOSTS + ": " + hosts);
        }
        if (planes < 1 || planes > MAX_PLANES) {
            throw new IllegalArgumentException("planes must lie in 1.." + MAX_PLANES + ": " + planes);
        }
        if (mtu < 576 || mtu > 65535) {
            throw new IllegalArgumentException("mtu must lie in 576..65535: " + mtu);
        }
        if (rateBps < 0 || bufferBytes < 0 || ecnMarkBps < 0) {
            throw new IllegalArgumentException("rate, buffer and ECN rate must not be negative");
        }
        if (!(lossRate >= 0 && lossRate <= 1)) {
            throw new IllegalArgumentException("lossRate must lie in [0, 1]: " + lossRate);
        }
    }

    /** {@code hosts} x {@code planes}, MTU 9000, no rate limit, no loss, no ECN marking, offloads off. */
    public static TestbedSpec of(String name, int hosts, int planes) {
        return new TestbedSpec(name, hosts, planes, DEFAULT_MTU, 0, 0, 0, 0, true);
    }

    /** This spec with another MTU. */
    public TestbedSpec withMtu(int newMtu) {
        return new TestbedSpec(name, hosts, planes, newMtu, rateBps, bufferBytes, lossRate, ecnMarkBps,
                offloadsOff);
    }

    /** This spec with a bottleneck of {@code bps} bits per second and a bfifo of {@code buffer} bytes. */
    public TestbedSpec withRate(long bps, long buffer) {
        return new TestbedSpec(name, hosts, planes, mtu, bps, buffer, lossRate, ecnMarkBps, offloadsOff);
    }

    /** This spec with another random loss rate. */
    public TestbedSpec withLoss(double loss) {
        return new TestbedSpec(name, hosts, planes, mtu, rateBps, bufferBytes, loss, ecnMarkBps, offloadsOff);
    }

    /** This spec with another ECN phantom-queue rate (0 = off). */
    public TestbedSpec withEcn(long bps) {
        return new TestbedSpec(name, hosts, planes, mtu, rateBps, bufferBytes, lossRate, bps, offloadsOff);
    }

    /** This spec with offloads off or on. */
    public TestbedSpec withOffloadsOff(boolean off) {
        return new TestbedSpec(name, hosts, planes, mtu, rateBps, bufferBytes, lossRate, ecnMarkBps, off);
    }

    /**
     * The {@code burst} of the nft {@code limit}, bytes: {@value #ECN_BURST_NANOS} ns at {@link #ecnMarkBps}, at
     * least two full frames, and at least two GSO super-packets when offloads are on. The phantom queue is deeper
     * than this: nft's byte-mode limit keeps one second of tokens on top of it (see {@link Testbed}).
     */
    public long ecnBurstBytes() {
        long b = Math.max(ecnMarkBps / 8 * ECN_BURST_NANOS / 1_000_000_000L, 2L * (mtu + 14));
        return offloadsOff ? b : Math.max(b, 2L * GSO_MAX);
    }

    /**
     * The htb {@code burst}/{@code cburst} in bytes: {@value #HTB_BURST_NANOS} ns at {@link #rateBps}, at least
     * four full frames (tc's own default is far below one 9000-byte frame and costs ~30% of the rate).
     */
    public long htbBurstBytes() {
        return Math.max(rateBps / 8 * HTB_BURST_NANOS / 1_000_000_000L, 4L * (mtu + 14));
    }
}
