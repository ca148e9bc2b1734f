package io.metaroce.conformance;

import io.metaroce.conformance.script.Script;
import io.metaroce.conformance.script.ScriptException;
import io.metaroce.conformance.script.Step;
import io.metaroce.conformance.script.Values;
import io.metaroce.conformance.target.Target;
import io.metaroce.core.wire.Ecn;

import java.util.List;
import java.util.Map;

/**
 * Runs one script against a target: the tester's side of the conversation. The runner plays the peer QP: it
 * moves the script's clock, sends the packets of {@code send} lines ({@link PacketBuilder}), matches the IUT's
 * packets against {@code expect} lines ({@link ExpectationMatcher}), makes the IUT's application calls
 * ({@code post}, {@code recv}, {@code modify}, {@code fill}, {@code dereg}) and runs the {@code check} lines
 * ({@link Checks}). The state of one run is a {@link CaseState}.
 */
public final class Runner {
    /** Tolerance added to timing windows when the target's times are not exact (remote), ns. */
    private final long toleranceNs;

    /** A runner whose timing windows widen by {@code toleranceNs} on targets without exact time. */
    public Runner(long toleranceNs) {
        this.toleranceNs = toleranceNs;
    }

    /**
     * Runs {@code s} on {@code target}. Never throws: problems become FAIL or ERROR results. A {@code rerun}
     * case runs twice and fails if the IUT's output (every datagram and its time) differs between the runs.
     */
    public CaseResult run(Script s, Target target) {
        CaseResult first = runOnce(s, target);
        if (!s.rerun() || first.status() != CaseResult.Status.PASS) {
            return first;
        }
        CaseResult second = runOnce(s, target);
        if (second.status() != CaseResult.Status.PASS) {
            return second;
        }
        List<String> a = first.trace().stream().filter(l -> l.contains(" < ")).toList();
        List<String> b = second.trace().stream().filter(l -> l.contains(" < ")).toList();
        if (!a.equals(b)) {
            int i = 0;
            while (i < Math.min(a.size(), b.size()) && a.get(i).equals(b.get(i))) {
                i++;
            }
            return new CaseResult(s.name(), s.file(), s.section(), s.title(), s.ids(), s.level(),
                    CaseResult.Status.FAIL, "the same inputs gave different outputs (VERBS-18); first difference at "
                    + "datagram " + i + ": " + (i < a.size() ? a.get(i) : "(none)") + " vs "
                    + (i < b.size() ? b.get(i) : "(none)"), 0, List.of(), Map.of(), second.trace(),
                    first.millis() + second.millis());
        }
        return second;
    }

    private CaseResult runOnce(Script s, Target target) {
        long t0 = System.nanoTime();
        CaseState ctx = new CaseState(s, target, toleranceNs);
        for (String cap : s.requires()) {
            if (!target.capabilities().contains(cap)) {
                return result(ctx, CaseResult.Status.SKIP, "target lacks capability '" + cap + "'", 0, null, t0);
            }
        }
        try {
            ctx.setup = target.setup(s);
            if (!s.qpState().equals("LISTEN") && !s.qpState().equals("CONNECT")) {
                ctx.auth = AuthTester.forCase(s.config().get("auth"), ctx.setup.qpn(), (int) s.testerPsn(),
                        (int) s.iutPsn());
            }
            ctx.pull();
            if (target.capabilities().contains(Target.COUNTERS)) {
                ctx.baseline = target.counters();
            }
            for (Step st : s.steps()) {
                ctx.line = st.line();
                if (st.time() != null) {
                    long t = Values.parseNumber(s.file(), st.line(), st.time().substring(1));
                    long at = st.time().startsWith("@") ? t : ctx.now + t;
                    if (at < ctx.now) {
                        throw ctx.err("time goes backwards: " + st.time() + " is before " + ctx.now + " ns");
                    }
                    ctx.now = at;
                    target.advanceTo(at);
                    ctx.pull();
                }
                ctx.trace.add(String.format("%10.3f us   line %d: %s", ctx.now / 1e3, st.line(), st.text()));
                exec(ctx, st);
                ctx.pull();
            }
            ctx.line = 0;
            long ie = target.internalErrors();
            if (ie > 0) {
                throw new StepFailure("the IUT caught " + ie + " internal error(s) while handling datagrams (BAD-4)");
            }
            if (target.capabilities().contains(Target.COUNTERS)) {
                Long dup = target.counters().get("DUPLICATE_PLACEMENTS");
                if (dup != null && dup != 0) {
                    throw new StepFailure("DUPLICATE_PLACEMENTS = " + dup + " (ORD-7: never place a segment twice)");
                }
            }
            return result(ctx, CaseResult.Status.PASS, "", 0, null, t0);
        } catch (StepFailure f) {
            return result(ctx, CaseResult.Status.FAIL, f.getMessage(), ctx.line, f, t0);
        } catch (ScriptException e) {
            return result(ctx, CaseResult.Status.ERROR, e.getMessage(), e.line(), null, t0);
        } catch (Target.TargetException e) {
            return result(ctx, CaseResult.Status.ERROR, "target: " + e.getMessage(), ctx.line, null, t0);
        } catch (RuntimeException e) {
            return result(ctx, CaseResult.Status.ERROR, "runner: " + e, ctx.line, null, t0);
        }
    }

