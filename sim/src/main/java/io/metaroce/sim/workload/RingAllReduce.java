package io.metaroce.sim.workload;

import io.metaroce.sim.transport.Transport;

import java.util.Arrays;

/**
 * RCCL's ring all-reduce (reduce-scatter then all-gather), pipelined as RCCL runs it. The buffer is split over
 * {@code C} channels; each channel is one connection from every rank r to rank r+1 and runs the ring on its own
 * share. A channel's share is processed in loops of N chunks (a chunk at most {@code chunkSlices} slices of
 * {@code sliceBytes}, smaller for small buffers); each loop is the 2(N-1) ring steps of one chunk each, and a
 * step's chunk travels as slices. A rank's sends on a channel form one stream of slices in (loop, step, slice)
 * order, each posted as one message, as soon as:
 * <ul>
 *   <li>it has the data: slice k of step s &gt; 0 needs slice k of step s-1 received from rank r-1 (the reduced
 *       or gathered data it forwards; step 0 sends the rank's own chunk);</li>
 *   <li>the receiver has room: rank r+1's receive FIFO holds {@code slots} slices, and slice g may go only once
 *       rank r+1 has consumed slice g - slots: forwarded it (posted the slice of the next step that carries it)
 *       or, for a loop's last step, received it.</li>
 * </ul>
 * The FIFO's credit reaches the sender at once (RCCL returns it with a small RDMA write, one way later). The
 * collective is done when every rank has sent, had acknowledged and received every slice of every channel.
 */
final class RingAllReduce implements Workload.Collective {
    private final Workload wl;
    private final Transport transport;
    private final int ranks;
    private final int channels;
    private final int steps;
    private final int slots;
    /** Per channel: slices per chunk, slices per rank in all, and each slice's length. */
    private final int[] spc;
    private final int[] total;
    private final long[][] sliceLen;
    private final Workload.Flow[] flows; // rank r -> r+1
    private int[] connChannel = new int[16];
    private final int[][] sent; // [rank][channel]
    private final int[][] received;
    private final int[][] acked;
    private final boolean[] rankDone;
    private int ranksDone;
    /** (rank, channel) indices to look at, each at most once (a ring as long as their number). */
    private final int[] work;
    private int workHead;
    private int workSize;
    private final boolean[] queued;
    private boolean draining;

    /**
     * The all-reduce of {@code bytes} over ranks 0..ranks-1 with {@code channels} connections per neighbour pair
     * (flows opened through {@code wl}); slices of at most {@code sliceBytes}, {@code chunkSlices} per chunk, a
     * receive FIFO of {@code slots} slices.
     */
    RingAllReduce(Workload wl, Transport transport, int ranks, long bytes, int channels, long sliceBytes,
                  int chunkSlices, int slots, long startPs) {
        if (sliceBytes <= 0 || chunkSlices <= 0 || slots <= chunkSlices) {
            throw new IllegalArgumentException("all-reduce needs sliceBytes > 0, chunkSlices > 0 and slots > "
                    + "chunkSlices (got " + sliceBytes + ", " + chunkSlices + ", " + slots + ")");
        }
        if (bytes < (long) channels * ranks) {
            throw new IllegalArgumentException("all-reduce of " + bytes + " bytes over " + ranks + " ranks is too"
                    + " small for " + channels + " channels");
        }
        this.wl = wl;
        this.transport = transport;
        this.ranks = ranks;
        this.channels = channels;
        this.steps = 2 * (ranks - 1);
        this.slots = slots;
        spc = new int[channels];
        total = new int[channels];
        sliceLen = new long[channels][];
        long chunkMax = sliceBytes * chunkSlices;
        long perRank = 0;
        for (int c = 0; c < channels; c++) {
            long share = Workload.part(bytes, channels, c);
            long loops = Math.max(1, ceilDiv(share, ranks * chunkMax));
            long chunk = Math.max(1, ceilDiv(share, loops * ranks));
            int k = (int) Math.min(chunkSlices, ceilDiv(chunk, Math.min(sliceBytes, chunk)));
            k = Math.max(1, Math.min(k, (int) Math.min(chunk, Integer.MAX_VALUE)));
            spc[c] = k;
            long slicesPerRank = loops * steps * k;
            if (slicesPerRank > Integer.MAX_VALUE) {
                throw new IllegalArgumentException("all-reduce of " + bytes + " bytes makes too many slices");
            }
            total[c] = (int) slicesPerRank;
            sliceLen[c] = new long[k];
            for (int i = 0; i < k; i++) {
                sliceLen[c][i] = Workload.part(chunk, k, i);
            }
            perRank += loops * steps * chunk;
        }
        flows = new Workload.Flow[ranks];
        for (int r = 0; r < ranks; r++) {
            Workload.Flow f = wl.newFlow(r, (r + 1) % ranks, perRank, startPs);
            int m = 0;
            for (int c = 0; c < channels; c++) {
                int conn = f.conns[c];
                if (conn >= connChannel.length) {
                    connChannel = Arrays.copyOf(connChannel, Math.max(connChannel.length * 2, conn + 1));
                }
                connChannel[conn] = c;
                m += total[c];
            }
            f.messages = m;
            flows[r] = f;
        }
        sent = new int[ranks][channels];
        received = new int[ranks][channels];
        acked = new int[ranks][channels];
        rankDone = new boolean[ranks];
        queued = new boolean[ranks * channels];
        work = new int[ranks * channels];
    }

