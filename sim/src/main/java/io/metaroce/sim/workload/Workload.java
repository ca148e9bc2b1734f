package io.metaroce.sim.workload;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.transport.Transport;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A workload of a {@link WorkloadSpec} running over a {@link Transport}: the flows it opens, when each starts,
 * and when it is done. A flow is one source-destination pair ({@code qpsPerPair} connections, its bytes split
 * over them, each connection's share split into {@code messages} messages); its completion time runs from its
 * start to the sender's completion of its last message.
 *
 * <p>Collectives follow nccl-tests: {@code bytes} is the buffer per rank. {@code allreduce} is the pipelined ring
 * of {@link RingAllReduce}; {@code alltoall} sends bytes/N from every rank to every other at once, and
 * {@code alltoall-pairwise} in rounds ({@link PairwiseAllToAll}). {@code allreduce-stepwise}, the ring without
 * pipelining: rank r sends to rank r+1 over 2(N-1) steps of ceil(bytes/N) each; rank r posts step s when it has
 * received step s-1 from rank r-1 ({@link Transport.Listener#delivered}) and its own step s-1 send is complete.
 * A collective completes when its last rank has sent and received everything.
 */
public final class Workload implements Transport.Listener {
    /** A collective that drives its own flows: told of every delivery and every successful completion. */
    interface Collective {
        /** Posts the first messages (at the workload's start). */
        void start();

        /** Message {@code tag} of flow {@code f} on {@code conn} is wholly at the receiver. */
        void delivered(Flow f, int conn, long tag, long nowPs);

        /** Message {@code tag} of flow {@code f} on {@code conn} is acknowledged. */
        void completed(Flow f, int conn, long tag, long nowPs);

        /** nccl-tests' size, the numerator of algbw, for a spec of {@code specBytes}. */
        long bytes(long specBytes);

        /** nccl-tests' bus bandwidth factor. */
        double busFactor();
    }

    /** One source-destination pair. */
    public static final class Flow {
        /** The flow's index in {@link #flows()}. */
        public final int index;
        final int src;
        final int dst;
        /** Bytes the flow moves. */
        public final long bytes;
        /** Virtual time the flow starts, picoseconds. */
        public final long startPs;
        final int[] conns;
        /** Hotspot and storm: an incast sender into the hot receiver (false for a victim). */
        public boolean hot;
        int messages;
        int completions;
        int deliveries;
        int failures;
        /** Virtual time the flow completed (its sender's last completion), picoseconds; -1 until then. */
        public long finishPs = -1;
        long lastDeliveryPs = -1;

        Flow(int index, int src, int dst, long bytes, long startPs, int[] conns) {
            this.index = index;
            this.src = src;
            this.dst = dst;
            this.bytes = bytes;
            this.startPs = startPs;
            this.conns = conns;
        }

        /** True once the flow completed. */
        public boolean done() { return finishPs >= 0; }
        /** True once the flow completed without a failed message. */
        public boolean ok() { return finishPs >= 0 && failures == 0; }
        /** Source host. */
        public int src() { return src; }
        /** Destination host. */
        public int dst() { return dst; }
    }

    private final WorkloadSpec spec;
    private final String kind;
    private final Transport transport;
    private final EventLoop loop;
    private final List<Flow> flows = new ArrayList<>();
    private int[] connFlow = new int[16];
    private final Runnable onDone;
    private int flowsDone;
    private long failedMessages;
    private long endPs = -1;
    private boolean aborted;
    // all-reduce
    private int ranks;
    private int steps;
    private long stepBytes;
    private int[] stepsPosted;
    private int[] partsCompleted;
    private int[] partsReceived;
    private boolean[] rankDone;
    private int ranksDone;
    private Collective collective;

    /**
     * Opens the connections of {@code spec} over {@code hostCount} hosts on {@code transport} (which gets this as
     * its listener) and schedules every start on {@code loop}; {@code onDone} runs once when the workload is
     * done. Random choices (the permutation) come from {@code rng}.
     */
    public Workload(WorkloadSpec spec, int hostCount, Transport transport, EventLoop loop, SplittableRandom rng,
             Runnable onDone) {
        this.spec = spec;
        this.kind = spec.kind.trim().toLowerCase(java.util.Locale.ROOT);
        this.transport = transport;
        this.loop = loop;
        this.onDone = onDone;
        if (spec.bytes <= 0 || spec.messages <= 0 || spec.qpsPerPair <= 0) {
            throw new IllegalArgumentException("workload bytes, messages and qpsPerPair must be positive");
        }
        if (hostCount < 2) {
            throw new IllegalArgumentException("a workload needs at least 2 hosts, not " + hostCount);
        }
        transport.setListener(this);
        switch (kind) {
            case "bulk" -> bulk(hostCount);
            case "incast" -> incast(hostCount);
            case "permutation" -> permutation(hostCount, rng);
            case "alltoall", "all-to-all" -> allToAll(collectiveRanks(hostCount));
            case "alltoall-pairwise", "all-to-all-pairwise" -> {
                ranks = collectiveRanks(hostCount);
                collective = new PairwiseAllToAll(this, ranks, spec.bytes, spec.startPs);
            }
            case "allreduce", "all-reduce" -> {
                ranks = collectiveRanks(hostCount);
                collective = new RingAllReduce(this, transport, ranks, spec.bytes, spec.qpsPerPair, spec.sliceBytes,
                        spec.chunkSlices, spec.slots, spec.startPs);
            }
            case "allreduce-stepwise", "all-reduce-stepwise" -> allReduce(collectiveRanks(hostCount));
            case "hotspot", "storm" -> hotspot(hostCount);
            default -> throw new IllegalArgumentException("unknown workload kind '" + spec.kind
                    + "' (bulk, incast, permutation, alltoall, alltoall-pairwise, allreduce, allreduce-stepwise, "
                    + "hotspot, storm)");
        }
        if (collective != null) {
            Collective c = collective;
            loop.schedule(spec.startPs, arg -> c.start(), 0);
        }
        if (flows.isEmpty()) {
            throw new IllegalArgumentException("workload " + kind + " over " + hostCount + " hosts has no flow");
        }
    }

    private int collectiveRanks(int hostCount) {
        int n = spec.ranks == 0 ? hostCount : spec.ranks;
        if (n < 2 || n > hostCount) {
            throw new IllegalArgumentException("collective ranks " + spec.ranks + " outside 2.." + hostCount);
        }
        return n;
    }

    private void bulk(int n) {
        String pairs = spec.pairs.trim();
        if (pairs.isEmpty()) {
            for (int i = 0; i < n / 2; i++) {
                addPairFlow(i, i + n / 2, flows.size());
            }
            return;
        }
        for (String pair : pairs.split(",")) {
            String[] sd = pair.trim().split("-");
            int s;
            int d;
            try {
                s = Integer.parseInt(sd[0].trim());
                d = Integer.parseInt(sd.length == 2 ? sd[1].trim() : "x");
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("bulk pair '" + pair + "' is not src-dst", e);
            }
            if (s < 0 || d < 0 || s >= n || d >= n || s == d) {
                throw new IllegalArgumentException("bulk pair '" + pair + "' outside hosts 0.." + (n - 1));
            }
            addPairFlow(s, d, flows.size());
        }
    }

    private void incast(int n) {
        int r = spec.receiver;
        if (r < 0 || r >= n || spec.senders < 1 || spec.senders > n - 1) {
            throw new IllegalArgumentException("incast of " + spec.senders + " senders to host " + r + " over " + n
                    + " hosts");
        }
        for (int i = 0; i < spec.senders; i++) {
            addPairFlow((r + 1 + i) % n, r, i);
        }
    }

    /** E6: the victim pairs from {@code startPs}, then the hot senders into the receiver from hotStartPs. */
    private void hotspot(int n) {
        if (spec.pairs.isBlank()) {
            throw new IllegalArgumentException("workload " + kind + " needs victim flows in 'pairs'");
        }
        bulk(n);
        int r = spec.receiver;
        if (r < 0 || r >= n) {
            throw new IllegalArgumentException("hot receiver " + r + " outside hosts 0.." + (n - 1));
        }
        long bytes = spec.hotBytes > 0 ? spec.hotBytes : spec.bytes;
        int[] senders = HostRanges.parse("workload.hotSenders", spec.hotSenders, n);
        for (int i = 0; i < senders.length; i++) {
            if (senders[i] == r) {
                throw new IllegalArgumentException("hot sender " + r + " is the hot receiver");
            }
            Flow f = newFlow(senders[i], r, bytes, spec.hotStartPs + i * spec.staggerPs);
            f.hot = true;
            f.messages = spec.messages * f.conns.length;
            loop.schedule(f.startPs, arg -> startPairFlow(flows.get((int) arg)), f.index);
        }
    }

    private void permutation(int n, SplittableRandom rng) {
        int[] to = derangement(n, rng);
        for (int i = 0; i < n; i++) {
            addPairFlow(i, to[i], i);
        }
    }

    /** A uniformly shuffled permutation of 0..n-1 with each fixed point then swapped with its successor. */
    static int[] derangement(int n, SplittableRandom rng) {
        int[] p = new int[n];
        for (int i = 0; i < n; i++) {
            p[i] = i;
        }
        for (int i = n - 1; i > 0; i--) {
            int j = rng.nextInt(i + 1);
            int t = p[i];
            p[i] = p[j];
            p[j] = t;
        }
        for (int i = 0; i < n; i++) {
            if (p[i] == i) {
                int j = (i + 1) % n;
                p[i] = p[j];
                p[j] = i;
            }
        }
        return p;
    }

    /** nccl-tests' all-to-all: bytes/N from every rank to every other, all posted at the start. */
    private void allToAll(int n) {
        long share = spec.bytes / n;
        if (share < 1) {
            throw new IllegalArgumentException("all-to-all of " + spec.bytes + " bytes over " + n + " ranks sends"
                    + " nothing to each");
        }
        ranks = n;
        for (int i = 0; i < n; i++) {
            for (int k = 1; k < n; k++) {
                Flow f = newFlow(i, (i + k) % n, share, spec.startPs);
                f.messages = f.conns.length;
                loop.schedule(f.startPs, arg -> postShare(flows.get((int) arg)), f.index);
            }
        }
    }

    /** Posts flow {@code f}'s bytes as one message per connection (all-to-all shares). */
    void postShare(Flow f) {
        int q = f.conns.length;
        for (int c = 0; c < q; c++) {
            long len = part(f.bytes, q, c);
            if (len > 0) {
                transport.send(f.conns[c], len, 0);
            } else {
                f.messages--;
            }
        }
        if (f.messages == f.completions && !f.done()) {
            finish(f, loop.nowPs());
        }
    }

    private void allReduce(int n) {
        ranks = n;
        steps = 2 * (n - 1);
        stepBytes = (spec.bytes + n - 1) / n;
        if (stepBytes < spec.qpsPerPair) {
            throw new IllegalArgumentException("all-reduce of " + spec.bytes + " bytes over " + n + " ranks is too"
                    + " small for " + spec.qpsPerPair + " connections per pair");
        }
        rankDone = new boolean[n];
        stepsPosted = new int[n];
        partsCompleted = new int[n];
        partsReceived = new int[n];
        for (int r = 0; r < n; r++) {
            Flow f = newFlow(r, (r + 1) % n, stepBytes * steps, spec.startPs);
            f.messages = steps * f.conns.length;
        }
        loop.schedule(spec.startPs, arg -> {
            for (int r = 0; r < ranks; r++) {
                tryStep(r);
            }
        }, 0);
    }

    /**
     * Adds a pair flow starting at {@code startPs + order * staggerPs}, its messages posted at its start or one
     * every {@code messageGapPs}.
     */
    private void addPairFlow(int src, int dst, int order) {
        Flow f = newFlow(src, dst, spec.bytes, spec.startPs + order * spec.staggerPs);
        f.messages = spec.messages * f.conns.length;
        loop.schedule(f.startPs, arg -> startPairFlow(flows.get((int) arg)), f.index);
    }

    /** Opens a flow of {@code qpsPerPair} connections from {@code src} to {@code dst}. */
    Flow newFlow(int src, int dst, long bytes, long startPs) {
        int[] conns = new int[spec.qpsPerPair];
        for (int q = 0; q < conns.length; q++) {
            conns[q] = transport.connect(src, dst);
            if (conns[q] >= connFlow.length) {
                connFlow = Arrays.copyOf(connFlow, Math.max(connFlow.length * 2, conns[q] + 1));
            }
            connFlow[conns[q]] = flows.size();
        }
        Flow f = new Flow(flows.size(), src, dst, bytes, startPs, conns);
        flows.add(f);
        return f;
    }

    private void startPairFlow(Flow f) {
        if (spec.messageGapPs <= 0) {
            for (int m = 0; m < spec.messages; m++) {
                postMessage(f, m);
            }
        } else {
            postMessage(f, 0);
            for (int m = 1; m < spec.messages; m++) {
                loop.schedule(f.startPs + m * spec.messageGapPs, arg -> postMessage(f, (int) arg), m);
            }
        }
    }

    /** Posts message {@code m} of {@code f} on each of its connections (its share of the flow's bytes). */
    private void postMessage(Flow f, int m) {
        int q = f.conns.length;
        for (int c = 0; c < q; c++) {
            long len = part(part(f.bytes, q, c), spec.messages, m);
            if (len > 0) {
                transport.send(f.conns[c], len, m);
            } else {
                f.messages--; // more messages than bytes: nothing to send for this one
            }
        }
        if (f.messages == f.completions && !f.done()) {
            finish(f, loop.nowPs());
        }
    }

    /** Share {@code i} of {@code total} split in {@code n} near-equal parts. */
    static long part(long total, int n, int i) {
        return total / n + (i < total % n ? 1 : 0);
    }

    private void tryStep(int r) {
        Flow f = flows.get(r);
        int q = f.conns.length;
        int s = stepsPosted[r];
        if (aborted || s == steps || partsCompleted[r] < q * s || partsReceived[r] < q * s) {
            return;
        }
        stepsPosted[r] = s + 1;
        for (int c = 0; c < q; c++) {
            transport.send(f.conns[c], part(stepBytes, q, c), s);
        }
    }

    @Override
    public void delivered(int conn, long tag, long nowPs) {
        Flow f = flows.get(connFlow[conn]);
        f.deliveries++;
        f.lastDeliveryPs = nowPs;
        if (collective != null) {
            if (!aborted) {
                collective.delivered(f, conn, tag, nowPs);
            }
            return;
        }
        if (stepsPosted != null) {
            int r = f.dst;
            partsReceived[r]++;
            tryStep(r);
            checkRank(r, nowPs);
        }
    }

    @Override
    public void completed(int conn, long tag, long nowPs, boolean ok) {
        Flow f = flows.get(connFlow[conn]);
        f.completions++;
        if (!ok) {
            f.failures++;
            failedMessages++;
        }
        if (collective != null) {
            if (f.completions == f.messages && !f.done()) {
                f.finishPs = nowPs;
                flowsDone++;
            }
            if (!ok) {
                aborted = true; // a failed message: the collective cannot finish
                end(nowPs);
            } else if (!aborted) {
                collective.completed(f, conn, tag, nowPs);
            }
            return;
        }
        if (stepsPosted != null) {
            int r = f.src;
            partsCompleted[r]++;
            if (!ok) {
                aborted = true; // a failed step: the collective cannot finish
                end(nowPs);
                return;
            }
            tryStep(r);
            checkRank(r, nowPs);
            if (f.completions == f.messages) {
                f.finishPs = nowPs;
                flowsDone++;
            }
            return;
        }
        if (f.completions == f.messages) {
            finish(f, nowPs);
        }
    }

    private void checkRank(int r, long nowPs) {
        int q = flows.get(r).conns.length;
        if (!rankDone[r] && partsCompleted[r] == q * steps && partsReceived[r] == q * steps) {
            rankDone[r] = true;
            ranksDone++;
            if (ranksDone == ranks) {
                end(nowPs);
            }
        }
    }

    private void finish(Flow f, long nowPs) {
        f.finishPs = nowPs;
        if (++flowsDone == flows.size()) {
            end(nowPs);
        }
    }

    /** Ends the workload at {@code nowPs} (once). */
    void end(long nowPs) {
        if (endPs < 0) {
            endPs = nowPs;
            onDone.run();
        }
    }

    /** The kind, normalised to lower case. */
    public String kind() { return kind; }
    /** Every flow, in index order. */
    public List<Flow> flows() { return flows; }
    /** Flow of connection {@code conn}. */
    public Flow flowOf(int conn) { return flows.get(connFlow[conn]); }
    /** True when every flow (or the collective) is done, or a collective failed. */
    public boolean done() { return endPs >= 0; }
    /** Virtual time the workload ended, or -1. */
    public long endPs() { return endPs; }
    /** Messages that completed with an error. */
    public long failedMessages() { return failedMessages; }
    /** True when the workload gave up (a flow failed and the run cannot complete). */
    public boolean aborted() { return aborted; }
    /** Ranks of a collective (0 for pair workloads). */
    public int ranks() { return ranks; }
    /** True for collectives (ranks exchanging in steps), false for flow workloads. */
    public boolean collective() { return ranks > 0; }

    /**
     * Payload bytes one rank contributes to a collective, the numerator of algorithm bandwidth: nccl-tests'
     * size, the buffer per rank.
     */
    public long collectiveBytes() {
        return collective != null ? collective.bytes(spec.bytes) : spec.bytes;
    }

    /** Bus bandwidth factor of the collective (nccl-tests): 2(N-1)/N for all-reduce, (N-1)/N for all-to-all. */
    public double busFactor() {
        return collective != null ? collective.busFactor()
                : stepsPosted != null ? 2.0 * (ranks - 1) / ranks : (ranks - 1.0) / ranks;
    }

    /** Latest flow start (the last incast sender). */
    public long lastStartPs() {
        long t = 0;
        for (Flow f : flows) {
            t = Math.max(t, f.startPs);
        }
        return t;
    }
}
