package io.metaroce.conformance;

import io.metaroce.conformance.script.Arg;
import io.metaroce.conformance.script.Step;
import io.metaroce.conformance.script.Values;
import io.metaroce.conformance.target.Target;
import io.metaroce.core.wire.Opcode;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Matches what the IUT sent against {@code expect} lines and the field conditions of other steps: field by
 * field ({@code k=v}, ranges, lists, masks {@code ~}, captures {@code ?name}), payload patterns, SACK bits, and
 * the time window widened by the tolerance on targets without exact time.
 */
final class ExpectationMatcher {
    /** How many tolerances an {@code expect} waits for a packet that has not arrived yet (remote targets). */
    private static final int WAIT_FACTOR = 5;
    /** Fields compared as whole 64-bit values (the others as 32-bit). */
    private static final List<String> WIDE = List.of("ts", "echo", "va", "sink", "id", "t", "cid");

    private ExpectationMatcher() {
    }

    /** The opcode filter of a step's words: opcodes named, and {@code data} for any sequenced packet. */
    record OpFilter(List<Integer> ops, boolean dataOnly) {
        static OpFilter of(CaseState ctx, Step st, List<String> words) {
            List<Integer> ops = new ArrayList<>();
            boolean dataOnly = false;
            for (String w : words) {
                if (w.equals("data")) {
                    dataOnly = true;
                } else if (!w.equals("none")) {
                    ops.add(Values.opcode(ctx.s.file(), st.line(), w));
                }
            }
            return new OpFilter(ops, dataOnly);
        }

        boolean accepts(SeenPacket x) {
            if (dataOnly && !x.view.sequenced()) {
                return false;
            }
            return ops.isEmpty() || ops.contains(x.view.opcode());
        }
    }

    /**
     * {@code expect [none] OPCODE... k=v...}: consumes the first unconsumed packet that matches (waiting for it
     * on a remote target), or with {@code none} fails if any matches.
     */
    static void expect(CaseState ctx, Step st) throws StepFailure, Target.TargetException {
        boolean none = st.words().contains("none");
        OpFilter filter = OpFilter.of(ctx, st, st.words());
        if (none) {
            ctx.pull();
            for (SeenPacket x : ctx.seen) {
                if (!x.consumed && filter.accepts(x) && allOk(diffs(ctx, st, x))) {
                    throw new StepFailure("expected no " + (filter.ops().isEmpty()
                            ? filter.dataOnly() ? "data packet" : "packet"
                            : st.words().subList(1, st.words().size())) + " matching line " + st.line()
                            + " but the IUT sent: " + x.view.summary(), diffs(ctx, st, x), render(x));
                }
            }
            return;
        }
        // remote: a packet not there yet may still be on its way; wait for it (longer than the timing tolerance)
        long deadline = ctx.now + (ctx.exact ? 0 : WAIT_FACTOR * ctx.toleranceNs);
        while (true) {
            SeenPacket best = null;
            List<CaseResult.FieldDiff> bestDiffs = null;
            for (SeenPacket x : ctx.seen) {
                if (x.consumed || !filter.accepts(x)) {
                    continue;
                }
                List<CaseResult.FieldDiff> d = diffs(ctx, st, x);
                if (allOk(d)) {
                    x.consumed = true;
                    return;
                }
                if (best == null || okCount(d) > okCount(bestDiffs)) {
                    best = x;
                    bestDiffs = d;
                }
            }
            if (ctx.exact || ctx.target.now() >= deadline) {
                String what = st.words().toString();
                if (best == null) {
                    throw new StepFailure("expected " + what + " (line " + st.line() + ") by " + ctx.now / 1e3
                            + " us, but the IUT sent none" + unconsumed(ctx), diffs(ctx, st, null), Map.of());
                }
                throw new StepFailure("expected " + what + " (line " + st.line() + "), closest packet differs: "
                        + best.view.summary(), bestDiffs, render(best));
            }
            ctx.target.advanceTo(Math.min(deadline, ctx.target.now() + 100_000));
            ctx.pull();
        }
    }

    static boolean allOk(List<CaseResult.FieldDiff> d) {
        return d.stream().allMatch(CaseResult.FieldDiff::ok);
    }

    private static String unconsumed(CaseState ctx) {
        StringBuilder sb = new StringBuilder();
        int n = 0;
        for (SeenPacket x : ctx.seen) {
            if (!x.consumed && n++ < 4) {
                sb.append(n == 1 ? "; unmatched: " : " | ").append(x.view.summary());
            }
        }
        return sb.toString();
    }

    private static int okCount(List<CaseResult.FieldDiff> d) {
        int n = 0;
        for (CaseResult.FieldDiff f : d) {
            n += f.ok() ? 1 : 0;
        }
        return n;
    }

