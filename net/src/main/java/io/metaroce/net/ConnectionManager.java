package io.metaroce.net;

import io.metaroce.core.EngineConfig;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QpState;
import io.metaroce.core.QueuePair;
import io.metaroce.core.wire.CmMessage;
import io.metaroce.net.cm.CmEndpoint;
import io.metaroce.net.cm.CmHost;
import io.metaroce.net.cm.CmSettings;

import java.lang.foreign.MemorySegment;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.LinkedBlockingQueue;

/**
 * The device's connection manager: the sans-IO {@link CmEndpoint} (the same code the conformance suite checks)
 * on the device's agent thread, with UDP from plane 0's socket, the wall clock, random connection ids and initial
 * PSNs, and futures for the application's {@code connect} and {@code disconnect}. A remote is an IPv4 address and
 * a UDP port packed in a long.
 */
final class ConnectionManager implements CmHost {
    /** First CM_REQ / CM_DREQ timeout (a real network and a JVM starting up: longer than the spec's 1 ms). */
    private static final long FIRST_RETRY_NS = 5_000_000;
    /** The CM_REQ timeout stops doubling here; the application's connect timeout ends the attempt. */
    private static final long MAX_BACKOFF_NS = 500_000_000;
    private static final int DREQ_RETRIES = 8;

    private final Device device;
    private final SplittableRandom rng;
    /**
     * AUTH-9: the pre-shared key, or null; AUTH-3, AUTH-15: connection ids and initial PSNs then come from a
     * secure generator.
     */
    private final byte[] authKey;
    private final boolean encrypt;
    /** A server that will listen: CM_REQs before {@link #listen} are ignored, not refused. */
    private final boolean willListen;
    private final java.security.SecureRandom secureRandom;
    final PacketBatch batch;
    final int[] index0 = {0};
    final LinkedBlockingQueue<DeviceQp> accepted = new LinkedBlockingQueue<>();
    private final CmEndpoint cm;
    private final Map<Integer, DeviceQp> qps = new HashMap<>();
    private final Map<Long, CompletableFuture<Void>> connecting = new HashMap<>();
    private final Map<Long, String> servers = new HashMap<>();
    private final Map<Integer, CompletableFuture<Boolean>> closing = new HashMap<>();
    private ProtectionDomain listenPd;
    private DeviceCq listenScq;
    private DeviceCq listenRcq;

    ConnectionManager(Device device, byte[] authKey, boolean encrypt, boolean willListen) {
        this.device = device;
        this.willListen = willListen;
        this.authKey = authKey;
        this.encrypt = encrypt;
        this.secureRandom = authKey == null ? null : new java.security.SecureRandom();
        this.rng = new SplittableRandom(device.engine().hashCode() ^ System.nanoTime());
        this.batch = new PacketBatch(device.arena(), 1, 2048);
        this.cm = new CmEndpoint(this, new CmSettings(FIRST_RETRY_NS, MAX_BACKOFF_NS, Integer.MAX_VALUE,
                DREQ_RETRIES, device.config().connectionTimeoutNs, CmSettings.DEFAULT_RATE_PER_SECOND,
                CmSettings.DEFAULT_BURST));
    }

    static long remote(int addr, int port) {
        return Integer.toUnsignedLong(addr) << 16 | (port & 0xFFFF);
    }

    void listen(ProtectionDomain pd, DeviceCq scq, DeviceCq rcq) {
        listenPd = pd;
        listenScq = scq;
        listenRcq = rcq;
        cm.listen();
    }

    void connect(DeviceQp qp, InetSocketAddress server, long timeoutMs, CompletableFuture<Void> f) {
        if (qp.qp.state() != QpState.INIT) {
            f.completeExceptionally(new IllegalStateException("QP " + qp.qpn() + " is " + qp.qp.state()
                    + ", not INIT: connect a fresh QP"));
            return;
        }
        long now = System.nanoTime();
        long cid = secureRandom != null ? secureRandom.nextLong() : rng.nextLong();
        qps.put(qp.qpn(), qp);
        connecting.put(cid, f);
        servers.put(cid, server.toString());
        int psn = secureRandom != null ? secureRandom.nextInt() : rng.nextInt(); // AUTH-15
        cm.connect(now, qp.qp, cid, psn, remote(Ipv4.of(server.getAddress()), server.getPort()),
                now + timeoutMs * 1_000_000L);
    }

