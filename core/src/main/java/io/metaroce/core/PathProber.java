package io.metaroce.core;

import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.ProbeHeader;

import java.lang.foreign.MemorySegment;

/**
 * Path health of one QP (PATH-2..PATH-13, PATH-17, RTO-6): fails a path, probes failed paths until they answer,
 * re-admits them (PATH-6), answers the peer's probes, and picks the next probe to send within the engine-wide probe
 * budget (PATH-13). A route (PATH-15) that fails for several QPs is probed by one of them; its re-admission
 * re-admits the others (PATH-17).
 */
final class PathProber {
    final QpCore c;
    private final BaseHeader base = new BaseHeader();
    private final ProbeHeader probe = new ProbeHeader();
    /** Some path may have a probe due. */
    private boolean probeWork;
    /** A due probe waits for an engine-wide probe token. */
    private boolean throttled;

    PathProber(QpCore c) {
        this.c = c;
        c.prober = this; // every path's owner, as it is made
    }

    void reset() {
        probeWork = false;
        throttled = false;
    }

    /** Whether a due probe waits for the engine's next probe token (a deadline of its own). */
    boolean throttled() {
        return throttled;
    }

    /** A probe is due on {@code p} now (a failed path's next probe, or a tail-loss probe). */
    void due(Path p) {
        p.probeDue = true;
        probeWork = true;
    }

    /** PATH-4: the path failed; it gets no new data and is probed from now on. */
    void fail(Path p, long nowNs) {
        if (p.state == PathState.FAILED) {
            return;
        }
        p.setState(PathState.FAILED);
        PathFaults f = p.faults();
        f.failures++;
        c.count(Counter.PATH_FAILOVERS);
        f.probeSuccesses = 0;
        SharedPath route = p.peer == null ? null : p.route();
        if (c.cfg.routeProbing && route != null && leads(route.prober) && route.prober != p) {
            follow(route, p, nowNs); // PATH-17: the route is probed already; wait for its verdict
        } else {
            if (route != null && c.cfg.routeProbing) {
                route.prober = p;
            }
            awaitProbe(p);
        }
        if (c.allPathsFailed() && c.allFailedSinceNs == Engine.NO_DEADLINE) {
            c.allFailedSinceNs = nowNs;
        }
    }

    /**
     * PATH-5: a failed or probing path's next probe is due; its reply deadline starts when the probe is sent (it may
     * wait for a token of the engine's probe budget, PATH-13), not now.
     */
    private void awaitProbe(Path p) {
        due(p);
        p.probeDeadlineNs = Engine.NO_DEADLINE;
    }

    /** The path's probe went unanswered: probe again; a PROBING path whose probe went unanswered fails again. */
    void onProbeTimer(Path p, long nowNs) {
        SharedPath route = p.waitingOnRoute ? p.route() : null;
        if (route != null && route.prober != p) {
            // PATH-17: a waiting path's check that its route still has a live prober (a safety net: a prober that
            // stops hands the route over at once)
            if (leads(route.prober)) {
                p.armProbe(nowNs + followerCheckNs());
                return;
            }
            route.prober = p;
        }
        awaitProbe(p);
        if (p.state == PathState.PROBING) {
            p.setState(PathState.FAILED);
            p.faults().probeSuccesses = 0;
        }
    }

    /** PATH-5: how long a probe waits for its reply: the probe interval, or three RTTs if that is longer. */
    long timeoutNs(Path p) {
        // An RTT inflated by an overload must not stretch probing without bound: at most 50 intervals.
        return Math.max(c.cfg.probeIntervalNs, Math.min(3 * p.srttNs(), 50 * c.cfg.probeIntervalNs));
    }

    /** The peer probes {@code p}: queue a reply and ask for the path's ACK state (RTO-6, RTO-8). */
    void onProbe(long nowNs, Path p, MemorySegment seg) {
        c.count(Counter.RX_PROBES);
        base.wrap(seg, 0);
        probe.wrap(seg, BaseHeader.LENGTH);
        if (base.payloadLength() != 0) {
            c.count(Counter.DROP_MALFORMED);
            return;
        }
        if (c.replies.full()) {
            c.count(Counter.PROBE_REPLY_OVERFLOW); // replies are best effort; the prober tries again
            return;
        }
        // RTO-6: a probe also asks for the path's current ACK state (it may be a tail-loss probe); RTO-8: that
        // ACK echoes the probe's timestamp, telling the sender that everything sent before it has arrived or is lost.
        p.rx().echoTs = base.timestampNs();
        p.rxHeld(c.engine.heldAtNs(nowNs), false);
        p.ackNow = true;
        c.ackWork = true;
        c.replies.pushReply(p.id, probe.probeId(), base.timestampNs());
    }

    void onProbeReply(long nowNs, Path p, MemorySegment seg) {
        c.count(Counter.RX_PROBE_REPLIES);
        base.wrap(seg, 0);
        probe.wrap(seg, BaseHeader.LENGTH);
        if (base.payloadLength() != 0) {
            c.count(Counter.DROP_MALFORMED);
            return;
        }
        if (p.state != PathState.FAILED && p.state != PathState.PROBING) {
            return; // a reply to a tail-loss probe: nothing to do
        }
        if (probe.probeId() != p.probeId()) {
            c.count(Counter.DROP_STALE_PROBE_REPLY); // PATH-10: a stale or duplicate reply
            return;
        }
        PathFaults f = p.faults();
        f.probeId++; // each probe is answered once
        p.onRttSample(nowNs - probe.echoTimestampNs(), c.cfg.minRtoNs, c.cfg.maxRtoNs);
        f.probeSuccesses++;
        p.setState(PathState.PROBING);
        if (f.probeSuccesses >= c.cfg.readmitAfterProbes) {
            // PATH-6: re-admitted with a fresh window.
            readmit(p);
            p.route().startCc();
            routeAnswered(p.route());
        } else {
            awaitProbe(p); // the next probe goes at once
        }
    }

