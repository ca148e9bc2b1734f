package io.metaroce.cli.perf;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.wire.Packet;
import io.metaroce.net.DeviceOptions;
import picocli.CommandLine;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** The flags every perf test takes, named as perftest users know them where perftest has them. */
public final class PerfOptions {
    @Parameters(index = "0", arity = "0..1", paramLabel = "HOST",
            description = "Server to connect to (its plane-0 address). Without it: run as the server.")
    String host;

    @Option(names = {"-s", "--size"}, paramLabel = "BYTES",
            description = "Message size in bytes (default 65536 for bandwidth tests, 8 for latency tests).")
    Integer size;

    @Option(names = {"-n", "--iters"}, paramLabel = "N",
            description = "Messages per QP (default 5000 for bandwidth, 1000 for latency). Exclusive with -D.")
    Long iters;

    @Option(names = {"-D", "--duration"}, paramLabel = "SECONDS",
            description = "Run for this many seconds instead of a number of iterations.")
    Double durationS;

    @Option(names = "--warmup", defaultValue = "100", paramLabel = "N",
            description = "Latency tests: ping-pongs before the measured ones, to warm the JIT (default ${DEFAULT-VALUE}).")
    long warmup;

    @Option(names = "--report-gbits", description = "Report bandwidth in Gb/sec (10^9 bits) instead of MB/sec (2^20 bytes).")
    boolean reportGbits;

    @Option(names = {"-q", "--qps"}, defaultValue = "1", paramLabel = "N",
            description = "Number of QPs, each connected separately (default ${DEFAULT-VALUE}); the server accepts as many.")
    int qps;

    @Option(names = {"-t", "--tx-depth"}, defaultValue = "128", paramLabel = "N",
            description = "Outstanding work requests per QP (default ${DEFAULT-VALUE}).")
    int txDepth;

    @Option(names = {"-r", "--rx-depth"}, paramLabel = "N",
            description = "send-bw server: receives kept posted per QP (default max(512, 2 x tx-depth), at most 8192).")
    Integer rxDepth;

    @Option(names = {"-p", "--port"}, defaultValue = "" + Packet.DEFAULT_UDP_PORT, paramLabel = "PORT",
            description = "UDP port the server listens on and the client connects to (default ${DEFAULT-VALUE}); "
                    + "server: 0 picks a free one (printed).")
    int port;

    @Option(names = "--planes", split = ",", defaultValue = "127.0.0.1", paramLabel = "ADDR[,ADDR...]",
            description = "Local plane addresses, in plane order (default ${DEFAULT-VALUE}). Both sides need as many.")
    List<String> planes;

    @Option(names = "--paths", defaultValue = "4", paramLabel = "N",
            description = "Paths per QP (default ${DEFAULT-VALUE}); must match the server's.")
    int paths;

    @Option(names = "--mtu", defaultValue = "4096", paramLabel = "BYTES",
            description = "Payload bytes per packet (default ${DEFAULT-VALUE}); must match the server's.")
    int mtu;

    @Option(names = "--transport", defaultValue = "auto", paramLabel = "auto|ffm|channel",
            description = "UDP datapath: ffm (sendmmsg/recvmmsg, ECN), channel (portable) or auto (default).")
    String transport;

    @Option(names = "--gro", description = "Ask the kernel for UDP GRO on the receive sockets.")
    boolean gro;

    @Option(names = "--no-gso", description = "Send every datagram on its own (no UDP GSO runs).")
    boolean noGso;

    @Option(names = "--window", paramLabel = "PACKETS",
            description = "Largest congestion window per path, in packets (1-256; default: the device's).")
    Integer window;

    @Option(names = "--idle", defaultValue = "yield", paramLabel = "spin|yield|backoff|park|block",
            description = "How the device agent and this tool's polling thread wait when idle (default ${DEFAULT-VALUE}).")
    String idle;

    @Option(names = "--inject-loss", defaultValue = "0", paramLabel = "FRACTION",
            description = "TEST ONLY: this side's receiver drops this fraction of received protocol datagrams "
                    + "before the engine sees them (not network loss).")
    double injectLoss;

    @Option(names = "--min-rto-us", paramLabel = "US", description = "Minimum retransmission timeout (default: the engine's).")
    Long minRtoUs;

    @Option(names = "--verify", description = "Check the data: write-bw and send-bw on the server, read-bw on the client.")
    boolean verify;

    @Option(names = "--timeout", defaultValue = "30", paramLabel = "SECONDS",
            description = "Give up when connecting takes, or the run makes no progress for, this long "
                    + "(default ${DEFAULT-VALUE}). The server waits for its first client without limit.")
    double timeoutS;

    @Option(names = "--record", paramLabel = "FILE", description = "Write the experiment record (YAML) to FILE.")
    Path record;

    @Option(names = "--name", paramLabel = "NAME", description = "Experiment name in the record (default perf-<test>).")
    String name;

    @Option(names = "--world", defaultValue = "loopback", paramLabel = "loopback|testbed",
            description = "World named in the record (default ${DEFAULT-VALUE}).")
    String world;

    @Option(names = "--expect-gbps", paramLabel = "X", description = "Acceptance: goodput_gbps >= X.")
    Double expectGbps;

    @Option(names = "--expect-p99-us", paramLabel = "X", description = "Acceptance (latency tests): lat_p99_us <= X.")
    Double expectP99Us;

