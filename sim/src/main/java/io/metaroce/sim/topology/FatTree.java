package io.metaroce.sim.topology;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.Switch;

import java.util.SplittableRandom;

/**
 * A three-tier k-ary fat-tree per plane, {@code planes} independent planes. Per plane: {@code k} pods, each of
 * {@code k/2} edge (ToR) and {@code k/2} aggregation switches, and {@code (k/2)^2} core switches. Edge switch
 * {@code e} of pod {@code q} has ports {@code 0..n-1} down to its n hosts (hosts fill edges in order,
 * {@code hostsPerEdge} each) and then one port up to each aggregation switch of the pod; aggregation switch
 * {@code a} has ports {@code 0..k/2-1} down to the pod's edges and {@code k/2..k-1} up to core switches
 * {@code a*k/2 .. a*k/2+k/2-1}; core switch {@code c} has port {@code q} down to pod {@code q}.
 *
 * <p>Routing: up by ECMP (or adaptively) to the lowest common ancestor, then down by destination: an edge
 * sends its own hosts down and everything else up; an aggregation switch sends its pod's hosts down to their
 * edge and everything else up; a core sends each host down to its pod. Forwarding uses ranges, no per-host
 * tables, so a 8,192-host tree costs no memory per (switch, host). More than {@code k/2} hosts per edge
 * oversubscribes the edge (hosts * host rate over k/2 * fabric rate).
 */
public final class FatTree extends FabricGraph {
    private final int half;
    private final int hostsPerEdge;
    private final int hostsPerPod;
    private final Switch[][] edges; // [plane][pod * half + e]
    private final Switch[][] aggs; // [plane][pod * half + a]
    private final Switch[][] cores; // [plane][a * half + j]

    /** Builds the fabric; every link and port draws randomness from a stream split off {@code rng}. */
    public FatTree(FabricConfig cfg, EventLoop loop, PacketPool pool, SplittableRandom rng) {
        super(cfg, loop, pool, rng);
        int k = cfg.k;
        int h = cfg.hosts;
        half = k / 2;
        hostsPerEdge = cfg.edgeHosts();
        hostsPerPod = half * hostsPerEdge;
        int np = cfg.planes;
        edges = new Switch[np][k * half];
        aggs = new Switch[np][k * half];
        cores = new Switch[np][half * half];
        for (int p = 0; p < np; p++) {
            for (int c = 0; c < half * half; c++) {
                cores[p][c] = newSwitch(p, "core" + c);
                cores[p][c].setRoutes(0, h, hostsPerPod, 0, new int[0]);
            }
            for (int q = 0; q < k; q++) {
                int podLo = Math.min(h, q * hostsPerPod);
                int podHi = Math.min(h, podLo + hostsPerPod);
                for (int i = 0; i < half; i++) {
                    edges[p][q * half + i] = newSwitch(p, "pod" + q + ".edge" + i);
                    aggs[p][q * half + i] = newSwitch(p, "pod" + q + ".agg" + i);
                }
                for (int e = 0; e < half; e++) {
                    Switch edge = edges[p][q * half + e];
                    int lo = Math.min(h, podLo + e * hostsPerEdge);
                    int hi = Math.min(h, lo + hostsPerEdge);
                    for (int i = lo; i < hi; i++) {
                        hostLinks(p, i, edge, i - lo);
                    }
                    int[] up = new int[half];
                    for (int a = 0; a < half; a++) {
                        up[a] = edge.portCount();
                        cable(p, edge, aggs[p][q * half + a]); // the agg's port e
                    }
                    edge.setRoutes(lo, hi, 1, 0, up);
                }
                for (int a = 0; a < half; a++) {
                    Switch agg = aggs[p][q * half + a];
                    int[] up = new int[half];
                    for (int j = 0; j < half; j++) {
                        up[j] = agg.portCount();
                        cable(p, agg, cores[p][a * half + j]); // the core's port q
                    }
                    agg.setRoutes(podLo, podHi, hostsPerEdge, 0, up);
                }
            }
        }
        finish();
    }

    /** Switch arity k. */
    public int k() { return 2 * half; }
    /** Hosts per edge switch. */
    public int hostsPerEdge() { return hostsPerEdge; }
    /** Pod of host {@code host}. */
    public int podOf(int host) { return host / hostsPerPod; }
    /** Edge switch index within its pod of host {@code host}. */
    public int edgeOf(int host) { return host % hostsPerPod / hostsPerEdge; }
    /** Edge switch {@code e} of pod {@code pod} on {@code plane}. */
    public Switch edge(int plane, int pod, int e) { return edges[plane][pod * half + e]; }
    /** Aggregation switch {@code a} of pod {@code pod} on {@code plane}. */
    public Switch agg(int plane, int pod, int a) { return aggs[plane][pod * half + a]; }
    /** Core switch {@code c} of {@code plane}. */
    public Switch core(int plane, int c) { return cores[plane][c]; }
    /** Link from edge {@code e} of {@code pod} up to the pod's aggregation switch {@code a}. */
    public Link edgeUplink(int plane, int pod, int e, int a) {
        Switch edge = edge(plane, pod, e);
        return edge.port(edge.portCount() - half + a).link();
    }
    /** Link from aggregation switch {@code a} of {@code pod} down to the pod's edge {@code e}. */
    public Link aggDownlink(int plane, int pod, int a, int e) { return agg(plane, pod, a).port(e).link(); }
    /** Link from aggregation switch {@code a} of {@code pod} up to core {@code a * k/2 + j}. */
    public Link aggUplink(int plane, int pod, int a, int j) { return agg(plane, pod, a).port(half + j).link(); }
    /** Link from core {@code c} down to pod {@code pod}. */
    public Link coreDownlink(int plane, int c, int pod) { return core(plane, c).port(pod).link(); }
}
