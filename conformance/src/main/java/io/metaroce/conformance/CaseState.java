package io.metaroce.conformance;

import io.metaroce.conformance.script.Arg;
import io.metaroce.conformance.script.Script;
import io.metaroce.conformance.script.ScriptException;
import io.metaroce.conformance.script.Step;
import io.metaroce.conformance.script.Values;
import io.metaroce.conformance.target.Target;
import io.metaroce.conformance.target.TesterConstants;
import io.metaroce.core.wire.BaseHeader;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.Opcode;
import io.metaroce.core.wire.Packet;

import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * What one run of one case knows: the script and target, the current line and time, what the IUT has sent so
 * far, the tester's next PSNs, the IUT's latest timestamps, PSNs and probes per path (to echo them), captured
 * variables and the counter baseline. Evaluates the script's expressions against all that.
 */
final class CaseState {
    final Script s;
    final Target target;
    /** The target's times are exact (in process); otherwise timing windows widen by {@link #toleranceNs}. */
    final boolean exact;
    /** Tolerance added to timing windows when the target's times are not exact, ns. */
    final long toleranceNs;
    Target.Setup setup;
    final List<SeenPacket> seen = new ArrayList<>();
    final List<String> trace = new ArrayList<>();
    final Map<String, Long> vars = new HashMap<>();
    /** Per path: the tester's next data PSN and its floor, relative to its initial PSN. */
    final Map<Integer, Integer> txNext = new HashMap<>();
    final Map<Integer, Integer> txFloor = new HashMap<>();
    /** Per path: the IUT's latest data timestamp (ns), highest data PSN, and last probe {id, timestamp}. */
    final Map<Integer, Long> iutTs = new HashMap<>();
    final Map<Integer, Integer> iutHigh = new HashMap<>();
    final Map<Integer, long[]> iutProbe = new HashMap<>();
    Map<String, Long> baseline = Map.of();
    /** AUTH-*: the tester's keys on an authenticated case's connection, or null. */
    AuthTester auth;
    /** AUTH-12: the tester's CM message counter (the next sealed CM message's). */
    long cmCounter;
    /** The connection id and initial PSN of the last CM_REQ the tester sent (AUTH-3 after a CM exchange). */
    long reqCid;
    int reqIpsn;
    /**
     * The IUT's initial PSN (absolute): the script's {@code psn iut=}, or, on a case with a pre-shared key, the one
     * the IUT announced in its CM_REQ or CM_REP (AUTH-15: drawn by the IUT from a secure generator).
     */
    long iutPsn;
    /** The script's current time, ns. */
    long now;
    final int mtu;
    int line;

    CaseState(Script s, Target target, long toleranceNs) {
        this.s = s;
        this.iutPsn = s.iutPsn();
        this.target = target;
        this.toleranceNs = toleranceNs;
        this.exact = target.capabilities().contains(Target.EXACT_TIME);
        this.mtu = Integer.parseInt(s.config().getOrDefault("mtu", "4096"));
    }

    /** A script error at the current line. */
    ScriptException err(String msg) {
        return new ScriptException(s.file(), line, msg);
    }

    /** Evaluates {@code expr}; {@code key} says what a region name stands for ({@code rkey} or its address). */
    long eval(String expr, String key) {
        return Values.eval(s.file(), line, expr, id -> resolve(id, key));
    }

    private Long resolve(String id, String key) {
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

    /** The value of argument {@code key} of {@code st}, or {@code dflt} when it is absent. */
    long num(Step st, String key, long dflt) {
        Arg a = st.arg(key);
        return a == null ? dflt : eval(a.value(), key);
    }

    /** {@code name} if the case declared a region of that name; a script error otherwise. */
    String region(String name) {
        if (!setup.regions().containsKey(name)) {
            throw err("no region named '" + name + "' (declare it with 'mr')");
        }
        return name;
    }

    /** The region named by argument {@code key} of {@code st} (required). */
    String regionArg(Step st, String key) {
        String v = st.value(key, null);
        if (v == null) {
            throw err("missing " + key + "=REGION");
        }
        return region(v);
    }

    /** AUTH-3, AUTH-9: after the IUT's CM_REP granting CAP_AUTH, the tester takes the connection's keys. */
    private void keyAfterCm(PacketView v) {
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

    /**
     * AUTH-15: on a case with a pre-shared key the IUT draws its initial PSN itself; the tester takes it from the
     * IUT's CM_REQ or CM_REP, so that later packets' PSNs read relative to it.
     */
    private void learnIutPsn(PacketView v) {
        if (cmSeals() && (v.opcode() == Opcode.CM_REP || v.opcode() == Opcode.CM_REQ) && v.check().equals("OK")
                && v.fields().containsKey("ipsn")) {
            iutPsn = v.fields().get("ipsn");
        }
    }

    /** Whether the case's IUT has the tester's pre-shared key, so that the tester seals CM messages (AUTH-13). */
    boolean cmSeals() {
        return !s.config().getOrDefault("auth", "off").equals("off");
    }

    /**
     * AUTH-*: opens a datagram the IUT sent on an authenticated connection in place (decrypting its payload);
     * returns 1 (verified), 0 (not), or -1 when there is nothing to open (no keys, an undecodable packet). A CM
     * message is checked with the CM key (AUTH-11): 1 or 0 when it carries a trailer or the case has a key, else -1.
     */
    private int openAuth(byte[] d) {
        if (d.length < Packet.MIN_LENGTH || Opcode.extensionLength(d[1] & 0xFF) < 0
                || auth == null && !Opcode.isCm(d[1] & 0xFF)) {
            return -1;
        }
        MemorySegment seg = MemorySegment.ofArray(d);
        if (new Packet().check(seg, d.length) != Packet.OK) {
            return -1; // shown as it is: WIRE-8 fails first
        }
        int headers = BaseHeader.LENGTH + Opcode.extensionLength(d[1] & 0xFF);
        int end = headers + ((d[10] & 0xFF) << 8 | (d[11] & 0xFF));
        if (Opcode.isCm(d[1] & 0xFF)) {
            int r = AuthTester.openCm(d, end);
            return r < 0 && cmSeals() ? 0 : r;
        }
        int path = (d[8] & 0xFF) << 8 | (d[9] & 0xFF);
        if (!auth.open(d, headers, end, path)) {
            return 0;
        }
        if (auth.encrypt) {
            new Packet().seal(seg, d.length - Packet.CRC_LENGTH); // the tester's copy now holds the plaintext
        }
        return 1;
    }

    /** Takes what the IUT sent since the last call, decodes it, and notes what later packets echo. */
    void pull() throws Target.TargetException {
        for (Target.Captured c : target.takeCaptured()) {
            int opened = openAuth(c.bytes());
            PacketView v = new PacketView(c.bytes(), iutPsn, s.testerPsn());
            if (opened >= 0) {
                v.fields().put("auth", (long) opened); // AUTH-*: 1 when the IUT's seal verified
                if (c.bytes().length >= Packet.MIN_LENGTH + AuthTester.TRAILER
                        && (c.bytes()[3] & AuthTester.FLAG_AUTH) != 0) {
                    v.fields().put("aseq", ByteBuffer.wrap(c.bytes(), c.bytes().length - 12, 8).getLong());
                }
                if (opened == 1 && auth != null && !Opcode.isCm(c.bytes()[1] & 0xFF)) {
                    v.fields().put("kgen", (long) auth.lastOpenedGeneration); // AUTH-17: the key that opened it
                }
            }
            keyAfterCm(v);
            learnIutPsn(v);
            seen.add(new SeenPacket(c, v, seen.size()));
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
