package io.metaroce.conformance;

import io.metaroce.conformance.script.Arg;
import io.metaroce.conformance.script.Step;
import io.metaroce.conformance.target.Target;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code check} lines: the IUT's memory ({@code mem}), its completion queues ({@code cq}), counter deltas
 * since the case began ({@code counter}), how many packets it sent ({@code sent}), the QP's state
 * ({@code state}) and one path's statistics ({@code path}).
 */
final class Checks {
    private Checks() {
    }

    /** Runs the check {@code st} names. */
    static void check(CaseState ctx, Step st) throws StepFailure, Target.TargetException {
        switch (st.word(0, "")) {
            case "mem" -> memory(ctx, st);
            case "cq" -> completion(ctx, st);
            case "counter" -> counters(ctx, st);
            case "sent" -> sent(ctx, st);
            case "state" -> {
                String s = ctx.target.qpState();
                if (!s.equals(st.word(1, ""))) {
                    throw new StepFailure("QP state is " + s + ", expected " + st.word(1, ""));
                }
            }
            case "path" -> path(ctx, st);
            default -> throw ctx.err("unknown check " + st.word(0, ""));
        }
    }

    private static void memory(CaseState ctx, Step st) throws StepFailure, Target.TargetException {
        String mr = ctx.region(st.word(1, ""));
        long off = ctx.num(st, "off", 0);
        int len = (int) ctx.num(st, "len", ctx.setup.regions().get(mr).size() - off);
        byte[] got = ctx.target.readMemory(mr, off, len);
        byte[] want = Payloads.content(ctx, st, ctx.num(st, "moff", 0), len);
        for (int i = 0; i < len; i++) {
            if (got[i] != want[i]) {
                throw new StepFailure(String.format("memory %s+%d: byte %d is 0x%02x, expected 0x%02x", mr, off,
                        i, got[i] & 0xFF, want[i] & 0xFF));
            }
        }
    }

    private static void completion(CaseState ctx, Step st) throws StepFailure, Target.TargetException {
        boolean send = st.word(1, "").equals("send");
        Target.Completion c = ctx.target.poll(send);
        String cq = send ? "send" : "recv";
        if (st.words().contains("empty")) {
            if (c != null) {
                throw new StepFailure(cq + " CQ not empty: " + c);
            }
            return;
        }
        if (c == null) {
            throw new StepFailure(cq + " CQ empty, expected a completion (" + st.text() + ")");
        }
        ctx.trace.add("             completion " + c);
        List<CaseResult.FieldDiff> d = new ArrayList<>();
        for (Arg a : st.args()) {
            String actual = switch (a.key()) {
                case "wr" -> Long.toString(c.wrId());
                case "status" -> c.status();
                case "op" -> c.opcode();
                case "len" -> Integer.toString(c.byteLen());
                case "imm" -> c.hasImm() ? Integer.toString(c.imm()) : "none";
                case "qpn" -> Integer.toString(c.qpn());
                default -> throw ctx.err("completions have no field " + a.key());
            };
            String want = a.key().equals("status") || a.key().equals("op")
                    || a.value().equals("none") ? a.value() : Long.toString((int) ctx.eval(a.value(), a.key()));
            if (a.key().equals("wr") || a.key().equals("len")) {
                want = Long.toString(ctx.eval(a.value(), a.key()));
            }
            d.add(new CaseResult.FieldDiff(a.key(), want, actual, want.equals(actual)));
        }
        if (!ExpectationMatcher.allOk(d)) {
            throw new StepFailure(cq + " completion differs: " + c, d, Map.of());
        }
    }

    private static void counters(CaseState ctx, Step st) throws StepFailure, Target.TargetException {
        Map<String, Long> now = ctx.target.counters();
        for (Arg a : st.args()) {
            Long v = now.get(a.key());
            if (v == null) {
                throw ctx.err("unknown counter " + a.key());
            }
            long delta = v - ctx.baseline.getOrDefault(a.key(), 0L);
            if (!ExpectationMatcher.matches(ctx, a, a.key(), delta)) {
                throw new StepFailure("counter " + a.key() + " = " + delta + ", expected " + a.op() + a.value());
            }
        }
    }

    /** {@code check sent OPCODE... total=N k=v...}: how many packets the IUT sent that match. */
    private static void sent(CaseState ctx, Step st) throws StepFailure, Target.TargetException {
        List<String> words = st.words().subList(1, st.words().size());
        ExpectationMatcher.OpFilter ops = ExpectationMatcher.OpFilter.of(ctx, st, words);
        Arg total = st.arg("total");
        if (total == null) {
            throw ctx.err("check sent needs total=N");
        }
        List<Arg> matchers = st.args().stream().filter(a -> !a.key().equals("total")).toList();
        Step filter = new Step(st.line(), null, "expect", List.of(), matchers, st.text());
        long n;
        long deadline = ctx.now + (ctx.exact ? 0 : ctx.toleranceNs);
        while (true) {
            n = 0;
            for (SeenPacket x : ctx.seen) {
                if (ops.accepts(x) && ExpectationMatcher.allOk(ExpectationMatcher.diffs(ctx, filter, x))) {
                    n++;
                }
            }
            if (ExpectationMatcher.matches(ctx, total, "total", n) || ctx.exact || ctx.target.now() >= deadline) {
                break;
            }
            ctx.target.advanceTo(Math.min(deadline, ctx.target.now() + 50_000)); // remote: still arriving
            ctx.pull();
        }
        if (!ExpectationMatcher.matches(ctx, total, "total", n)) {
            throw new StepFailure("the IUT sent " + n + " " + words + " packet(s) matching, expected total="
                    + total.value());
        }
    }

    private static void path(CaseState ctx, Step st) throws StepFailure, Target.TargetException {
        int path = (int) ctx.eval(st.word(1, "0"), "path");
        Map<String, String> ps = ctx.target.pathStats(path);
        for (Arg a : st.args()) {
            String actual = ps.get(a.key());
            if (actual == null) {
                throw ctx.err("path statistics have no field " + a.key());
            }
            boolean ok = a.key().equals("state") ? actual.equals(a.value()) == a.op().equals("=")
                    : ExpectationMatcher.matches(ctx, a, a.key(), Long.parseLong(actual));
            if (!ok) {
                throw new StepFailure("path " + path + " " + a.key() + " = " + actual + ", expected " + a.op()
                        + a.value());
            }
        }
    }
}
