package io.metaroce.testkit.stress;

import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Counter;
import io.metaroce.core.Engine;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QpState;
import io.metaroce.core.WcStatus;
import io.metaroce.core.WorkCompletion;
import io.metaroce.testkit.Network;
import io.metaroce.core.wire.Opcode;

import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Runs one {@link StressCase} on a {@link Network} and checks it: the fault plan runs until the heal time, then
 * every fault is undone, and by the case's time limit every work request must have completed successfully, once,
 * in posting order, with every byte at its address and no byte of any region touched otherwise; no QP may be in
 * ERROR, no engine may count an internal error or a duplicate placement. The first failed check ends the run.
 */
public final class StressRun {
    /** Events per delivered datagram above which a case counts as a busy loop (normal cases stay under 10). */
    static final int SPIN_EVENTS_PER_DATAGRAM = 100;
    /**
     * Consecutive events each 1 ns after the last with no datagram delivered in between, above which a case
     * counts as a busy loop: an engine whose deadline stays in the past is woken every nanosecond.
     */
    static final int SPIN_STEPS = 10_000;

    /** Unfinished QP ends whose paths a failure's detail lists. */
    private static final int DETAIL_QPS = 4;

    private final StressCase c;
    private final Consumer<String> trace;
    private final Network net;
    private final List<QpEnd> ends = new ArrayList<>();
    private final Map<Long, QpEnd> byQpn = new HashMap<>();
    private final CompletionQueue[] sendCqs;
    private final CompletionQueue[] recvCqs;
    private final WorkCompletion wc = new WorkCompletion();
    private String failure;
    private String category = "ok";
    private boolean kick;
    /** Ends before this index have finished (ends finish in any order; the scan resumes where it stopped). */
    private int firstUnfinished;
    private long lastStepNs = -1;
    private long lastDelivered = -1;
    private int idleNanosecondSteps;

    private StressRun(StressCase c, Consumer<String> trace) {
        this.c = c;
        this.trace = trace;
        this.net = new Network(c.seed(), c.nodes(), c.config(), c.rateBps(), c.linkDelayNs(), c.bufferBytes(),
                c.ecnThresholdBytes());
        this.sendCqs = new CompletionQueue[c.nodes()];
        this.recvCqs = new CompletionQueue[c.nodes()];
    }

    /** Runs {@code c}; {@code trace} (may be null) receives one line per datagram delivered and per event. */
    public static StressResult run(StressCase c, Consumer<String> trace) {
        return run(c, trace, null);
    }

    /**
     * Runs {@code c} like {@link #run(StressCase, Consumer)}, then hands the network, as it is when the run ends
     * (on its first failure, or after the last check), to {@code atEnd} (may be null): a seam for diagnosis and
     * regression tests that look at the engines' state.
     */
    public static StressResult run(StressCase c, Consumer<String> trace, Consumer<Network> atEnd) {
        StressRun r = new StressRun(c, trace);
        try {
            StressResult result = r.execute();
            if (atEnd != null) {
                atEnd.accept(r.net);
            }
            return result;
        } catch (RuntimeException e) {
            return new StressResult(c.seed(), false, "exception", e + " at " + e.getStackTrace()[0], "",
                    r.net.nowNs(), c.operations(), c.payloadBytes(), r.net.eventsProcessed(), r.net.trimmed(), r.rebuilt());
        }
    }

    /** Runs the case named by {@code seed}, untraced. */
    public static StressResult run(long seed) {
        return run(CaseGenerator.generate(seed), null);
    }

    private StressResult execute() {
        setUp();
        for (Fault f : c.faults()) {
            net.at(f.atNs(), () -> {
                log(() -> "fault " + f);
                f.apply(net);
            });
        }
        if (c.healAtNs() > 0) {
            net.at(c.healAtNs(), this::heal);
        }
        if (c.receivesAtNs() > 0) {
            net.at(c.receivesAtNs(), () -> ends.forEach(e -> fail("post", e.postReceives())));
        } else {
            ends.forEach(e -> fail("post", e.postReceives()));
        }
        ends.forEach(e -> fail("post", e.postWork()));
        boolean done = net.runUntil(this::step, c.limitNs());
        if (failure == null && !done) {
            stalled();
        }
        if (failure == null) {
            finalChecks();
        }
        StringBuilder detail = new StringBuilder();
        if (failure != null) {
            int shown = 0;
            int more = 0;
            for (QpEnd e : ends) {
                if (!e.finished() || e.qp.state() != QpState.RTS) {
                    if (shown++ < DETAIL_QPS) {
                        detail.append("  ").append(Diagnosis.of(e)).append('\n').append(Diagnosis.paths(e.qp));
                    } else {
                        more++;
                    }
                }
            }
            if (more > 0) {
                detail.append("  (").append(more).append(" more unfinished QP ends)\n");
            }
            log(() -> "FAIL " + category + ": " + failure + "\n" + detail);
        }
        return new StressResult(c.seed(), failure == null, category, failure == null ? "ok" : failure,
                detail.toString(), net.nowNs(), c.operations(), c.payloadBytes(), net.eventsProcessed(), net.trimmed(),
                rebuilt());
    }

