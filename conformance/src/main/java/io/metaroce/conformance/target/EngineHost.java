package io.metaroce.conformance.target;

import io.metaroce.core.auth.AuthKeys;
import io.metaroce.core.Counter;
import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.MemoryRegion;
import io.metaroce.core.Path;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;
import io.metaroce.core.Transmit;
import io.metaroce.core.WorkCompletion;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.core.wire.Packet;
import io.metaroce.net.cm.CmCodec;
import io.metaroce.net.cm.CmEndpoint;
import io.metaroce.net.cm.CmHost;
import io.metaroce.net.cm.CmSettings;

import java.lang.foreign.MemorySegment;
import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;

/**
 * Our engine as an implementation under test: one device, one QP whose peer is the tester, regions by name.
 * Used by the in-process target (virtual time) and by the {@code metaroce agent} (wall clock). Not thread
 * safe: one driver thread.
 */
public final class EngineHost {
    /** Peer handle the QP's transmits carry (the tester). */
    public static final int TESTER_PEER = 1;
    private final Mutation mutation;
    private Engine engine;
    private ProtectionDomain pd;
    private ProtectionDomain otherPd;
    private CompletionQueue sendCq;
    private CompletionQueue recvCq;
    private QueuePair qp;
    private final Map<String, MemoryRegion> regions = new LinkedHashMap<>();
    private final List<Target.Captured> captured = new ArrayList<>();
    private MemorySegment out;
    private final Transmit tx = new Transmit();
    private final WorkCompletion wc = new WorkCompletion();
    private long nowNs;
    private CmEndpoint cm;
    private final MemorySegment emitted = MemorySegment.ofArray(new byte[CmCodec.MAX_LENGTH]);
    private int cmPort = Packet.DEFAULT_UDP_PORT;
    private byte[] cmAddress = {127, 0, 1, 1};
    /**
     * Whether the case set up a connection manager (qp LISTEN / CONNECT): only then are CM datagrams the CM's;
     * otherwise they reach the engine, which must drop them (CM-15).
     */
    private boolean cmRuns;
    /** AUTH-1: the case's {@code config auth=}: off, tag or encrypt. */
    private String authMode = "off";
    private SplittableRandom cmRandom;
    /** AUTH-15: the generator of a keyed CM's connection ids and initial PSNs (made on first use). */
    private java.security.SecureRandom secure;

    /** A host whose engines carry {@code mutation} (NONE for a correct engine). */
    public EngineHost(Mutation mutation) {
        this.mutation = mutation;
    }

    /**
     * Discards the previous engine and creates a fresh one with {@code config} (EngineConfig field names;
     * a time knob may omit its {@code Ns} suffix; values already in ns) seeded with {@code seed}.
     */
    public void reset(Map<String, String> config, long seed) {
        EngineConfig cfg = new EngineConfig();
        cfg.seam = mutation.seam();
        authMode = "off";
        for (Map.Entry<String, String> e : config.entrySet()) {
            if (e.getKey().equals("auth")) { // AUTH-1: the case's connection authenticates (tag or encrypt)
                if (!Set.of("off", "tag", "encrypt").contains(e.getValue())) {
                    throw new IllegalArgumentException("auth must be off, tag or encrypt, not " + e.getValue());
                }
                authMode = e.getValue();
                continue;
            }
            set(cfg, e.getKey(), e.getValue());
        }
        engine = new Engine(cfg, new SplittableRandom(seed));
        pd = engine.allocPd();
        otherPd = engine.allocPd();
        sendCq = engine.createCq(1 << 16);
        recvCq = engine.createCq(1 << 16);
        qp = null;
        regions.clear();
        captured.clear();
        out = MemorySegment.ofArray(new byte[engine.maxDatagramLength()]);
        nowNs = 0;
        cm = new CmEndpoint(new Host(cfg), CmSettings.recommended(cfg.connectionTimeoutNs));
        cmRandom = new SplittableRandom(seed ^ 0x434D_434D_434D_434DL);
    }

    /**
     * The datapath address and UDP port the connection manager announces (CM-14): the agent's socket; in process
     * 127.0.1.1 (plane k: 127.0.1.k) and the default port.
     */
    public void datapathAddress(byte[] ipv4, int port) {
        cmAddress = ipv4.clone();
        cmPort = port;
    }

