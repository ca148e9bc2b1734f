package io.metaroce.net;

import io.metaroce.core.EngineConfig;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;

/** How to open a {@link Device}. Fluent setters; defaults suit loopback and a test bed. */
public final class DeviceOptions {
    /** Which kernel interface moves the datagrams. */
    public enum Transport {
        /** FFM (sendmmsg/recvmmsg, ECN) on Linux, else the channel fallback. */
        AUTO,
        /** FFM only; opening fails where it is unavailable. */
        FFM,
        /** {@link java.nio.channels.DatagramChannel}: portable, slower, blind to ECN. */
        CHANNEL
    }

    /** How the I/O agent waits when it has nothing to do. */
    public enum Idle {
        /**
         * Spin for 50 us, then sleep in the kernel (ppoll) until a datagram, a timer or queued work: little CPU
         * burnt, a wake-up of tens of microseconds, and on a loaded host the scheduler favours a woken thread
         * over busy ones. Without an agent thread the application sleeps through {@link Device#await(long)}.
         * Falls back to BACKOFF without FFM.
         */
        BLOCK,
        /** Busy-spin: lowest latency, one core always busy. */
        SPIN,
        /** Spin 20 us after the last work, then Thread.yield between polls (the default: the best measured on 2 shared cores). */
        YIELD,
        /** Spin, then yield (about 5,000 times), then park up to 50 us. */
        BACKOFF,
        /** Park 100 us between polls: least CPU, most latency. */
        PARK
    }

    /**
     * Datagrams the agent takes from the engine per send round by default. The round is split by send socket (one
     * per path), so with P paths each socket's {@code sendmmsg} gets about {@code TX_BATCH / P} datagrams, in UDP GSO
     * messages of up to 64 KiB: at 32, four paths made 7.8 datagrams per call, one GSO message, a kernel crossing
     * per 64 KiB; at 128 (with a 256 KiB burst credit) 29.4 per call (bench/net.sh part 1, 2026-12-04).
     */
    static final int TX_BATCH = 128;

    /** The real network's pacing burst credit and transmit turn quantum, in bytes. */
    static final int REAL_BURST_BYTES = 256 * 1024;

    /**
     * RTO-11's wait for a silent peer on real hosts, in ns: longer than the stalls of a JVM's first second on a shared
     * host (up to ~80 ms seen on the test bed, while both ends compile their datapath).
     */
    static final long PEER_SILENCE_GRACE_NS = 100_000_000L;

    final List<InetAddress> planes = new ArrayList<>();
    int port = io.metaroce.core.wire.Packet.DEFAULT_UDP_PORT;
    int basePort;
    EngineConfig engine = realNetworkDefaults();
    Transport transport = Transport.AUTO;
    Idle idle = Idle.YIELD;
    double injectLoss;
    long seed = 1;
    int socketBufferBytes = 8 << 20;
    int batch = 32;
    int txBatch = TX_BATCH;
    boolean gro = true;
    boolean gso = true;
    boolean rateFromLink = true;
    boolean agentThread = true;
    LinkRate linkRate = LinkRate.system();
    long stallClampNs = 2_000_000;
    String name = "metaroce";
    byte[] authKey;
    boolean encrypt;
    boolean willListen;
    int trimmedDscp = -1;

    public DeviceOptions() {
    }

