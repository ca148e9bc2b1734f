package io.metaroce.cli.perf;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.wire.Packet;
import io.metaroce.net.DeviceOptions;
import io.metaroce.cli.options.Converters;
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

    @Option(names = {"-s", "--size"}, paramLabel = "SIZE", converter = Converters.IntSize.class,
            description = "Message size: bytes, or e.g. 64KiB, 1MiB, 4KB (default 65536 for bandwidth tests, 8 for "
                    + "latency tests).")
    Integer size;

    @Option(names = {"-a", "--all"},
            description = "Run every message size from 2 bytes to 8 MiB (2^1..2^23), one line each, as perftest's -a; "
                    + "give it to both sides. Exclusive with -s.")
    boolean allSizes;

    @Option(names = {"--run_infinitely", "--run-infinitely"},
            description = "Client: run until stopped, printing a result line every -D seconds (default 5), as "
                    + "perftest's --run_infinitely. Ctrl-C (or SIGTERM) ends the run cleanly: the client prints the "
                    + "whole run's line and tells the server, which ends too.")
    boolean runInfinitely;

    @Option(names = {"-n", "--iters"}, paramLabel = "N",
            description = "Messages per QP (default 5000 for bandwidth, 1000 for latency). Exclusive with -D.")
    Long iters;

    @Option(names = {"-D", "--duration"}, paramLabel = "TIME", converter = Converters.Seconds.class,
            description = "Run this long instead of a number of iterations: seconds, or e.g. 500ms, 2s.")
    Double durationS;

    @Option(names = "--omit", paramLabel = "TIME", converter = Converters.Seconds.class, defaultValue = "0",
            description = "Bandwidth tests run with -D or --run_infinitely: run this long first and leave it out of "
                    + "every figure, as iperf3's -O (messages flow meanwhile; on the 2-core test bed a 1-QP write-bw "
                    + "runs at a third of its steady rate for its first 2-4 s while the JIT compiles the datapath). "
                    + "Give it to both sides: send-bw's server measures too (default 0: from the first message, as "
                    + "perftest).")
    double omitS;

    @Option(names = "--warmup", paramLabel = "N",
            description = "Latency tests: ping-pongs before the measured ones, to warm the JIT (default "
                    + LATENCY_WARMUP + " or " + LATENCY_WARMUP_LIMIT_NS / 1_000_000_000L + " s, whichever ends first, "
                    + "before the first size only: with 100, the JIT "
                    + "compiled during the measured run and p99 was 25-50x sockperf's on the test bed).")
    Long warmup;

    /**
     * Ping-pongs a latency test runs before it measures, by default: enough for the JIT to have compiled the
     * ping-pong path (on the 2-core test bed p99 fell from 2.0 ms to 79 us against 100 warm-ups, p50 unchanged).
     */
    static final long LATENCY_WARMUP = 20_000;
    /** The default warm-up ends after this long even if {@link #LATENCY_WARMUP} ping-pongs are not done. */
    static final long LATENCY_WARMUP_LIMIT_NS = 5_000_000_000L;
    /** Whether {@link #warmup} is the default (bounded in time, run before the first size of -a only). */
    boolean warmupDefaulted;

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

    @Option(names = "--payload-mtu", paramLabel = "SIZE", converter = Converters.IntSize.class,
            description = "Payload bytes per packet, e.g. 4096 or 8KiB (default " + DEFAULT_PAYLOAD_MTU
                    + "); must match the server's. Not the link MTU (testbed --mtu): headers come on top.")
    Integer payloadMtu;

    @Option(names = "--mtu", paramLabel = "SIZE", converter = Converters.IntSize.class, hidden = true,
            description = "Deprecated alias of --payload-mtu (warns).")
    Integer deprecatedMtu;

    @Option(names = "--transport", defaultValue = "auto", paramLabel = "auto|ffm|channel",
            description = "UDP datapath: ffm (sendmmsg/recvmmsg, ECN), channel (portable) or auto (default).")
    String transport;

    @Option(names = "--no-gro", description = "Do not ask the kernel for UDP GRO on the receive sockets (on by default).")
    boolean noGro;

    @Option(names = "--no-gso", description = "Send every datagram on its own (no UDP GSO runs).")
    boolean noGso;

    @Option(names = "--trimmed-dscp", defaultValue = "-1", paramLabel = "1..63",
            description = "Datagrams arriving with this IP DSCP are packets a trimming switch cut to their headers: "
                    + "the receiver NAKs them at once (REL-17; ffm transport). Default -1: the network does not trim.")
    int trimmedDscp;

    @Option(names = "--auth-key", paramLabel = "FILE",
            description = "Authenticate every packet (AES-128-GCM, docs/spec/10-auth.md) with keys derived per "
                    + "connection from the pre-shared key in FILE: 16..64 bytes as hexadecimal text, the same file on "
                    + "both sides (make one with: head -c 32 /dev/urandom | xxd -p -c 64). A side with a key accepts "
                    + "only authenticated connections and seals its connection-manager messages (HMAC-SHA256), so "
                    + "that nobody without the key can close or refuse its connections.")
    java.nio.file.Path authKey;

    @Option(names = "--encrypt", description = "With --auth-key: encrypt payloads too (when both sides ask for it).")
    boolean encrypt;

    @Option(names = "--key-update", paramLabel = "PACKETS",
            description = "With --auth-key: move to the next key after sealing PACKETS packets under one (AUTH-18; "
                    + "default 4194304 = 2^22, 0 = never). Counters KEY_UPDATES_SENT / KEY_UPDATES_RECEIVED.")
    Long keyUpdatePackets;

    @Option(names = "--no-ack-bundle", description = "Send each path's ACK as its own datagram instead of one ACK "
            + "bundle per QP and receive batch (ACK-11; bundles are on by default).")
    boolean noAckBundle;

    @Option(names = "--tx-rate-gbps", paramLabel = "GBPS",
            description = "The device's transmit pacing rate in Gb/s; 0 = off (default: the links' line rate where "
                    + "the kernel reports one, else off).")
    Double txRateGbps;

    @Option(names = "--inbound-gbps", paramLabel = "GBPS",
            description = "Inbound capacity the device shares among its senders, in Gb/s; 0 = off (default: as "
                    + "--tx-rate-gbps).")
    Double inboundGbps;

    @Option(names = "--pacing-gain", paramLabel = "X",
            description = "Per-path pacing rate = X * window / RTT; 0 turns per-path pacing off (default: the engine's).")
    Double pacingGain;
    @Option(names = "--pacing-burst", paramLabel = "SIZE", converter = Converters.IntSize.class,
            description = "Burst credit of the pacers (CC-5): a path or the device may send this much back to back "
                    + "after falling behind, so a duty cycle can hand GSO a run (default: the device's, 256KiB; 0 = none).")
    Integer pacingBurst;
    @Option(names = "--tx-quantum", paramLabel = "SIZE", converter = Converters.IntSize.class,
            description = "Bytes one QP may send per turn of the device's round robin over QPs with work (VERBS-19); "
                    + "0 = one datagram per turn (default: the device's, 256KiB).")
    Integer txQuantum;

    @Option(names = "--agent", paramLabel = "thread|inline",
            description = "Who runs the device's duty cycle: this tool's polling thread (inline, the default: one "
                    + "thread per side as perftest's, no hand-offs) or an I/O thread of its own (thread).")
    String agent;

    @Option(names = "--stall-clamp-us", defaultValue = "2000", paramLabel = "US",
            description = "Longest step of the engine's clock between two duty cycles; a longer gap (the I/O thread "
                    + "was not scheduled) is left out of the protocol's timers; 0 = off (default ${DEFAULT-VALUE}).")
    long stallClampUs;

    @Option(names = "--window", paramLabel = "PACKETS",
            description = "Largest congestion window per path, in packets (1-256; default: the device's).")
    Integer window;

    @Option(names = "--idle", paramLabel = "spin|yield|backoff|park|block",
            description = "How the device agent and this tool's polling thread wait when idle (default: block for "
                    + "the bandwidth tests, yield for the latency tests).")
    String idle;

    @Option(names = "--inject-loss", defaultValue = "0", paramLabel = "FRACTION", converter = Converters.Fraction.class,
            description = "TEST ONLY: this side's receiver drops this fraction of received protocol datagrams "
                    + "before the engine sees them (not network loss).")
    double injectLoss;

    @Option(names = "--min-rto-us", paramLabel = "TIME", converter = Converters.Micros.class,
            description = "Minimum retransmission timeout: microseconds, or e.g. 20ms (default: the engine's).")
    Long minRtoUs;

    @Option(names = "--ack-hold-window-us", paramLabel = "TIME", converter = Converters.Micros.class,
            description = "How long the sender remembers the longest ACK hold time its peer reported (RTO-10): "
                    + "microseconds, or e.g. 2s; 0 ignores reported hold times (default: the engine's, 2 s).")
    Long ackHoldWindowUs;

    @Option(names = "--silence-grace-us", paramLabel = "TIME", converter = Converters.Micros.class,
            description = "How long a timeout may wait while the peer acknowledges nothing new on any path (RTO-11, "
                    + "a descheduled peer): microseconds, or e.g. 100ms; 0 never waits (default: the real-network "
                    + "settings' 100 ms).")
    Long silenceGraceUs;

    @Option(names = "--missing-nak", description = "This side's receiver NAKs a segment still missing behind a later "
            + "one of its message (REL-16, NAK MISSING; off by default). Every requester acts on such NAKs.")
    boolean missingNak;

    @Option(names = "--parity-tail", paramLabel = "SEGMENTS", defaultValue = "0",
            description = "This side's sender follows every message of two or more segments with a PARITY over its "
                    + "last SEGMENTS segments (2-255), from which the receiver rebuilds one lost segment of the tail "
                    + "without a resend (REL-18; default 0: none). Every receiver uses what it gets.")
    int parityTail;

    @Option(names = "--parity-repairs", paramLabel = "N", defaultValue = "1",
            description = "With --parity-tail: parities per message tail, 1-16 (REL-20, REL-21: a receiver rebuilds as "
                    + "many lost segments of the tail as there are parities; default 1). With --parity-adaptive, the "
                    + "most.")
    int parityRepairs;

    @Option(names = "--parity-adaptive", description = "With --parity-tail: as many parities per message as the peer's "
            + "measured loss rate calls for, at most --parity-repairs (REL-21).")
    boolean parityAdaptive;

    @Option(names = "--resend-copies", paramLabel = "N", defaultValue = "4",
            description = "Once a QP has nothing new to send, each resend is followed by copies, as many as make "
                    + "losing them all at most 5%% likely at the measured loss rate, at most N (1-16; 1: none; "
                    + "REL-22; default ${DEFAULT-VALUE}).")
    int resendCopies;

    @Option(names = "--verify", description = "Check the data: write-bw and send-bw on the server, read-bw on the client.")
    boolean verify;

    @Option(names = "--timeout", defaultValue = "30", paramLabel = "TIME", converter = Converters.Seconds.class,
            description = "Give up when connecting takes, or the run makes no progress for, this long: seconds or "
                    + "e.g. 500ms (default ${DEFAULT-VALUE} s). The server waits for its first client without limit.")
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

    @Option(names = "--json", description = "Print one JSON document with the run's results on standard output "
            + "(perftest's --out_json fields and the record's metrics); the text report goes to standard error.")
    boolean json;

    @Option(names = "--stats", description = "Print the device's statistics at the end.")
    boolean stats;

    @Option(names = "--stats-file", paramLabel = "FILE",
            description = "Write the device's statistics as JSON to FILE every second (read it with `metaroce stats FILE`).")
    Path statsFile;

    @CommandLine.Mixin
    MetricsOptions metrics = new MetricsOptions();

    @Option(names = "--seed", defaultValue = "1", description = "Seed of the device and the data pattern (default ${DEFAULT-VALUE}).")
    long seed;

    /** Payload bytes per packet when neither --payload-mtu nor --mtu is given. */
    static final int DEFAULT_PAYLOAD_MTU = 4096;
    /** -a: the largest message size, bytes (perftest's 2^23). */
    static final int ALL_SIZES_MAX = 1 << 23;
    /** --run_infinitely: seconds between two result lines without -D (perftest's default duration). */
    static final double INFINITE_REPORT_S = 5;

    /**
     * Set by the runner, not by a flag: for -a, whether this size continues a table (its header block and column
     * header were printed already) and whether more sizes follow (the closing line waits for the last).
     */
    boolean continuesTable;
    boolean tableGoesOn;
    /** Whether -s was given (applyDefaults fills it in otherwise). */
    private boolean sizeGiven;

    public PerfOptions() {
    }

    /** Payload bytes per packet. */
    int payloadMtu() {
        return payloadMtu != null ? payloadMtu : deprecatedMtu != null ? deprecatedMtu : DEFAULT_PAYLOAD_MTU;
    }

    /** The warnings about deprecated flags this command line used (one line each). */
    List<String> deprecations() {
        List<String> w = new ArrayList<>();
        if (deprecatedMtu != null) {
            w.add("--mtu is deprecated in perf: it means payload bytes per packet here; use --payload-mtu "
                    + "(the link MTU is testbed's --mtu)");
        }
        return w;
    }

    boolean server() {
        return host == null;
    }

    /** Checks the flags for {@code kind} and throws a user-facing message for the first bad one. */
    void validate(TestKind kind) {
        require(iters == null || durationS == null, "-n/--iters and -D/--duration are exclusive");
        require(!allSizes || !sizeGiven, "-a/--all and -s/--size are exclusive");
        require(!allSizes || !runInfinitely, "-a/--all and --run_infinitely are exclusive");
        require(!runInfinitely || iters == null, "--run_infinitely and -n/--iters are exclusive (-D sets the "
                + "report interval)");
        require(!(allSizes || runInfinitely) || record == null && !json && expectGbps == null && expectP99Us == null,
                "-a/--all and --run_infinitely print a table: --record, --json and --expect-* are for single runs");
        require(iters == null || iters > 0, "-n/--iters must be > 0");
        require(durationS == null || durationS > 0, "-D/--duration must be > 0");
        require(size() >= 1, "-s/--size must be >= 1");
        require(warmup >= 0, "--warmup must be >= 0");
        require(omitS >= 0, "--omit must be >= 0");
        require(parityTail == 0 || parityTail >= 2 && parityTail <= 255, "--parity-tail must be 0 (off) or in 2..255");
        require(parityRepairs >= 1 && parityRepairs <= 16, "--parity-repairs must be in 1..16");
        require(resendCopies >= 1 && resendCopies <= 16, "--resend-copies must be in 1..16");
        require(omitS == 0 || !kind.latency(), "--omit is for bandwidth tests (latency tests warm up with --warmup)");
        require(omitS == 0 || server() || durationS != null || runInfinitely,
                "--omit needs -D/--duration or --run_infinitely: a run of -n messages has no time to leave out");
        require(!kind.latency() || qps == 1, "latency tests use one QP: -q/--qps must be 1");
        require(qps >= 1 && qps <= 16_384, "-q/--qps must be in 1..16384");
        require(txDepth >= 1 && txDepth <= 8192, "-t/--tx-depth must be in 1..8192");
        require(rxDepth == null || rxDepth >= 1 && rxDepth <= 8192, "-r/--rx-depth must be in 1..8192");
        require(port >= 0 && port <= 65_535, "-p/--port must be in 0..65535");
        require(server() || port != 0, "-p 0 only makes sense on the server");
        require(!planes.isEmpty(), "--planes needs at least one address");
        require(paths >= planes.size() && paths <= 256, "--paths must be in <planes>..256");
        require(payloadMtu == null || deprecatedMtu == null, "--payload-mtu and --mtu are the same: give one");
        require(payloadMtu() >= 64 && payloadMtu() <= 65_000, "--payload-mtu must be in 64..65000");
        require(injectLoss >= 0 && injectLoss < 1, "--inject-loss must be in [0, 1)");
        require(timeoutS > 0, "--timeout must be > 0");
        require(txRateGbps == null || txRateGbps >= 0, "--tx-rate-gbps must be >= 0");
        require(inboundGbps == null || inboundGbps >= 0, "--inbound-gbps must be >= 0");
        require(pacingGain == null || pacingGain >= 0, "--pacing-gain must be >= 0");
        require(pacingBurst == null || pacingBurst >= 0, "--pacing-burst must be >= 0");
        require(txQuantum == null || txQuantum >= 0, "--tx-quantum must be >= 0");
        require(stallClampUs >= 0, "--stall-clamp-us must be >= 0");
        require(ackHoldWindowUs == null || ackHoldWindowUs >= 0, "--ack-hold-window-us must be >= 0");
        require(silenceGraceUs == null || silenceGraceUs >= 0, "--silence-grace-us must be >= 0");
        require(agent.equals("thread") || agent.equals("inline"), "--agent must be thread or inline, not " + agent);
        require(world.equals("loopback") || world.equals("testbed"), "--world must be loopback or testbed");
        require(!encrypt || authKey != null, "--encrypt needs --auth-key");
        require(keyUpdatePackets == null || authKey != null, "--key-update needs --auth-key");
        require(keyUpdatePackets == null || keyUpdatePackets >= 0, "--key-update must be >= 0 (0 = never)");
        transportValue();
        idleValue();
        authKeyValue();
    }

    /** The pre-shared key of {@code --auth-key} (AUTH-9), or null; a one-line error for a bad file. */
    byte[] authKeyValue() {
        if (authKey == null) {
            return null;
        }
        String text;
        try {
            text = java.nio.file.Files.readString(authKey).replaceAll("\\s", "");
        } catch (java.io.IOException | RuntimeException e) {
            throw new PerfException(PerfException.ERROR, "--auth-key: cannot read " + authKey + ": " + e.getMessage());
        }
        byte[] key;
        try {
            key = java.util.HexFormat.of().parseHex(text);
        } catch (IllegalArgumentException e) {
            throw new PerfException(PerfException.ERROR, "--auth-key: " + authKey + " is not hexadecimal text");
        }
        require(key.length >= io.metaroce.core.auth.AuthKeys.MIN_PSK_LENGTH
                && key.length <= io.metaroce.core.auth.AuthKeys.MAX_PSK_LENGTH,
                "--auth-key: " + authKey + " holds " + key.length + " bytes; a pre-shared key is 16..64 bytes");
        return key;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new PerfException(PerfException.ERROR, message);
        }
    }

    int size() {
        return size;
    }

    /** -a: the size of the next table line, bytes. */
    void size(int bytes) {
        size = bytes;
    }

    void applyDefaults(TestKind kind) {
        sizeGiven = size != null;
        if (size == null) {
            size = allSizes ? 2 : kind.defaultSize();
        }
        if (iters == null && durationS == null && !runInfinitely) {
            iters = kind.defaultIters();
        }
        if (name == null) {
            name = "perf-" + kind.id();
        }
        if (agent == null) {
            // one thread per side: a hand-off between two threads per side only adds wake-ups, and on a 2-core host
            // four busy threads deschedule each other (bench/net.sh: a ping-pong's p50 55 us against 17 us inline,
            // 2026-12-02; 1-QP write-bw 14.5 against 28.8 Gb/s, 4,000 QPs 12.0 against 17.4 Gb/s, 2026-12-03)
            agent = "inline";
        }
        if (idle == null) {
            // a bandwidth test's thread waits mostly for ACKs: sleeping in the kernel until one arrives leaves the
            // core to the peer and to the kernel's own work (1-QP write-bw on the test bed, 5 interleaved rounds,
            // 2026-12-04: block 14.4-19.4 Gb/s, median 16.6, yield 9.1-19.3, median 10.2); a ping-pong's reply comes
            // within the spin, and a sleep past it costs the tail (write-lat p99 271-361 us with block, 46-51 yield)
            idle = kind.latency() ? "yield" : "block";
        }
        if (warmup == null) {
            warmup = kind.latency() ? LATENCY_WARMUP : 0;
            warmupDefaulted = kind.latency();
        }
    }

    /** Receives the send-bw server keeps posted per QP. */
    int rxDepthValue() {
        return rxDepth != null ? rxDepth : Math.min(8192, Math.max(512, 2 * txDepth));
    }

    /** {@code --omit} in ns. */
    long omitNs() {
        return (long) (omitS * 1e9);
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
            throw new PerfException(PerfException.ERROR,
                    "--idle must be spin, yield, backoff, park or block, not " + idle);
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
        EngineConfig c = DeviceOptions.realNetworkDefaults().mtu(payloadMtu()).paths(paths).sqDepth(sq)
                .rqDepth(Math.max(64, rqNeeded))
                .rnrRetryLimit(10_000).rnrDelayNs(100_000);
        if (window != null) {
            c.maxWindowPackets(window).initialWindowPackets(Math.min(c.initialWindowPackets, window));
        }
        if (txRateGbps != null) {
            c.txRateBps((long) (txRateGbps * 1e9));
        }
        if (inboundGbps != null) {
            c.inboundCapacityBps((long) (inboundGbps * 1e9));
        }
        if (pacingGain != null) {
            c.pacingGain(pacingGain);
        }
        if (pacingBurst != null) {
            c.pacingBurstBytes(pacingBurst);
        }
        if (txQuantum != null) {
            c.txQuantumBytes(txQuantum);
        }
        if (noAckBundle) {
            c.ackBundle(false);
        }
        if (keyUpdatePackets != null) {
            c.authKeyUpdatePackets(keyUpdatePackets);
        }
        if (ackHoldWindowUs != null) {
            c.ackHoldWindowNs(ackHoldWindowUs * 1_000);
        }
        if (silenceGraceUs != null) {
            c.peerSilenceGraceNs(silenceGraceUs * 1_000);
        }
        if (missingNak) {
            c.missingNak(true);
        }
        c.parityTailSegments(parityTail).parityRepairs(parityRepairs).parityAdaptive(parityAdaptive);
        c.resendCopies(resendCopies);
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
                .name(server() ? "perf-server" : "perf-client").willListen(server()).gro(!noGro).gso(!noGso)
                // an explicit 0 means off, not "take the link's rate"
                .rateFromLink(txRateGbps == null && inboundGbps == null).stallClampNs(stallClampUs * 1_000)
                .agentThread(agent.equals("thread")).authKey(authKeyValue()).encrypt(encrypt).trimmedDscp(trimmedDscp);
    }
}