    /** The connection manager's view of this host: one device, one peer (the tester), virtual time. */
    private final class Host implements CmHost {
        private final EngineConfig cfg;

        Host(EngineConfig cfg) {
            this.cfg = cfg;
        }

        @Override
        public QueuePair newQp() {
            qp = engine.createQp(pd, sendCq, recvCq);
            qp.modifyToInit();
            return qp;
        }

        @Override
        public int peerHandle(long remote, CmMessage m) {
            return TESTER_PEER;
        }

        @Override
        public void emit(MemorySegment datagram, int length, long remote) {
            byte[] b = new byte[length];
            MemorySegment.copy(datagram, 0, MemorySegment.ofArray(b), 0, length);
            captured.add(new Target.Captured(nowNs, b, 0, -1));
        }

        @Override
        public EngineConfig config() {
            return cfg;
        }

        @Override
        public byte[] authKey() {
            return authMode.equals("off") ? null : TesterConstants.AUTH_PSK; // AUTH-9
        }

        @Override
        public boolean encryptPayloads() {
            return authMode.equals("encrypt");
        }

        @Override
        public List<byte[]> planeAddresses() {
            List<byte[]> l = new ArrayList<>();
            for (int i = 0; i < cfg.planes; i++) {
                byte[] a = cmAddress.clone();
                a[3] = (byte) (a[3] + i);
                l.add(a);
            }
            return l;
        }

        @Override
        public int udpPort() {
            return cmPort;
        }

        /**
         * The case's {@code psn iut=}; with a pre-shared key one from a secure generator, as AUTH-15 requires of a
         * device with a key (the tester reads it from the CM_REP). A case can observe that: a replayed CM_REQ gets
         * a CM_REP with another initial PSN.
         */
        @Override
        public int responderInitialPsn() {
            return authMode.equals("off") ? iutPsn : secureRandom().nextInt();
        }
    }

    private java.security.SecureRandom secureRandom() {
        if (secure == null) {
            secure = new java.security.SecureRandom();
        }
        return secure;
    }

    private static void set(EngineConfig cfg, String knob, String value) {
        Field f;
        try {
            f = EngineConfig.class.getField(knob);
        } catch (NoSuchFieldException e) {
            try {
                f = EngineConfig.class.getField(knob + "Ns");
            } catch (NoSuchFieldException e2) {
                throw new IllegalArgumentException("unknown engine knob '" + knob + "'");
            }
        }
        try {
            if (f.getType() == int.class) {
                f.setInt(cfg, Math.toIntExact(Long.parseLong(value)));
            } else if (f.getType() == long.class) {
                f.setLong(cfg, Long.parseLong(value));
            } else if (f.getType() == double.class) {
                f.setDouble(cfg, Double.parseDouble(value));
            } else if (f.getType() == boolean.class && (value.equals("true") || value.equals("false"))) {
                f.setBoolean(cfg, Boolean.parseBoolean(value));
            } else {
                throw new IllegalArgumentException("knob '" + knob + "' cannot be set by a case");
            }
        } catch (IllegalAccessException | NumberFormatException | ArithmeticException e) {
            throw new IllegalArgumentException("bad value '" + value + "' for knob '" + knob + "'", e);
        }
    }

    /** The QP under test, or null before one is created. */
    public io.metaroce.core.QueuePair queuePair() {
        return qp;
    }

    /** The engine (for diagnostics). */
    public Engine engine() {
        return engine;
    }

    /** Registers a zero-filled region of {@code size} bytes; {@code otherPd} puts it in a second PD. */
    public Target.Region addRegion(String name, int size, int access, boolean inOtherPd) {
        MemoryRegion mr = engine.registerMemory(inOtherPd ? otherPd : pd, MemorySegment.ofArray(new byte[size]),
                access);
        regions.put(name, mr);
        return new Target.Region(mr.address(), mr.rkey(), size);
    }