    /**
     * Engine settings for hosts whose I/O thread shares its cores: timers long enough that scheduling stalls
     * of a few milliseconds are not taken for loss or failure (and the peer's reported ACK hold times taken into
     * account, RTO-10; with REL-16 turned on a missing segment is NAKed 1 ms past the slowest lag, not 5 us), and ACK
     * bundles (ACK-11: one ACK datagram per QP and receive batch instead of one per path, since every datagram is a
     * kernel crossing). No device rate is set here: a device opened with {@link #rateFromLink} (the default) paces
     * at its links' line rate where the kernel reports one, and otherwise leaves the rates off
     * ({@link Device#rateSummary()} says which). RTO-11's wait for a silent peer is on ({@value
     * #PEER_SILENCE_GRACE_NS} ns; {@code perf --silence-grace-us 0} turns it off): with RTO-10's drain after a stall
     * it took the test bed's lossless 1-QP runs from spurious timeouts in 3 of 14 to none in 14 (interleaved with the
     * build before; the timeouts all fell in the JVMs' first second); with a probe at each deferral it costs nothing at
     * 10% loss per hop (5 pairs with and without it, median ratio 1.02), where without the probe a window lost with
     * its ACKs looked silent and cost 8-12% (2026-12-04; the spec's RTO-11).
     */
    public static EngineConfig realNetworkDefaults() {
        // CC-5 burst credit and VERBS-19 turn quantum of 256 KiB: a duty cycle hands the kernel runs of a route's
        // datagrams (several 64 KiB GSO messages per sendmmsg, with TX_BATCH), and each of thousands of QPs sends a
        // message of up to 256 KiB in its turn, which its peer acknowledges in one bundle. 64 KiB (2026-12-02) gave
        // one GSO message per kernel crossing; 256 KiB with TX_BATCH 128: 15.7 against 12.7 Gb/s median over 12
        // interleaved 1-QP pairs; a 64 KiB quantum with the 256 KiB credit was lower in 4 of 4 pairs, cause not found
        // (bench/net.sh part 1's perf lines, 2026-12-04; see the README)
        return new EngineConfig().mtu(8192).paths(8).minRtoNs(5_000_000).initialRtoNs(10_000_000)
                .maxRtoNs(200_000_000).ackDelayNs(20_000).probeIntervalNs(5_000_000).failAfterTimeouts(3)
                .connectionTimeoutNs(10_000_000_000L).maxWindowPackets(64).ackBundle(true)
                .ackHoldWindowNs(2_000_000_000L).peerSilenceGraceNs(PEER_SILENCE_GRACE_NS)
                .pacingBurstBytes(REAL_BURST_BYTES).txQuantumBytes(REAL_BURST_BYTES)
                // REL-16: opt-in here (perf --missing-nak): on the test bed its gain was within the noise
                .missingNak(false).missingNakMarginNs(1_000_000)
                // PATH-13: a software datapath's probes cost the agent's CPU, not the line's bandwidth: the fixed
                // budget, not 1% of the line rate
                .maxProbesPerSecond(EngineConfig.FALLBACK_PROBES_PER_SECOND);
    }

    /** One local address per plane, in plane order. */
    public DeviceOptions planes(List<InetAddress> addresses) {
        planes.clear();
        planes.addAll(addresses);
        return this;
    }

    /** UDP port to receive on (the protocol's destination port); 0 picks a free one. */
    public DeviceOptions port(int p) { port = p; return this; }
    /**
     * Source port of path 0: path {@code i} sends from {@code basePort + i} (WIRE-15). 0 (the default) picks a
     * free range, right after the receive port when it can.
     */
    public DeviceOptions basePort(int p) { basePort = p; return this; }
    /**
     * When the engine settings leave {@code txRateBps} or {@code inboundCapacityBps} at 0, set them to the sum of
     * the planes' line rates where the kernel reports every one (sysfs; virtual links have none). Default on.
     */
    public DeviceOptions rateFromLink(boolean on) { rateFromLink = on; return this; }
    /** Where link rates are read (a seam for tests; the system's sysfs by default). */
    DeviceOptions linkRate(LinkRate l) { linkRate = l; return this; }
    /**
     * The longest step of the engine's clock between two duty cycles, in ns: a longer gap (the agent thread was
     * not scheduled) is counted as a stall and left out of the protocol's timers. Default 2 ms; 0 turns it off.
     */
    public DeviceOptions stallClampNs(long ns) { stallClampNs = ns; return this; }
    /** Engine settings; {@code planes} is set from the plane addresses. */
    public DeviceOptions engine(EngineConfig c) { engine = c; return this; }
    public DeviceOptions transport(Transport t) { transport = t; return this; }
    public DeviceOptions idle(Idle i) { idle = i; return this; }
    /**
     * TEST ONLY: drop this fraction of received protocol datagrams at the receiver, before the engine sees
     * them (seeded). For loss experiments where the network cannot drop.
     */
    public DeviceOptions injectLossForTesting(double fraction) { injectLoss = fraction; return this; }
    public DeviceOptions seed(long s) { seed = s; return this; }
    public DeviceOptions socketBufferBytes(int b) { socketBufferBytes = b; return this; }
    /** Most datagrams (or GRO buffers) per recvmmsg call (default 32). */
    public DeviceOptions batch(int b) {
        batch = batchSize(b, "batch");
        return this;
    }