    private static CaseResult result(CaseState ctx, CaseResult.Status st, String msg, int line, StepFailure f,
                                     long t0) {
        Script s = ctx.s;
        return new CaseResult(s.name(), s.file(), s.section(), s.title(), s.ids(), s.level(), st, msg, line,
                f == null ? List.of() : f.diffs, f == null ? Map.of() : f.actual, List.copyOf(ctx.trace),
                (System.nanoTime() - t0) / 1_000_000);
    }

    private static void exec(CaseState ctx, Step st) throws StepFailure, Target.TargetException {
        switch (st.command()) {
            case "send" -> send(ctx, st);
            case "expect" -> ExpectationMatcher.expect(ctx, st);
            case "post" -> {
                boolean signaled = !st.words().contains("unsignaled");
                int rc = ctx.target.post(st.word(0, ""), ctx.num(st, "wr", 0), ctx.regionArg(st, "mr"),
                        ctx.num(st, "off", 0), (int) ctx.num(st, "len", 0), ctx.num(st, "va", 0),
                        (int) ctx.num(st, "rkey", 0), (int) ctx.num(st, "imm", 0), signaled);
                checkRc(ctx, st, rc);
            }
            case "recv" -> {
                int rc = ctx.target.postRecv(ctx.num(st, "wr", 0), ctx.regionArg(st, "mr"), ctx.num(st, "off", 0),
                        (int) ctx.num(st, "len", 0));
                checkRc(ctx, st, rc);
            }
            case "modify" -> {
                String r = ctx.target.modify(st.word(0, ""));
                String want = st.value("rc", "OK");
                if (!r.equals(want)) {
                    throw new StepFailure("modify " + st.word(0, "") + ": got " + r + ", expected " + want);
                }
            }
            case "dereg" -> ctx.target.deregister(ctx.region(st.word(0, "")));
            case "fill" -> {
                String mr = ctx.region(st.word(0, ""));
                int len = (int) ctx.num(st, "len", ctx.setup.regions().get(mr).size());
                ctx.target.writeMemory(mr, ctx.num(st, "off", 0),
                        Payloads.content(ctx, st, ctx.num(st, "moff", 0), len));
            }
            case "check" -> Checks.check(ctx, st);
            case "drain" -> ctx.seen.forEach(x -> x.consumed = true);
            case "wait" -> { }
            default -> throw ctx.err("unknown command " + st.command());
        }
    }

    private static void checkRc(CaseState ctx, Step st, int rc) throws StepFailure {
        long want = ctx.eval(st.value("rc", "0"), "rc");
        if (rc != want) {
            throw new StepFailure("post returned " + rc + ", expected " + want + " (0 OK, 22 EINVAL, 12 ENOMEM)");
        }
    }

    private static void send(CaseState ctx, Step st) throws Target.TargetException {
        PacketBuilder.Outgoing out = PacketBuilder.build(ctx, st);
        PacketView v = new PacketView(out.bytes(), ctx.s.testerPsn(), ctx.iutPsn);
        ctx.trace.add(String.format("%10.3f us > %s%s%s%s", ctx.now / 1e3, v.summary(), out.ecn() == Ecn.CE ? " [CE]" : "",
                out.repeat() > 1 ? " x" + out.repeat() : "", out.trimmed() ? " [trimmed]" : ""));
        if (out.trimmed()) {
            ctx.target.injectTrimmed(out.bytes(), out.length());
        } else if (out.stranger()) {
            ctx.target.injectFromStranger(out.bytes(), out.length());
        } else if (out.repeat() > 1) {
            ctx.target.injectBurst(out.bytes(), out.length(), out.ecn(), out.repeat());
        } else {
            ctx.target.inject(out.bytes(), out.length(), out.ecn());
        }
        ctx.pull();
    }
}
