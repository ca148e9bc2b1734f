package io.metaroce.conformance.agent;

import io.metaroce.conformance.target.EngineHost;
import io.metaroce.conformance.target.Target;
import io.metaroce.core.Engine;
import io.metaroce.conformance.target.Mutation;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;
import java.nio.channels.SelectionKey;
import java.nio.channels.Selector;
import java.nio.charset.StandardCharsets;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The conformance agent of MetaRoCE-J: our core engine hosted on a UDP socket, driven by the wall clock and
 * controlled by the tester over the agent control protocol (docs/conformance/AGENT-PROTOCOL.md). One thread
 * runs everything: control requests, datapath datagrams and engine timers. Datapath packets are exchanged over
 * real UDP with the tester's datapath address given in the {@code QP} command.
 */
public final class Agent implements AutoCloseable {
    /** Version of the control protocol this agent speaks. */
    public static final int PROTOCOL_VERSION = 1;
    private static final int MAX_DATAGRAM = 65_507;
    private final DatagramChannel control;
    private final DatagramChannel data;
    private final Selector selector;
    private final EngineHost host;
    private final ByteBuffer rx = ByteBuffer.allocate(MAX_DATAGRAM);
    private final Map<SocketAddress, String[]> lastReply = new LinkedHashMap<>();
    private volatile boolean running = true;
    private long t0 = System.nanoTime();
    private boolean ready;
    private InetSocketAddress peer;
    private long stranger;
    private long timeScale = 1;
    private volatile long dataReceived;
    private java.util.function.Consumer<EngineHost> observer;
    private long observePeriodNs;
    private long observerErrors;
    private long lastObservedNs = System.nanoTime() - Long.MAX_VALUE / 2;

    /**
     * Binds the control socket to {@code listen} and a datapath socket to the same address on an ephemeral port
     * ({@code dataPort} 0) or on {@code dataPort}.
     */
    public Agent(InetSocketAddress listen, int dataPort, Mutation mutation) throws IOException {
        control = DatagramChannel.open().bind(listen);
        data = DatagramChannel.open().bind(new InetSocketAddress(listen.getAddress(), dataPort));
        control.configureBlocking(false);
        data.configureBlocking(false);
        selector = Selector.open();
        control.register(selector, SelectionKey.OP_READ);
        data.register(selector, SelectionKey.OP_READ);
        host = new EngineHost(mutation);
    }

    /** The control address actually bound. */
    public InetSocketAddress controlAddress() throws IOException {
        return (InetSocketAddress) control.getLocalAddress();
    }

    /** The datapath address actually bound. */
    public InetSocketAddress dataAddress() throws IOException {
        return (InetSocketAddress) data.getLocalAddress();
    }

    private long now() {
        return (System.nanoTime() - t0) / timeScale;
    }

    /** Serves until {@link #close()} (from another thread) or an I/O failure. */
    public void serve() throws IOException {
        try {
            loop();
        } catch (java.nio.channels.ClosedSelectorException | java.nio.channels.ClosedChannelException e) {
            if (running) {
                throw e;
            }
        }
    }

    private void loop() throws IOException {
        while (running) {
            long wait = 1;
            if (ready) {
                long d = host.nextDeadline();
                if (d != Engine.NO_DEADLINE && (d - now()) * timeScale < 1_000_000) {
                    wait = 0;
                }
            }
            if (wait == 0) {
                selector.selectNow();
            } else {
                selector.select(wait);
            }
            selector.selectedKeys().clear();
            // Datagrams the tester sent before a control request are handled before it (on loopback they are
            // queued by the time the request is): checks then see their effect. Non-blocking reads are cheap, so
            // both sockets are read on every turn, whichever woke the selector.
            drainData();
            drainControl();
            if (ready) {
                host.fire(now());
                flush();
            }
            observe();
        }
    }

    /**
     * Calls {@code observer} on the agent's own thread with the engine host every {@code periodNs} (at the next
     * turn of the loop after the period), so another thread can publish a snapshot of the engine's counters and
     * paths without touching the engine itself (e.g. a metrics endpoint). Set before {@link #serve()}.
     */
    public void observe(long periodNs, java.util.function.Consumer<EngineHost> observer) {
        this.observePeriodNs = periodNs;
        this.observer = observer;
    }

