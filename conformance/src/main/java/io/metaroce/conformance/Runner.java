package io.metaroce.conformance;

import io.metaroce.core.wire.Ecn;
import io.metaroce.conformance.script.Arg;
import io.metaroce.conformance.script.Script;
import io.metaroce.conformance.script.ScriptException;
import io.metaroce.conformance.script.Step;
import io.metaroce.conformance.script.Values;
import io.metaroce.conformance.target.Target;
import io.metaroce.conformance.target.TesterConstants;
import io.metaroce.core.wire.AckBundleHeader;
import io.metaroce.core.wire.AckHeader;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.DataHeader;
import io.metaroce.core.wire.NakHeader;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;
import io.metaroce.core.wire.ProbeHeader;
import io.metaroce.core.wire.ReadRequestHeader;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Runs one script against a target: the tester's side of the conversation. The runner plays the peer QP: it
 * builds the packets of {@code send} lines, matches the IUT's packets against {@code expect} lines, and makes
 * the IUT's application calls ({@code post}, {@code recv}, {@code check cq}, {@code check mem}).
 */
public final class Runner {
    /** Tolerance added to timing windows when the target's times are not exact (remote), ns. */
    private final long toleranceNs;
    /** How many tolerances an {@code expect} waits for a packet that has not arrived yet (remote targets). */
    private static final int WAIT_FACTOR = 5;

    /** A runner whose timing windows widen by {@code toleranceNs} on targets without exact time. */
    public Runner(long toleranceNs) {
        this.toleranceNs = toleranceNs;
    }

    /** A failed step. */
    private static final class Failure extends Exception {
        private static final long serialVersionUID = 1L;
        final transient List<CaseResult.FieldDiff> diffs;
        final transient Map<String, String> actual;

        Failure(String message, List<CaseResult.FieldDiff> diffs, Map<String, String> actual) {
            super(message);
            this.diffs = diffs;
            this.actual = actual;
        }

        Failure(String message) {
            this(message, List.of(), Map.of());
        }
    }

    /** One captured packet and whether an expect consumed it. */
    private static final class Seen {
        final Target.Captured c;
        final PacketView v;
        final int index;
        boolean consumed;

        Seen(Target.Captured c, PacketView v, int index) {
            this.c = c;
            this.v = v;
            this.index = index;
        }
    }

    /** Per-case state. */
    private final class Ctx {
        final Script s;
        final Target target;
        final boolean exact;
        Target.Setup setup;
        final List<Seen> seen = new ArrayList<>();
        final List<String> trace = new ArrayList<>();
        final Map<String, Long> vars = new HashMap<>();
        final Map<Integer, Integer> txNext = new HashMap<>();
        final Map<Integer, Integer> txFloor = new HashMap<>();
        final Map<Integer, Long> iutTs = new HashMap<>();
        final Map<Integer, Integer> iutHigh = new HashMap<>();
        final Map<Integer, long[]> iutProbe = new HashMap<>();
        Map<String, Long> baseline = Map.of();
        /** AUTH-*: the tester's keys on an authenticated case's connection, or null. */
        AuthTester auth;
        /** The connection id and initial PSN of the last CM_REQ the tester sent (AUTH-3 after a CM exchange). */
        long reqCid;
        int reqIpsn;
        long now;
        int mtu;
        int line;

        Ctx(Script s, Target target) {
            this.s = s;
            this.target = target;
            this.exact = target.capabilities().contains(Target.EXACT_TIME);
            this.mtu = Integer.parseInt(s.config().getOrDefault("mtu", "4096"));
        }

        ScriptException err(String msg) {
            return new ScriptException(s.file(), line, msg);
        }

        long eval(String expr, String key) {
            return Values.eval(s.file(), line, expr, id -> resolve(id, key));
        }

        Long resolve(String id, String key) {
            if (id.startsWith("$")) {
                return vars.get(id.substring(1));
            }
            switch (id) {
                case "QPN" -> {
                    return setup.qpn() & 0xFFFF_FFFFL;
                }
                case "TQPN" -> {
                    return TesterConstants.TESTER_QPN & 0xFFFF_FFFFL;
                }
                case "MTU" -> {
                    return (long) mtu;
                }
                case "OK" -> {
                    return 0L;
                }
                case "EINVAL" -> {
                    return 22L;
                }
                case "ENOMEM" -> {
                    return 12L;
                }
                default -> { }
            }
            Target.Region r = setup.regions().get(id);
            if (r == null) {
                return null;
            }
            return key.equals("rkey") ? r.rkey() & 0xFFFF_FFFFL : r.va();
        }

