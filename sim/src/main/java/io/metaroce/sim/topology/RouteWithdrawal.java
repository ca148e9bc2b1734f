package io.metaroce.sim.topology;

import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.LinkMonitor;
import io.metaroce.sim.fabric.PacketSink;
import io.metaroce.sim.fabric.Switch;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fabric's routing control plane for failed links (what BGP or a fabric manager does in a data centre):
 * when a switch detects a dead port ({@link LinkMonitor}, after the detection delay), every switch of the plane
 * learns which of its uplinks can still reach each destination block, and hashes a block's flows only over
 * those. Without it withdrawal is local: a leaf whose own uplinks are fine keeps hashing flows for leaf 0 to a
 * spine whose only link down to leaf 0 is dead.
 *
 * <p>A destination block is the set of hosts under one first-tier switch (leaf or edge): the fabric forwards
 * them alike, and a failure above the first tier affects them alike (a dead host link has no alternative route
 * to withdraw). Reachability is computed from the ports each switch has withdrawn (its detected state, not the
 * cables' instantaneous one), by the fabric's up/down routing: a switch reaches a block through its down port
 * towards it, or, when the block is not below it, through any uplink whose far switch reaches it. Remote switches
 * update at the same instant as the detecting ones (no convergence delay is modelled beyond detection). A block
 * no uplink can reach is unroutable at that switch (packets counted in {@link Switch#unroutable()}).
 *
 * <p>Costs nothing per packet while no port is withdrawn; each change recomputes blocks x switches x uplinks
 * (8,192 hosts: about 10^7 steps, once per detected change).
 */
final class RouteWithdrawal {
    private final List<Plane> planes = new ArrayList<>();
    private long recomputations;

    /** One plane: its switches, and per host the block (first-tier switch) it belongs to. */
    private record Plane(Switch[] switches, Map<Switch, Integer> index, int[] blockOfHost, int[] blockHost,
                         Switch[] blockSwitch) {
    }

    /** The control plane of {@code fabric}'s planes; call once the graph is wired. */
    RouteWithdrawal(Fabric fabric) {
        for (int p = 0; p < fabric.planes(); p++) {
            int hosts = fabric.hosts();
            int[] blockOfHost = new int[hosts];
            List<Integer> firstHost = new ArrayList<>();
            List<Switch> tors = new ArrayList<>();
            Map<Switch, Integer> torIndex = new IdentityHashMap<>();
            for (int h = 0; h < hosts; h++) {
                Switch tor = (Switch) fabric.hostUplink(h, p).sink();
                Integer b = torIndex.get(tor);
                if (b == null) {
                    b = tors.size();
                    torIndex.put(tor, b);
                    tors.add(tor);
                    firstHost.add(h);
                }
                blockOfHost[h] = b;
            }
            // the plane's switches: everything reachable from its first tier over switch-to-switch links
            Map<Switch, Integer> index = new IdentityHashMap<>();
            List<Switch> order = new ArrayList<>(tors);
            for (Switch s : tors) {
                index.put(s, index.size());
            }
            for (int i = 0; i < order.size(); i++) {
                Switch s = order.get(i);
                for (int port = 0; port < s.portCount(); port++) {
                    if (s.port(port).link().sink() instanceof Switch next && !index.containsKey(next)) {
                        index.put(next, index.size());
                        order.add(next);
                    }
                }
            }
            planes.add(new Plane(order.toArray(new Switch[0]), index, blockOfHost,
                    firstHost.stream().mapToInt(Integer::intValue).toArray(), tors.toArray(new Switch[0])));
        }
    }

    /** Times the routes were recomputed (once per detected change). */
    long recomputations() { return recomputations; }

    /** A switch withdrew a port or let one rejoin: recompute every switch's groups per destination block. */
    void changed() {
        recomputations++;
        for (Plane plane : planes) {
            recompute(plane);
        }
    }

    private static void recompute(Plane plane) {
        Switch[] sw = plane.switches();
        int blocks = plane.blockHost().length;
        boolean anyWithdrawn = false;
        for (Switch s : sw) {
            anyWithdrawn |= s.anyWithdrawn();
        }
        int[][][] groups = new int[sw.length][][];
        if (anyWithdrawn) {
            byte[] reach = new byte[sw.length]; // per block: 0 unknown, 1 reaches, 2 does not
            for (int b = 0; b < blocks; b++) {
                java.util.Arrays.fill(reach, (byte) 0);
                int host = plane.blockHost()[b];
                for (int i = 0; i < sw.length; i++) {
                    Switch s = sw[i];
                    if (s.downPortOf(host) != -1) {
                        continue; // routed down (or not at all): no choice to make
                    }
                    int[] live = usableUplinks(plane, s, b, host, reach);
                    if (live.length != s.groupSize()) {
                        if (groups[i] == null) {
                            groups[i] = new int[blocks][];
                        }
                        groups[i][b] = live;
                    }
                }
            }
        }
        for (int i = 0; i < sw.length; i++) {
            sw[i].setBlockGroups(groups[i] == null ? null : plane.blockOfHost(), groups[i]);
        }
    }

    /** {@code s}'s uplinks, not withdrawn, whose far switch reaches block {@code b} (of which {@code host} is one). */
    private static int[] usableUplinks(Plane plane, Switch s, int b, int host, byte[] reach) {
        int[] up = s.uplinkPorts();
        int[] live = new int[up.length];
        int n = 0;
        for (int u : up) {
            if (!s.isWithdrawn(u) && reaches(plane, s.port(u).link().sink(), b, host, reach)) {
                live[n++] = u;
            }
        }
        return java.util.Arrays.copyOf(live, n);
    }

    /** Whether {@code sink} (a switch, or a host: the end) can forward to block {@code b}; memoized in {@code reach}. */
    private static boolean reaches(Plane plane, PacketSink sink, int b, int host, byte[] reach) {
        if (!(sink instanceof Switch s)) {
            return true;
        }
        if (s == plane.blockSwitch()[b]) {
            return true; // the block's own first-tier switch (host links have no alternative to withdraw)
        }
        Integer idx = plane.index().get(s);
        if (idx == null) {
            return false;
        }
        if (reach[idx] != 0) {
            return reach[idx] == 1;
        }
        reach[idx] = 2; // up/down routing has no cycles; this only guards against a miswired graph
        boolean ok;
        int down = s.downPortOf(host);
        if (down >= 0) {
            ok = !s.isWithdrawn(down) && reaches(plane, s.port(down).link().sink(), b, host, reach);
        } else if (down == -1) {
            ok = false;
            for (int u : s.uplinkPorts()) {
                if (!s.isWithdrawn(u) && reaches(plane, s.port(u).link().sink(), b, host, reach)) {
                    ok = true;
                    break;
                }
            }
        } else {
            ok = false;
        }
        reach[idx] = (byte) (ok ? 1 : 2);
        return ok;
    }
}