    private void observe() {
        if (observer == null) {
            return;
        }
        long t = System.nanoTime();
        if (t - lastObservedNs >= observePeriodNs) {
            lastObservedNs = t;
            try {
                observer.accept(host);
            } catch (RuntimeException e) {
                observerErrors++; // an observer's bug must not stop the agent
            }
        }
    }

    /** Observer calls that threw. */
    public long observerErrors() {
        return observerErrors;
    }

    /** Datagrams received on the datapath socket (from anyone). */
    public long dataReceived() {
        return dataReceived;
    }

    private void drainData() throws IOException {
        while (true) {
            rx.clear();
            SocketAddress from = data.receive(rx);
            if (from == null) {
                return;
            }
            dataReceived++;
            if (!ready) {
                continue;
            }
            if (peer != null && !sameHost(from, peer)) {
                stranger++; // BAD-12: the driver drops datagrams that do not come from the peer's address
                continue;
            }
            rx.flip();
            byte[] b = new byte[rx.remaining()];
            rx.get(b);
            host.inject(now(), b, b.length, 2); // a Java socket cannot read the IP ECN field: ECT(0) assumed
            flush();
        }
    }

    private static boolean sameHost(SocketAddress a, InetSocketAddress peer) {
        return a instanceof InetSocketAddress i && i.getAddress().equals(peer.getAddress());
    }

    private void flush() throws IOException {
        List<Target.Captured> out = host.takeCaptured();
        for (Target.Captured c : out) {
            if (peer != null) {
                data.send(ByteBuffer.wrap(c.bytes()), peer);
            }
        }
    }

    private void drainControl() throws IOException {
        while (true) {
            rx.clear();
            SocketAddress from = control.receive(rx);
            if (from == null) {
                return;
            }
            rx.flip();
            String line = StandardCharsets.US_ASCII.decode(rx).toString();
            String reply;
            ControlMessage req = null;
            try {
                req = ControlMessage.parse(line);
                String[] last = lastReply.get(from);
                if (last != null && last[0].equals(Long.toString(req.seq()))) {
                    reply = last[1]; // a retransmitted request: same answer, not executed twice
                } else {
                    reply = new ControlMessage(req.seq(), "OK", execute(req)).format();
                }
            } catch (RuntimeException e) { // a bad request gets an error answer; the agent carries on
                long seq = req == null ? 0 : req.seq();
                reply = new ControlMessage(seq, "ERR", Map.of("msg", String.valueOf(e.getMessage()))).format();
            }
            if (req != null) {
                lastReply.put(from, new String[] {Long.toString(req.seq()), reply});
                if (lastReply.size() > 64) {
                    lastReply.remove(lastReply.keySet().iterator().next());
                }
            }
            control.send(ByteBuffer.wrap(reply.getBytes(StandardCharsets.US_ASCII)), from);
            flush();
        }
    }

    /**
     * The {@code sync=N} barrier: before a request is executed, the N datapath datagrams the tester sent before it
     * must have been handled (the network may deliver them after the request). Waits at most a second.
     */
    private void awaitData(long n) throws IOException {
        long give = System.nanoTime() + 1_000_000_000L;
        while (dataReceived < n && System.nanoTime() - give < 0) {
            selector.select(1);
            selector.selectedKeys().clear();
            drainData();
            if (ready) {
                host.fire(now());
                flush();
            }
        }
        if (dataReceived < n) {
            throw new IllegalStateException("only " + dataReceived + " of the " + n + " datapath datagrams arrived");
        }
    }

