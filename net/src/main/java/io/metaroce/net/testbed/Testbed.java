package io.metaroce.net.testbed;

import io.metaroce.core.unit.Quantity;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A multi-plane Ethernet fabric made of Linux network namespaces, for the real-datapath tests and benchmarks.
 *
 * <h2>Topology</h2>
 * <pre>
 *   namespace &lt;name&gt;-h&lt;h&gt;             namespace &lt;name&gt;-sw&lt;p&gt;
 *   +------------------------+        +-----------------------------+
 *   | p&lt;p&gt; 10.(200+p).0.(h+1) |--veth--| h&lt;h&gt;  (port of bridge br0)  |
 *   +------------------------+        +-----------------------------+
 * </pre>
 * Every host namespace has one interface {@code p<p>} per plane, with the address {@code 10.(200+p).0.(h+1)/24}
 * (plane p is the subnet {@code 10.(200+p).0.0/24}; so host 0 on plane 0 is 10.200.0.1, host 1 on plane 3 is
 * 10.203.0.2). Its other end, {@code h<h>}, is a port of the Linux bridge {@code br0} in the plane's switch
 * namespace. Planes share nothing: a host reaches another host's plane-p address only through switch p.
 * {@code lo} is up everywhere, IPv6 is disabled (no stray neighbour discovery traffic), STP and multicast
 * snooping are off on the bridges, and every link (both veth ends and the bridge) has the spec's MTU.
 *
 * <h2>Impairments (all in the switch namespaces)</h2>
 * <ul>
 *   <li><b>Bottleneck</b> ({@code rateBps > 0}), on the egress of every switch port {@code h<h>}, i.e. into the
 *       receiving host:<pre>
 *   tc qdisc add dev h&lt;h&gt; root handle 1: htb default 1
 *   tc class add dev h&lt;h&gt; parent 1: classid 1:1 htb rate &lt;R&gt;bit ceil &lt;R&gt;bit burst &lt;B&gt; cburst &lt;B&gt; quantum &lt;mtu+14&gt;
 *   tc qdisc add dev h&lt;h&gt; parent 1:1 handle 10: bfifo limit &lt;bufferBytes&gt;</pre>
 *       (B = {@link TestbedSpec#htbBurstBytes()}; the bfifo only when {@code bufferBytes > 0}). Hosts send
 *       into their switch at veth speed; the queue, and tail drop, build at the port towards the receiver.</li>
 *   <li><b>Random loss</b> and <b>ECN marking</b>: one nft table per switch namespace, hooked where the bridge
 *       forwards frames (bridge family, forward hook: sees every bridged frame, in both directions):<pre>
 *   table bridge metaroce {
 *     counter ipv4 { }  counter lost { }  counter marked { }
 *     chain randloss {
 *       numgen random mod 1000000 &lt; &lt;round(loss * 1e6)&gt; counter name "lost" drop      # absent when loss = 0
 *     }
 *     chain fabric {
 *       type filter hook forward priority 0; policy accept;
 *       ether type ip counter name "ipv4" jump randloss
 *       oifname "h&lt;h&gt;" ether type ip limit rate over &lt;ecnMarkBps/8&gt; bytes/second burst &lt;E&gt; bytes
 *           ip ecn { ect0, ect1 } counter name "marked" ip ecn set ce                   # one per host port
 *     }
 *   }</pre>
 *       Loss applies to every IPv4 frame (UDP, TCP, ICMP; data and acknowledgements alike; not ARP), so a
 *       round trip through the fabric survives with probability (1-loss)^2. {@link #setLoss(double)} replaces
 *       the {@code randloss} chain atomically ({@code nft -f}: flush + add in one transaction).
 *       <p>The ECN rule is a <em>phantom queue</em> per switch port: the {@code limit} is a token bucket refilled
 *       at {@code ecnMarkBps}; every IPv4 frame forwarded to that port that finds enough tokens takes them, and
 *       a frame that does not is "over" (and takes none), marked CE if it is ECT(0)/ECT(1) (non-ECT frames pass
 *       unmarked). The bucket is deep: nft's byte-mode limit holds one second of tokens at the meter rate plus
 *       {@code E} bytes ({@link TestbedSpec#ecnBurstBytes()}; the kernel's {@code tokens_max = unit * (rate +
 *       burst) / rate} with a unit of one second, the smallest nft offers), and the bucket starts full. So
 *       marking starts only once the traffic to the port has exceeded the meter rate by about one second's worth
 *       of bytes, and then marks the over-rate share. Measured (2026-12-03, one plane, htb 2gbit, a write-bw
 *       offering ~2 Gb/s): a 1500mbit meter marked its first frame ~3 s into the transfer, a 1900mbit meter none
 *       in 10 s. It is a marker for sustained overload (a meter well below the offered rate, as
 *       {@code DatapathTestbedTest}'s 10 Mb/s), not a HULL-style queue a few microseconds deep.</li>
 *   <li><b>Plane failure</b>: {@link #planeDown(int)} sets the plane's switch ports down ({@code ip link set h<h>
 *       down}); the hosts' {@code p<p>} then lose carrier and their packets on that plane are dropped.</li>
 *   <li><b>Offloads</b> ({@code offloadsOff}): {@code ethtool -K <if> tso off gso off gro off} on both ends of
 *       every veth, so rules and qdiscs see one wire frame per packet (veth otherwise passes 64 KB GSO
 *       super-packets). Skipped with a warning when ethtool is missing.</li>
 * </ul>
 *
 * <p>Run a program on a host with {@link #exec} or {@link #processBuilder} ({@code ip netns exec}). The bed
 * outlives the JVM that built it; {@link #down(String)} (or {@link #close()}) removes it, killing what still
 * runs inside its namespaces. Every command is logged at DEBUG on the logger {@code io.metaroce.net.testbed};
 * a failing one raises {@link TestbedException} naming the command, its exit code and its stderr.
 */
public final class Testbed implements AutoCloseable {
    /** The bridge in every switch namespace. */
    public static final String BRIDGE = "br0";
    /** The nft table (bridge family) in every switch namespace. */
    public static final String NFT_TABLE = "metaroce";
    /** Loss probabilities are applied in steps of one millionth ({@code numgen random mod 1000000}). */
    public static final int LOSS_SCALE = 1_000_000;
    /** How long {@link #exec(int, String...)} lets a command run. */
    public static final Duration DEFAULT_EXEC_TIMEOUT = Duration.ofMinutes(10);

    private final String name;
    private final int hosts;
    private final int planes;
    private final TestbedSpec spec;

    private Testbed(String name, int hosts, int planes, TestbedSpec spec) {
        this.name = name;
        this.hosts = hosts;
        this.planes = planes;
        this.spec = spec;
    }

    // ---------------------------------------------------------------------------------------- support check

    /**
     * Why the test bed cannot be built on this machine (not Linux, not root, {@code ip}/{@code tc}/{@code nft}
     * missing, network namespaces unusable), or empty when it can.
     */
    public static Optional<String> unsupportedReason() {
        return HostSupport.unsupportedReason();
    }

    /** True when {@link #unsupportedReason()} is empty. */
    public static boolean isSupported() {
        return unsupportedReason().isEmpty();
    }

    // ---------------------------------------------------------------------------------------- build / attach

    /**
     * Builds the test bed {@code spec} describes. Leftovers of an earlier bed of the same name (a crashed run)
     * are removed first. On failure everything built so far is removed and the exception rethrown.
     */
    public static Testbed up(TestbedSpec spec) {
        unsupportedReason().ifPresent(why -> {
            throw new TestbedException("cannot build test bed '" + spec.name() + "': " + why);
        });
        int leftovers = down(spec.name());
        if (leftovers > 0) {
            Shell.LOG.log(Level.WARNING, "removed " + leftovers + " leftover namespaces of test bed '"
                    + spec.name() + "'");
        }
        Testbed tb = new Testbed(spec.name(), spec.hosts(), spec.planes(), spec);
        try {
            FabricBuilder.build(tb, spec);
        } catch (RuntimeException e) {
            try {
                down(spec.name());
            } catch (RuntimeException cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
        return tb;
    }

    /**
     * The bed named {@code name} that already runs (built by another process, e.g. {@code metaroce testbed
     * up}); hosts and planes are read from its namespaces, {@link #spec()} is empty.
     */
    public static Testbed attach(String name) {
        TreeSet<Integer> hostIds = new TreeSet<>();
        TreeSet<Integer> planeIds = new TreeSet<>();
        Pattern p = Namespaces.namespacePattern(name);
        for (String ns : namespaces(name)) {
            Matcher m = p.matcher(ns);
            if (m.matches()) {
                (m.group(1).equals("h") ? hostIds : planeIds).add(Integer.parseInt(m.group(2)));
            }
        }
        if (hostIds.isEmpty() || planeIds.isEmpty()) {
            throw new TestbedException("no test bed named '" + name + "' is up (namespaces " + name + "-h<N> and "
                    + name + "-sw<N> not found)");
        }
        if (hostIds.last() != hostIds.size() - 1 || planeIds.last() != planeIds.size() - 1) {
            throw new TestbedException("test bed '" + name + "' is incomplete (hosts " + hostIds + ", planes "
                    + planeIds + "); remove it with down and build it again");
        }
        return new Testbed(name, hostIds.size(), planeIds.size(), null);
    }

    // ---------------------------------------------------------------------------------------- tear down

    /**
     * Removes every namespace of the bed {@code name} ({@code <name>-h<N>}, {@code <name>-sw<N>}), first killing
     * the processes still running inside them. Idempotent; also cleans up after a crashed run. Returns how many
     * namespaces it removed.
     */
    public static int down(String name) {
        return Namespaces.down(name);
    }

    /** The namespaces of bed {@code name} that exist now, sorted. */
    public static List<String> namespaces(String name) {
        return Namespaces.namespaces(name);
    }

    /** Same as {@link #down(String)} for this bed. */
    @Override
    public void close() {
        down(name);
    }

    // ---------------------------------------------------------------------------------------- names

    /** The bed's name. */
    public String name() {
        return name;
    }

    /** Number of hosts. */
    public int hosts() {
        return hosts;
    }

    /** Number of planes. */
    public int planes() {
        return planes;
    }

    /** The spec this bed was built from; empty for an {@link #attach attached} bed. */
    public Optional<TestbedSpec> spec() {
        return Optional.ofNullable(spec);
    }

    /** Namespace of host {@code host}: {@code <name>-h<host>}. */
    public String hostNamespace(int host) {
        checkHost(host);
        return name + "-h" + host;
    }

    /** Namespace of plane {@code plane}'s switch: {@code <name>-sw<plane>}. */
    public String switchNamespace(int plane) {
        checkPlane(plane);
        return name + "-sw" + plane;
    }

    /** A host's interface on plane {@code plane}: {@code p<plane>}. */
    public static String hostInterface(int plane) {
        return "p" + plane;
    }

    /** The switch port towards host {@code host} (in every switch namespace): {@code h<host>}. */
    public static String switchPort(int host) {
        return "h" + host;
    }

    /** Address of {@code host} on {@code plane}: 10.(200+plane).0.(host+1). */
    public InetAddress address(int host, int plane) {
        checkHost(host);
        checkPlane(plane);
        return addressOf(host, plane);
    }

    /** Address of {@code host} on {@code plane} in any bed: 10.(200+plane).0.(host+1). */
    public static InetAddress addressOf(int host, int plane) {
        if (host < 0 || host >= TestbedSpec.MAX_HOSTS || plane < 0 || plane >= TestbedSpec.MAX_PLANES) {
            throw new IllegalArgumentException("no address for host " + host + " on plane " + plane);
        }
        try {
            return InetAddress.getByAddress(new byte[] {10, (byte) (200 + plane), 0, (byte) (host + 1)});
        } catch (UnknownHostException e) {
            throw new AssertionError(e);
        }
    }

    /** Plane {@code plane}'s subnet: {@code 10.(200+plane).0.0/24}. */
    public static String subnet(int plane) {
        return "10." + (200 + plane) + ".0.0/24";
    }

    private void checkHost(int host) {
        if (host < 0 || host >= hosts) {
            throw new IllegalArgumentException("host " + host + " outside 0.." + (hosts - 1));
        }
    }

    private void checkPlane(int plane) {
        if (plane < 0 || plane >= planes) {
            throw new IllegalArgumentException("plane " + plane + " outside 0.." + (planes - 1));
        }
    }

    // ---------------------------------------------------------------------------------------- live changes

    /** Sets the random loss rate of every plane (takes effect at once). */
    public void setLoss(double loss) {
        for (int p = 0; p < planes; p++) {
            setLoss(p, loss);
        }
    }

    /** Sets the random loss rate of one plane (takes effect at once; atomic nft transaction). */
    public void setLoss(int plane, double loss) {
        String rule = SwitchRules.lossRule(loss);
        String chain = "bridge " + NFT_TABLE + " randloss";
        SwitchRules.apply(switchNamespace(plane), "flush chain " + chain + "\n"
                + (rule.isEmpty() ? "" : "add rule " + chain + " " + rule + "\n"));
    }

    /** Fails plane {@code plane}: sets all its switch ports down (hosts see their {@code p<plane>} lose carrier). */
    public void planeDown(int plane) {
        setPlane(plane, "down");
    }

    /** Repairs plane {@code plane} (its switch ports up again; forwarding resumes at once, STP is off). */
    public void planeUp(int plane) {
        setPlane(plane, "up");
    }

    private void setPlane(int plane, String state) {
        String sw = switchNamespace(plane);
        String ip = Shell.require("ip");
        for (int h = 0; h < hosts; h++) {
            Shell.check(ip, "-n", sw, "link", "set", switchPort(h), state);
        }
    }

    /** The nft counters of plane {@code plane}'s switch. */
    public PlaneCounters counters(int plane) {
        ExecResult r = Shell.check(null, List.of(Shell.require("ip"), "netns", "exec", switchNamespace(plane),
                Shell.require("nft"), "list", "counters", "table", "bridge", NFT_TABLE));
        long[] v = new long[6];
        Matcher m = Pattern.compile("counter (\\w+) \\{\\s*packets (\\d+) bytes (\\d+)").matcher(r.stdout());
        while (m.find()) {
            int at = switch (m.group(1)) {
                case "ipv4" -> 0;
                case "lost" -> 2;
                case "marked" -> 4;
                default -> -1;
            };
            if (at >= 0) {
                v[at] = Long.parseLong(m.group(2));
                v[at + 1] = Long.parseLong(m.group(3));
            }
        }
        return new PlaneCounters(plane, v[0], v[1], v[2], v[3], v[4], v[5]);
    }

    /** Sets every plane's nft counters back to 0. */
    public void resetCounters() {
        for (int p = 0; p < planes; p++) {
            Shell.check(null, List.of(Shell.require("ip"), "netns", "exec", switchNamespace(p),
                    Shell.require("nft"), "reset", "counters", "table", "bridge", NFT_TABLE));
        }
    }

    // ---------------------------------------------------------------------------------------- run programs

    /** Runs {@code cmd} inside host {@code host}'s namespace to completion (at most 10 minutes). */
    public ExecResult exec(int host, String... cmd) {
        return exec(DEFAULT_EXEC_TIMEOUT, host, cmd);
    }

    /**
     * Runs {@code cmd} inside host {@code host}'s namespace to completion and returns its exit code and
     * output, whatever the exit code; throws {@link TestbedException} when it cannot start or outlives
     * {@code timeout} (it is then killed).
     */
    public ExecResult exec(Duration timeout, int host, String... cmd) {
        return Shell.run(timeout, null, inNamespace(hostNamespace(host), cmd));
    }

    /** Runs {@code cmd} inside plane {@code plane}'s switch namespace to completion (at most 10 minutes). */
    public ExecResult execSwitch(int plane, String... cmd) {
        return Shell.run(DEFAULT_EXEC_TIMEOUT, null, inNamespace(switchNamespace(plane), cmd));
    }

    /**
     * A process builder that starts {@code cmd} inside host {@code host}'s namespace (for long-running
     * programs such as a JVM). {@code ip netns exec} execs the command, so the started process is the command
     * itself. Processes still running at {@link #down} are killed.
     */
    public ProcessBuilder processBuilder(int host, String... cmd) {
        return new ProcessBuilder(inNamespace(hostNamespace(host), cmd));
    }

    /** {@link #processBuilder(int, String...)} with a list. */
    public ProcessBuilder processBuilder(int host, List<String> cmd) {
        return processBuilder(host, cmd.toArray(String[]::new));
    }

    private static List<String> inNamespace(String ns, String... cmd) {
        if (cmd.length == 0) {
            throw new IllegalArgumentException("no command given");
        }
        List<String> all = new ArrayList<>(cmd.length + 4);
        all.addAll(List.of(Shell.require("ip"), "netns", "exec", ns));
        all.addAll(List.of(cmd));
        return all;
    }

    // ---------------------------------------------------------------------------------------- description

    /** What this bed is, for people: spec, namespaces, addresses per plane. */
    public String describe() {
        StringBuilder s = new StringBuilder();
        s.append("test bed '").append(name).append("': ").append(hosts).append(" hosts x ").append(planes)
                .append(" planes\n");
        if (spec != null) {
            s.append("  MTU ").append(spec.mtu()).append(", port rate ").append(spec.rateBps() == 0 ? "unlimited"
                    : Quantity.formatBitsPerSecond(spec.rateBps()));
            if (spec.rateBps() > 0) {
                s.append(spec.bufferBytes() > 0 ? " (bfifo " + Quantity.formatBytes(spec.bufferBytes()) + ")"
                        : " (default fifo)");
            }
            s.append(String.format(Locale.ROOT, ", random loss %.4f%%", spec.lossRate() * 100));
            s.append(", ECN marking ").append(spec.ecnMarkBps() == 0 ? "off"
                    : "over " + Quantity.formatBitsPerSecond(spec.ecnMarkBps()) + " (phantom queue "
                    + Quantity.formatBytes(spec.ecnBurstBytes()) + ")");
            s.append(", offloads ").append(spec.offloadsOff() ? "off" : "on").append('\n');
        }
        for (int p = 0; p < planes; p++) {
            s.append("  plane ").append(p).append(": switch namespace ").append(switchNamespace(p))
                    .append(", bridge ").append(BRIDGE).append(", subnet ").append(subnet(p)).append('\n');
        }
        for (int h = 0; h < hosts; h++) {
            s.append("  host ").append(h).append(": namespace ").append(hostNamespace(h)).append(',');
            for (int p = 0; p < planes; p++) {
                s.append(' ').append(hostInterface(p)).append('=').append(address(h, p).getHostAddress());
            }
            s.append('\n');
        }
        return s.toString();
    }

    @Override
    public String toString() {
        return "Testbed[" + name + ", " + hosts + " hosts x " + planes + " planes]";
    }
}