    /**
     * Creates the QP and brings it to {@code state} toward the tester; returns its QPN. {@code LISTEN}: the
     * connection manager creates the QP when the tester's CM_REQ arrives (QPN 0 until then); {@code CONNECT}:
     * the QP is created in INIT and the connection manager sends a CM_REQ to the tester now.
     */
    public int createQp(String state, int testerQpn, int iutPsn, int testerPsn) {
        this.iutPsn = iutPsn;
        this.testerQpn = testerQpn;
        this.testerPsn = testerPsn;
        cmRuns = state.equals("LISTEN") || state.equals("CONNECT");
        if (state.equals("LISTEN")) {
            cm.listen();
            return 0;
        }
        qp = engine.createQp(pd, sendCq, recvCq);
        if (!authMode.equals("off") && !state.equals("CONNECT")) { // AUTH-3 with the tester's fixed connection values (no CM exchange)
            qp.enableAuth(AuthKeys.derive(TesterConstants.AUTH_PSK, TesterConstants.AUTH_CID, testerQpn, qp.qpn(),
                    testerPsn, iutPsn, false, authMode.equals("encrypt")));
        }
        switch (state) {
            case "RESET" -> { }
            case "CONNECT" -> {
                qp.modifyToInit();
                boolean keyed = !authMode.equals("off"); // AUTH-15: a device with a key draws both securely
                cm.connect(nowNs, qp, keyed ? secureRandom().nextLong() : cmRandom.nextLong(),
                        keyed ? secureRandom().nextInt() : iutPsn, 0, Engine.NO_DEADLINE);
            }
            case "INIT" -> qp.modifyToInit();
            case "RTR" -> {
                qp.modifyToInit();
                qp.modifyToRtr(TESTER_PEER, testerQpn, testerPsn);
            }
            case "RTS" -> qp.connect(TESTER_PEER, testerQpn, iutPsn, testerPsn);
            default -> throw new IllegalArgumentException("bad QP state " + state);
        }
        drain();
        return qp.qpn();
    }

    private int iutPsn;
    private int testerQpn;
    private int testerPsn;

    /** Delivers a datagram at {@code tNs}. */
    public void inject(long tNs, byte[] data, int length, int ecn) {
        nowNs = tNs;
        deliver(tNs, data, length, ecn);
        drain();
    }

    private void deliver(long tNs, byte[] data, int length, int ecn) {
        MemorySegment seg = MemorySegment.ofArray(data);
        if (cmRuns && CmCodec.isCm(seg, length)) {
            cm.handle(tNs, seg, length, 0); // CM-15: CM datagrams go to the connection manager, not the engine
        } else {
            engine.handleDatagram(tNs, seg, length, ecn);
            cm.checkImplicitRtu();
        }
    }

    /** Delivers what is left of a trimmed datagram at {@code tNs} as trimmed (REL-17). */
    public void injectTrimmed(long tNs, byte[] data, int length) {
        nowNs = tNs;
        engine.handleTrimmed(tNs, MemorySegment.ofArray(data), length);
        drain();
    }

    /** Delivers a datagram {@code count} times at {@code tNs}, then collects what the engine sends. */
    public void injectBurst(long tNs, byte[] data, int length, int ecn, int count) {
        nowNs = tNs;
        for (int i = 0; i < count; i++) {
            deliver(tNs, data, length, ecn);
        }
        drain();
    }

    /** The engine's next deadline, or {@link Engine#NO_DEADLINE}. */
    public long nextDeadline() {
        long e = engine.pollTimeout();
        long c = cm.nextDeadline();
        if (e == Engine.NO_DEADLINE) {
            return c;
        }
        return c == Engine.NO_DEADLINE || e - c <= 0 ? e : c;
    }

    /** Fires the timers due at {@code tNs} (a no-op if none is due) and collects what the engine sends. */
    public void fire(long tNs) {
        nowNs = tNs;
        engine.handleTimeout(tNs);
        cm.onTimer(tNs);
        drain();
    }

    /** Collects every datagram the engine has to send now. */
    public void drain() {
        for (int guard = 0; guard < 1_000_000; guard++) {
            int n = engine.pollTransmit(nowNs, out, tx);
            if (n == 0) {
                return;
            }
            byte[] copy = new byte[n];
            MemorySegment.copy(out, 0, MemorySegment.ofArray(copy), 0, n);
            captured.add(new Target.Captured(nowNs, copy, tx.plane(), tx.ecn()));
        }
        throw new IllegalStateException("engine produced a million datagrams at one instant");
    }

    /** The datagrams captured since the last call. */
    public List<Target.Captured> takeCaptured() {
        List<Target.Captured> c = new ArrayList<>(captured);
        captured.clear();
        return c;
    }