    /** A captured packet field by field, for a failure report. */
    private static Map<String, String> render(SeenPacket x) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("t", String.format("%.3f us", x.captured.timeNs() / 1e3));
        if (x.captured.plane() >= 0) {
            m.put("plane", Integer.toString(x.captured.plane()));
        }
        m.put("check", x.view.check());
        for (Map.Entry<String, Long> e : x.view.fields().entrySet()) {
            m.put(e.getKey(), PacketView.render(e.getKey(), e.getValue()));
        }
        if (x.view.opcode() == Opcode.ACK || x.view.opcode() == Opcode.ACK_BUNDLE) {
            m.put("sack", x.view.sackBits().isEmpty() ? "none" : x.view.sackBits().toString().replace(" ", ""));
        }
        if (x.view.payload().length > 0) {
            m.put("payload", x.view.payload().length + " bytes");
        }
        return m;
    }

    /** Each argument of {@code st} against packet {@code x} (null: no packet, every argument unmet). */
    static List<CaseResult.FieldDiff> diffs(CaseState ctx, Step st, SeenPacket x) {
        List<CaseResult.FieldDiff> out = new ArrayList<>();
        for (Arg a : st.args()) {
            String k = a.key();
            String shown;
            boolean ok;
            if (x == null) {
                out.add(new CaseResult.FieldDiff(k, a.op() + a.value(), "(no packet)", false));
                continue;
            }
            PacketView v = x.view;
            if (k.equals("pat") || k.equals("fill")) {
                long off = v.fields().getOrDefault("off", 0L);
                long len = v.fields().getOrDefault("len", 0L);
                long count = v.fields().getOrDefault("count", 0L);
                byte[] want = v.opcode() == Opcode.PARITY // REL-18: the XOR of the segments the packet names
                        ? Payloads.parity(ctx, st, len, off, count, v.payload().length)
                        : v.opcode() == Opcode.PARITY_Q // REL-20: their weighted sum in GF(2^8)
                        ? Payloads.parityQ(ctx, st, len, off, count, v.payload().length)
                        : v.opcode() == Opcode.PARITY_R // REL-21: weighted by 2^(j*k), j the packet's repair index
                        ? Payloads.parityR(v.fields().getOrDefault("repair", 0L).intValue(), ctx, st, len, off, count,
                                v.payload().length)
                        : Payloads.content(ctx, st, off, v.payload().length);
                ok = Arrays.equals(want, v.payload());
                shown = ok ? "payload matches" : "payload differs";
            } else if (k.equals("sack")) {
                List<Integer> want = Payloads.sackBits(ctx, a.value());
                boolean ack = v.opcode() == Opcode.ACK || v.opcode() == Opcode.ACK_BUNDLE;
                shown = !ack ? "(not an ACK)"
                        : v.sackBits().isEmpty() ? "none" : v.sackBits().toString().replace(" ", "");
                ok = ack && want.equals(v.sackBits());
            } else {
                Long actual = switch (k) {
                    case "t" -> x.captured.timeNs();
                    case "n" -> (long) x.index;
                    case "plane" -> x.captured.plane() < 0 ? null : (long) x.captured.plane();
                    case "ecn" -> x.captured.ecn() < 0 ? null : (long) x.captured.ecn();
                    default -> v.fields().get(k);
                };
                if (actual == null) {
                    boolean unknown = k.equals("plane") || k.equals("ecn");
                    out.add(new CaseResult.FieldDiff(k, a.op() + a.value(),
                            unknown ? "(unknown on this target)" : "(absent)", unknown));
                    continue;
                }
                shown = PacketView.render(k, actual);
                ok = matches(ctx, a, k, actual);
            }
            out.add(new CaseResult.FieldDiff(k, a.op() + a.value(), shown, ok));
        }
        return out;
    }

    /**
     * Whether {@code actual} meets condition {@code a} on field {@code k}: {@code =}/{@code !=} a value, a
     * range {@code lo..hi} or a list; {@code ~}/{@code !~} a bit mask; {@code *} anything; {@code ?name}
     * captures the value into {@code $name}.
     */
    static boolean matches(CaseState ctx, Arg a, String k, long actual) {
        String v = a.value();
        if (v.startsWith("?")) {
            ctx.vars.put(v.substring(1), actual);
            return true;
        }
        if (v.equals("*")) {
            return true;
        }
        switch (a.op()) {
            case "~" -> {
                long m = ctx.eval(v, k);
                return (actual & m) == m;
            }
            case "!~" -> {
                return (actual & ctx.eval(v, k)) == 0;
            }
            default -> { }
        }
        boolean wide = WIDE.contains(k);
        boolean any = false;
        for (String part : v.split(",")) {
            String[] r = part.split("\\.\\.");
            long lo = ctx.eval(r[0], k);
            long hi = r.length > 1 ? ctx.eval(r[1], k) : lo;
            boolean widen = k.equals("t") && !ctx.exact;
            if (widen) {
                lo -= ctx.toleranceNs;
                hi += ctx.toleranceNs;
            }
            if (r.length > 1 || widen) {
                any |= actual >= lo && actual <= hi;
            } else {
                any |= wide ? actual == lo : (int) actual == (int) lo;
            }
        }
        return a.op().equals("!=") != any;
    }
}
