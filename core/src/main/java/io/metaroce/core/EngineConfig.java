package io.metaroce.core;

import io.metaroce.core.wire.Ecn;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.ParityHeader;

/**
 * Tunables of one engine, with datacenter defaults (spec names each one where it is used). Fluent setters;
 * {@link #validate()} is called by the engine and rejects inconsistent values with a clear message. Every
 * quantity names its unit.
 */
public final class EngineConfig {
    /** The defaults. */
    public EngineConfig() {
    }

    /** Payload bytes per data packet (the connection MTU). */
    public int mtu = 4096;
    /**
     * Paths per QP, 1..256. 32: enough that ECMP's hash collisions mostly average out on a fat-tree (the 128-host
     * permutation's slowest flow ~5-9% above htsim's UEC with its 64 entropies, against 10-26% with 16 paths), few
     * enough that each path still carries several packets per round trip at 10% loss per link (at 48 and 64 the
     * scaled E1 all-reduce falls below its 0.5; see the spec's 04-multipath).
     */
    public int paths = 32;
    /** Planes; path i is on plane i % planes. */
    public int planes = 4;
    /** Send queue depth: outstanding work requests per QP; also the receiver's message window. Power of 2. */
    public int sqDepth = 1024;
    /** Receive queue depth per QP. */
    public int rqDepth = 1024;
    /** Largest initial congestion window of one path, in packets (CC-1). */
    public int initialWindowPackets = 16;
    /**
     * A connection's initial window in bytes, spread evenly over its paths (CC-1): each path starts at
     * {@code initialWindowBytes / paths}, at least one packet and at most {@link #initialWindowPackets}. 0 (the
     * default) means about one bandwidth-delay product: the line rate {@link #txRateBps} times
     * {@link #INITIAL_WINDOW_RTT_NS}, or {@link #INITIAL_WINDOW_FALLBACK_BYTES} when the line rate is not set.
     */
    public long initialWindowBytes = 0;
    /** The round trip the default initial window covers: a 3-tier datacenter fabric's, 15 us. */
    public static final long INITIAL_WINDOW_RTT_NS = 15_000;
    /** The default initial window of a connection without a line rate: one BDP of 100 Gb/s x 15 us. */
    public static final long INITIAL_WINDOW_FALLBACK_BYTES = 192 * 1024;
    /**
     * Smallest congestion window of a path in bytes (CC-10): below one packet the path sends one packet at a time,
     * paced at {@code cwnd / srtt}, so thousands of connections sharing a fabric can each take less than a packet
     * per round trip. A value above {@link #mtu} counts as one packet.
     */
    public int minWindowBytes = 512;
    /** Largest congestion window per path, in packets (at most 256: the SACK bitmap). */
    public int maxWindowPackets = 256;
    /**
     * ACK-11: a QP that sends an ACK while other paths also have accepted packets not yet acknowledged puts them
     * all into one ACK bundle datagram. On by default: on a real host each datagram is a kernel crossing, in the
     * simulator an event per hop, and a QP sprayed over many paths has about one packet per path per round trip, so
     * one ACK per path would be nearly one ACK per data packet (the 128-host fat-tree benchmark: 7.7 events per data
     * packet with bundles, 11.1 without). Off: each path's ACK is its own datagram (ACK-1). A receiver accepts
     * bundles either way.
     */
    public boolean ackBundle = true;
    /**
     * RTO-10: how long, in ns, the sender remembers the longest ACK hold time (ACK-12) its peer reported: a path's
     * retransmission timeout adds the longest hold reported within the last one to two windows (unless the peer has
     * acknowledged a later packet), so a peer that is descheduled for a few milliseconds now and then (a shared
     * host) is not taken for a loss. 0 (the default) ignores reported hold times; on in
     * {@code realNetworkDefaults}. A receiver reports them either way.
     */
    public long ackHoldWindowNs = 0;
    /**
     * RTO-11: how long a path's retransmission timeout may wait, counted from its oldest unacknowledged packet, while
     * the peer has acknowledged nothing (of any QP, on any route) sent since that packet left and more than 8 of the
     * QP's packets are out since, in ns: a descheduled peer acknowledges nothing new anywhere, a failed path's peer
     * goes on acknowledging on the others; each deferral sends a tail-loss probe, which a running peer answers. 0 (the
     * default) never waits; net's {@code realNetworkDefaults} wait up to 100 ms.
     */
    public long peerSilenceGraceNs = 0;
    /** Accepted packets per path after which an ACK is sent. */
    public int ackEvery = 4;
    /** Longest an accepted packet waits for its ACK. */
    public long ackDelayNs = 5_000;
    /** A PSN is lost when one this many higher on its path is acknowledged. */
    public int reorderThreshold = 1;
    public long initialRtoNs = 1_000_000;
    public long minRtoNs = 200_000;
    public long maxRtoNs = 64_000_000;
    /** Consecutive RTOs (without ECN evidence) after which a path is failed. */
    public int failAfterTimeouts = 2;
    public long probeIntervalNs = 200_000;
    /**
     * PATH-13: most health probes the whole engine sends per second (a device with thousands of failed paths must not
     * storm). 0 (the default): probes may take {@link #PROBE_SHARE_OF_LINE_RATE 1%} of the device's line rate
     * ({@code txRateBps}; 52-byte datagrams, so 9.6 M/s at 400 Gb/s), and {@link #FALLBACK_PROBES_PER_SECOND} when no
     * rate is set. See {@link #probesPerSecond()}.
     */
    public long maxProbesPerSecond = 0;
    /** PATH-13: the probe budget when neither {@code maxProbesPerSecond} nor {@code txRateBps} is set. */
    public static final long FALLBACK_PROBES_PER_SECOND = 50_000;
    /** PATH-13: the share of the line rate, 1 / this, that health probes may take by default. */
    public static final int PROBE_SHARE_OF_LINE_RATE = 100;
    /** A health probe's datagram: base header, probe extension and CRC. */
    static final int PROBE_DATAGRAM_BYTES = Packet.datagramLength(Opcode.PROBE, 0);
    /** Consecutive probe replies that re-admit a failed path. */
    public int readmitAfterProbes = 2;
    /**
     * PATH-17: a failed route (a path id to one peer) is probed by one of the QPs whose path on it failed; its
     * re-admission re-admits the others. Off: every QP probes its own failed paths (probes grow with the QPs).
     */
    public boolean routeProbing = true;
    /** Times one segment may be resent before its work request fails with RETRY_EXC_ERR. */
    public int retryLimit = 32;
    public int rnrRetryLimit = 7;
    public long rnrDelayNs = 100_000;
    /** How long every path of a QP may stay failed before the QP fails with RETRY_EXC_ERR. */
    public long connectionTimeoutNs = 1_000_000_000L;
    /** DCTCP gain g for the marked-fraction average. */
    public double ecnGain = 1.0 / 16;
    /** Multiplicative decrease on loss without ECN marks, at most once per RTT. */
    public double lossBeta = 1.0 / 8;
    /** Per-path pacing rate = pacingGain * cwnd / srtt; 0 turns pacing off. */
    public double pacingGain = 2.0;
    /**
     * Burst credit of the pacers, in bytes (CC-5, PATH-14): a route's pacing clock and the device's line-rate clock
     * may lag real time by up to this many bytes' worth, so a driver that runs in duty cycles gets a run of
     * datagrams per route and per cycle that the kernel can batch (GSO), while the average rate stays paced.
     * 0 (the default) paces packet by packet.
     */
    public int pacingBurstBytes = 0;
    /**
     * VERBS-19: how many bytes of datagrams one QP's turn in {@code pollTransmit}'s round robin may carry before
     * the next QP with work is served (a deficit round robin quantum). 0 (the default): one datagram per turn. A
     * turn of a message's worth lets many QPs sharing a peer each send a message back to back, so the receiver
     * acknowledges it in one ACK bundle (ACK-10) and it completes in its turn, instead of every QP's messages
     * advancing a packet at a time and completing together at the end of the backlog.
     */
    public int txQuantumBytes = 0;
    /**
     * RTO-6: whether a tail-loss probe carries the path's newest unacknowledged segment again (a tail copy) instead
     * of being a PROBE. On by default since 2026-12-01: with a path's timers going by the peer's RTT before it has
     * samples of its own (RTO-2), E5 scaled keeps more of its lossless bandwidth with copies than without on five of
     * its eight lossy points, and chained messages' p99 falls (bench/tail-loss.sh).
     */
    public boolean tailCopy = true;
    /**
     * RTO-6: tail-loss probes a path may send per progress, each further one a probe interval after the first.
     * 2 by default since 2026-12-02: with one, a lost probe or a lost answer to it left the tail to the RTO (E1's
     * permutation at 10% loss per link kept 0.485 of its lossless goodput with one probe, 0.587 with two).
     */
    public int tailProbes = 2;
    /**
     * REL-16: whether a receiver reports a message's missing segments with a NAK MISSING as soon as a later segment
     * of the message arrived and the peer's slowest recent path can no longer explain the gap (only to a peer that
     * announced it understands them, CM-13). On by default since 2026-12-03, with a 1 us margin: E1's 16 MiB
     * all-reduce at 1% loss per link keeps 0.655-0.678 of lossless instead of 0.535-0.543 (seeds 1-3), and E5
     * scaled keeps as much or more on every lossy point (means of seeds 1-4). Off in
     * {@code realNetworkDefaults}: on the test bed its gain was within the noise.
     */
    public boolean missingNak = true;
    /**
     * REL-16: how long a missing segment is waited for beyond the lag of the peer's slowest recent path, in ns: the
     * platform's timing noise (1 us in a simulated fabric; the real-network settings use 1 ms).
     */
    public long missingNakMarginNs = 1_000;
    /**
     * REL-18: how many of a message's last segments one PARITY covers (0: no PARITY sent). With 2 to 255, once the
     * last segment of a WRITE or SEND of at least two segments has gone out for the first time, the sender sends the
     * XOR of the message's last min(this, segments) segments, so a receiver missing one of them rebuilds it without
     * waiting a round trip for its resend. Costs one packet per message of two segments or more. Off by default
     * (receiving a PARITY needs no setting).
     */
    public int parityTailSegments = 0;
    /**
     * REL-18: with {@link #parityTailSegments} on, send a PARITY only while a packet to the message's peer was declared
     * lost within this many ns (0: after every eligible message). A fabric that loses nothing then carries no parity.
     */
    public long parityAfterLossNs = 0;
    /**
     * REL-20: how many lost segments of a tail the receiver can rebuild without a resend, 1 or 2. With 2 (and
     * {@link #parityTailSegments} on) each PARITY is followed by a PARITY_Q over the same segments, on another path:
     * a second packet per message, for the tails that lose two packets (at 2% loss end to end, 5% of 16-segment tails).
     */
    public int parityRepairs = 1;
    /**
     * REL-21: with {@link #parityTailSegments} on, each message's tail gets as many parities as its peer's measured
     * loss rate calls for (the fewest, at least one, for which the group rebuilds its losses with probability
     * 0.95), at most {@link #parityRepairs}. Off (the default): always {@code parityRepairs}.
     */
    public boolean parityAdaptive = false;
    /**
     * REL-22: the most copies a resend gets once the QP has nothing new to send (the tail of a transfer): as many as
     * make losing them all at most 5% likely at the peer's measured loss rate, 1 while nothing is lost. 1 turns it
     * off; at most 16.
     */
    public int resendCopies = 4;
    /**
     * This engine's transmit rate, in bits/s of datagram bytes: the device paces everything it sends to it, as a
     * NIC serializes at its line rate (so that thousands of QPs' first windows do not leave as one burst);
     * 0 = unpaced.
     */
    public long txRateBps = 0;
    /** This engine's inbound capacity in bits/s of datagram bytes, shared among active senders; 0 = no grants. */
    public long inboundCapacityBps = 0;
    /** Fraction of the inbound capacity handed out in grants (headroom lets standing queues drain). */
    public double grantFraction = 0.95;
    /** A sender is active for grant purposes if it delivered data this recently. */
    public long activeSenderWindowNs = 100_000;
    /**
     * HINT-7: a QP that holds no grant (no ACK from its peer within {@code activeSenderWindowNs}, or none yet) sends
     * new data only while fewer than this many datagram bytes went out since its last ACK: its unscheduled budget
     * for the first round trip, before the receiver has counted it; 0 = no budget (the initial window alone).
     */
    public long unscheduledBytes = 0;
    /**
     * Simulation only: data packets carry their headers and declare their payload length, but the payload bytes
     * are neither copied (out of or into registered memory) nor covered by the CRC, which then protects the
     * headers alone. Every protocol decision is unchanged; memory contents are not transferred, so data cannot be
     * verified. Lets a simulator run with packet buffers of {@link Engine#bufferLength()} bytes instead of an MTU.
     */
    public boolean elidePayload = false;
    /**
     * AUTH-18: an authenticated connection's sender moves to its next key after sealing this many packets under the
     * current one (and once the peer acknowledged a packet sealed under it); 0 = never. RECOMMENDED 2^22, half of
     * AES-GCM's confidentiality bound of 2^23 full-size packets per key (RFC 9001 section 6.6).
     */
    public long authKeyUpdatePackets = 1L << 22;
    /** Makes each path's congestion controller (CC-*); DCTCP-style {@link EcnAimd} by default. */
    public CongestionControl.Factory congestionControl = EcnAimd::new;
    /** Where a test plugs a deliberate defect in (the conformance suite's mutation test); {@link ProtocolSeam#NONE}. */
    public ProtocolSeam seam = ProtocolSeam.NONE;
    /** ECN codepoint value meaning Congestion Experienced, as passed to handleDatagram: {@link Ecn#CE}. */
    public static final int ECN_CE = Ecn.CE;

