package io.metaroce.core;

import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.ProbeHeader;

import java.lang.foreign.MemorySegment;

/**
 * Path health of one QP (PATH-2..PATH-13, RTO-6): fails a path, probes failed paths until they answer, re-admits
 * them (PATH-6), answers the peer's probes, and picks the next probe to send within the engine-wide probe budget
 * (PATH-13).
 */
final class PathProber {
    private final QpCore c;
    private final BaseHeader base = new BaseHeader();
    private final ProbeHeader probe = new ProbeHeader();
    /** Some path may have a probe due. */
    private boolean probeWork;
    /** A due probe waits for an engine-wide probe token. */
    private boolean throttled;

    PathProber(QpCore c) {
        this.c = c;
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
        p.state = PathState.FAILED;
        p.failures++;
        p.failedSinceNs = nowNs;
        c.count(Counter.PATH_FAILOVERS);
        p.probeSuccesses = 0;
        awaitProbe(p);
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
        awaitProbe(p);
        if (p.state == PathState.PROBING) {
            p.state = PathState.FAILED;
            p.probeSuccesses = 0;
        }
    }

    /** PATH-5: how long a probe waits for its reply: the probe interval, or three RTTs if that is longer. */
    long timeoutNs(Path p) {
        // An RTT inflated by an overload must not stretch probing without bound: at most 50 intervals.
        return Math.max(c.cfg.probeIntervalNs, Math.min(3 * p.srttNs, 50 * c.cfg.probeIntervalNs));
    }

    /** The peer probes {@code p}: queue a reply and ask for the path's ACK state (RTO-6, RTO-8). */
    void onProbe(Path p, MemorySegment seg) {
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
        p.rxEchoTs = base.timestampNs();
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
        if (probe.probeId() != p.probeId) {
            c.count(Counter.DROP_STALE_PROBE_REPLY); // PATH-10: a stale or duplicate reply
            return;
        }
        p.probeId++; // each probe is answered once
        p.onRttSample(nowNs - probe.echoTimestampNs(), c.cfg.minRtoNs, c.cfg.maxRtoNs);
        p.probeSuccesses++;
        p.state = PathState.PROBING;
        if (p.probeSuccesses >= c.cfg.readmitAfterProbes) {
            // PATH-6: re-admitted with a fresh window.
            p.state = PathState.ACTIVE;
            p.readmissions++;
            c.count(Counter.PATH_READMISSIONS);
            p.backoff = 0;
            p.consecutiveTimeouts = 0;
            p.probeDeadlineNs = Engine.NO_DEADLINE;
            p.probeDue = false;
            p.cc().onStart();
            c.allFailedSinceNs = Engine.NO_DEADLINE;
        } else {
            awaitProbe(p); // the next probe goes at once
        }
    }

    /** The path whose probe goes next, having taken a probe token for it; null when none may go now. */
    Path nextProbe(long nowNs) {
        if (!probeWork) {
            return null;
        }
        for (Path p : c.paths) {
            if (p.probeDue) {
                if (!c.engine.probeBudget.take(nowNs)) {
                    throttled = true; // PATH-13: wait for the engine's next probe token
                    return null;
                }
                p.probeDue = false;
                throttled = false;
                if (p.state == PathState.FAILED || p.state == PathState.PROBING) {
                    p.probeDeadlineNs = nowNs + timeoutNs(p); // PATH-5: the reply is awaited from now
                }
                return p;
            }
        }
        probeWork = false;
        throttled = false;
        return null;
    }
}
