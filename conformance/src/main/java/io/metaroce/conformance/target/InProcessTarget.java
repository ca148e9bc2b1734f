package io.metaroce.conformance.target;

import io.metaroce.conformance.script.Script;
import io.metaroce.core.Engine;

import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Our engine in this process on virtual time: every timer fires at its exact deadline and every emitted
 * datagram carries the exact virtual time it was emitted at. Deterministic (seeded), fast; used by CI.
 */
public final class InProcessTarget implements Target {
    /** Tester's QP number (what the IUT's QP is connected to). */
    private final EngineHost host;
    private final Mutation mutation;
    private final long seed;
    private long now;

    /** A target running our engine with {@code mutation} (NONE for the real thing), seeded with {@code seed}. */
    public InProcessTarget(Mutation mutation, long seed) {
        this.host = new EngineHost(mutation);
        this.mutation = mutation;
        this.seed = seed;
    }

    @Override
    public String description() {
        return "in-process MetaRoCE-J engine (virtual time" + (mutation == Mutation.NONE ? ")"
                : ", MUTATION " + mutation + ")");
    }

    @Override
    public Set<String> capabilities() {
        return Set.of(EXACT_TIME, PATH_STATS, COUNTERS, ECN_MARKS, BURST, CM, TRIMMING);
    }

    @Override
    public Setup setup(Script s) throws TargetException {
        try {
            host.reset(s.config(), seed);
            Map<String, Region> regions = new java.util.LinkedHashMap<>();
            for (Script.Region r : s.regions()) {
                regions.put(r.name(), host.addRegion(r.name(), r.size(), r.access(), r.otherPd()));
            }
            int qpn = host.createQp(s.qpState(), TesterConstants.TESTER_QPN, (int) s.iutPsn(), (int) s.testerPsn());
            now = 0;
            return new Setup(qpn, regions);
        } catch (IllegalArgumentException e) {
            throw new TargetException("set-up failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void advanceTo(long tNs) throws TargetException {
        for (int guard = 0; ; guard++) {
            long d = host.nextDeadline();
            if (d == Engine.NO_DEADLINE || d - tNs > 0) {
                break;
            }
            if (guard > 1_000_000) {
                throw new TargetException("engine timers do not advance (deadline " + d + " ns)");
            }
            now = Math.max(now, d);
            host.fire(now);
        }
        now = Math.max(now, tNs);
        host.fire(now);
    }

    @Override
    public long now() {
        return now;
    }

    @Override
    public void inject(byte[] datagram, int length, int ecn) {
        host.inject(now, datagram, length, ecn);
    }

    @Override
    public void injectTrimmed(byte[] datagram, int length) {
        host.injectTrimmed(now, datagram, length);
    }

    @Override
    public void injectBurst(byte[] datagram, int length, int ecn, int count) {
        host.injectBurst(now, datagram, length, ecn, count);
    }

    @Override
    public List<Captured> takeCaptured() {
        return host.takeCaptured();
    }

    @Override
    public int post(String op, long wrId, String mr, long offset, int length, long remoteVa, int rkey, int imm,
                    boolean signaled) throws TargetException {
        try {
            return host.post(op, wrId, mr, offset, length, remoteVa, rkey, imm, signaled);
        } catch (IllegalArgumentException e) {
            throw new TargetException(e.getMessage(), e);
        }
    }

    @Override
    public int postRecv(long wrId, String mr, long offset, int length) throws TargetException {
        try {
            return host.postRecv(wrId, mr, offset, length);
        } catch (IllegalArgumentException e) {
            throw new TargetException(e.getMessage(), e);
        }
    }

    @Override
    public String modify(String state) {
        return host.modify(state);
    }

    @Override
    public void deregister(String mr) {
        host.deregister(mr);
    }

    @Override
    public void writeMemory(String mr, long offset, byte[] data) {
        host.writeMemory(mr, offset, data);
    }

    @Override
    public byte[] readMemory(String mr, long offset, int length) {
        return host.readMemory(mr, offset, length);
    }

    @Override
    public Completion poll(boolean send) {
        return host.poll(send);
    }

    @Override
    public String qpState() {
        return host.qpState();
    }

    @Override
    public Map<String, Long> counters() {
        return host.counters();
    }

    @Override
    public Map<String, String> pathStats(int path) {
        return host.pathStats(path);
    }

    @Override
    public long internalErrors() {
        return host.internalErrors();
    }

    @Override
    public void close() {
    }
}