    public EngineConfig mtu(int v) { mtu = v; return this; }
    public EngineConfig paths(int v) { paths = v; return this; }
    public EngineConfig planes(int v) { planes = v; return this; }
    public EngineConfig sqDepth(int v) { sqDepth = v; return this; }
    public EngineConfig rqDepth(int v) { rqDepth = v; return this; }
    public EngineConfig initialWindowPackets(int v) { initialWindowPackets = v; return this; }
    public EngineConfig initialWindowBytes(long v) { initialWindowBytes = v; return this; }
    public EngineConfig minWindowBytes(int v) { minWindowBytes = v; return this; }
    public EngineConfig maxWindowPackets(int v) { maxWindowPackets = v; return this; }
    public EngineConfig ackEvery(int v) { ackEvery = v; return this; }
    public EngineConfig ackBundle(boolean v) { ackBundle = v; return this; }
    public EngineConfig ackDelayNs(long v) { ackDelayNs = v; return this; }
    public EngineConfig ackHoldWindowNs(long v) { ackHoldWindowNs = v; return this; }
    public EngineConfig peerSilenceGraceNs(long v) { peerSilenceGraceNs = v; return this; }
    public EngineConfig reorderThreshold(int v) { reorderThreshold = v; return this; }
    public EngineConfig initialRtoNs(long v) { initialRtoNs = v; return this; }
    public EngineConfig minRtoNs(long v) { minRtoNs = v; return this; }
    public EngineConfig maxRtoNs(long v) { maxRtoNs = v; return this; }
    public EngineConfig failAfterTimeouts(int v) { failAfterTimeouts = v; return this; }
    public EngineConfig probeIntervalNs(long v) { probeIntervalNs = v; return this; }
    public EngineConfig readmitAfterProbes(int v) { readmitAfterProbes = v; return this; }
    public EngineConfig routeProbing(boolean v) { routeProbing = v; return this; }
    public EngineConfig maxProbesPerSecond(long v) { maxProbesPerSecond = v; return this; }
    public EngineConfig retryLimit(int v) { retryLimit = v; return this; }
    public EngineConfig rnrRetryLimit(int v) { rnrRetryLimit = v; return this; }
    public EngineConfig rnrDelayNs(long v) { rnrDelayNs = v; return this; }
    public EngineConfig connectionTimeoutNs(long v) { connectionTimeoutNs = v; return this; }
    public EngineConfig ecnGain(double v) { ecnGain = v; return this; }
    public EngineConfig lossBeta(double v) { lossBeta = v; return this; }
    public EngineConfig pacingGain(double v) { pacingGain = v; return this; }
    public EngineConfig pacingBurstBytes(int v) { pacingBurstBytes = v; return this; }
    public EngineConfig txQuantumBytes(int v) { txQuantumBytes = v; return this; }
    public EngineConfig tailCopy(boolean v) { tailCopy = v; return this; }
    public EngineConfig tailProbes(int v) { tailProbes = v; return this; }
    public EngineConfig missingNak(boolean v) { missingNak = v; return this; }
    public EngineConfig missingNakMarginNs(long v) { missingNakMarginNs = v; return this; }
    public EngineConfig parityTailSegments(int v) { parityTailSegments = v; return this; }
    public EngineConfig parityRepairs(int v) { parityRepairs = v; return this; }
    public EngineConfig parityAdaptive(boolean v) { parityAdaptive = v; return this; }
    public EngineConfig resendCopies(int v) { resendCopies = v; return this; }
    public EngineConfig parityAfterLossNs(long v) { parityAfterLossNs = v; return this; }
    public EngineConfig inboundCapacityBps(long v) { inboundCapacityBps = v; return this; }
    public EngineConfig txRateBps(long v) { txRateBps = v; return this; }
    public EngineConfig activeSenderWindowNs(long v) { activeSenderWindowNs = v; return this; }
    public EngineConfig grantFraction(double v) { grantFraction = v; return this; }
    public EngineConfig unscheduledBytes(long v) { unscheduledBytes = v; return this; }
    public EngineConfig congestionControl(CongestionControl.Factory v) { congestionControl = v; return this; }
    public EngineConfig authKeyUpdatePackets(long v) { authKeyUpdatePackets = v; return this; }