    // ---------------- PATH-17: one prober per failed route ----------------

    /** Whether {@code p} is a failed path of a running QP, probing its route (so others may wait for it). */
    private static boolean leads(Path p) {
        return p != null && (p.state == PathState.FAILED || p.state == PathState.PROBING) && p.owner.c.running();
    }

    /** How often a waiting path checks that its route's prober is still there: a quarter of connectionTimeout. */
    private long followerCheckNs() {
        return Math.max(c.cfg.probeIntervalNs, c.cfg.connectionTimeoutNs / 4);
    }

    /** PATH-17: {@code p} failed on a route another QP probes; it sends no probe and waits for the route's verdict. */
    private void follow(SharedPath route, Path p, long nowNs) {
        if (!p.waitingOnRoute) {
            if (route.waiting == null) {
                route.waiting = new java.util.ArrayDeque<>();
            }
            route.waiting.add(p);
            p.waitingOnRoute = true;
        }
        p.probeDue = false;
        p.armProbe(nowNs + followerCheckNs());
        c.count(Counter.ROUTE_PROBE_WAITS);
    }

    /**
     * PATH-17: the route answered (its prober was re-admitted, or proved to have delivered all along): every path
     * of another QP waiting on it is re-admitted as its own would have been, and its QP is woken to send on it.
     */
    static void routeAnswered(SharedPath route) {
        if (route == null || route.prober == null && route.waiting == null) {
            return;
        }
        route.prober = null;
        Path f;
        while (route.waiting != null && (f = route.waiting.poll()) != null) {
            f.waitingOnRoute = false;
            if (f.routeIfMade() == route && f.state == PathState.FAILED && f.owner.c.running()) {
                f.owner.readmitByRoute(f);
            }
        }
    }

    /** PATH-17: the route's prober stops (its QP left RTS): the oldest path still waiting takes the probing over. */
    static void handOver(SharedPath route) {
        route.prober = null;
        Path f;
        while (route.waiting != null && (f = route.waiting.poll()) != null) {
            f.waitingOnRoute = false;
            if (f.routeIfMade() == route && f.state == PathState.FAILED && f.owner.c.running()) {
                route.prober = f;
                f.owner.takeOver(f);
                return;
            }
        }
    }

    /** PATH-6 reached through the route's prober (PATH-17): {@code p} is ACTIVE with the route's restarted window. */
    private void readmitByRoute(Path p) {
        readmit(p);
        c.count(Counter.ROUTE_READMISSIONS);
        p.faults().probeSuccesses = 0;
        wake();
    }

    /**
     * PATH-6: {@code p} carries data again, its timer history gone: no backoff, no timeouts or REL-14 losses in a
     * row. (A REL-14 streak left from before the failure kept the path's RTO clock at its last progress, before the
     * outage, so the first packet after re-admission timed out at once: E3 scaled, 64 of 64 re-admitted paths.)
     */
    private void readmit(Path p) {
        p.setState(PathState.ACTIVE);
        p.faults().readmissions++;
        c.count(Counter.PATH_READMISSIONS);
        PathSendState s = p.tx();
        s.backoff = 0;
        s.consecutiveTimeouts = 0;
        p.rackStreak = 0;
        p.probeDeadlineNs = Engine.NO_DEADLINE;
        p.probeDue = false;
        c.allFailedSinceNs = Engine.NO_DEADLINE;
    }

    /** PATH-17: {@code p} becomes its route's prober: its probe is due at once. */
    private void takeOver(Path p) {
        awaitProbe(p);
        wake();
    }

    /** This QP's state changed from outside its own event: the engine recomputes its deadline and polls it. */
    private void wake() {
        c.engine.reschedule(c.face);
        c.engine.markReady(c.face);
    }

    /** Whether a probe is due to be sent (or waits for the engine's probe budget). */
    boolean hasWork() {
        return probeWork;
    }

    /**
     * The path whose probe goes next, null when none may go now. A health probe (a FAILED or PROBING path, PATH-5)
     * takes an engine-wide token first (PATH-13) and waits for one; a tail-loss probe of an ACTIVE path (RTO-6) does
     * not, and a health probe waiting for its token does not hold it back.
     */
    Path nextProbe(long nowNs) {
        if (!probeWork) {
            return null;
        }
        boolean waiting = false;
        for (Path p : c.paths) {
            if (p == null || !p.probeDue) {
                continue;
            }
            boolean health = p.state == PathState.FAILED || p.state == PathState.PROBING;
            if (health && !c.engine.probeBudget.take(nowNs)) {
                waiting = true; // PATH-13: wait for the engine's next probe token
                continue;
            }
            p.probeDue = false;
            if (health) {
                p.armProbe(nowNs + timeoutNs(p)); // PATH-5: the reply is awaited from now
            }
            throttled = waiting;
            return p;
        }
        probeWork = waiting;
        throttled = waiting;
        return null;
    }
}
