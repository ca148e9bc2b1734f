package io.metaroce.core;

import java.util.Arrays;

/**
 * One QP's choice of the path for its next data packet (PATH-1, PATH-18, PATH-19), at a cost that does not grow with
 * the paths that cannot take one. It reads two masks kept as paths and routes change, its QP's
 * {@link QpCore#closedPaths} (by a path's own state: failed, PSN window full, SUSPECT with a packet out) and its peer's
 * {@link PeerLoad#fullRoutes} (a route's window full), and, for the paths left, the peer's arrays of pacing slots
 * ({@link PeerLoad#nextSendNs}) and open windows ({@link PeerLoad#roomBytes}); a route itself is read only for the
 * path about to be chosen (whose turn it is, PATH-18). At 64 paths per QP on the 1,024-host permutation, where most
 * routes are full or paced at any moment, reading every path and route per packet was ~25% of the simulator's
 * samples (JFR).
 */
final class PathChooser {
    /** PATH-1: open windows wider than this many packets count as this many (they are alike). */
    static final int OPEN_SPAN_PACKETS = 16;
    private final QpCore c;
    /** {@link #OPEN_SPAN_PACKETS} in bytes. */
    private final double openSpan;
    private int cursor;
    /**
     * Set by {@link #choose} and {@link #anyDue}: the id of the route with room whose pacing slot comes first (or that
     * is another QP's turn), when no path may send now (-1: none); its slot in {@link #pacedNs}.
     */
    private int pacedId = -1;
    private long pacedNs;
    /** {@link #choose}: routes found due but another QP's turn (PATH-18), skipped as it looks again. */
    private final long[] notTurn;

    PathChooser(QpCore c) {
        this.c = c;
        this.openSpan = (double) OPEN_SPAN_PACKETS * c.cfg.mtu;
        this.notTurn = new long[c.closedPaths.length];
    }

    /**
     * PATH-1: the sendable path with the largest open window (counted up to {@link #OPEN_SPAN_PACKETS} packets),
     * round-robin among equals, on a plane whose port is not backlogged (PATH-19; when all are, the port free first),
     * whose route's pacing slot came (CC-5); null when none may send now, and then {@link #pacedRoute()} is the route,
     * among those with room, whose pacing slot comes first. A route other QPs wait their turn on (PATH-18) is not this
     * QP's to take before them: the best of the others goes.
     */
    Path choose(long nowNs) {
        int n = c.paths.length;
        pacedId = -1;
        Arrays.fill(notTurn, 0L);
        while (true) {
            int best = bestDue(nowNs, n);
            if (best < 0) {
                return null;
            }
            SharedPath route = c.peerLoad.pathIfMade(best);
            if (route == null || route.turnOf(c.face)) {
                cursor = best + 1 == n ? 0 : best + 1;
                return c.path(best);
            }
            notePaced(best, c.peerLoad.nextSendNs[best]);
            notTurn[best >>> 6] |= 1L << best;
        }
    }

    /**
     * Whether any path may take a data packet at {@code atNs} ({@link #choose} would find one); when none may,
     * {@link #pacedRoute()} is set as {@link #choose} sets it.
     */
    boolean anyDue(long atNs) {
        pacedId = -1;
        int n = c.paths.length;
        for (int w = 0; w < notTurn.length; w++) {
            for (long bits = openBits(w, 0, n); bits != 0; bits &= bits - 1) {
                int id = (w << 6) + Long.numberOfTrailingZeros(bits);
                if (slotDue(id, atNs)) {
                    return true;
                }
            }
        }
        return false;
    }

    /**
     * Whether path {@code id} may take another packet now as far as its state, PSN window and its route's congestion
     * window go (PATH-1, PATH-15: with nothing in flight on the route one packet may go, CC-10; a SUSPECT path carries
     * one packet of its QP), pacing aside: the masks' answer ({@link #openBits}).
     */
    boolean mayTake(int id) {
        return openBits(id >>> 6, id, id + 1) != 0;
    }

    /** The route the last {@link #choose} or {@link #anyDue} that found none noted (see there); null: none has room. */
    SharedPath pacedRoute() {
        return pacedId < 0 ? null : c.peerLoad.path(pacedId);
    }