    /** CC-1: the connection's initial window in bytes ({@link #initialWindowBytes}, or its default). */
    public long connectionInitialWindowBytes() {
        if (initialWindowBytes > 0) {
            return initialWindowBytes;
        }
        return txRateBps > 0 ? txRateBps / 8 * INITIAL_WINDOW_RTT_NS / 1_000_000_000L : INITIAL_WINDOW_FALLBACK_BYTES;
    }

    /** A copy, so an engine's configuration cannot change under it. */
    public EngineConfig copy() {
        EngineConfig c = new EngineConfig();
        c.mtu = mtu; c.paths = paths; c.planes = planes; c.sqDepth = sqDepth; c.rqDepth = rqDepth;
        c.initialWindowPackets = initialWindowPackets; c.maxWindowPackets = maxWindowPackets;
        c.initialWindowBytes = initialWindowBytes;
        c.minWindowBytes = minWindowBytes;
        c.ackBundle = ackBundle;
        c.ackHoldWindowNs = ackHoldWindowNs;
        c.peerSilenceGraceNs = peerSilenceGraceNs;
        c.ackEvery = ackEvery; c.ackDelayNs = ackDelayNs; c.reorderThreshold = reorderThreshold;
        c.initialRtoNs = initialRtoNs; c.minRtoNs = minRtoNs; c.maxRtoNs = maxRtoNs;
        c.failAfterTimeouts = failAfterTimeouts; c.probeIntervalNs = probeIntervalNs;
        c.readmitAfterProbes = readmitAfterProbes; c.routeProbing = routeProbing;
        c.maxProbesPerSecond = maxProbesPerSecond; c.retryLimit = retryLimit; c.rnrRetryLimit = rnrRetryLimit;
        c.rnrDelayNs = rnrDelayNs; c.connectionTimeoutNs = connectionTimeoutNs; c.ecnGain = ecnGain;
        c.lossBeta = lossBeta; c.pacingGain = pacingGain; c.pacingBurstBytes = pacingBurstBytes; c.txQuantumBytes = txQuantumBytes; c.tailCopy = tailCopy; c.tailProbes = tailProbes; c.inboundCapacityBps = inboundCapacityBps;
        c.activeSenderWindowNs = activeSenderWindowNs;
        c.missingNak = missingNak;
        c.missingNakMarginNs = missingNakMarginNs;
        c.parityTailSegments = parityTailSegments;
        c.parityRepairs = parityRepairs;
        c.parityAdaptive = parityAdaptive;
        c.resendCopies = resendCopies;
        c.parityAfterLossNs = parityAfterLossNs;
        c.grantFraction = grantFraction;
        c.unscheduledBytes = unscheduledBytes;
        c.txRateBps = txRateBps;
        c.elidePayload = elidePayload;
        c.authKeyUpdatePackets = authKeyUpdatePackets;
        c.congestionControl = congestionControl;
        c.seam = seam;
        return c;
    }

