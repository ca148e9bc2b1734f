package io.metaroce.conformance.target;

import io.metaroce.conformance.agent.ControlMessage;
import io.metaroce.conformance.script.Script;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.locks.LockSupport;

/**
 * An IUT reached over UDP through its conformance agent (docs/conformance/AGENT-PROTOCOL.md). The tester's
 * datapath socket exchanges real packets with the agent's datapath port; times are the tester's wall clock since
 * the case's set-up finished, so timing windows need a tolerance ({@link io.metaroce.conformance.Runner}).
 */
public final class RemoteTarget implements Target {
    private static final int CHUNK = 16_384;
    private final InetSocketAddress agent;
    private final DatagramSocket control;
    private final DatagramSocket data;
    private final DatagramSocket stranger;
    private final Thread receiver;
    private final ConcurrentLinkedQueue<Captured> inbox = new ConcurrentLinkedQueue<>();
    private final Set<String> caps;
    private final String impl;
    private InetSocketAddress agentData;
    private volatile long t0 = System.nanoTime();
    private final long timeScale;
    private long seq;
    private long dataSent;

    /**
     * Connects to the agent at {@code agent} (HELLO); the tester's datapath socket binds to {@code localHost}
     * (the address the agent sends to) on an ephemeral port. Both sides run case time {@code timeScale} times
     * slower than the wall clock (1 = real time), if the agent supports it.
     */
    public RemoteTarget(InetSocketAddress agent, String localHost, long timeScale) throws TargetException {
        this.agent = agent;
        this.timeScale = Math.max(1, timeScale);
        try {
            control = new DatagramSocket(new InetSocketAddress(localHost, 0));
            control.setSoTimeout(200);
            data = new DatagramSocket(new InetSocketAddress(localHost, 0));
            DatagramSocket s = null;
            InetAddress local = InetAddress.getByName(localHost);
            if (local.isLoopbackAddress() && local.getAddress().length == 4) {
                byte[] other = local.getAddress();
                other[3] = (byte) (other[3] == 2 ? 3 : 2); // 127.0.0.2: another address of the loopback net
                try {
                    s = new DatagramSocket(new InetSocketAddress(InetAddress.getByAddress(other), 0));
                } catch (IOException e) {
                    s = null;
                }
            }
            stranger = s;
        } catch (IOException e) {
            throw new TargetException("cannot open tester sockets: " + e.getMessage(), e);
        }
        receiver = Thread.ofPlatform().daemon().name("conformance-rx").start(this::receive);
        Map<String, String> hello = call("HELLO", Map.of());
        agentData = new InetSocketAddress(agent.getAddress(), Integer.parseInt(hello.get("dataport")));
        caps = Set.of(hello.getOrDefault("caps", "").split(","));
        impl = hello.getOrDefault("impl", "unknown");
    }

    private void receive() {
        byte[] buf = new byte[65_536];
        while (!data.isClosed()) {
            DatagramPacket p = new DatagramPacket(buf, buf.length);
            try {
                data.receive(p);
            } catch (IOException e) {
                return;
            }
            long t = (System.nanoTime() - t0) / timeScale;
            inbox.add(new Captured(t, Arrays.copyOf(p.getData(), p.getLength()), -1, -1));
        }
    }

    /** Sends one request and waits for its answer, retransmitting on silence; returns the answer's arguments. */
    private synchronized Map<String, String> call(String word, Map<String, String> args) throws TargetException {
        long s = ++seq;
        Map<String, String> all = args;
        if (!word.equals("HELLO") && !word.equals("RESET")) {
            all = new LinkedHashMap<>(args);
            all.put("sync", Long.toString(dataSent)); // executed only after the datagrams sent before it
        }
        byte[] req = new ControlMessage(s, word, all).format().getBytes(StandardCharsets.US_ASCII);
        byte[] buf = new byte[65_536];
        for (int attempt = 0; attempt < 10; attempt++) {
            try {
                control.send(new DatagramPacket(req, req.length, agent));
                while (true) {
                    DatagramPacket p = new DatagramPacket(buf, buf.length);
                    control.receive(p);
                    ControlMessage m = ControlMessage.parse(new String(p.getData(), 0, p.getLength(),
                            StandardCharsets.US_ASCII));
                    if (m.seq() != s) {
                        continue; // a late answer to an earlier, retransmitted request
                    }
                    if (m.word().equals("ERR")) {
                        throw new TargetException("agent: " + word + ": " + m.args().get("msg"));
                    }
                    return m.args();
                }
            } catch (SocketTimeoutException e) {
                // retransmit: the agent answers a repeated request without executing it twice
            } catch (IOException | IllegalArgumentException e) {
                throw new TargetException("agent " + agent + ": " + e.getMessage(), e);
            }
        }
        throw new TargetException("agent " + agent + " does not answer " + word);
    }

    @Override
    public String description() {
        return "agent " + agent.getHostString() + ":" + agent.getPort() + " (" + impl + ", wall clock over UDP"
                + (timeScale > 1 ? ", time scaled x" + timeScale : "") + ")";
    }

    @Override
    public Set<String> capabilities() {
        return stranger == null ? caps.stream().filter(c -> !c.equals(SOURCE_FILTER)).collect(
                java.util.stream.Collectors.toSet()) : caps;
    }