    /** Segments the case's receivers rebuilt from parities (REL-18, REL-20, REL-21). */
    private long rebuilt() {
        long n = 0;
        for (int i = 0; i < net.size(); i++) {
            n += net.engine(i).counters().get(Counter.PARITY_REBUILT);
        }
        return n;
    }

    private void setUp() {
        SplittableRandom r = new SplittableRandom(c.seed() * 0x9E3779B97F4A7C15L + 1);
        ProtectionDomain[] pds = new ProtectionDomain[c.nodes()];
        for (int n = 0; n < c.nodes(); n++) {
            Engine e = net.engine(n);
            pds[n] = e.allocPd();
            sendCqs[n] = e.createCq(4096);
            recvCqs[n] = e.createCq(4096);
        }
        List<QpEnd[]> pairs = new ArrayList<>();
        for (StressCase.Connection k : c.connections()) {
            QpEnd a = end(k.nodeA(), k.opsA(), pds);
            QpEnd b = end(k.nodeB(), k.opsB(), pds);
            a.peer = b;
            b.peer = a;
            QpEnd.layout(a, b, r);
            pairs.add(new QpEnd[] {a, b});
            net.connect(k.nodeA(), a.qp, k.nodeB(), b.qp, k.psnA(), k.psnB());
        }
        Arena arena = Arena.ofAuto();
        for (QpEnd e : ends) {
            e.allocate(pds[e.node], arena, r);
        }
        if (trace != null) {
            net.setObserver((now, d) -> trace.accept(now + " deliver n" + d.src() + "->n" + d.dst() + " plane "
                    + d.plane() + " path " + d.pathId() + " " + Opcode.name(d.opcode()) + " psn "
                    + Integer.toUnsignedString(d.psn()) + (d.isData() ? " msn " + d.msn() : "") + " len "
                    + d.length() + (d.ecn() == 3 ? " CE" : "")));
            trace.accept(c.describe());
            for (QpEnd[] p : pairs) {
                trace.accept("connect " + p[0].where() + " <-> " + p[1].where() + ": " + p[0].ops + " / "
                        + p[1].ops);
            }
        }
    }

    private QpEnd end(int node, List<StressOp> ops, ProtectionDomain[] pds) {
        QpEnd e = new QpEnd(node, ends.size(), net.engine(node), pds[node], sendCqs[node], recvCqs[node], ops);
        ends.add(e);
        byQpn.put(key(node, e.qp.qpn()), e);
        return e;
    }

    private static long key(int node, int qpn) {
        return (long) node << 32 | (qpn & 0xFFFF_FFFFL);
    }

    /** Between network events: drain completions, post more work, decide whether the case is over. */
    private boolean step() {
        for (int n = 0; n < c.nodes() && failure == null; n++) {
            while (failure == null && sendCqs[n].poll(wc)) {
                QpEnd e = endOf(n);
                log(() -> "completion n" + wc.qpn() + " " + wc);
                String bad = e == null ? null : e.onSendCompletion(wc);
                fail(categoryOf(bad), explained(bad, e));
                if (e != null && failure == null) {
                    fail("post", e.postWork());
                    kick = true;
                }
            }
            while (failure == null && recvCqs[n].poll(wc)) {
                QpEnd e = endOf(n);
                log(() -> "receive " + wc);
                String bad = e == null ? null : e.onRecvCompletion(wc);
                fail(categoryOf(bad), explained(bad, e));
            }
        }
        long now = net.nowNs();
        if (now - lastStepNs <= 1 && net.delivered() == lastDelivered) {
            idleNanosecondSteps++;
        } else {
            idleNanosecondSteps = 0;
        }
        lastStepNs = now;
        lastDelivered = net.delivered();
        if (failure == null && (idleNanosecondSteps > SPIN_STEPS
                || net.eventsProcessed() > SPIN_EVENTS_PER_DATAGRAM * (net.delivered() + 10_000))) {
            spinning();
        }
        if (failure != null) {
            return true;
        }
        if (kick) { // let the engines send what was just posted
            kick = false;
            net.at(net.nowNs(), () -> { });
        }
        while (firstUnfinished < ends.size() && ends.get(firstUnfinished).finished()) {
            firstUnfinished++;
        }
        return firstUnfinished == ends.size();
    }

