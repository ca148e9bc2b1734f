package io.metaroce.bench;

import io.metaroce.core.wire.Ecn;
import io.metaroce.core.Access;
import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Counter;
import io.metaroce.core.Counters;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.Transmit;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;
import io.metaroce.core.auth.AuthKeys;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OperationsPerInvocation;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.openjdk.jmh.annotations.Threads;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

/**
 * Datapath throughput of the sans-IO engine with no network in between: engine A posts RDMA WRITEs to engine
 * B and a zero-latency loop moves every datagram straight from one engine's {@code pollTransmit} to the other's
 * {@code handleDatagram}, on a virtual clock that advances {@value #STEP_NS} ns per data packet.
 *
 * <p>One operation is one data packet delivered (and placed) at B, so JMH's ops/s is packets/s; payload bytes/s
 * is ops/s times {@code payload}. Each invocation delivers exactly {@value #BATCH} packets.
 *
 * <p>The loop is a pair of drivers in the manner of the engine contract, one duty cycle at a time: A emits up to
 * {@value #BURST} datagrams, each handed to B at once; B's transmits (ACKs) are drained into A; then timers are
 * checked against the deadlines from the previous {@code pollTimeout()} and refreshed. The application tops A's
 * send queue up to {@value #DEPTH} outstanding WRITEs of {@code packetsPerMessage} packets each (default 16: 1 KiB
 * messages at 64 B payload, 64 KiB at 4 KiB), every {@value #SIGNAL_EVERY}th one signaled, and drains the CQs
 * with one reused {@link WorkCompletion}. Datagram buffers, regions and the {@link Transmit} are allocated once.
 * The A-to-B and B-to-A datagram buffers are distinct segments, as a real driver's transmit and receive rings
 * would be, and confined to the benchmark thread (the driver's I/O thread); the registered regions are shared.
 * {@code -p datagramBuffers=single} uses one segment for both directions instead (a diagnostic: the engine's
 * CRC code caches a ByteBuffer view of the last segment it saw, see the bench README).
 *
 * <p>{@link #copyBaseline()} is the floor of any copy-in/copy-out design: the same payload bytes, at the same
 * offsets, copied once per packet from the source region to the sink region with {@link MemorySegment#copy}.
 * The engine copies every payload twice (source region into the datagram, datagram into the sink region) and
 * also computes a CRC32C over each datagram twice (seal and check), so 0.5x the baseline's bytes/s is what a
 * perfect engine could approach.
 *
 * <p>{@link #dataFloor()} is the data work a pair of engines cannot avoid per packet, with no protocol around it:
 * the sender's CRC32C over headers and payload, the wire copy (the kernel's), the receiver's CRC32C check and the
 * placement copy into the sink region: two copies and two CRCs, whichever transmit mode. {@link #crcBaseline()} is
 * one CRC32C over a data datagram. Together with {@link #copyBaseline()} they say which part of a packet's time
 * is the bytes' and which the protocol's (bench/README.md).
 *
 * <p>At the end of each trial the engines are checked: no internal error, no drop, no retransmission, and the
 * sink region equal to the source region.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Fork(value = 1, jvmArgs = {"-Xmx1g"})
@Threads(1)
@OperationsPerInvocation(EngineBench.BATCH)
public class EngineBench {
    /** Data packets delivered per benchmark invocation (= JMH operations per invocation). */
    static final int BATCH = 1024;
    /** Datagrams A may emit per duty cycle before B's ACKs are fed back and timers checked. */
    static final int BURST = 16;
    /** Outstanding WRITEs the application keeps posted. */
    static final int DEPTH = 256;
    /** Every this many WRITEs, one is signaled (produces a completion); the rest complete silently. */
    static final int SIGNAL_EVERY = 16;
    /** Virtual time that passes per data packet. */
    static final long STEP_NS = 100;
    /** Bytes of each of the source and sink regions; messages cycle through them. */
    static final long REGION_BYTES = 1 << 20;

    /** Payload bytes per data packet: the engine's MTU. */
    @Param({"64", "4096"})
    public int payload;

    /** Packets per WRITE message (message length = payload * packetsPerMessage). */
    @Param({"16"})
    public int packetsPerMessage;

    /**
     * "split": distinct A-to-B and B-to-A datagram buffers, as a real driver's rings; "single": one buffer for
     * both directions (diagnostic: shows what the engine costs when every datagram lands in the same segment).
     */
    @Param({"split"})
    public String datagramBuffers;

    /**
     * AUTH-*: "off" (the default), "tag" (every packet sealed with AES-128-GCM, payload in clear) or "encrypt"
     * (payload encrypted too). {@code bench/auth.sh} runs all three in one JMH run.
     */
    @Param({"off"})
    public String auth;

    /**
     * "copy": A copies each payload into the datagram buffer; "gather": A leaves it in the source region
     * ({@link Engine#gatherTransmit}) and the loop assembles header, payload and CRC into B's receive buffer with
     * one copy, standing in for the kernel's copy into its socket buffer, which a real driver pays either way.
     */
    @Param({"copy", "gather"})
    public String transmit;

    /** ACK-11: B bundles the ACKs of several paths into one datagram (as {@code realNetworkDefaults} does). */
    @Param({"true"})
    public boolean ackBundle;

    private Arena arena;
    private Arena ioArena;
    private Engine a;
    private Engine b;
    private QueuePair qa;
    private CompletionQueue scqA;
    private CompletionQueue rcqB;
    private MemoryRegion src;
    private MemoryRegion dst;
    private MemorySegment abBuf;
    private MemorySegment baBuf;
    private MemorySegment rxBuf;
    private final Transmit tx = new Transmit();
    /** The floor's CRC state (each engine has its own {@link Packet}). */
    private final Packet floorPacket = new Packet();
    private MemorySegment floorRx;
    private long floorOffset;
    private long floorChecked;
    private final WorkCompletion wc = new WorkCompletion();

    private int messageBytes;
    private long slots;
    private long nextWrId;
    private long completions;
    private long nowNs;
    private long deadlineA;
    private long deadlineB;
    private long baselineOffset;
    private long dataPackets;
    private long timerJumps;

    @Setup
    public void setup() {
        EngineConfig cfg = new EngineConfig()
                .mtu(payload)
                .paths(16)
                .planes(4)
                .sqDepth(1024)
                .maxWindowPackets(256)
                .pacingGain(0)
                .inboundCapacityBps(0)
                .ackBundle(ackBundle);
        messageBytes = payload * packetsPerMessage;
        slots = REGION_BYTES / messageBytes;
        if (slots < 1 || DEPTH > cfg.sqDepth) {
            throw new IllegalArgumentException("message of " + messageBytes + " bytes does not fit the region");
        }
        arena = Arena.ofShared();
        a = new Engine(cfg, new SplittableRandom(1));
        b = new Engine(cfg, new SplittableRandom(2));
        ProtectionDomain pdA = a.allocPd();
        ProtectionDomain pdB = b.allocPd();
        scqA = a.createCq(4096);
        CompletionQueue rcqA = a.createCq(16);
        CompletionQueue scqB = b.createCq(16);
        rcqB = b.createCq(4096);
        qa = a.createQp(pdA, scqA, rcqA);
        QueuePair qb = b.createQp(pdB, scqB, rcqB);
        src = a.registerMemory(pdA, arena.allocate(REGION_BYTES, 4096), Access.ALL);
        dst = b.registerMemory(pdB, arena.allocate(REGION_BYTES, 4096), Access.ALL);
        SplittableRandom r = new SplittableRandom(42);
        MemorySegment s = src.segment();
        for (long i = 0; i < REGION_BYTES; i += 8) {
            s.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }
        // The datagram buffers belong to the driver's I/O thread (here the benchmark thread: JMH runs a
        // thread-scoped state's @Setup on it), so they are confined; the regions are shared, as an
        // application's would be.
        ioArena = Arena.ofConfined();
        long bufBytes = Math.max(a.maxDatagramLength(), payload + 72L);
        abBuf = ioArena.allocate(bufBytes, 64);
        baBuf = switch (datagramBuffers) {
            case "split" -> ioArena.allocate(bufBytes, 64);
            case "single" -> abBuf;
            default -> throw new IllegalArgumentException("datagramBuffers must be split or single");
        };
        if (!auth.equals("off")) {
            byte[] psk = new byte[32];
            boolean encrypt = auth.equals("encrypt");
            qa.enableAuth(AuthKeys.derive(psk, 7, qa.qpn(), qb.qpn(), 1000, 5000, true, encrypt));
            qb.enableAuth(AuthKeys.derive(psk, 7, qa.qpn(), qb.qpn(), 1000, 5000, false, encrypt));
        }
        a.gatherTransmit(switch (transmit) {
            case "copy" -> false;
            case "gather" -> true;
            default -> throw new IllegalArgumentException("transmit must be copy or gather");
        });
        rxBuf = transmit.equals("gather") ? ioArena.allocate(bufBytes, 64) : abBuf;
        floorRx = ioArena.allocate(bufBytes, 64);
        qa.connect(2, qb.qpn(), 1000, 5000);
        qb.connect(1, qa.qpn(), 5000, 1000);
        nowNs = 1_000_000;
        deadlineA = a.pollTimeout();
        deadlineB = b.pollTimeout();
    }

    /** The engine pair: returns the virtual time so the work cannot be optimized away. */
    @Benchmark
    public long engine() {
        int delivered = 0;
        while (delivered < BATCH) {
            topUp();
            int sent = 0;
            while (sent < BURST && delivered < BATCH) {
                int n = a.pollTransmit(nowNs, abBuf, tx);
                if (n == 0) {
                    break;
                }
                sent++;
                if (tx.opcode() == Opcode.WRITE) {
                    delivered++;
                    nowNs += STEP_NS;
                }
                b.handleDatagram(nowNs, wire(n), n, Ecn.ECT0);
            }
            int acks;
            while ((acks = b.pollTransmit(nowNs, baBuf, tx)) > 0) {
                a.handleDatagram(nowNs, baBuf, acks, Ecn.ECT0);
                sent++;
            }
            drainCompletions();
            if (sent == 0) {
                // Nothing could be sent: only a timer can make progress, so jump to the earliest deadline.
                long d = deadlineA - deadlineB < 0 ? deadlineA : deadlineB;
                if (d == Engine.NO_DEADLINE) {
                    throw new IllegalStateException("engine pair stalled with no deadline: " + a.counters());
                }
                if (d - nowNs > 0) {
                    nowNs = d;
                }
                timerJumps++;
            }
            if (deadlineA - nowNs <= 0) {
                a.handleTimeout(nowNs);
            }
            if (deadlineB - nowNs <= 0) {
                b.handleTimeout(nowNs);
            }
            deadlineA = a.pollTimeout();
            deadlineB = b.pollTimeout();
        }
        dataPackets += delivered;
        return nowNs;
    }

    /**
     * The datagram as B receives it: A's buffer, or for a gathered one the three pieces put together in B's
     * receive buffer (what the kernel does with the iovecs of a real send).
     */
    private MemorySegment wire(int n) {
        int payloadLength = tx.payloadLength();
        if (payloadLength == 0) {
            return abBuf;
        }
        int headers = tx.headerLength();
        MemorySegment.copy(abBuf, 0, rxBuf, 0, headers);
        MemorySegment.copy(tx.payloadSegment(), tx.payloadOffset(), rxBuf, headers, payloadLength);
        MemorySegment.copy(abBuf, headers, rxBuf, headers + payloadLength, n - headers - payloadLength);
        return rxBuf;
    }

    /** The copy floor: {@value #BATCH} payload copies, source region to sink region, at the engine's offsets. */
    @Benchmark
    public long copyBaseline() {
        MemorySegment from = src.segment();
        MemorySegment to = dst.segment();
        long off = baselineOffset;
        long limit = slots * messageBytes;
        for (int i = 0; i < BATCH; i++) {
            MemorySegment.copy(from, off, to, off, payload);
            off += payload;
            if (off == limit) {
                off = 0;
            }
        }
        baselineOffset = off;
        return off;
    }

    /**
     * The unavoidable data work of the pair, {@value #BATCH} packets: per packet the sender's CRC32C over 64 header
     * bytes and the payload left in the source region ({@link Packet#sealGathered}), the wire copy of headers,
     * payload and CRC into the receive buffer, the receiver's CRC32C of the received datagram (compared with its
     * trailer, as {@link Packet#check} does) and the placement copy of the payload into the sink region.
     */
    @Benchmark
    public long dataFloor() {
        MemorySegment from = src.segment();
        MemorySegment to = dst.segment();
        int headers = BaseHeader.LENGTH + DataHeader.LENGTH;
        long off = floorOffset;
        long limit = slots * messageBytes;
        for (int i = 0; i < BATCH; i++) {
            abBuf.set(ValueLayout.JAVA_LONG_UNALIGNED, 0, off); // headers that differ per packet
            int n = floorPacket.sealGathered(abBuf, headers, from, off, payload);
            MemorySegment.copy(abBuf, 0, floorRx, 0, headers);
            MemorySegment.copy(from, off, floorRx, headers, payload);
            MemorySegment.copy(abBuf, headers, floorRx, headers + payload, Packet.CRC_LENGTH);
            int carried = floorRx.get(CRC_LAYOUT, n - Packet.CRC_LENGTH);
            if (carried != floorPacket.crc32c(floorRx, n - Packet.CRC_LENGTH)) {
                throw new IllegalStateException("floor: CRC mismatch at offset " + off);
            }
            MemorySegment.copy(floorRx, headers, to, off, payload);
            off += payload;
            if (off == limit) {
                off = 0;
            }
        }
        floorOffset = off;
        floorChecked += BATCH;
        return off;
    }

    /** {@value #BATCH} CRC32Cs, each over a whole data datagram of this payload (headers included, trailer not). */
    @Benchmark
    public int crcBaseline() {
        int n = BaseHeader.LENGTH + DataHeader.LENGTH + payload;
        int acc = 0;
        for (int i = 0; i < BATCH; i++) {
            abBuf.set(ValueLayout.JAVA_INT_UNALIGNED, 0, acc); // a different datagram each time
            acc += floorPacket.crc32c(abBuf, n);
        }
        return acc;
    }

    private static final ValueLayout.OfInt CRC_LAYOUT = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.BIG_ENDIAN);

    private void topUp() {
        while (qa.outstandingSends() < DEPTH) {
            long wrId = nextWrId;
            long offset = (wrId % slots) * messageBytes;
            int flags = wrId % SIGNAL_EVERY == SIGNAL_EVERY - 1 ? QueuePair.SIGNALED : 0;
            int r = qa.postWrite(wrId, src, offset, messageBytes, dst.address() + offset, dst.rkey(), flags);
            if (r != QueuePair.OK) {
                throw new IllegalStateException("postWrite failed: " + r + " outstanding " + qa.outstandingSends());
            }
            nextWrId++;
        }
    }

    private void drainCompletions() {
        while (scqA.poll(wc)) {
            if (wc.status() != WcStatus.SUCCESS) {
                throw new IllegalStateException("completion failed: " + wc);
            }
            completions++;
        }
        if (rcqB.poll(wc)) {
            throw new IllegalStateException("unexpected receive completion: " + wc);
        }
    }

    @TearDown
    public void tearDown() {
        try {
            if (dataPackets > 0) {
                check();
            }
            if (floorChecked > 0) {
                long written = Math.min(slots * messageBytes, floorChecked * payload);
                if (src.segment().asSlice(0, written).mismatch(dst.segment().asSlice(0, written)) != -1) {
                    throw new IllegalStateException("floor: sink region differs from source");
                }
            }
        } finally {
            ioArena.close();
            arena.close();
        }
    }

    private void check() {
        Counters ca = a.counters();
        Counters cb = b.counters();
        long acks = cb.get(Counter.TX_ACK_DATAGRAMS);
        System.out.printf("%n[engine payload=%d x%d %s ackBundle=%s] data packets %d, ACK datagrams %d (%.3f per data packet), "
                        + "signaled completions %d, idle cycles (waited for a timer) %d, retransmits %d, timeouts %d, "
                        + "drops A/B %d/%d%n",
                payload, packetsPerMessage, transmit, ackBundle, ca.get(Counter.TX_DATA_PACKETS), acks,
                (double) acks / Math.max(1, ca.get(Counter.TX_DATA_PACKETS)), completions, timerJumps,
                ca.get(Counter.RETRANSMITS), ca.get(Counter.TIMEOUTS), ca.drops(), cb.drops());
        if (a.internalErrors() != 0 || b.internalErrors() != 0) {
            throw new IllegalStateException("internal error: " + a.lastInternalError() + " / " + b.lastInternalError());
        }
        if (ca.drops() != 0 || cb.drops() != 0 || ca.get(Counter.RETRANSMITS) != 0) {
            throw new IllegalStateException("lossless loop saw drops or retransmits: A " + ca + " B " + cb);
        }
        if (completions == 0) {
            throw new IllegalStateException("no completion in the whole trial");
        }
        // Every slot below nextWrId has been written at least once, from the same source offset.
        long written = Math.min(slots, nextWrId - qa.outstandingSends()) * messageBytes;
        long mismatch = src.segment().asSlice(0, written).mismatch(dst.segment().asSlice(0, written));
        if (mismatch != -1) {
            throw new IllegalStateException("sink region differs from source at byte " + mismatch);
        }
    }
}