    @Override
    public Setup setup(Script s) throws TargetException {
        Map<String, String> reset = new LinkedHashMap<>();
        reset.put("seed", "1");
        reset.put("timescale", Long.toString(timeScale));
        s.config().forEach((k, v) -> reset.put("cfg." + k, v));
        Map<String, String> ok = call("RESET", reset);
        dataSent = 0;
        if (!Long.toString(timeScale).equals(ok.getOrDefault("timescale", "1"))) {
            throw new TargetException("the agent does not support timescale " + timeScale + " (use 1)");
        }
        Map<String, Region> regions = new LinkedHashMap<>();
        for (Script.Region r : s.regions()) {
            Map<String, String> a = call("MR", Map.of("name", r.name(), "size", Integer.toString(r.size()),
                    "access", Integer.toString(r.access()), "pd", r.otherPd() ? "other" : "main"));
            regions.put(r.name(), new Region(Long.parseLong(a.get("va")), (int) Long.parseLong(a.get("rkey")),
                    r.size()));
        }
        InetSocketAddress mine = (InetSocketAddress) data.getLocalSocketAddress();
        Map<String, String> qp = call("QP", Map.of("state", s.qpState(), "peer",
                mine.getAddress().getHostAddress() + ":" + mine.getPort(),
                "tqpn", Integer.toUnsignedString(TesterConstants.TESTER_QPN), "ipsn", Long.toString(s.iutPsn()),
                "tpsn", Long.toString(s.testerPsn())));
        inbox.clear();
        t0 = System.nanoTime();
        return new Setup((int) Long.parseLong(qp.get("qpn")), regions);
    }

    @Override
    public void advanceTo(long tNs) {
        long wait;
        while ((wait = (tNs - now()) * timeScale) > 0) {
            LockSupport.parkNanos(Math.min(wait, 1_000_000));
        }
    }

    @Override
    public long now() {
        return (System.nanoTime() - t0) / timeScale;
    }

    @Override
    public void inject(byte[] datagram, int length, int ecn) throws TargetException {
        send(data, datagram, length);
    }

    private void send(DatagramSocket sock, byte[] datagram, int length) throws TargetException {
        try {
            sock.send(new DatagramPacket(datagram, length, agentData));
            dataSent++;
        } catch (IOException e) {
            throw new TargetException("datapath send failed: " + e.getMessage(), e);
        }
    }

    @Override
    public void injectFromStranger(byte[] datagram, int length) throws TargetException {
        if (stranger == null) {
            throw new TargetException("no second local address to send from");
        }
        send(stranger, datagram, length);
    }

    @Override
    public List<Captured> takeCaptured() {
        List<Captured> out = new ArrayList<>();
        Captured c;
        while ((c = inbox.poll()) != null) {
            out.add(c);
        }
        return out;
    }

    @Override
    public int post(String op, long wrId, String mr, long offset, int length, long remoteVa, int rkey, int imm,
                    boolean signaled) throws TargetException {
        Map<String, String> a = new LinkedHashMap<>();
        a.put("op", op);
        a.put("wr", Long.toString(wrId));
        a.put("mr", mr);
        a.put("off", Long.toString(offset));
        a.put("len", Integer.toString(length));
        a.put("va", Long.toString(remoteVa));
        a.put("rkey", Integer.toString(rkey));
        a.put("imm", Integer.toString(imm));
        a.put("signaled", signaled ? "1" : "0");
        return Integer.parseInt(call("POST", a).get("rc"));
    }

    @Override
    public int postRecv(long wrId, String mr, long offset, int length) throws TargetException {
        return Integer.parseInt(call("RECV", Map.of("wr", Long.toString(wrId), "mr", mr, "off",
                Long.toString(offset), "len", Integer.toString(length))).get("rc"));
    }

    @Override
    public String modify(String state) throws TargetException {
        return call("MODIFY", Map.of("state", state)).get("result");
    }

    @Override
    public void deregister(String mr) throws TargetException {
        call("DEREG", Map.of("mr", mr));
    }

    @Override
    public void writeMemory(String mr, long offset, byte[] bytes) throws TargetException {
        for (int i = 0; i < bytes.length; i += CHUNK) {
            int n = Math.min(CHUNK, bytes.length - i);
            call("WRITEMEM", Map.of("mr", mr, "off", Long.toString(offset + i), "hex",
                    HexFormat.of().formatHex(bytes, i, i + n)));
        }
    }

    @Override
    public byte[] readMemory(String mr, long offset, int length) throws TargetException {
        byte[] out = new byte[length];
        for (int i = 0; i < length; i += CHUNK) {
            int n = Math.min(CHUNK, length - i);
            byte[] b = HexFormat.of().parseHex(call("READMEM", Map.of("mr", mr, "off", Long.toString(offset + i),
                    "len", Integer.toString(n))).get("hex"));
            System.arraycopy(b, 0, out, i, n);
        }
        return out;
    }

    @Override
    public Completion poll(boolean send) throws TargetException {
        Map<String, String> a = call("POLL", Map.of("cq", send ? "send" : "recv"));
        if (a.containsKey("empty")) {
            return null;
        }
        return new Completion(Long.parseLong(a.get("wr")), a.get("status"), a.get("op"),
                Integer.parseInt(a.get("len")), Integer.parseInt(a.get("imm")), "1".equals(a.get("hasimm")),
                (int) Long.parseLong(a.get("qpn")));
    }

    @Override
    public String qpState() throws TargetException {
        return call("STATE", Map.of()).get("state");
    }

    @Override
    public Map<String, Long> counters() throws TargetException {
        Map<String, Long> m = new LinkedHashMap<>();
        call("COUNTERS", Map.of()).forEach((k, v) -> m.put(k, Long.parseLong(v)));
        return m;
    }

    @Override
    public Map<String, String> pathStats(int path) throws TargetException {
        return call("PATH", Map.of("path", Integer.toString(path)));
    }

    @Override
    public long internalErrors() throws TargetException {
        return Long.parseLong(call("INTERNAL", Map.of()).getOrDefault("errors", "-1"));
    }

    @Override
    public void close() {
        control.close();
        data.close();
        if (stranger != null) {
            stranger.close();
        }
        try {
            receiver.join(1000);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