    /**
     * PATH-13: the probe budget in force: {@code maxProbesPerSecond} when set; otherwise 1% of {@code txRateBps} in
     * probe datagrams (at least {@link #FALLBACK_PROBES_PER_SECOND}), or that fallback when no rate is set. A fixed
     * 50,000 per second starved re-admission on a 400 Gb/s host whose random loss had failed ~1,000 routes at once
     * (E5's all-to-all at 64 hosts, 10% loss per link: a route probed every ~20 ms, flows stalled up to 60 ms).
     */
    public long probesPerSecond() {
        if (maxProbesPerSecond > 0) {
            return maxProbesPerSecond;
        }
        if (txRateBps > 0) {
            long share = txRateBps / PROBE_SHARE_OF_LINE_RATE / (8L * PROBE_DATAGRAM_BYTES);
            return Math.max(FALLBACK_PROBES_PER_SECOND, share);
        }
        return FALLBACK_PROBES_PER_SECOND;
    }

    /** Throws IllegalArgumentException naming the first bad value. */
    public EngineConfig validate() {
        require(mtu >= 64 && mtu <= 65_000, "mtu must be in 64..65000, got " + mtu);
        require(paths >= 1 && paths <= 256, "paths must be in 1..256, got " + paths);
        require(planes >= 1 && planes <= paths, "planes must be in 1..paths, got " + planes);
        require(sqDepth >= 1 && Integer.bitCount(sqDepth) == 1 && sqDepth <= 1 << 16,
                "sqDepth must be a power of 2 in 1..65536, got " + sqDepth);
        require(rqDepth >= 1 && rqDepth <= 1 << 20, "rqDepth must be in 1..2^20, got " + rqDepth);
        require(maxWindowPackets >= 1 && maxWindowPackets <= 256, "maxWindowPackets must be in 1..256");
        require(initialWindowPackets >= 1 && initialWindowPackets <= maxWindowPackets,
                "initialWindowPackets must be in 1..maxWindowPackets");
        require(initialWindowBytes >= 0, "initialWindowBytes must be >= 0");
        require(minWindowBytes >= 1, "minWindowBytes must be >= 1, got " + minWindowBytes);
        require(ackEvery >= 1, "ackEvery must be >= 1");
        require(ackDelayNs >= 0, "ackDelayNs must be >= 0");
        require(missingNakMarginNs >= 0, "missingNakMarginNs must be >= 0");
        require(parityTailSegments == 0 || parityTailSegments >= 2 && parityTailSegments <= ParityHeader.MAX_COUNT,
                "parityTailSegments must be 0 (off) or in 2..255, got " + parityTailSegments);
        require(parityRepairs >= 1 && parityRepairs <= ParityHeader.MAX_REPAIR + 1,
                "parityRepairs must be 1 to " + (ParityHeader.MAX_REPAIR + 1) + ", got " + parityRepairs);
        require(resendCopies >= 1 && resendCopies <= 16, "resendCopies must be 1 to 16, got " + resendCopies);
        require(parityAfterLossNs >= 0, "parityAfterLossNs must be >= 0");
        require(ackHoldWindowNs >= 0, "ackHoldWindowNs must be >= 0");
        require(peerSilenceGraceNs >= 0, "peerSilenceGraceNs must be >= 0");
        require(reorderThreshold >= 1 && reorderThreshold < 256, "reorderThreshold must be in 1..255");
        require(minRtoNs > 0 && minRtoNs <= maxRtoNs && initialRtoNs > 0, "RTO bounds inconsistent");
        require(failAfterTimeouts >= 1, "failAfterTimeouts must be >= 1");
        require(tailProbes >= 1 && tailProbes <= 8, "tailProbes must be in 1..8, got " + tailProbes);
        require(probeIntervalNs > 0 && readmitAfterProbes >= 1 && maxProbesPerSecond >= 0,
                "probe settings must be positive (maxProbesPerSecond 0: from txRateBps)");
        require(retryLimit >= 1 && rnrRetryLimit >= 0 && rnrDelayNs >= 0, "retry settings must be positive");
        require(ecnGain > 0 && ecnGain <= 1, "ecnGain must be in (0, 1]");
        require(lossBeta >= 0 && lossBeta < 1, "lossBeta must be in [0, 1)");
        require(pacingGain >= 0, "pacingGain must be >= 0");
        require(pacingBurstBytes >= 0, "pacingBurstBytes must be >= 0");
        require(txQuantumBytes >= 0, "txQuantumBytes must be >= 0");
        require(txRateBps >= 0, "txRateBps must be >= 0");
        require(grantFraction > 0 && grantFraction <= 1, "grantFraction must be in (0, 1]");
        require(inboundCapacityBps >= 0 && activeSenderWindowNs > 0, "grant settings must be positive");
        require(unscheduledBytes >= 0, "unscheduledBytes must be >= 0 (0 = no budget), got " + unscheduledBytes);
        require(authKeyUpdatePackets >= 0, "authKeyUpdatePackets must be >= 0 (0 = never), got "
                + authKeyUpdatePackets);
        require(congestionControl != null, "congestionControl must be set");
        return this;
    }

    private static void require(boolean ok, String message) {
        if (!ok) {
            throw new IllegalArgumentException(message);
        }
    }
}
