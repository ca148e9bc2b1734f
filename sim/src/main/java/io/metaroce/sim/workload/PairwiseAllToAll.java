package io.metaroce.sim.workload;

/**
 * All-to-all by pairwise exchange (MPI's algorithm for large messages): N-1 rounds; in round k rank r sends its
 * share for rank r+k and receives rank r-k's share for it, and starts round k+1 once both are done (its send
 * acknowledged and the incoming share received). Each share (bytes/N) is split over the pair's connections.
 */
final class PairwiseAllToAll implements Workload.Collective {
    private final Workload wl;
    private final int ranks;
    private final Workload.Flow[][] flows; // [rank][round]: rank -> rank + round
    private final int[] round; // current round per rank (1..ranks-1; ranks when done)
    private int ranksDone;

    /** The exchange of {@code bytes} per rank (bytes/N per destination) over ranks 0..ranks-1. */
    PairwiseAllToAll(Workload wl, int ranks, long bytes, long startPs) {
        this.wl = wl;
        this.ranks = ranks;
        long share = bytes / ranks;
        if (share < 1) {
            throw new IllegalArgumentException("all-to-all of " + bytes + " bytes over " + ranks + " ranks sends"
                    + " nothing to each");
        }
        flows = new Workload.Flow[ranks][ranks];
        for (int r = 0; r < ranks; r++) {
            for (int k = 1; k < ranks; k++) {
                Workload.Flow f = wl.newFlow(r, (r + k) % ranks, share, startPs);
                f.messages = f.conns.length;
                flows[r][k] = f;
            }
        }
        round = new int[ranks];
    }

    @Override
    public void start() {
        for (int r = 0; r < ranks; r++) {
            round[r] = 1;
            wl.postShare(flows[r][1]);
        }
    }

    @Override
    public void delivered(Workload.Flow f, int conn, long tag, long nowPs) {
        advance(f.dst, nowPs);
    }

    @Override
    public void completed(Workload.Flow f, int conn, long tag, long nowPs) {
        advance(f.src, nowPs);
    }

    @Override
    public long bytes(long specBytes) { return specBytes; }

    @Override
    public double busFactor() { return (ranks - 1.0) / ranks; }

    /** Moves rank r on while its current round's send is acknowledged and its incoming share received. */
    private void advance(int r, long nowPs) {
        while (round[r] < ranks) {
            int k = round[r];
            Workload.Flow out = flows[r][k];
            Workload.Flow in = flows[(r - k + ranks) % ranks][k];
            if (out.completions < out.messages || in.deliveries < in.messages) {
                return;
            }
            round[r] = k + 1;
            if (k + 1 < ranks) {
                wl.postShare(flows[r][k + 1]);
            } else if (++ranksDone == ranks) {
                wl.end(nowPs);
            }
        }
    }
}