        int openAuth(byte[] d) {
            return Runner.openAuth(auth, d);
        }

        /** AUTH-3, AUTH-9: after the IUT's CM_REP granting CAP_AUTH, the tester takes the connection's keys. */
        void keyAfterCm(PacketView v) {
            if (v.opcode() != Opcode.CM_REP || !v.check().equals("OK")) {
                return;
            }
            Map<String, Long> f = v.fields();
            long caps = f.getOrDefault("caps", 0L);
            if ((caps & CmMessage.CAP_AUTH) != 0 && f.getOrDefault("cid", -1L) == reqCid) {
                auth = AuthTester.afterCm(reqCid, f.get("cqpn").intValue(), reqIpsn, f.get("ipsn").intValue(),
                        (caps & CmMessage.CAP_ENCRYPT) != 0);
            }
        }

        long num(Step st, String key, long dflt) {
            Arg a = st.arg(key);
            return a == null ? dflt : eval(a.value(), key);
        }

        void pull() throws Target.TargetException {
            for (Target.Captured c : target.takeCaptured()) {
                int opened = openAuth(c.bytes());
                PacketView v = new PacketView(c.bytes(), s.iutPsn(), s.testerPsn());
                if (opened >= 0) {
                    v.fields().put("auth", (long) opened); // AUTH-*: 1 when the IUT's seal verified
                    v.fields().put("aseq", ByteBuffer.wrap(c.bytes(), c.bytes().length - 12, 8).getLong());
                }
                keyAfterCm(v);
                seen.add(new Seen(c, v, seen.size()));
                trace.add(String.format("%10.3f us < %s", c.timeNs() / 1e3, v.summary()));
                Map<String, Long> f = v.fields();
                if (v.opcode() < 0 || !v.check().equals("OK")) {
                    continue;
                }
                int path = f.get("path").intValue();
                if (v.sequenced()) {
                    iutTs.put(path, f.get("ts"));
                    int psn = f.get("psn").intValue();
                    Integer h = iutHigh.get(path);
                    if (h == null || psn - h > 0) {
                        iutHigh.put(path, psn);
                    }
                } else if (v.opcode() == Opcode.PROBE) {
                    iutProbe.put(path, new long[] {f.get("id"), f.get("ts")});
                }
            }
        }
    }