    private MemoryRegion region(String name) {
        MemoryRegion mr = regions.get(name);
        if (mr == null) {
            throw new IllegalArgumentException("no region named " + name);
        }
        return mr;
    }

    /** Posts a send WR; see {@link Target#post}. */
    public int post(String op, long wrId, String mr, long offset, int length, long remoteVa, int rkey, int imm,
                    boolean signaled) {
        MemoryRegion m = region(mr);
        int flags = signaled ? QueuePair.SIGNALED : 0;
        int rc = switch (op) {
            case "write" -> qp.postWrite(wrId, m, offset, length, remoteVa, rkey, flags);
            case "writeimm" -> qp.postWriteImm(wrId, m, offset, length, remoteVa, rkey, imm, flags);
            case "send" -> qp.postSend(wrId, m, offset, length, flags);
            case "sendimm" -> qp.postSendImm(wrId, m, offset, length, imm, flags);
            case "read" -> qp.postRead(wrId, m, offset, length, remoteVa, rkey, flags);
            default -> throw new IllegalArgumentException("unknown work request " + op);
        };
        drain();
        return rc;
    }

    /** Posts a receive. */
    public int postRecv(long wrId, String mr, long offset, int length) {
        int rc = qp.postRecv(wrId, region(mr), offset, length);
        drain();
        return rc;
    }

    /** Moves the QP; "OK" or "refused". */
    public String modify(String state) {
        try {
            switch (state) {
                case "INIT" -> qp.modifyToInit();
                case "RTR" -> qp.modifyToRtr(TESTER_PEER, testerQpn, testerPsn);
                case "RTS" -> qp.modifyToRts(iutPsn);
                case "ERROR" -> {
                    if (!cm.disconnect(nowNs, qp)) { // a CM connection closes in order: ERROR and CM_DREQ (CM-10)
                        qp.modifyToError();
                    }
                }
                case "RESET" -> qp.modifyToReset();
                default -> throw new IllegalArgumentException("bad state " + state);
            }
        } catch (IllegalStateException e) {
            return "refused";
        }
        drain();
        return "OK";
    }

    /** Deregisters a region. */
    public void deregister(String mr) {
        engine.deregister(region(mr));
    }

    /** Writes region memory. */
    public void writeMemory(String mr, long offset, byte[] data) {
        MemorySegment.copy(MemorySegment.ofArray(data), 0, region(mr).segment(), offset, data.length);
    }

    /** Reads region memory. */
    public byte[] readMemory(String mr, long offset, int length) {
        byte[] b = new byte[length];
        MemorySegment.copy(region(mr).segment(), offset, MemorySegment.ofArray(b), 0, length);
        return b;
    }

    /** The next completion, or null. */
    public Target.Completion poll(boolean send) {
        if (!(send ? sendCq : recvCq).poll(wc)) {
            return null;
        }
        return new Target.Completion(wc.wrId(), wc.status().name(), wc.opcode().name(), wc.byteLen(),
                wc.immediate(), wc.hasImmediate(), wc.qpn());
    }

    /** The QP's state. */
    public String qpState() {
        return qp == null ? "RESET" : qp.state().name();
    }

    /** Every engine counter and the connection manager's. */
    public Map<String, Long> counters() {
        Map<String, Long> m = new LinkedHashMap<>();
        for (Counter c : Counter.values()) {
            m.put(c.name(), engine.counters().get(c));
        }
        m.putAll(cm.counters()); // CTR-7: the connection manager's own, CM_ prefixed
        return m;
    }

    /** Statistics of path {@code i}. */
    public Map<String, String> pathStats(int i) {
        Path p = qp.path(i);
        Map<String, String> m = new LinkedHashMap<>();
        m.put("state", p.state().name());
        m.put("cwnd", Long.toString(p.cwndBytes()));
        m.put("inflight", Long.toString(p.inflightPackets()));
        m.put("srtt", Long.toString(p.srttNs()));
        m.put("rto", Long.toString(p.rtoNs()));
        m.put("timeouts", Long.toString(p.timeouts()));
        m.put("failures", Long.toString(p.failures()));
        m.put("readmissions", Long.toString(p.readmissions()));
        m.put("retransmits", Long.toString(p.retransmits()));
        return m;
    }

    /** Internal errors caught by the engine. */
    public long internalErrors() {
        return engine.internalErrors();
    }
}