    @Option(names = "--stats", description = "Print the device's statistics at the end.")
    boolean stats;

    @Option(names = "--stats-file", paramLabel = "FILE",
            description = "Write the device's statistics as JSON to FILE every second (read it with `metaroce stats FILE`).")
    Path statsFile;

    @CommandLine.Mixin
    MetricsOptions metrics = new MetricsOptions();

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the device and the data pattern (default ${DEFAULT-VALUE}).")
    long seed;

    public PerfOptions() {
    }

    boolean server() {
        return host == null;
    }

    /** Checks the flags for {@code kind} and throws a user-facing message for the first bad one. */
    void validate(TestKind kind) {
        require(iters == null || durationS == null, "-n/--iters and -D/--duration are exclusive");
        require(iters == null || iters > 0, "-n/--iters must be > 0");
        require(durationS == null || durationS > 0, "-D/--duration must be > 0");
        require(size() >= 1, "-s/--size must be >= 1");
        require(warmup >= 0, "--warmup must be >= 0");
        require(!kind.latency() || qps == 1, "latency tests use one QP: -q/--qps must be 1");
        require(qps >= 1 && qps <= 16_384, "-q/--qps must be in 1..16384");
        require(txDepth >= 1 && txDepth <= 8192, "-t/--tx-depth must be in 1..8192");
        require(rxDepth == null || rxDepth >= 1 && rxDepth <= 8192, "-r/--rx-depth must be in 1..8192");
        require(port >= 0 && port <= 65_535, "-p/--port must be in 0..65535");
        require(server() || port != 0, "-p 0 only makes sense on the server");
        require(!planes.isEmpty(), "--planes needs at least one address");
        require(paths >= planes.size() && paths <= 256, "--paths must be in <planes>..256");
        require(mtu >= 64 && mtu <= 65_000, "--mtu must be in 64..65000");
        require(injectLoss >= 0 && injectLoss < 1, "--inject-loss must be in [0, 1)");
        require(timeoutS > 0, "--timeout must be > 0");
        require(world.equals("loopback") || world.equals("testbed"), "--world must be loopback or testbed");
        transportValue();
        idleValue();
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new PerfException(PerfException.ERROR, message);
        }
    }

    int size() {
        return size;
    }

    void applyDefaults(TestKind kind) {
        if (size == null) {
            size = kind.defaultSize();
        }
        if (iters == null && durationS == null) {
            iters = kind.defaultIters();
        }
        if (name == null) {
            name = "perf-" + kind.id();
        }
    }

    /** Receives the send-bw server keeps posted per QP. */
    int rxDepthValue() {
        return rxDepth != null ? rxDepth : Math.min(8192, Math.max(512, 2 * txDepth));
    }

    long timeoutNs() {
        return (long) (timeoutS * 1e9);
    }

    DeviceOptions.Transport transportValue() {
        try {
            return DeviceOptions.Transport.valueOf(transport.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new PerfException(PerfException.ERROR, "--transport must be auto, ffm or channel, not " + transport);
        }
    }

    DeviceOptions.Idle idleValue() {
        try {
            return DeviceOptions.Idle.valueOf(idle.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new PerfException(PerfException.ERROR, "--idle must be spin, yield, backoff or park, not " + idle);
        }
    }

    List<InetAddress> planeAddresses() {
        List<InetAddress> l = new ArrayList<>();
        for (String p : planes) {
            try {
                l.add(InetAddress.getByName(p.strip()));
            } catch (UnknownHostException e) {
                throw new PerfException(PerfException.ERROR, "--planes: unknown address " + p);
            }
        }
        return l;
    }

    /**
     * The engine settings: the same on both sides where the connection needs it (MTU, paths). RNR retries are
     * generous: a send-bw server reposts its receives from the application thread, which may fall behind.
     */
    EngineConfig engineConfig(int rqNeeded) {
        // The send queue (and so the peer's message window) follows the tx depth: both sides of a test get the
        // same -t, and a device with thousands of QPs then keeps small per-QP rings.
        int sq = Integer.highestOneBit(Math.max(32, txDepth + 16) - 1) << 1;
        EngineConfig c = DeviceOptions.realNetworkDefaults().mtu(mtu).paths(paths).sqDepth(sq)
                .rqDepth(Math.max(64, rqNeeded))
                .rnrRetryLimit(10_000).rnrDelayNs(100_000);
        if (window != null) {
            c.maxWindowPackets(window).initialWindowPackets(Math.min(c.initialWindowPackets, window));
        }
        if (minRtoUs != null) {
            c.minRtoNs(minRtoUs * 1_000).initialRtoNs(Math.max(c.initialRtoNs, minRtoUs * 1_000));
        }
        return c;
    }

    /** The device's seed: different on the two sides, so that their injected losses are independent. */
    long deviceSeed() {
        return server() ? seed : Pattern.mix(seed);
    }

    DeviceOptions deviceOptions(int rqNeeded) {
        return new DeviceOptions().planes(planeAddresses()).port(server() ? port : 0).engine(engineConfig(rqNeeded))
                .transport(transportValue()).idle(idleValue()).injectLossForTesting(injectLoss).seed(deviceSeed())
                .name(server() ? "perf-server" : "perf-client").gro(gro).gso(!noGso);
    }
}