    /**
     * AUTH-*: opens a datagram the IUT sent on an authenticated connection in place (decrypting its payload);
     * returns 1 (verified), 0 (not), or -1 when there is nothing to open (no keys, a CM or undecodable packet).
     */
    private static int openAuth(AuthTester auth, byte[] d) {
        if (auth == null || d.length < Packet.MIN_LENGTH || Opcode.isCm(d[1] & 0xFF)
                || Opcode.extensionLength(d[1] & 0xFF) < 0) {
            return -1;
        }
        MemorySegment seg = MemorySegment.ofArray(d);
        if (new Packet().check(seg, d.length) != Packet.OK) {
            return -1; // shown as it is: WIRE-8 fails first
        }
        int headers = BaseHeader.LENGTH + Opcode.extensionLength(d[1] & 0xFF);
        int end = headers + ((d[10] & 0xFF) << 8 | (d[11] & 0xFF));
        int path = (d[8] & 0xFF) << 8 | (d[9] & 0xFF);
        if (!auth.open(d, headers, end, path)) {
            return 0;
        }
        if (auth.encrypt) {
            new Packet().seal(seg, d.length - Packet.CRC_LENGTH); // the tester's copy now holds the plaintext
        }
        return 1;
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
        Ctx ctx = new Ctx(s, target);
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
                throw new Failure("the IUT caught " + ie + " internal error(s) while handling datagrams (BAD-4)");
            }
            if (target.capabilities().contains(Target.COUNTERS)) {
                Long dup = target.counters().get("DUPLICATE_PLACEMENTS");
                if (dup != null && dup != 0) {
                    throw new Failure("DUPLICATE_PLACEMENTS = " + dup + " (ORD-7: never place a segment twice)");
                }
            }
            return result(ctx, CaseResult.Status.PASS, "", 0, null, t0);
        } catch (Failure f) {
            return result(ctx, CaseResult.Status.FAIL, f.getMessage(), ctx.line, f, t0);
        } catch (ScriptException e) {
            return result(ctx, CaseResult.Status.ERROR, e.getMessage(), e.line(), null, t0);
        } catch (Target.TargetException e) {
            return result(ctx, CaseResult.Status.ERROR, "target: " + e.getMessage(), ctx.line, null, t0);
        } catch (RuntimeException e) {
            return result(ctx, CaseResult.Status.ERROR, "runner: " + e, ctx.line, null, t0);
        }
    }

    private static CaseResult result(Ctx ctx, CaseResult.Status st, String msg, int line, Failure f, long t0) {
        Script s = ctx.s;
        return new CaseResult(s.name(), s.file(), s.section(), s.title(), s.ids(), s.level(), st, msg, line,
                f == null ? List.of() : f.diffs, f == null ? Map.of() : f.actual, List.copyOf(ctx.trace),
                (System.nanoTime() - t0) / 1_000_000);
    }

    private void exec(Ctx ctx, Step st) throws Failure, Target.TargetException {
        switch (st.command()) {
            case "send" -> send(ctx, st);
            case "expect" -> expect(ctx, st);
            case "post" -> post(ctx, st);
            case "recv" -> {
                int rc = ctx.target.postRecv(ctx.num(st, "wr", 0), mrName(ctx, st, "mr"), ctx.num(st, "off", 0),
                        (int) ctx.num(st, "len", 0));
                checkRc(ctx, st, rc);
            }
            case "modify" -> {
                String r = ctx.target.modify(st.word(0, ""));
                String want = st.value("rc", "OK");
                if (!r.equals(want)) {
                    throw new Failure("modify " + st.word(0, "") + ": got " + r + ", expected " + want);
                }
            }
            case "dereg" -> ctx.target.deregister(region(ctx, st.word(0, "")));
            case "fill" -> {
                String mr = region(ctx, st.word(0, ""));
                int len = (int) ctx.num(st, "len", ctx.setup.regions().get(mr).size());
                ctx.target.writeMemory(mr, ctx.num(st, "off", 0), content(ctx, st, ctx.num(st, "moff", 0), len));
            }
            case "check" -> check(ctx, st);
            case "drain" -> ctx.seen.forEach(x -> x.consumed = true);
            case "wait" -> { }
            default -> throw ctx.err("unknown command " + st.command());
        }
    }

    private static String region(Ctx ctx, String name) {
        if (!ctx.setup.regions().containsKey(name)) {
            throw ctx.err("no region named '" + name + "' (declare it with 'mr')");
        }
        return name;
    }

    private static String mrName(Ctx ctx, Step st, String key) {
        String v = st.value(key, null);
        if (v == null) {
            throw ctx.err("missing " + key + "=REGION");
        }
        return region(ctx, v);
    }

    private static void checkRc(Ctx ctx, Step st, int rc) throws Failure {
        long want = ctx.eval(st.value("rc", "0"), "rc");
        if (rc != want) {
            throw new Failure("post returned " + rc + ", expected " + want + " (0 OK, 22 EINVAL, 12 ENOMEM)");
        }
    }

    private static void post(Ctx ctx, Step st) throws Failure, Target.TargetException {
        boolean signaled = !st.words().contains("unsignaled");
        int rc = ctx.target.post(st.word(0, ""), ctx.num(st, "wr", 0), mrName(ctx, st, "mr"), ctx.num(st, "off", 0),
                (int) ctx.num(st, "len", 0), ctx.num(st, "va", 0), (int) ctx.num(st, "rkey", 0),
                (int) ctx.num(st, "imm", 0), signaled);
        checkRc(ctx, st, rc);
    }

    /** Pattern byte {@code i} of pattern {@code n}: distinct per pattern and position, never constant. */
    static byte pattern(long n, long i) {
        return (byte) (i * 7 + (i >>> 8) * 3 + n * 101 + 1);
    }

    /** The bytes a {@code pat=}/{@code fill=} argument describes, for message offsets [from, from + len). */
    private static byte[] content(Ctx ctx, Step st, long from, int len) {
        byte[] b = new byte[Math.max(0, len)];
        Arg fill = st.arg("fill");
        if (fill != null) {
            Arrays.fill(b, (byte) ctx.eval(fill.value(), "fill"));
        } else {
            long n = ctx.num(st, "pat", ctx.num(st, "msn", 0) + 1);
            for (int i = 0; i < b.length; i++) {
                b[i] = pattern(n, from + i);
            }
        }
        return b;
    }

    // ------------------------------------------------------------------------------------------- send

    private void send(Ctx ctx, Step st) throws Target.TargetException {
        int op = Values.opcode(ctx.s.file(), st.line(), st.word(0, ""));
        int path = (int) ctx.num(st, "path", 0);
        boolean seq = Opcode.isData(op) || op == Opcode.READ_REQ;
        int ext = Math.max(0, Opcode.extensionLength(op));
        long tb = ctx.s.testerPsn();
        long ib = ctx.s.iutPsn();
        byte[] payload = new byte[0];
        int off = 0;
        CmMessage cm = null;
        int msgLen = 0;
        if (Opcode.isData(op)) {
            msgLen = (int) ctx.num(st, "len", 64);
            off = (int) ctx.num(st, "off", ctx.num(st, "seg", 0) * ctx.mtu);
            int plen = (int) ctx.num(st, "plen", Math.max(0, Math.min(ctx.mtu, (long) msgLen - off)));
            payload = content(ctx, st, off, plen);
        } else if (Opcode.isCm(op)) {
            int planes = (int) ctx.num(st, "planes", op == Opcode.CM_REQ || op == Opcode.CM_REP ? 1 : 0);
            List<byte[]> addrs = new ArrayList<>();
            for (int i = 0; i < planes; i++) {
                addrs.add(new byte[] {127, 0, 0, (byte) (i + 1)});
            }
            cm = new CmMessage(op, ctx.num(st, "cid", 1), (int) ctx.num(st, "sqpn", TesterConstants.TESTER_QPN),
                    (int) ctx.num(st, "pqpn", 0), (int) ctx.num(st, "ipsn", 0), (int) ctx.num(st, "mtu", ctx.mtu),
                    (int) ctx.num(st, "paths", 1), (int) ctx.num(st, "caps", 0),
                    (int) ctx.num(st, "port", Packet.DEFAULT_UDP_PORT), (int) ctx.num(st, "reason", 0), addrs);
            payload = new byte[cm.encodedLength() - 32];
            ext = 32;
            if (op == Opcode.CM_REQ) {
                ctx.reqCid = cm.connectionId();
                ctx.reqIpsn = cm.initialPsn();
            }
        } else if (op == Opcode.ACK_BUNDLE) {
            // ACK-11: one entry per set bit of "epaths" (default: just "path"), payload length 48 each
            long epaths = ctx.num(st, "epaths", 1L << path);
            payload = new byte[(int) ctx.num(st, "plen", Long.bitCount(epaths) * AckBundleHeader.ENTRY_LENGTH)];
        } else if (st.arg("plen") != null) {
            payload = new byte[(int) ctx.num(st, "plen", 0)];
        }
        int natural = BaseHeader.LENGTH + ext + payload.length + Packet.CRC_LENGTH;
        int dglen = (int) ctx.num(st, "dglen", natural);
        byte[] buf = new byte[Math.max(dglen, natural) + 8 + AuthTester.TRAILER];
        MemorySegment seg = MemorySegment.ofArray(buf);
        BaseHeader b = new BaseHeader().wrap(seg, 0);
        int psnRel = 0;
        if (seq) {
            psnRel = (int) ctx.num(st, "psn", ctx.txNext.getOrDefault(path, 0));
            ctx.txNext.merge(path, psnRel + 1, (x, y) -> y - x > 0 ? y : x);
            if (st.arg("floor") != null) {
                ctx.txFloor.put(path, (int) ctx.num(st, "floor", 0));
            }
        }
        int flags = 0;
        if (Opcode.isData(op)) {
            boolean last = off + ctx.mtu >= msgLen;
            flags = (off == 0 ? BaseHeader.FLAG_FIRST : 0) | (last ? BaseHeader.FLAG_LAST | BaseHeader.FLAG_ACK_REQ : 0);
        } else if (op == Opcode.READ_REQ) {
            flags = BaseHeader.FLAG_FIRST | BaseHeader.FLAG_LAST | BaseHeader.FLAG_ACK_REQ;
        }
        int dqpn = (int) ctx.num(st, "dqpn", Opcode.isCm(op) ? (cm.peerQpn()) : ctx.setup.qpn());
        b.version((int) ctx.num(st, "ver", Packet.VERSION)).opcode(op).flags((int) ctx.num(st, "flags", flags))
                .destQpn(dqpn).pathId(Opcode.isCm(op) ? 0 : path)
                .payloadLength(payload.length)
                .psn(seq ? (int) tb + psnRel : (int) ctx.num(st, "psn", 0))
                .psnFloor(seq ? (int) tb + ctx.txFloor.getOrDefault(path, 0) : (int) ctx.num(st, "floor", 0))
                .srcQpn(Opcode.isCm(op) ? cm.senderQpn()
                        : (int) ctx.num(st, "sqpn", TesterConstants.TESTER_QPN))
                .timestampNs(ctx.num(st, "ts", ctx.now));
        int x = BaseHeader.LENGTH;
        if (Opcode.isData(op)) {
            long base = ctx.num(st, "va", 0);
            new DataHeader().wrap(seg, x).msn((int) ctx.num(st, "msn", 0)).messageLength(msgLen).offset(off)
                    .rkey((int) ctx.num(st, "rkey", 0)).va(base == 0 ? 0 : base + off)
                    .rsn((int) ctx.num(st, "rsn", 0)).immediate((int) ctx.num(st, "imm", 0));
        } else if (op == Opcode.READ_REQ) {
            new ReadRequestHeader().wrap(seg, x).msn((int) ctx.num(st, "msn", 0)).readLength((int) ctx.num(st, "len", 0))
                    .rkey((int) ctx.num(st, "rkey", 0)).reserved((int) ctx.num(st, "resv", 0))
                    .remoteVa(ctx.num(st, "va", 0)).sinkVa(ctx.num(st, "sink", 0));
        } else if (op == Opcode.ACK) {
            AckHeader a = new AckHeader().wrap(seg, x);
            int cum = (int) ctx.num(st, "cum", ctx.iutHigh.getOrDefault(path, -1));
            a.cumPsn((int) ib + cum).ceCount((int) ctx.num(st, "ce", 0)).reserved((int) ctx.num(st, "resv", 0))
                    .echoTimestampNs(ctx.num(st, "echo", ctx.iutTs.getOrDefault(path, 0L)))
                    .grantMbps((int) ctx.num(st, "grant", 0)).rxMsn((int) ctx.num(st, "rxmsn", 0));
            Arg sack = st.arg("sack");
            if (sack != null && !sack.value().equals("none")) {
                long[] w = new long[4];
                for (String part : sack.value().split(",")) {
                    String[] r = part.split("\\.\\.");
                    long lo = ctx.eval(r[0], "sack");
                    long hi = r.length > 1 ? ctx.eval(r[1], "sack") : lo;
                    for (long bit = lo; bit <= hi; bit++) {
                        if (bit < 0 || bit > 255) {
                            throw ctx.err("SACK bit " + bit + " outside 0..255");
                        }
                        w[(int) bit >> 6] |= 1L << (bit & 63);
                    }
                }
                for (int i = 0; i < 4; i++) {
                    a.sackWord(i, w[i]);
                }
            }
        } else if (op == Opcode.ACK_BUNDLE) {
            // each entry acknowledges everything the IUT sent on its path (or "cum"), echoing its latest timestamp
            AckBundleHeader a = new AckBundleHeader().wrap(seg, x).grantMbps((int) ctx.num(st, "grant", 0))
                    .rxMsn((int) ctx.num(st, "rxmsn", 0));
            long epaths = ctx.num(st, "epaths", 1L << path);
            int e = 0;
            for (int p = 0; p < 64 && (e + 1) * AckBundleHeader.ENTRY_LENGTH <= payload.length; p++) {
                if ((epaths >>> p & 1) != 0) {
                    a.pathId(e, p).ceCount(e, (int) ctx.num(st, "ce", 0))
                            .cumPsn(e, (int) ib + (int) ctx.num(st, "cum", ctx.iutHigh.getOrDefault(p, -1)))
                            .echoTimestampNs(e, ctx.num(st, "echo", ctx.iutTs.getOrDefault(p, 0L)));
                    e++;
                }
            }
        } else if (op == Opcode.NAK) {
            new NakHeader().wrap(seg, x).msn((int) ctx.num(st, "msn", 0)).code((int) ctx.num(st, "code", 0))
                    .reserved((int) ctx.num(st, "resv", 0)).nakPsn((int) ib + (int) ctx.num(st, "nakpsn", 0))
                    .offset((int) ctx.num(st, "off", 0));
        } else if (op == Opcode.PROBE || op == Opcode.PROBE_REPLY) {
            long[] probe = ctx.iutProbe.getOrDefault(path, new long[2]);
            new ProbeHeader().wrap(seg, x).probeId(ctx.num(st, "id", op == Opcode.PROBE ? 1 : probe[0]))
                    .echoTimestampNs(ctx.num(st, "echo", op == Opcode.PROBE ? 0 : probe[1]));
        } else if (cm != null) {
            cm.emit(seg, x);
            if (st.arg("family") != null) {
                buf[x + 32] = (byte) ctx.num(st, "family", 4);
            }
        }
        if (Opcode.isData(op)) {
            System.arraycopy(payload, 0, buf, x + ext, payload.length);
        }
        Arg setb = st.arg("setb");
        if (setb != null) {
            for (String pair : setb.value().split(",")) {
                String[] kv = pair.split(":");
                if (kv.length != 2) {
                    throw ctx.err("setb wants OFFSET:VALUE[,OFFSET:VALUE]");
                }
                int at = (int) ctx.eval(kv[0], "setb");
                if (at < 0 || at >= dglen - Packet.CRC_LENGTH) {
                    throw ctx.err("setb offset " + at + " outside the datagram before its CRC (" + dglen + " bytes)");
                }
                buf[at] = (byte) ctx.eval(kv[1], "setb");
            }
        }
        String how = st.value("auth", "on");
        if (ctx.auth != null && !Opcode.isCm(op) && !how.equals("none")) { // AUTH-2: sealed like a correct peer
            if (!Set.of("on", "badtag", "wrongkey").contains(how)) {
                throw ctx.err("auth= takes on, none, badtag or wrongkey, not " + how);
            }
            int sealed = ctx.auth.seal(buf, BaseHeader.LENGTH + ext, BaseHeader.LENGTH + ext + payload.length, path,
                    how, ctx.num(st, "aseq", -1));
            if (st.arg("dglen") == null) {
                dglen = sealed + Packet.CRC_LENGTH;
            }
        }
        Packet pk = new Packet();
        if (dglen >= Packet.CRC_LENGTH) {
            pk.seal(seg, dglen - Packet.CRC_LENGTH);
        }
        int length = Math.max(0, dglen);
        if ("bad".equals(st.value("crc", null)) && length > 0) {
            buf[length - 1] ^= 0x5A;
        }
        length = (int) Math.min(length, ctx.num(st, "cut", length));
        int ecn = (int) ctx.num(st, "ecn", 2);
        int repeat = (int) ctx.num(st, "repeat", 1);
        byte[] dgram = Arrays.copyOf(buf, length);
        PacketView v = new PacketView(dgram, ctx.s.testerPsn(), ctx.s.iutPsn());
        ctx.trace.add(String.format("%10.3f us > %s%s%s", ctx.now / 1e3, v.summary(), ecn == Ecn.CE ? " [CE]" : "",
                repeat > 1 ? " x" + repeat : ""));
        if ("stranger".equals(st.value("from", null))) {
            ctx.target.injectFromStranger(dgram, length);
        } else if (repeat > 1) {
            ctx.target.injectBurst(dgram, length, ecn, repeat);
        } else {
            ctx.target.inject(dgram, length, ecn);
        }
        ctx.pull();
    }

    // ------------------------------------------------------------------------------------------- expect

    private static final List<String> NON_FIELD = List.of("t", "plane", "pat", "fill", "sack", "ecn");

    private void expect(Ctx ctx, Step st) throws Failure, Target.TargetException {
        boolean none = st.words().contains("none");
        List<Integer> ops = new ArrayList<>();
        boolean dataOnly = false;
        for (String w : st.words()) {
            if (w.equals("data")) {
                dataOnly = true;
            } else if (!w.equals("none")) {
                ops.add(Values.opcode(ctx.s.file(), st.line(), w));
            }
        }
        if (none) {
            ctx.pull();
            for (Seen x : ctx.seen) {
                if (!x.consumed && opMatches(x, ops, dataOnly) && diffs(ctx, st, x).stream().allMatch(
                        CaseResult.FieldDiff::ok)) {
                    throw new Failure("expected no " + (ops.isEmpty() ? dataOnly ? "data packet" : "packet"
                            : st.words().subList(1, st.words().size())) + " matching line " + st.line()
                            + " but the IUT sent: " + x.v.summary(), diffs(ctx, st, x), render(x));
                }
            }
            return;
        }
        // remote: a packet not there yet may still be on its way; wait for it (longer than the timing tolerance)
        long deadline = ctx.now + (ctx.exact ? 0 : WAIT_FACTOR * toleranceNs);
        while (true) {
            Seen best = null;
            List<CaseResult.FieldDiff> bestDiffs = null;
            for (Seen x : ctx.seen) {
                if (x.consumed || !opMatches(x, ops, dataOnly)) {
                    continue;
                }
                List<CaseResult.FieldDiff> d = diffs(ctx, st, x);
                if (d.stream().allMatch(CaseResult.FieldDiff::ok)) {
                    x.consumed = true;
                    return;
                }
                if (best == null || count(d) > count(bestDiffs)) {
                    best = x;
                    bestDiffs = d;
                }
            }
            if (ctx.exact || ctx.target.now() >= deadline) {
                String what = st.words().toString();
                if (best == null) {
                    throw new Failure("expected " + what + " (line " + st.line() + ") by " + ctx.now / 1e3
                            + " us, but the IUT sent none" + unconsumed(ctx), diffs(ctx, st, null), Map.of());
                }
                throw new Failure("expected " + what + " (line " + st.line() + "), closest packet differs: "
                        + best.v.summary(), bestDiffs, render(best));
            }
            ctx.target.advanceTo(Math.min(deadline, ctx.target.now() + 100_000));
            ctx.pull();
        }
    }

    private static String unconsumed(Ctx ctx) {
        StringBuilder sb = new StringBuilder();
        int n = 0;
        for (Seen x : ctx.seen) {
            if (!x.consumed && n++ < 4) {
                sb.append(n == 1 ? "; unmatched: " : " | ").append(x.v.summary());
            }
        }
        return sb.toString();
    }

    private static int count(List<CaseResult.FieldDiff> d) {
        int n = 0;
        for (CaseResult.FieldDiff f : d) {
            n += f.ok() ? 1 : 0;
        }
        return n;
    }

    private static boolean opMatches(Seen x, List<Integer> ops, boolean dataOnly) {
        if (dataOnly && !x.v.sequenced()) {
            return false;
        }
        return ops.isEmpty() || ops.contains(x.v.opcode());
    }

    private static Map<String, String> render(Seen x) {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("t", String.format("%.3f us", x.c.timeNs() / 1e3));
        if (x.c.plane() >= 0) {
            m.put("plane", Integer.toString(x.c.plane()));
        }
        m.put("check", x.v.check());
        for (Map.Entry<String, Long> e : x.v.fields().entrySet()) {
            m.put(e.getKey(), PacketView.render(e.getKey(), e.getValue()));
        }
        if (x.v.opcode() == Opcode.ACK || x.v.opcode() == Opcode.ACK_BUNDLE) {
            m.put("sack", x.v.sackBits().isEmpty() ? "none" : x.v.sackBits().toString().replace(" ", ""));
        }
        if (x.v.payload().length > 0) {
            m.put("payload", x.v.payload().length + " bytes");
        }
        return m;
    }

    private List<CaseResult.FieldDiff> diffs(Ctx ctx, Step st, Seen x) {
        List<CaseResult.FieldDiff> out = new ArrayList<>();
        for (Arg a : st.args()) {
            String k = a.key();
            String shown;
            boolean ok;
            if (x == null) {
                out.add(new CaseResult.FieldDiff(k, a.op() + a.value(), "(no packet)", false));
                continue;
            }
            if (k.equals("pat") || k.equals("fill")) {
                long off = x.v.fields().getOrDefault("off", 0L);
                byte[] want = content(ctx, st, off, x.v.payload().length);
                ok = Arrays.equals(want, x.v.payload());
                shown = ok ? "payload matches" : "payload differs";
            } else if (k.equals("sack")) {
                List<Integer> want = new ArrayList<>();
                if (!a.value().equals("none")) {
                    for (String part : a.value().split(",")) {
                        String[] r = part.split("\\.\\.");
                        long lo = ctx.eval(r[0], k);
                        long hi = r.length > 1 ? ctx.eval(r[1], k) : lo;
                        for (long bit = lo; bit <= hi; bit++) {
                            want.add((int) bit);
                        }
                    }
                }
                boolean ack = x.v.opcode() == Opcode.ACK || x.v.opcode() == Opcode.ACK_BUNDLE;
                shown = !ack ? "(not an ACK)"
                        : x.v.sackBits().isEmpty() ? "none" : x.v.sackBits().toString().replace(" ", "");
                ok = ack && want.equals(x.v.sackBits());
            } else {
                Long actual = switch (k) {
                    case "t" -> x.c.timeNs();
                    case "n" -> (long) x.index;
                    case "plane" -> x.c.plane() < 0 ? null : (long) x.c.plane();
                    case "ecn" -> x.c.ecn() < 0 ? null : (long) x.c.ecn();
                    default -> x.v.fields().get(k);
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

    private boolean matches(Ctx ctx, Arg a, String k, long actual) {
        String v = a.value();
        if (v.startsWith("?")) {
            ctx.vars.put(v.substring(1), actual);
            return true;
        }
        if (v.equals("*")) {
            return true;
        }
        boolean wide = k.equals("ts") || k.equals("echo") || k.equals("va") || k.equals("sink") || k.equals("id")
                || k.equals("t") || k.equals("cid");
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
        boolean any = false;
        for (String part : v.split(",")) {
            String[] r = part.split("\\.\\.");
            long lo = ctx.eval(r[0], k);
            long hi = r.length > 1 ? ctx.eval(r[1], k) : lo;
            boolean widen = k.equals("t") && !ctx.exact;
            if (widen) {
                lo -= toleranceNs;
                hi += toleranceNs;
            }
            if (r.length > 1 || widen) {
                any |= actual >= lo && actual <= hi;
            } else {
                any |= wide ? actual == lo : (int) actual == (int) lo;
            }
        }
        return a.op().equals("!=") != any;
    }

    // ------------------------------------------------------------------------------------------- check

    private void check(Ctx ctx, Step st) throws Failure, Target.TargetException {
        switch (st.word(0, "")) {
            case "mem" -> {
                String mr = region(ctx, st.word(1, ""));
                long off = ctx.num(st, "off", 0);
                int len = (int) ctx.num(st, "len", ctx.setup.regions().get(mr).size() - off);
                byte[] got = ctx.target.readMemory(mr, off, len);
                byte[] want = content(ctx, st, ctx.num(st, "moff", 0), len);
                for (int i = 0; i < len; i++) {
                    if (got[i] != want[i]) {
                        throw new Failure(String.format("memory %s+%d: byte %d is 0x%02x, expected 0x%02x", mr, off,
                                i, got[i] & 0xFF, want[i] & 0xFF));
                    }
                }
            }
            case "cq" -> {
                boolean send = st.word(1, "").equals("send");
                Target.Completion c = ctx.target.poll(send);
                String cq = send ? "send" : "recv";
                if (st.words().contains("empty")) {
                    if (c != null) {
                        throw new Failure(cq + " CQ not empty: " + c);
                    }
                    return;
                }
                if (c == null) {
                    throw new Failure(cq + " CQ empty, expected a completion (" + st.text() + ")");
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
                if (!d.stream().allMatch(CaseResult.FieldDiff::ok)) {
                    throw new Failure(cq + " completion differs: " + c, d, Map.of());
                }
            }
            case "counter" -> {
                Map<String, Long> now = ctx.target.counters();
                for (Arg a : st.args()) {
                    Long v = now.get(a.key());
                    if (v == null) {
                        throw ctx.err("unknown counter " + a.key());
                    }
                    long delta = v - ctx.baseline.getOrDefault(a.key(), 0L);
                    if (!matches(ctx, a, a.key(), delta)) {
                        throw new Failure("counter " + a.key() + " = " + delta + ", expected " + a.op() + a.value());
                    }
                }
            }
            case "sent" -> {
                List<Integer> ops = new ArrayList<>();
                boolean dataOnly = false;
                for (String w : st.words().subList(1, st.words().size())) {
                    if (w.equals("data")) {
                        dataOnly = true;
                    } else {
                        ops.add(Values.opcode(ctx.s.file(), st.line(), w));
                    }
                }
                Arg total = st.arg("total");
                if (total == null) {
                    throw ctx.err("check sent needs total=N");
                }
                List<Arg> matchers = st.args().stream().filter(a -> !a.key().equals("total")).toList();
                Step filter = new Step(st.line(), null, "expect", List.of(), matchers, st.text());
                long n;
                long deadline = ctx.now + (ctx.exact ? 0 : toleranceNs);
                while (true) {
                    n = 0;
                    for (Seen x : ctx.seen) {
                        if (opMatches(x, ops, dataOnly) && diffs(ctx, filter, x).stream().allMatch(
                                CaseResult.FieldDiff::ok)) {
                            n++;
                        }
                    }
                    if (matches(ctx, total, "total", n) || ctx.exact || ctx.target.now() >= deadline) {
                        break;
                    }
                    ctx.target.advanceTo(Math.min(deadline, ctx.target.now() + 50_000)); // remote: still arriving
                    ctx.pull();
                }
                if (!matches(ctx, total, "total", n)) {
                    throw new Failure("the IUT sent " + n + " " + st.words().subList(1, st.words().size())
                            + " packet(s) matching, expected total=" + total.value());
                }
            }
            case "state" -> {
                String s = ctx.target.qpState();
                if (!s.equals(st.word(1, ""))) {
                    throw new Failure("QP state is " + s + ", expected " + st.word(1, ""));
                }
            }
            case "path" -> {
                int path = (int) ctx.eval(st.word(1, "0"), "path");
                Map<String, String> ps = ctx.target.pathStats(path);
                for (Arg a : st.args()) {
                    String actual = ps.get(a.key());
                    if (actual == null) {
                        throw ctx.err("path statistics have no field " + a.key());
                    }
                    boolean ok = a.key().equals("state") ? actual.equals(a.value()) == a.op().equals("=")
                            : matches(ctx, a, a.key(), Long.parseLong(actual));
                    if (!ok) {
                        throw new Failure("path " + path + " " + a.key() + " = " + actual + ", expected " + a.op()
                                + a.value());
                    }
                }
            }
            default -> throw ctx.err("unknown check " + st.word(0, ""));
        }
    }
}