    private static long ceilDiv(long a, long b) {
        return (a + b - 1) / b;
    }

    /** Posts every rank's first slices. */
    @Override
    public void start() {
        for (int r = 0; r < ranks; r++) {
            for (int c = 0; c < channels; c++) {
                enqueue(r, c);
            }
        }
        drain();
    }

    @Override
    public void delivered(Workload.Flow f, int conn, long tag, long nowPs) {
        int r = f.dst;
        int c = connChannel[conn];
        received[r][c]++;
        enqueue(r, c); // it may forward the slice now
        enqueue(prev(r), c); // a loop's last step is consumed on receipt: a FIFO slot for the sender
        drain();
        checkRank(r, nowPs);
    }

    @Override
    public void completed(Workload.Flow f, int conn, long tag, long nowPs) {
        int r = f.src;
        acked[r][connChannel[conn]]++;
        checkRank(r, nowPs);
    }

    @Override
    public long bytes(long specBytes) { return specBytes; }

    @Override
    public double busFactor() { return 2.0 * (ranks - 1) / ranks; }

    private int prev(int r) { return (r + ranks - 1) % ranks; }

    private void enqueue(int r, int c) {
        int i = r * channels + c;
        if (!queued[i]) {
            queued[i] = true;
            work[(workHead + workSize++) % work.length] = i;
        }
    }

    /** Posts what each queued (rank, channel) may post; a post may free a FIFO slot for the rank before it. */
    private void drain() {
        if (draining) {
            return; // a transport call re-entered: the running drain picks the new work up
        }
        draining = true;
        try {
            while (workSize > 0 && !wl.aborted()) {
                int i = work[workHead];
                workHead = (workHead + 1) % work.length;
                workSize--;
                queued[i] = false;
                int r = i / channels;
                int c = i % channels;
                if (post(r, c)) {
                    enqueue(prev(r), c);
                }
            }
        } finally {
            draining = false;
        }
    }

    /** Posts the slices rank r may send on channel c; true when it posted any. */
    private boolean post(int r, int c) {
        int k = spc[c];
        int next = (r + 1) % ranks;
        boolean any = false;
        while (sent[r][c] < total[c]) {
            int g = sent[r][c];
            boolean firstStep = (g / k) % steps == 0;
            if (!firstStep && received[r][c] < g - k + 1) {
                break; // slice k of the previous step has not arrived from r-1
            }
            if (g >= slots && consumed(next, c) < g - slots + 1) {
                break; // r+1's FIFO is full
            }
            sent[r][c] = g + 1;
            any = true;
            transport.send(flows[r].conns[c], sliceLen[c][g % k], g);
        }
        return any;
    }

    /** Slices rank q has consumed from its receive FIFO on channel c (a prefix of its received slices). */
    private int consumed(int q, int c) {
        int k = spc[c];
        int recv = received[q][c];
        int done = Math.max(0, sent[q][c] - k); // slice h was forwarded once slice h + k was posted
        if (recv <= done) {
            return recv;
        }
        // beyond: slices of a loop's last step need no forwarding, consumed when received
        while (done < recv && (done / k) % steps == steps - 1) {
            done++;
        }
        return done;
    }

    private void checkRank(int r, long nowPs) {
        if (rankDone[r]) {
            return;
        }
        for (int c = 0; c < channels; c++) {
            if (acked[r][c] < total[c] || received[r][c] < total[c]) {
                return;
            }
        }
        rankDone[r] = true;
        if (++ranksDone == ranks) {
            wl.end(nowPs);
        }
    }
}
