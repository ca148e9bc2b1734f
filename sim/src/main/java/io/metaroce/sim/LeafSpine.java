package io.metaroce.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/**
 * A two-tier leaf-spine fabric per plane, {@code planes} independent planes. Per plane: leaf {@code l} has
 * ports {@code 0..hostsPerLeaf-1} down to its hosts and {@code hostsPerLeaf..+spines-1} up to the spines;
 * spine {@code s} has port {@code l} down to leaf {@code l}. Routing is shortest path: leaf to spine by ECMP
 * over all spines, spine to leaf by destination. Host NIC ports are built here but owned by {@link Host}s.
 *
 * <p>Not yet built: a three-tier k-ary fat-tree (pods, aggregation, core) will be a sibling builder producing
 * the same Switch/SwitchPort/Link graph; routing there is ECMP up to the lowest common ancestor, then down by
 * destination. Failed links are not withdrawn from ECMP groups (no routing convergence): the transport routes
 * around them by abandoning path ids, which is what this model exercises.
 */
public final class LeafSpine implements Fabric {
    private final FabricConfig cfg;
    private final Switch[][] leaves; // [plane][leaf]
    private final Switch[][] spines; // [plane][spine]
    private final SwitchPort[][] nics; // [host][plane]
    private final Link[][] hostUp; // [host][plane] host -> leaf
    private final Link[][] hostDown; // [host][plane] leaf -> host
    private final Link[][][] leafUp; // [plane][leaf][spine]
    private final Link[][][] spineDown; // [plane][spine][leaf]
    private final List<Link> allLinks = new ArrayList<>();
    private final List<SwitchPort> switchPorts = new ArrayList<>();
    private final List<Switch> allSwitches = new ArrayList<>();
    private final List<List<Link>> linksByPlane = new ArrayList<>();

    /** Builds the fabric; every link and port draws randomness from a stream split off {@code rng}. */
    public LeafSpine(FabricConfig cfg, EventLoop loop, PacketPool pool, SplittableRandom rng) {
        this.cfg = cfg;
        int h = cfg.hosts;
        int hpl = cfg.hostsPerLeaf;
        int nl = cfg.leaves();
        int ns = cfg.spines;
        int np = cfg.planes;
        leaves = new Switch[np][nl];
        spines = new Switch[np][ns];
        nics = new SwitchPort[h][np];
        hostUp = new Link[h][np];
        hostDown = new Link[h][np];
        leafUp = new Link[np][nl][ns];
        spineDown = new Link[np][ns][nl];
        for (int p = 0; p < np; p++) {
            linksByPlane.add(new ArrayList<>());
            for (int l = 0; l < nl; l++) {
                leaves[p][l] = new Switch("p" + p + ".leaf" + l, rng.nextLong(), pool);
                allSwitches.add(leaves[p][l]);
            }
            for (int s = 0; s < ns; s++) {
                spines[p][s] = new Switch("p" + p + ".spine" + s, rng.nextLong(), pool);
                allSwitches.add(spines[p][s]);
            }
            // host <-> leaf
            for (int i = 0; i < h; i++) {
                int l = i / hpl;
                Link up = link(loop, pool, cfg.hostRateBps, cfg.hostLinkDelayPs, rng, "p" + p + ".h" + i + ">leaf" + l);
                up.connect(leaves[p][l], i % hpl);
                hostUp[i][p] = up;
                nics[i][p] = new SwitchPort(loop, pool, up, cfg.nicBufferBytes, -1, 0, 0, rng.split());
                Link down = link(loop, pool, cfg.hostRateBps, cfg.hostLinkDelayPs, rng, "p" + p + ".leaf" + l + ">h" + i);
                hostDown[i][p] = down;
                // connected to the Host later (attach)
            }
            for (int l = 0; l < nl; l++) {
                Switch leaf = leaves[p][l];
                for (int k = 0; k < hpl; k++) {
                    int i = l * hpl + k;
                    Link down = i < h ? hostDown[i][p]
                            : link(loop, pool, cfg.hostRateBps, cfg.hostLinkDelayPs, rng, "unused");
                    leaf.addPort(port(loop, pool, down, rng));
                }
                int[] up = new int[ns];
                for (int s = 0; s < ns; s++) {
                    Link ul = link(loop, pool, cfg.fabricRateBps, cfg.fabricLinkDelayPs, rng,
                            "p" + p + ".leaf" + l + ">spine" + s);
                    ul.connect(spines[p][s], l);
                    leafUp[p][l][s] = ul;
                    up[s] = leaf.addPort(port(loop, pool, ul, rng));
                }
                int[] byHost = new int[h];
                for (int i = 0; i < h; i++) {
                    byHost[i] = i / hpl == l ? i % hpl : -1;
                }
                leaf.setRoutes(byHost, up);
            }
            for (int s = 0; s < ns; s++) {
                Switch spine = spines[p][s];
                for (int l = 0; l < nl; l++) {
                    Link dl = link(loop, pool, cfg.fabricRateBps, cfg.fabricLinkDelayPs, rng,
                            "p" + p + ".spine" + s + ">leaf" + l);
                    dl.connect(leaves[p][l], hpl + s);
                    spineDown[p][s][l] = dl;
                    spine.addPort(port(loop, pool, dl, rng));
                }
                int[] byHost = new int[h];
                for (int i = 0; i < h; i++) {
                    byHost[i] = i / hpl;
                }
                spine.setRoutes(byHost, new int[0]);
            }
        }
    }

    private Link link(EventLoop loop, PacketPool pool, long rate, long delay, SplittableRandom rng, String name) {
        Link l = new Link(loop, pool, rate, delay, rng.split(), name);
        l.setLoss(cfg.linkLoss);
        allLinks.add(l);
        linksByPlane.get(linksByPlane.size() - 1).add(l);
        return l;
    }

    private SwitchPort port(EventLoop loop, PacketPool pool, Link link, SplittableRandom rng) {
        SwitchPort sp = new SwitchPort(loop, pool, link, cfg.bufferBytes, cfg.ecnKminBytes, cfg.ecnKmaxBytes,
                cfg.ecnPmax, rng.split());
        switchPorts.add(sp);
        return sp;
    }

    /** Connects host {@code i}'s downlinks (every plane) to {@code sink}. */
    @Override
    public void attach(int i, PacketSink sink) {
        for (int p = 0; p < cfg.planes; p++) {
            hostDown[i][p].connect(sink, p);
        }
    }

    @Override public FabricConfig config() { return cfg; }
    @Override public int hosts() { return cfg.hosts; }
    @Override public int planes() { return cfg.planes; }
    @Override public SwitchPort[] nics(int host) { return nics[host]; }
    public Switch leaf(int plane, int l) { return leaves[plane][l]; }
    public Switch spine(int plane, int s) { return spines[plane][s]; }
    @Override public Link hostUplink(int host, int plane) { return hostUp[host][plane]; }
    @Override public Link hostDownlink(int host, int plane) { return hostDown[host][plane]; }
    public Link leafUplink(int plane, int leaf, int spine) { return leafUp[plane][leaf][spine]; }
    public Link spineDownlink(int plane, int spine, int leaf) { return spineDown[plane][spine][leaf]; }
    @Override public List<Link> links() { return allLinks; }
    @Override public List<Link> planeLinks(int plane) { return linksByPlane.get(plane); }
    @Override public List<SwitchPort> switchPorts() { return switchPorts; }
    @Override public List<Switch> switches() { return allSwitches; }
}