    private Map<String, String> execute(ControlMessage m) throws IOException {
        Map<String, String> r = new LinkedHashMap<>();
        if (m.args().containsKey("sync")) {
            awaitData(m.num("sync"));
        }
        if (!m.word().equals("HELLO") && !m.word().equals("RESET") && !ready) {
            throw new IllegalStateException("RESET first");
        }
        switch (m.word()) {
            case "HELLO" -> {
                r.put("version", Integer.toString(PROTOCOL_VERSION));
                r.put("dataport", Integer.toString(dataAddress().getPort()));
                r.put("caps", String.join(",", Target.PATH_STATS, Target.COUNTERS, Target.SOURCE_FILTER,
                        Target.CM));
                r.put("impl", "MetaRoCE-J-engine");
            }
            case "RESET" -> {
                r.put("timescale", Long.toString(Math.max(1, m.num("timescale", 1))));
                Map<String, String> cfg = new LinkedHashMap<>();
                m.args().forEach((k, v) -> {
                    if (k.startsWith("cfg.")) {
                        cfg.put(k.substring(4), v);
                    }
                });
                timeScale = Math.max(1, m.num("timescale", 1));
                host.reset(cfg, m.num("seed", 1));
                InetSocketAddress d = dataAddress();
                host.datapathAddress(d.getAddress().getAddress(), d.getPort());
                ready = true;
                peer = null;
                stranger = 0;
                dataReceived = 0;
                t0 = System.nanoTime();
            }
            case "MR" -> {
                Target.Region reg = host.addRegion(m.get("name"), (int) m.num("size"), (int) m.num("access"),
                        "other".equals(m.args().get("pd")));
                r.put("va", Long.toString(reg.va()));
                r.put("rkey", Integer.toString(reg.rkey()));
            }
            case "QP" -> {
                String[] hp = m.get("peer").split(":");
                peer = new InetSocketAddress(hp[0], Integer.parseInt(hp[1]));
                int qpn = host.createQp(m.get("state"), (int) m.num("tqpn"), (int) m.num("ipsn"), (int) m.num("tpsn"));
                r.put("qpn", Integer.toUnsignedString(qpn));
                flush();
            }
            case "POST" -> r.put("rc", Integer.toString(host.post(m.get("op"), m.num("wr"), m.get("mr"),
                    m.num("off"), (int) m.num("len"), m.num("va", 0), (int) m.num("rkey", 0), (int) m.num("imm", 0),
                    m.num("signaled", 1) != 0)));
            case "RECV" -> r.put("rc", Integer.toString(host.postRecv(m.num("wr"), m.get("mr"), m.num("off"),
                    (int) m.num("len"))));
            case "MODIFY" -> r.put("result", host.modify(m.get("state")));
            case "DEREG" -> host.deregister(m.get("mr"));
            case "WRITEMEM" -> host.writeMemory(m.get("mr"), m.num("off"), HexFormat.of().parseHex(m.get("hex")));
            case "READMEM" -> r.put("hex", HexFormat.of().formatHex(host.readMemory(m.get("mr"), m.num("off"),
                    (int) m.num("len"))));
            case "POLL" -> {
                Target.Completion c = host.poll(m.get("cq").equals("send"));
                if (c == null) {
                    r.put("empty", "1");
                } else {
                    r.put("wr", Long.toString(c.wrId()));
                    r.put("status", c.status());
                    r.put("op", c.opcode());
                    r.put("len", Integer.toString(c.byteLen()));
                    r.put("imm", Integer.toString(c.imm()));
                    r.put("hasimm", c.hasImm() ? "1" : "0");
                    r.put("qpn", Integer.toUnsignedString(c.qpn()));
                }
            }
            case "STATE" -> r.put("state", host.qpState());
            case "COUNTERS" -> {
                host.counters().forEach((k, v) -> r.put(k, Long.toString(v)));
                r.put("DRIVER_DROP_STRANGER", Long.toString(stranger));
            }
            case "PATH" -> r.putAll(host.pathStats((int) m.num("path")));
            case "TIME" -> r.put("now", Long.toString(now()));
            case "INTERNAL" -> r.put("errors", Long.toString(host.internalErrors()));
            default -> throw new IllegalArgumentException("unknown command " + m.word());
        }
        return r;
    }

    @Override
    public void close() throws IOException {
        running = false;
        selector.wakeup();
        selector.close();
        control.close();
        data.close();
    }
}
