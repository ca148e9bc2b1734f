package io.metaroce.net.testbed;

import io.metaroce.core.unit.Quantity;
import java.io.IOException;
import java.lang.System.Logger.Level;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
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
 *       <p>The ECN rule is a <em>phantom queue</em> per switch port: the {@code limit} is a token bucket of
 *       {@code E} bytes ({@link TestbedSpec#ecnBurstBytes()}) refilled at {@code ecnMarkBps}; every IPv4 frame
 *       forwarded to that port that finds enough tokens takes them, and a frame that does not is "over"
 *       (and takes none). So the bucket behaves as a virtual queue of capacity E drained at the meter rate:
 *       while the traffic to the port stays below the meter rate nothing is marked; once it exceeds it long
 *       enough to fill E bytes, the over-rate share of frames is marked CE (if they are ECT(0)/ECT(1); non-ECT
 *       frames pass unmarked). With a meter slightly below the bottleneck rate (e.g. 9gbit for 10gbit) senders
 *       get ECN before any real queue builds (as in HULL's phantom queues).</li>
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
        String os = System.getProperty("os.name", "");
        if (!os.toLowerCase(Locale.ROOT).contains("linux")) {
            return Optional.of("the test bed needs Linux network namespaces (this is " + os + ")");
        }
        long uid = effectiveUid();
        if (uid != 0) {
            return Optional.of("the test bed needs root (effective uid " + (uid < 0 ? "unknown" : uid)
                    + "): network namespaces, tc and nft need CAP_NET_ADMIN; run as root, e.g. with sudo");
        }
        for (String tool : List.of("ip", "tc", "nft")) {
            if (Shell.find(tool).isEmpty()) {
                return Optional.of("the test bed needs `" + tool + "`, which is not installed (Debian: apt-get "
                        + "install " + Shell.packageOf(tool) + ")");
            }
        }
        try {
            ExecResult r = Shell.run(Shell.SETUP_TIMEOUT, null, List.of(Shell.require("ip"), "netns", "list"));
            if (!r.ok()) {
                return Optional.of("`ip netns list` fails (exit " + r.exitCode() + "): " + r.stderr().strip());
            }
        } catch (TestbedException e) {
            return Optional.of(e.getMessage());
        }
        return Optional.empty();
    }

    /** True when {@link #unsupportedReason()} is empty. */
    public static boolean isSupported() {
        return unsupportedReason().isEmpty();
    }

    /** The effective uid of this process (from /proc/self/status), -1 when unknown. */
    static long effectiveUid() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("Uid:")) {
                    return Long.parseLong(line.substring(4).strip().split("\\s+")[1]);
                }
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return -1;
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
            tb.build();
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
        Pattern p = namespacePattern(name);
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

    private void build() {
        String ip = Shell.require("ip");
        String tc = Shell.require("tc");
        Optional<String> ethtool = Shell.find("ethtool");
        if (spec.offloadsOff() && ethtool.isEmpty()) {
            Shell.LOG.log(Level.WARNING, "ethtool is not installed: offloads stay on (apt-get install ethtool); "
                    + "rules and qdiscs may see GSO super-packets");
        }
        String mtu = Integer.toString(spec.mtu());
        for (int p = 0; p < planes; p++) {
            String sw = switchNamespace(p);
            Shell.check(ip, "netns", "add", sw);
            quiet(sw);
            Shell.check(ip, "-n", sw, "link", "set", "lo", "up");
            Shell.check(ip, "-n", sw, "link", "add", BRIDGE, "type", "bridge", "stp_state", "0", "mcast_snooping",
                    "0");
        }
        for (int h = 0; h < hosts; h++) {
            String hn = hostNamespace(h);
            Shell.check(ip, "netns", "add", hn);
            quiet(hn);
            Shell.check(ip, "-n", hn, "link", "set", "lo", "up");
        }
        for (int h = 0; h < hosts; h++) {
            String hn = hostNamespace(h);
            for (int p = 0; p < planes; p++) {
                String sw = switchNamespace(p);
                String hostIf = hostInterface(p);
                String swIf = switchPort(h);
                Shell.check(ip, "-n", hn, "link", "add", hostIf, "type", "veth", "peer", "name", swIf, "netns", sw);
                Shell.check(ip, "-n", hn, "link", "set", hostIf, "mtu", mtu);
                Shell.check(ip, "-n", sw, "link", "set", swIf, "mtu", mtu, "master", BRIDGE);
                Shell.check(ip, "-n", hn, "addr", "add", address(h, p).getHostAddress() + "/24", "dev", hostIf);
                if (spec.offloadsOff() && ethtool.isPresent()) {
                    Shell.check(ip, "netns", "exec", hn, ethtool.get(), "-K", hostIf, "tso", "off", "gso", "off",
                            "gro", "off");
                    Shell.check(ip, "netns", "exec", sw, ethtool.get(), "-K", swIf, "tso", "off", "gso", "off",
                            "gro", "off");
                }
                if (spec.rateBps() > 0) {
                    String burst = Long.toString(spec.htbBurstBytes());
                    String rate = spec.rateBps() + "bit";
                    Shell.check(tc, "-n", sw, "qdisc", "add", "dev", swIf, "root", "handle", "1:", "htb", "default",
                            "1");
                    Shell.check(tc, "-n", sw, "class", "add", "dev", swIf, "parent", "1:", "classid", "1:1", "htb",
                            "rate", rate, "ceil", rate, "burst", burst, "cburst", burst, "quantum",
                            Integer.toString(Math.min(200_000, spec.mtu() + 14)));
                    if (spec.bufferBytes() > 0) {
                        Shell.check(tc, "-n", sw, "qdisc", "add", "dev", swIf, "parent", "1:1", "handle", "10:",
                                "bfifo", "limit", Long.toString(spec.bufferBytes()));
                    }
                }
                Shell.check(ip, "-n", sw, "link", "set", swIf, "up");
                Shell.check(ip, "-n", hn, "link", "set", hostIf, "up");
            }
        }
        for (int p = 0; p < planes; p++) {
            String sw = switchNamespace(p);
            Shell.check(ip, "-n", sw, "link", "set", BRIDGE, "mtu", mtu, "up");
            nft(sw, ruleset(spec));
        }
    }

    /** Disables IPv6 in namespace {@code ns} (best effort: no sysctl, no change). */
    private static void quiet(String ns) {
        Optional<String> sysctl = Shell.find("sysctl");
        if (sysctl.isEmpty()) {
            Shell.LOG.log(Level.DEBUG, "sysctl not installed; IPv6 stays on in " + ns);
            return;
        }
        ExecResult r = Shell.run(Shell.SETUP_TIMEOUT, null, List.of(Shell.require("ip"), "netns", "exec", ns,
                sysctl.get(), "-q", "-w", "net.ipv6.conf.all.disable_ipv6=1",
                "net.ipv6.conf.default.disable_ipv6=1"));
        if (!r.ok()) {
            Shell.LOG.log(Level.WARNING, "could not disable IPv6 in " + ns + ": " + r.stderr().strip());
        }
    }

    /** The nft script that creates a switch's table (see the class comment). */
    static String ruleset(TestbedSpec spec) {
        StringBuilder s = new StringBuilder();
        s.append("table bridge ").append(NFT_TABLE).append(" {\n");
        s.append("\tcounter ipv4 { }\n\tcounter lost { }\n\tcounter marked { }\n");
        s.append("\tchain randloss {\n");
        String loss = lossRule(spec.lossRate());
        if (!loss.isEmpty()) {
            s.append("\t\t").append(loss).append('\n');
        }
        s.append("\t}\n");
        s.append("\tchain fabric {\n\t\ttype filter hook forward priority 0; policy accept;\n");
        s.append("\t\tether type ip counter name \"ipv4\" jump randloss\n");
        if (spec.ecnMarkBps() > 0) {
            long bytesPerSecond = Math.max(1, spec.ecnMarkBps() / 8);
            for (int h = 0; h < spec.hosts(); h++) {
                s.append("\t\toifname \"").append(switchPort(h)).append("\" ether type ip limit rate over ")
                        .append(bytesPerSecond).append(" bytes/second burst ").append(spec.ecnBurstBytes())
                        .append(" bytes ip ecn { ect0, ect1 } counter name \"marked\" ip ecn set ce\n");
            }
        }
        s.append("\t}\n}\n");
        return s.toString();
    }

    /** The rule of the {@code randloss} chain for {@code loss}; empty for 0. */
    static String lossRule(double loss) {
        if (!(loss >= 0 && loss <= 1)) {
            throw new IllegalArgumentException("loss rate must lie in [0, 1]: " + loss);
        }
        long n = Math.round(loss * LOSS_SCALE);
        if (n == 0) {
            return "";
        }
        return (n >= LOSS_SCALE ? "" : "numgen random mod " + LOSS_SCALE + " < " + n + " ")
                + "counter name \"lost\" drop";
    }

    private static void nft(String ns, String script) {
        Shell.check(script, List.of(Shell.require("ip"), "netns", "exec", ns, Shell.require("nft"), "-f", "-"));
    }

    // ---------------------------------------------------------------------------------------- tear down

    /**
     * Removes every namespace of the bed {@code name} ({@code <name>-h<N>}, {@code <name>-sw<N>}), first killing
     * the processes still running inside them. Idempotent; also cleans up after a crashed run. Returns how many
     * namespaces it removed.
     */
    public static int down(String name) {
        namespacePattern(name); // validates the name
        if (Shell.find("ip").isEmpty()) {
            return 0;
        }
        String ip = Shell.require("ip");
        List<String> found = namespaces(name);
        List<ProcessHandle> killed = new ArrayList<>();
        long self = ProcessHandle.current().pid();
        for (String ns : found) {
            ExecResult pids = Shell.run(Shell.SETUP_TIMEOUT, null, List.of(ip, "netns", "pids", ns));
            for (String line : pids.stdout().split("\\s+")) {
                if (line.matches("\\d+") && Long.parseLong(line) != self) {
                    ProcessHandle.of(Long.parseLong(line)).ifPresent(ph -> {
                        Shell.LOG.log(Level.DEBUG, "killing pid " + ph.pid() + " in " + ns);
                        ph.destroyForcibly();
                        killed.add(ph);
                    });
                }
            }
        }
        for (ProcessHandle ph : killed) {
            try {
                ph.onExit().get(2, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            } catch (ExecutionException | TimeoutException e) {
                Shell.LOG.log(Level.DEBUG, "pid " + ph.pid() + " has not exited yet: " + e);
            }
        }
        TestbedException first = null;
        for (String ns : found) {
            ExecResult r = Shell.run(Shell.SETUP_TIMEOUT, null, List.of(ip, "netns", "del", ns));
            if (!r.ok() && Files.exists(Path.of("/run/netns", ns))) {
                TestbedException e = new TestbedException(List.of(ip, "netns", "del", ns), r.exitCode(),
                        r.stderr(), null, null);
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
        return found.size();
    }

    /** The namespaces of bed {@code name} that exist now, sorted. */
    public static List<String> namespaces(String name) {
        Pattern p = namespacePattern(name);
        Optional<String> ip = Shell.find("ip");
        if (ip.isEmpty()) {
            return List.of();
        }
        ExecResult r = Shell.run(Shell.SETUP_TIMEOUT, null, List.of(ip.get(), "netns", "list"));
        if (!r.ok()) {
            throw new TestbedException(List.of(ip.get(), "netns", "list"), r.exitCode(), r.stderr(), null, null);
        }
        TreeSet<String> out = new TreeSet<>();
        for (String line : r.stdout().split("\n")) {
            String ns = line.strip().split("\\s+")[0];
            if (p.matcher(ns).matches()) {
                out.add(ns);
            }
        }
        return List.copyOf(out);
    }

    private static Pattern namespacePattern(String name) {
        if (name == null || !name.matches("[A-Za-z0-9][A-Za-z0-9_-]{0,11}")) {
            throw new IllegalArgumentException("test bed name must be 1-12 characters of [A-Za-z0-9_-] starting "
                    + "with a letter or digit: " + name);
        }
        return Pattern.compile(Pattern.quote(name) + "-(h|sw)(\\d+)");
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
        String rule = lossRule(loss);
        String chain = "bridge " + NFT_TABLE + " randloss";
        nft(switchNamespace(plane), "flush chain " + chain + "\n"
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