    /** Starts the orderly close of {@code qp} (CM-10); {@code f} completes with whether the peer answered. */
    void disconnect(DeviceQp qp, CompletableFuture<Boolean> f) {
        if (!cm.disconnect(System.nanoTime(), qp.qp)) {
            f.complete(false);
            return;
        }
        if (closing.containsKey(qp.qpn())) { // the close was already started: both wait for its end
            closing.get(qp.qpn()).whenComplete((v, e) -> f.complete(v != null && v));
            return;
        }
        closing.put(qp.qpn(), f);
    }

    /** The CM's counters ({@code CmCounter} names). */
    Map<String, Long> counters() {
        return cm.counters();
    }

    void onTimer(long now) {
        cm.onTimer(now);
    }

    void handle(long now, MemorySegment dgram, int len, int fromAddr, int fromPort) {
        cm.handle(now, dgram, len, remote(fromAddr, fromPort));
    }

    // ------------------------------------------------------------------ CmHost

    /** Rate-limited per IPv4 address: the UDP port of {@link #remote} is the sender's to vary. */
    @Override
    public long source(long remote) {
        return remote >>> 16;
    }

    @Override
    public byte[] authKey() {
        return authKey;
    }

    @Override
    public boolean encryptPayloads() {
        return encrypt;
    }

    @Override
    public QueuePair newQp() {
        DeviceQp qp = device.newQp(listenPd, listenScq, listenRcq);
        qps.put(qp.qpn(), qp);
        return qp.qp;
    }

    @Override
    public int peerHandle(long remote, CmMessage m) {
        int[] a = new int[m.planes().size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = Ipv4.of(m.planes().get(i));
        }
        return device.addPeer(a, m.udpPort());
    }

    @Override
    public void emit(MemorySegment datagram, int length, long remote) {
        device.sendControl(datagram, length, (int) (remote >>> 16), (int) (remote & 0xFFFF));
    }

    @Override
    public EngineConfig config() {
        return device.config();
    }

    @Override
    public List<byte[]> planeAddresses() {
        List<byte[]> l = new ArrayList<>();
        for (int a : device.planeAddrs()) {
            l.add(Ipv4.bytes(a));
        }
        return l;
    }

    @Override
    public int udpPort() {
        return device.port();
    }

    @Override
    public int responderInitialPsn() {
        return secureRandom != null ? secureRandom.nextInt() : rng.nextInt(); // AUTH-15: fresh keys after a replay
    }

    @Override
    public boolean refuseWithoutListener() {
        return !willListen;
    }

    @Override
    public void accepted(QueuePair qp, long remote) {
        DeviceQp d = publish(qp);
        if (d != null) {
            accepted.add(d);
        }
    }

    @Override
    public void abandoned(QueuePair qp) {
        publish(qp);
        qps.remove(qp.qpn()); // AUTH-15: nobody will ever use it
    }

    @Override
    public void connected(long cid, QueuePair qp) {
        publish(qp);
        servers.remove(cid);
        CompletableFuture<Void> f = connecting.remove(cid);
        if (f != null) {
            f.complete(null);
        }
    }

    @Override
    public void failed(long cid, QueuePair qp, String why) {
        publish(qp);
        String server = servers.remove(cid);
        CompletableFuture<Void> f = connecting.remove(cid);
        if (f != null) {
            String text = !why.startsWith("no answer") ? why
                    : why.contains("without a valid seal") ? "timed out: " + why // AUTH-14: it did answer
                    : "timed out: " + why + ", no CM_REP (is a listener running there, on the same port, and "
                            + "reachable on plane 0?)";
            f.completeExceptionally(new IllegalStateException("connection to " + server + " " + text));
        }
    }

    @Override
    public void disconnected(QueuePair qp, boolean byPeer, boolean answered) {
        publish(qp);
        qps.remove(qp.qpn());
        CompletableFuture<Boolean> f = closing.remove(qp.qpn());
        if (f != null) {
            f.complete(answered);
        }
    }

    /** Publishes the QP's state to the application at once (the duty cycle would do it a moment later). */
    private DeviceQp publish(QueuePair qp) {
        DeviceQp d = qps.get(qp.qpn());
        if (d != null) {
            d.state = qp.state();
        }
        return d;
    }
}