    /** An error completion's reason with its QP's state and its node's probing load. */
    private String explained(String bad, QpEnd e) {
        return bad == null || wc.status() == WcStatus.SUCCESS ? bad : bad + "; " + Diagnosis.of(e);
    }

    private String categoryOf(String bad) {
        if (wc.status() != WcStatus.SUCCESS) {
            return "error:" + wc.status();
        }
        return bad != null && bad.contains("differs") ? "data" : "order";
    }

    private QpEnd endOf(int node) {
        QpEnd e = byQpn.get(key(node, wc.qpn()));
        if (e == null) {
            fail("order", "completion for unknown QP 0x" + Integer.toHexString(wc.qpn()) + " on node " + node);
        }
        return e;
    }

    private void heal() {
        log(() -> "heal");
        net.setLoss(0);
        net.setReorder(0, 0);
        net.setDuplicate(0);
        net.setCorrupt(0);
        net.setEcnMarkProbability(0);
        for (int p = 0; p < c.config().planes; p++) {
            net.setPlaneLoss(p, 0);
            net.setPlaneUp(p, true);
        }
        for (int p = 0; p < c.config().paths; p++) {
            net.setPathLoss(p, 0);
            net.setPathUp(p, true);
        }
    }

    /** An engine asks to be woken again and again without sending: a busy loop on a real datapath. */
    private void spinning() {
        StringBuilder nodes = new StringBuilder();
        for (int n = 0; n < c.nodes(); n++) {
            long d = net.engine(n).pollTimeout();
            if (d != Engine.NO_DEADLINE && d - net.nowNs() <= 0) {
                nodes.append(nodes.isEmpty() ? "" : ",").append(n);
            }
        }
        QpEnd first = null;
        for (QpEnd e : ends) {
            if (!e.finished() && (first == null || nodes.indexOf(String.valueOf(e.node)) >= 0)) {
                first = e;
            }
        }
        fail("spin", net.eventsProcessed() + " network events for " + net.delivered()
                + " datagrams delivered; nodes with a deadline not after now: [" + nodes + "]"
                + (first == null ? "" : "; unfinished: " + Diagnosis.of(first)));
    }

    private void stalled() {
        int unfinished = 0;
        QpEnd first = null;
        for (QpEnd e : ends) {
            if (!e.finished()) {
                unfinished++;
                first = first == null ? e : first;
            }
        }
        fail("stall", unfinished + " QP ends unfinished " + (net.nowNs() - c.healAtNs())
                + " ns after the heal; first: " + Diagnosis.of(first));
    }

    private void finalChecks() {
        for (int n = 0; n < c.nodes(); n++) {
            Engine e = net.engine(n);
            if (e.internalErrors() != 0) {
                fail("internal", "node " + n + " internal errors " + e.internalErrors() + ": "
                        + e.lastInternalError());
                return;
            }
            if (e.counters().get(Counter.DUPLICATE_PLACEMENTS) != 0) {
                fail("data", "node " + n + " counted " + e.counters().get(Counter.DUPLICATE_PLACEMENTS)
                        + " duplicate placements");
                return;
            }
        }
        for (QpEnd e : ends) {
            if (e.qp.state() != QpState.RTS) {
                fail("qp-error", e.where() + " in " + e.qp.state() + " with all its work done");
                return;
            }
            fail("data", e.checkRegion());
            if (failure != null) {
                return;
            }
        }
    }

    private void fail(String cat, String why) {
        if (why != null && failure == null) {
            failure = why + " at " + net.nowNs() + " ns";
            category = cat;
        }
    }

    private void log(java.util.function.Supplier<String> line) {
        if (trace != null) {
            trace.accept(net.nowNs() + " " + line.get());
        }
    }
}