    /**
     * Most datagrams the agent takes from the engine per send round, split into one sendmmsg call per send socket
     * (default {@value #TX_BATCH}).
     */
    public DeviceOptions txBatch(int b) {
        txBatch = batchSize(b, "txBatch");
        return this;
    }

    private static int batchSize(int v, String what) {
        if (v < 1 || v > 4096) {
            throw new IllegalArgumentException(what + " must be in 1..4096, not " + v);
        }
        return v;
    }
    /**
     * REL-17: datagrams that arrive with this IP DSCP (1..63) are packets a trimming switch cut to their headers
     * (the codepoint the network's switches are configured to mark them with); the engine NAKs them at once. -1 (the
     * default): the network does not trim. Read from {@code IP_RECVTOS}, so only with the FFM transport.
     */
    public DeviceOptions trimmedDscp(int dscp) {
        if (dscp == 0 || dscp < -1 || dscp > 63) {
            throw new IllegalArgumentException("the trimmed-packet DSCP is 1..63 (0 is what every untrimmed datagram "
                    + "carries) or -1 for none, not " + dscp);
        }
        trimmedDscp = dscp;
        return this;
    }
    /** Ask the kernel for UDP GRO on receive sockets (default on; coalesced buffers are split per datagram). */
    public DeviceOptions gro(boolean on) { gro = on; return this; }
    /** Send runs of equal-size datagrams to one peer as one UDP GSO ({@code UDP_SEGMENT}) send. */
    public DeviceOptions gso(boolean on) { gso = on; return this; }
    /**
     * With {@code false}, the device starts no thread: the application runs its duty cycle by calling
     * {@link Device#invoke()} from its polling loop (control calls made without it run it themselves). One
     * thread per side and no hand-offs: the lowest latency on few cores. Default {@code true}.
     */
    public DeviceOptions agentThread(boolean on) { agentThread = on; return this; }
    /**
     * AUTH-9: authenticate every connection of this device with keys derived from {@code preSharedKey} (16..64
     * bytes, the same on both devices, provisioned out of band: docs/spec/10-auth.md); null (the default) for none.
     * A device with a key accepts only authenticated connections.
     */
    public DeviceOptions authKey(byte[] preSharedKey) {
        if (preSharedKey != null) {
            io.metaroce.core.auth.AuthKeys.checkPsk(preSharedKey);
        }
        authKey = preSharedKey == null ? null : preSharedKey.clone();
        return this;
    }
    /** AUTH-5: with {@link #authKey}, ask for encrypted payloads too (granted when the peer asks as well). */
    public DeviceOptions encrypt(boolean on) { encrypt = on; return this; }
    /**
     * With {@code true}, this device is a server that will call {@link Device#listen}: a CM_REQ that arrives
     * before it does is ignored (CM-16), so the initiator's retransmission finds the listener, instead of being
     * refused with CM_REJ CONSUMER (the default, a quick failure for a device that never listens). Closes the
     * start-up race of a server whose sockets are bound before it listens while a client is already retrying.
     */
    public DeviceOptions willListen(boolean on) { willListen = on; return this; }
    /** Name of the agent thread. */
    public DeviceOptions name(String n) { name = n; return this; }
}
