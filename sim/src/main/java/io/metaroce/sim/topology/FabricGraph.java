package io.metaroce.sim.topology;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.LinkMonitor;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.PacketSink;
import io.metaroce.sim.fabric.Switch;
import io.metaroce.sim.fabric.SwitchPort;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * What every topology builder shares: the host links and NIC ports, the lists of links, ports and switches
 * (overall and per plane), and the factories that configure each element from the {@link FabricConfig} (loss,
 * buffer, ECN, wire size, routing mode) and, once the graph is wired, PFC. Subclasses create their switches
 * with {@link #newSwitch}, their links with {@link #link} and output ports with {@link #port}, plane by plane.
 */
abstract class FabricGraph implements Fabric {
    final FabricConfig cfg;
    final EventLoop loop;
    final PacketPool pool;
    final SplittableRandom rng;
    final int maxWireBytes;
    private final SwitchPort[][] nics; // [host][plane]
    private final Link[][] hostUp; // [host][plane] host -> first switch
    private final Link[][] hostDown; // [host][plane] first switch -> host
    private final List<Link> allLinks = new ArrayList<>();
    private final List<SwitchPort> switchPorts = new ArrayList<>();
    private final List<Switch> allSwitches = new ArrayList<>();
    private final List<List<Link>> linksByPlane = new ArrayList<>();
    private RouteWithdrawal routes; // made at the first detected failure

    FabricGraph(FabricConfig cfg, EventLoop loop, PacketPool pool, SplittableRandom rng) {
        this.cfg = cfg.validate();
        this.loop = loop;
        this.pool = pool;
        this.rng = rng;
        this.maxWireBytes = Math.max(cfg.controlWireBytes, pool.capacity() + Math.max(0, cfg.wireOverheadBytes));
        nics = new SwitchPort[cfg.hosts][cfg.planes];
        hostUp = new Link[cfg.hosts][cfg.planes];
        hostDown = new Link[cfg.hosts][cfg.planes];
        for (int p = 0; p < cfg.planes; p++) {
            linksByPlane.add(new ArrayList<>());
        }
    }

    /**
     * A switch named {@code p<plane>.<name>} with a salt drawn from the master stream, in the configured
     * routing mode.
     */
    final Switch newSwitch(int plane, String name) {
        Switch s = new Switch("p" + plane + "." + name, rng.nextLong(), pool, loop);
        s.setAdaptive(cfg.adaptiveRouting());
        allSwitches.add(s);
        return s;
    }

    /** A link of {@code plane} with the configured per-link loss (none under the end-to-end model). */
    final Link link(int plane, long rateBps, long delayPs, String name) {
        Link l = new Link(loop, pool, rateBps, delayPs, rng.split(), name);
        l.setLoss(cfg.endToEndLoss() ? 0 : cfg.linkLoss);
        allLinks.add(l);
        linksByPlane.get(plane).add(l);
        return l;
    }

    /** A switch output port sending on {@code link}, added to {@code sw}; returns its port index. */
    final int port(Switch sw, Link link) {
        SwitchPort sp = new SwitchPort(loop, pool, link, cfg.bufferBytes, cfg.ecnKminBytes, cfg.ecnKmaxBytes,
                cfg.ecnPmax, rng.split());
        sp.setWireSize(cfg.wireOverheadBytes, cfg.controlWireBytes);
        sp.setPfc(cfg.pfc);
        sp.setEcnAtDequeue(cfg.ecnAtDequeue());
        sp.setTrimming(cfg.trimming);
        switchPorts.add(sp);
        return sw.addPort(sp);
    }

    /**
     * Host {@code host}'s links on {@code plane} to switch {@code tor}: its uplink arrives on the switch's
     * in-port {@code torPort}, which is also the index of the new output port down to the host.
     */
    final void hostLinks(int plane, int host, Switch tor, int torPort) {
        Link up = link(plane, cfg.hostRateBps, cfg.hostLinkDelayPs, "h" + host + ">" + tor.name());
        up.connect(tor, torPort);
        if (cfg.endToEndLoss()) {
            up.setLoss(cfg.linkLoss); // every packet crosses exactly one host uplink: lost once, end to end
        }
        hostUp[host][plane] = up;
        SwitchPort nic = new SwitchPort(loop, pool, up, cfg.nicBufferBytes, -1, 0, 0, rng.split());
        nic.setWireSize(cfg.wireOverheadBytes, cfg.controlWireBytes);
        nic.setPfc(cfg.pfc);
        nics[host][plane] = nic;
        Link down = link(plane, cfg.hostRateBps, cfg.hostLinkDelayPs, tor.name() + ">h" + host);
        hostDown[host][plane] = down; // connected to the host by attach
        int idx = port(tor, down);
        if (idx != torPort) {
            throw new IllegalStateException("host port " + idx + " != in-port " + torPort + " on " + tor.name());
        }
    }

    /**
     * A cable between two switches, one new output port on each: in-port numbers equal the output port
     * numbers towards the same neighbour (so a switch's in-port i is fed by the reverse of its port i's link).
     * Returns the link from {@code a} to {@code b}; the reverse is {@code b}'s last port's link.
     */
    final Link cable(int plane, Switch a, Switch b) {
        Link ab = link(plane, cfg.fabricRateBps, cfg.fabricLinkDelayPs, a.name() + ">" + b.name());
        Link ba = link(plane, cfg.fabricRateBps, cfg.fabricLinkDelayPs, b.name() + ">" + a.name());
        int ai = port(a, ab);
        int bi = port(b, ba);
        ab.connect(b, bi);
        ba.connect(a, ai);
        if (cfg.linkFailureDetectPs >= 0) {
            new LinkMonitor(loop, a, ai, ab, ba, cfg.linkFailureDetectPs, this::routesChanged);
            new LinkMonitor(loop, b, bi, ba, ab, cfg.linkFailureDetectPs, this::routesChanged);
        }
        return ab;
    }

    /**
     * Turns PFC on in every switch when configured: thresholds from the config, or automatic ones that keep
     * the switch lossless ({@link FabricConfig#pfcXoffBytes}). Call once the graph is wired.
     */
    final void finish() {
        if (!cfg.pfc) {
            return;
        }
        for (Switch s : allSwitches) {
            long xoff = cfg.pfcXoffBytes;
            if (xoff == 0) {
                int ingress = 0;
                long headroom = 0;
                for (int i = 0; i < s.portCount(); i++) {
                    Link out = s.port(i).link();
                    ingress++;
                    // the in-port of the same index is fed by the reverse link, of the same rate and delay
                    headroom = Math.max(headroom,
                            FabricConfig.pfcHeadroomBytes(out.rateBps(), out.delayPs(), maxWireBytes));
                }
                xoff = Math.max(maxWireBytes, cfg.bufferBytes / Math.max(1, ingress) - headroom);
            }
            long xon = cfg.pfcXonBytes > 0 ? Math.min(cfg.pfcXonBytes, xoff) : xoff / 2;
            s.enablePfc(xoff, xon);
        }
    }

    /** A switch withdrew a port or let one rejoin: every switch updates its groups per destination. */
    private void routesChanged() {
        if (routes == null) {
            routes = new RouteWithdrawal(this);
        }
        routes.changed();
    }

    @Override
    public void attach(int host, PacketSink sink) {
        for (int p = 0; p < cfg.planes; p++) {
            hostDown[host][p].connect(sink, p);
        }
    }

    @Override public FabricConfig config() { return cfg; }
    @Override public int hosts() { return cfg.hosts; }
    @Override public int planes() { return cfg.planes; }
    @Override public SwitchPort[] nics(int host) { return nics[host]; }
    @Override public Link hostUplink(int host, int plane) { return hostUp[host][plane]; }
    @Override public Link hostDownlink(int host, int plane) { return hostDown[host][plane]; }
    @Override public List<Link> links() { return allLinks; }
    @Override public List<Link> planeLinks(int plane) { return linksByPlane.get(plane); }
    @Override public List<SwitchPort> switchPorts() { return switchPorts; }
    @Override public List<Switch> switches() { return allSwitches; }
}
