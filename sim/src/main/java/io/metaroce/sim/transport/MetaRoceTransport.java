package io.metaroce.sim.transport;

import io.metaroce.core.Access;
import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Counter;
import io.metaroce.core.Counters;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.WcOpcode;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;
import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.PacketPool;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * MetaRoCE on every host of a {@link Fabric}: one real {@link Engine} per host driven by a {@link Host}, one QP
 * pair per connection. A message is posted as RDMA WRITE WITH IMMEDIATE work requests of at most
 * {@link #maxWrBytes()} each into one pre-posted receive per request, so the receiver's completion of the last
 * request says every byte of the message is placed ({@link Transport.Listener#delivered}) and the sender's
 * completion of it says the message is acknowledged ({@link Transport.Listener#completed}). Requests beyond the
 * QP's send or receive queue depth wait in the transport and are posted as completions free room.
 *
 * <p>Without verification every host writes from one shared random source buffer into one shared sink (the
 * simulator does not need the bytes, and memory stays at two buffers whatever the size of the run). With
 * verification every message gets its own destination buffer, compared with the source when it is delivered.
 */
public final class MetaRoceTransport implements Transport {
    /** Default largest work request: messages above this are split into several requests. */
    public static final int DEFAULT_MAX_WR_BYTES = 4 << 20;
    private static final int SOURCE_SLACK = 64 << 10;
    private static final int CQ_CAPACITY = 256;

    private final Host[] hosts;
    private final ProtectionDomain[] pds;
    private final CompletionQueue[] cqs;
    private final MemoryRegion[] sourceMrs;
    private final MemoryRegion[] sinkMrs;
    private final SplittableRandom rng;
    private final boolean verify;
    private final int maxWr;
    private final int sqDepth;
    private final int rqDepth;
    private final Arena arena = Arena.ofAuto();
    private final MemorySegment source;
    private final List<Conn> conns = new ArrayList<>();
    private Listener listener = new Listener() {
        @Override public void delivered(int conn, long tag, long nowPs) { }
        @Override public void completed(int conn, long tag, long nowPs, boolean ok) { }
    };
    private final TailRecoveryMeter tail;
    /** The fabric trims what its buffers cannot take (REL-17): the records then say what the receivers NAKed. */
    private final boolean trimming;
    private final boolean parity;
    private long verifyFailures;
    private long verifiedMessages;

    private static final class Msg {
        final long tag;
        final long bytes;
        final long sourceOffset;
        final MemorySegment dst; // verification only
        long posted;
        boolean sendFailed;
        boolean recvFailed;

        Msg(long tag, long bytes, long sourceOffset, MemorySegment dst) {
            this.tag = tag;
            this.bytes = bytes;
            this.sourceOffset = sourceOffset;
            this.dst = dst;
        }
    }

    private static final class Conn {
        final int src;
        final int dst;
        final QueuePair sender;
        final QueuePair receiver;
        Object tail; // its TailRecoveryMeter handle
        final ArrayDeque<Msg> toPost = new ArrayDeque<>();
        final ArrayDeque<Msg> toComplete = new ArrayDeque<>();
        final ArrayDeque<Msg> toDeliver = new ArrayDeque<>();
        long messages;

        Conn(int src, int dst, QueuePair sender, QueuePair receiver) {
            this.src = src;
            this.dst = dst;
            this.sender = sender;
            this.receiver = receiver;
        }
    }

    /**
     * Engines from {@code cfg} on every host of {@code fabric} (the config is used as given: set its planes to the
     * fabric's and its rate first, see {@link #engineConfig}), seeded from {@code rng}. The packet pool's capacity
     * must hold {@link #bufferLength(EngineConfig)} bytes. With {@code verify} every delivered message is
     * compared with its source.
     */
    public MetaRoceTransport(EventLoop loop, PacketPool pool, Fabric fabric, EngineConfig cfg, SplittableRandom rng,
                             boolean verify) {
        this(loop, pool, fabric, cfg, rng, verify, DEFAULT_MAX_WR_BYTES);
    }

    /** As above with work requests of at most {@code maxWrBytes} (at least one MTU). */
    public MetaRoceTransport(EventLoop loop, PacketPool pool, Fabric fabric, EngineConfig cfg, SplittableRandom rng,
                             boolean verify, int maxWrBytes) {
        if (cfg.planes != fabric.planes()) {
            throw new IllegalArgumentException("engine planes " + cfg.planes + " != fabric planes " + fabric.planes());
        }
        if (verify && cfg.elidePayload) {
            throw new IllegalArgumentException("verify needs the payload: set engine.elidePayload=false");
        }
        if (maxWrBytes < cfg.mtu) {
            throw new IllegalArgumentException("maxWrBytes " + maxWrBytes + " below the MTU " + cfg.mtu);
        }
        this.verify = verify;
        this.maxWr = maxWrBytes;
        this.sqDepth = cfg.sqDepth;
        this.rqDepth = cfg.rqDepth;
        this.rng = rng.split();
        trimming = fabric.config().trimming;
        parity = cfg.parityTailSegments > 0;
        int n = fabric.hosts();
        hosts = new Host[n];
        pds = new ProtectionDomain[n];
        cqs = new CompletionQueue[n];
        sourceMrs = new MemoryRegion[n];
        sinkMrs = new MemoryRegion[n];
        source = arena.allocate(maxWr + SOURCE_SLACK, 64);
        fillRandom(source, this.rng.split());
        MemorySegment sink = verify ? null : arena.allocate(maxWr, 64);
        tail = new TailRecoveryMeter(n);
        for (int i = 0; i < n; i++) {
            Engine e = new Engine(cfg, rng.split());
            hosts[i] = new Host(i, e, loop, pool, fabric.nics(i));
            fabric.attach(i, hosts[i]);
            pds[i] = e.allocPd();
            // polled after every engine call, so it rarely holds more than a few; it grows when it must
            cqs[i] = e.createCq(CQ_CAPACITY);
            sourceMrs[i] = e.registerMemory(pds[i], source, Access.LOCAL_WRITE);
            if (sink != null) {
                sinkMrs[i] = e.registerMemory(pds[i], sink, Access.ALL);
            }
            hosts[i].watchCompletions(cqs[i], this::onCompletion);
            hosts[i].tapData(tail);
        }
    }

    /**
     * The engine configuration a run uses: a copy of {@code engine} with the fabric's planes, and when
     * {@code txRateBps} is 0 the host's NIC rate as pacing rate: the host link rate times the planes (the host
     * has one link of that rate per plane, and the engine paces everything it sends to one rate). With
     * {@code grants} and {@code inboundCapacityBps} 0, the same rate is the inbound capacity the receiver shares
     * among its senders (HINT-1), as a real device does by default (it reads its links' rates).
     */
    public static EngineConfig engineConfig(EngineConfig engine, FabricConfig fabric, boolean grants) {
        EngineConfig ec = engine.copy().planes(fabric.planes);
        long lineRate = fabric.hostRateBps * fabric.planes;
        if (ec.txRateBps == 0) {
            ec.txRateBps = lineRate;
        }
        if (grants && ec.inboundCapacityBps == 0) {
            ec.inboundCapacityBps = lineRate;
        }
        return ec;
    }

    /**
     * Packet buffer bytes engines with {@code cfg} need: the packet pool capacity (the largest datagram, or only
     * its headers with {@code elidePayload}).
     */
    public static int bufferLength(EngineConfig cfg) {
        return Engine.bufferLength(cfg);
    }

    /**
     * A packet pool for engines with {@code cfg}, its buffers {@link #bufferLength} plus {@code slack} bytes. With
     * {@code elidePayload} most datagrams are headers only (data packets, ACKs) and only ACK bundles need the full
     * buffer, so the pool keeps a second, header-sized buffer for them (at 1,024 hosts the buffers sized for the
     * largest bundle were 41 of 96 MB of live heap); with payload every data packet needs the full buffer.
     */
    public static PacketPool packetPool(EngineConfig cfg, int slack) {
        int full = bufferLength(cfg) + slack;
        if (!cfg.elidePayload) {
            return new PacketPool(full);
        }
        // a header-only datagram: elided payload rules out authentication, so no trailer (as Engine.bufferLength)
        int header = io.metaroce.core.wire.Packet.maxHeaderLength();
        return new PacketPool(full, Math.min(full, (header + 7) & ~7));
    }

    private static void fillRandom(MemorySegment seg, SplittableRandom r) {
        long size = seg.byteSize();
        long i = 0;
        for (; i + 8 <= size; i += 8) {
            seg.set(ValueLayout.JAVA_LONG_UNALIGNED, i, r.nextLong());
        }
        for (; i < size; i++) {
            seg.set(ValueLayout.JAVA_BYTE, i, (byte) r.nextInt());
        }
    }

    @Override public String name() { return "metaroce"; }

    @Override
    public void setListener(Listener l) {
        this.listener = l;
    }

    /** Host {@code i} (its engine, NICs and packet counts). */
    public Host host(int i) { return hosts[i]; }

    /** The sending QP of connection {@code conn} (its paths, windows and counters). */
    public QueuePair senderQp(int conn) { return conns.get(conn).sender; }

    /** Largest work request posted. */
    public int maxWrBytes() { return maxWr; }

    /**
     * Tail recovery of messages that had a packet resent: the {@code q}-quantile (0..1) in microseconds of the
     * time from their last packet's original transmission to their send completion; NaN when none.
     */
    public double tailRecoveryUs(double q) { return tail.quantileUs(q); }

    /** Delivered messages whose bytes were compared with the source (verification on). */
    public long verifiedMessages() { return verifiedMessages; }

    /** Delivered messages whose destination did not equal the source (must be 0). */
    public long verifyFailures() { return verifyFailures; }

    @Override
    public int connect(int src, int dst) {
        if (src == dst || src < 0 || dst < 0 || src >= hosts.length || dst >= hosts.length) {
            throw new IllegalArgumentException("bad connection " + src + " -> " + dst + " over " + hosts.length
                    + " hosts");
        }
        Engine es = hosts[src].engine();
        Engine ed = hosts[dst].engine();
        QueuePair qa = es.createQp(pds[src], cqs[src], cqs[src]);
        QueuePair qb = ed.createQp(pds[dst], cqs[dst], cqs[dst]);
        int psnA = rng.nextInt(1 << 24);
        int psnB = rng.nextInt(1 << 24);
        qa.connect(dst, qb.qpn(), psnA, psnB);
        qb.connect(src, qa.qpn(), psnB, psnA);
        Conn c = new Conn(src, dst, qa, qb);
        c.tail = tail.register(src, qa.qpn());
        conns.add(c);
        return conns.size() - 1;
    }

    @Override public int connections() { return conns.size(); }
    @Override public int source(int conn) { return conns.get(conn).src; }
    @Override public int destination(int conn) { return conns.get(conn).dst; }

    @Override
    public void send(int conn, long bytes, long tag) {
        if (bytes <= 0) {
            throw new IllegalArgumentException("message of " + bytes + " bytes");
        }
        Conn c = conns.get(conn);
        long srcOff = verify ? Long.remainderUnsigned(mix(conn, c.messages), SOURCE_SLACK) : 0;
        c.messages++;
        MemorySegment dst = null;
        if (verify) {
            dst = arena.allocate(bytes, 64);
        }
        c.toPost.add(new Msg(tag, bytes, srcOff, dst));
        post(conn, c);
    }

    private static long mix(long a, long b) {
        long z = a * 0x9E3779B97F4A7C15L + b;
        z = (z ^ (z >>> 30)) * 0xbf58476d1ce4e5b9L;
        return z ^ (z >>> 31);
    }

    /** Posts queued requests of {@code c} while its send and receive queues have room. */
    private void post(int conn, Conn c) {
        boolean posted = false;
        while (!c.toPost.isEmpty() && c.sender.outstandingSends() < sqDepth
                && c.receiver.postedReceives() < rqDepth) {
            Msg m = c.toPost.peek();
            int len = (int) Math.min(maxWr, m.bytes - m.posted);
            boolean last = m.posted + len == m.bytes;
            long wrId = (long) conn << 1 | (last ? 1 : 0);
            MemoryRegion dmr;
            if (m.dst != null) {
                dmr = hosts[c.dst].engine().registerMemory(pds[c.dst], m.dst.asSlice(m.posted, len), Access.ALL);
            } else {
                dmr = sinkMrs[c.dst];
            }
            int rc = c.receiver.postRecv(wrId, dmr, 0, 0);
            if (rc != QueuePair.OK) {
                throw new IllegalStateException("postRecv failed: " + rc + " on " + c.receiver);
            }
            rc = c.sender.postWriteImm(wrId, sourceMrs[c.src], m.sourceOffset, len, dmr.address(), dmr.rkey(),
                    last ? 1 : 0, QueuePair.SIGNALED);
            if (rc != QueuePair.OK) {
                throw new IllegalStateException("postWriteImm failed: " + rc + " on " + c.sender);
            }
            if (m.posted == 0) {
                c.toComplete.add(m);
                c.toDeliver.add(m);
            }
            m.posted += len;
            if (last) {
                c.toPost.poll();
            }
            posted = true;
        }
        if (posted) {
            hosts[c.src].pump();
        }
    }

    private void onCompletion(Host host, WorkCompletion wc, long nowPs) {
        long id = wc.wrId();
        int conn = (int) (id >>> 1);
        if (id < 0 || conn >= conns.size()) {
            return;
        }
        Conn c = conns.get(conn);
        boolean last = (id & 1) != 0;
        boolean ok = wc.status() == WcStatus.SUCCESS;
        boolean recv = wc.opcode() == WcOpcode.RECV_RDMA_WITH_IMM || wc.opcode() == WcOpcode.RECV;
        if (recv) {
            Msg m = c.toDeliver.peek();
            if (m == null || host.index() != c.dst) {
                return;
            }
            m.recvFailed |= !ok;
            if (last) {
                c.toDeliver.poll();
                if (!m.recvFailed) {
                    if (m.dst != null) {
                        check(m);
                    }
                    listener.delivered(conn, m.tag, nowPs);
                }
            }
        } else {
            Msg m = c.toComplete.peek();
            if (m == null || host.index() != c.src) {
                return;
            }
            tail.completed(c.tail, nowPs); // one send completion per work request, in posting order
            m.sendFailed |= !ok;
            if (last) {
                c.toComplete.poll();
                listener.completed(conn, m.tag, nowPs, !m.sendFailed);
            }
            post(conn, c);
        }
    }

    private void check(Msg m) {
        verifiedMessages++;
        for (long off = 0; off < m.bytes; off += maxWr) {
            long len = Math.min(maxWr, m.bytes - off);
            if (source.asSlice(m.sourceOffset, len).mismatch(m.dst.asSlice(off, len)) != -1) {
                verifyFailures++;
                return;
            }
        }
    }

    @Override
    public long receivedBytes(int conn) {
        // data placed from its packets, and segments rebuilt from parities without theirs (REL-18, REL-20, REL-21)
        Counters k = conns.get(conn).receiver.counters();
        return k.get(Counter.RX_PAYLOAD_BYTES) + k.get(Counter.PARITY_REBUILT_BYTES);
    }

    @Override
    public long dataPacketsSent() {
        long n = 0;
        for (Host h : hosts) {
            n += h.txDataPackets();
        }
        return n;
    }

    @Override
    public Map<String, Long> counters() {
        Map<String, Long> m = new LinkedHashMap<>();
        m.put("retransmits", sum(Counter.RETRANSMITS));
        m.put("timeouts", sum(Counter.TIMEOUTS));
        m.put("spurious_timeouts", sum(Counter.SPURIOUS_TIMEOUTS));
        m.put("path_failovers", sum(Counter.PATH_FAILOVERS));
        m.put("path_readmissions", sum(Counter.PATH_READMISSIONS));
        m.put("sack_gaps", sum(Counter.SACK_GAPS));
        m.put("tail_losses", sum(Counter.TAIL_LOSSES));
        m.put("tail_copies", sum(Counter.TAIL_COPIES));
        m.put("rack_losses", sum(Counter.RACK_LOSSES));
        m.put("missing_naks", sum(Counter.MISSING_NAKS));
        m.put("missing_losses", sum(Counter.MISSING_LOSSES));
        if (trimming) {
            m.put("trim_naks", sum(Counter.RX_TRIMMED));
            m.put("trim_losses", sum(Counter.TRIM_LOSSES));
        }
        if (parity) {
            m.put("parity_sent", sum(Counter.PARITY_SENT));
            m.put("parity_rebuilt", sum(Counter.PARITY_REBUILT));
            m.put("parity_unused", sum(Counter.PARITY_UNUSED));
        }
        m.put("ecn_echoes", sum(Counter.ECN_ECHOES));
        m.put("naks", sum(Counter.TX_NAKS));
        m.put("duplicate_data", sum(Counter.DUPLICATE_DATA));
        m.put("engine_error_completions", sum(Counter.ERROR_COMPLETIONS));
        long drops = 0;
        long internal = 0;
        for (Host h : hosts) {
            drops += h.engine().counters().drops();
            internal += h.engine().internalErrors();
        }
        m.put("engine_drops", drops);
        m.put("internal_errors", internal);
        m.put("tail_recovery_messages", (long) tail.messages());
        m.put("tail_unmatched_packets", tail.unmatched());
        if (verify) {
            m.put("verified_messages", verifiedMessages);
            m.put("verify_failures", verifyFailures);
        }
        return m;
    }

    private long sum(Counter c) {
        long n = 0;
        for (Host h : hosts) {
            n += h.engine().counters().get(c);
        }
        return n;
    }
}