    /** The route, among this QP's paths that may send and have room, whose pacing slot comes first (null: none). */
    SharedPath earliestRoute() {
        int n = c.paths.length;
        int first = -1;
        long firstNs = 0;
        for (int w = 0; w < notTurn.length; w++) {
            for (long bits = openBits(w, 0, n); bits != 0; bits &= bits - 1) {
                int id = (w << 6) + Long.numberOfTrailingZeros(bits);
                long next = c.peerLoad.nextSendNs[id];
                if (first < 0 || next - firstNs < 0) {
                    first = id;
                    firstNs = next;
                }
            }
        }
        return first < 0 ? null : c.peerLoad.path(first);
    }

    /**
     * The best path whose route's pacing slot came by {@code nowNs}, among those that may take a packet
     * ({@link #openBits}) and are not known to be another QP's turn ({@link #notTurn}), or -1: PATH-19, a path whose
     * plane's port is not backlogged (when every port is, the one free first); then PATH-1, PATH-11, the largest open
     * window counted up to {@link #OPEN_SPAN_PACKETS} packets; then round-robin from the cursor. Routes not due are
     * noted in {@link #pacedId}. It reads the peer's arrays, not the paths or routes.
     */
    private int bestDue(long nowNs, int n) {
        PeerLoad peer = c.peerLoad;
        PlaneClocks planes = c.engine.planeClocks;
        int planeCount = c.cfg.planes;
        int best = -1;
        double bestOpen = Double.NEGATIVE_INFINITY;
        long bestFree = 0;
        // round-robin order: the ids from the cursor on, then those before it
        for (int pass = 0; pass < 2; pass++) {
            int from = pass == 0 ? cursor : 0;
            int to = pass == 0 ? n : cursor;
            for (int w = from >>> 6; w < notTurn.length && w << 6 < to; w++) {
                for (long bits = openBits(w, from, to) & ~notTurn[w]; bits != 0; bits &= bits - 1) {
                    int id = (w << 6) + Long.numberOfTrailingZeros(bits);
                    long next = peer.nextSendNs[id];
                    if (next - nowNs > 0) {
                        notePaced(id, next);
                        continue;
                    }
                    long free = planes.choosableAtNs(id % planeCount, nowNs); // path id's plane (QpCore#newPath)
                    double open = Math.min(peer.pathIfMade(id) == null ? peer.idleCwndBytes() : peer.roomBytes[id],
                            openSpan);
                    if (best < 0 || free - bestFree < 0 || free == bestFree && open > bestOpen) {
                        best = id;
                        bestOpen = open;
                        bestFree = free;
                    }
                }
            }
        }
        return best;
    }

    /**
     * Whether path {@code id}, one that may take a packet as far as its state and windows go ({@link #openBits}), may
     * take a data packet at {@code atNs}: its route's pacing slot come and this QP's turn on it (PATH-18). A route not
     * due is noted in {@link #pacedId}. The slot is read from the peer's array: a route is read only when its slot
     * came.
     */
    private boolean slotDue(int id, long atNs) {
        long next = c.peerLoad.nextSendNs[id];
        if (next - atNs <= 0) {
            SharedPath route = c.peerLoad.pathIfMade(id);
            if (route == null || route.turnOf(c.face)) {
                return true; // (a route not made yet: nobody waits on it)
            }
        }
        notePaced(id, next);
        return false;
    }

    /** Notes route {@code id}, with room but not this QP's to take now, when its slot {@code next} comes first. */
    private void notePaced(int id, long next) {
        if (pacedId < 0 || next - pacedNs < 0) {
            pacedId = id;
            pacedNs = next;
        }
    }

    /**
     * The paths with ids in {@code [from, to)} of mask word {@code w} that may take a packet as far as their state and
     * windows go (a made path's state, PSN window and route's room; a route's room for one never used):
     * neither closed by their own state ({@link QpCore#closedPaths}) nor on a route without room
     * ({@link PeerLoad#fullRoutes}).
     */
    private long openBits(int w, int from, int to) {
        int base = w << 6;
        if (to <= base || from >= base + 64) {
            return 0;
        }
        long range = -1L;
        if (from > base) {
            range &= -1L << (from - base);
        }
        if (to < base + 64) {
            range &= (1L << (to - base)) - 1;
        }
        return ~(c.closedPaths[w] | c.peerLoad.fullRoutes[w]) & range;
    }
}
