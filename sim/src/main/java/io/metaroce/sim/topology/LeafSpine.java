package io.metaroce.sim.topology;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.Switch;

import java.util.SplittableRandom;

/**
 * A two-tier leaf-spine fabric per plane, {@code planes} independent planes. Per plane: leaf {@code l} has
 * ports {@code 0..n-1} down to its n hosts and then one port up to each spine; spine {@code s} has port
 * {@code l} down to leaf {@code l}. Routing is shortest path: leaf to spine by ECMP (or adaptively) over all
 * spines, spine to leaf by destination. Host NIC ports are built here but owned by the hosts' transport.
 *
 * <p>Failed links stay in the ECMP groups unless {@code fabric.linkFailureDetectPs} is set: then, that long after
 * a cable fails, its switches withdraw it and every other leaf stops hashing the cut-off leaf's flows to the spine
 * that lost it ({@link RouteWithdrawal}). Without detection the transport routes around dead links by abandoning
 * path ids.
 */
public final class LeafSpine extends FabricGraph {
    private final Switch[][] leaves; // [plane][leaf]
    private final Switch[][] spines; // [plane][spine]
    private final Link[][][] leafUp; // [plane][leaf][spine]
    private final Link[][][] spineDown; // [plane][spine][leaf]

    /** Builds the fabric; every link and port draws randomness from a stream split off {@code rng}. */
    public LeafSpine(FabricConfig cfg, EventLoop loop, PacketPool pool, SplittableRandom rng) {
        super(cfg, loop, pool, rng);
        int h = cfg.hosts;
        int hpl = cfg.hostsPerLeaf;
        int nl = cfg.leaves();
        int ns = cfg.spines;
        int np = cfg.planes;
        leaves = new Switch[np][nl];
        spines = new Switch[np][ns];
        leafUp = new Link[np][nl][ns];
        spineDown = new Link[np][ns][nl];
        for (int p = 0; p < np; p++) {
            for (int l = 0; l < nl; l++) {
                leaves[p][l] = newSwitch(p, "leaf" + l);
            }
            for (int s = 0; s < ns; s++) {
                spines[p][s] = newSwitch(p, "spine" + s);
                spines[p][s].setRoutes(0, h, hpl, 0, new int[0]);
            }
            for (int l = 0; l < nl; l++) {
                Switch leaf = leaves[p][l];
                int lo = l * hpl;
                int hi = Math.min(h, lo + hpl);
                for (int i = lo; i < hi; i++) {
                    hostLinks(p, i, leaf, i - lo);
                }
                int[] up = new int[ns];
                for (int s = 0; s < ns; s++) {
                    up[s] = leaf.portCount();
                    leafUp[p][l][s] = cable(p, leaf, spines[p][s]);
                    spineDown[p][s][l] = spines[p][s].port(l).link();
                }
                leaf.setRoutes(lo, hi, 1, 0, up);
            }
        }
        finish();
    }

    /** Leaf {@code l} of {@code plane}. */
    public Switch leaf(int plane, int l) { return leaves[plane][l]; }
    /** Spine {@code s} of {@code plane}. */
    public Switch spine(int plane, int s) { return spines[plane][s]; }
    /** The link from {@code leaf} up to {@code spine} on {@code plane}. */
    public Link leafUplink(int plane, int leaf, int spine) { return leafUp[plane][leaf][spine]; }
    /** The link from {@code spine} down to {@code leaf} on {@code plane}. */
    public Link spineDownlink(int plane, int spine, int leaf) { return spineDown[plane][spine][leaf]; }
}
