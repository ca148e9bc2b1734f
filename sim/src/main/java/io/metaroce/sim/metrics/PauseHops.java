package io.metaroce.sim.metrics;

import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.PacketSink;
import io.metaroce.sim.fabric.Switch;
import io.metaroce.sim.fabric.SwitchPort;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Every output port of a fabric (switch ports and host NICs) by its distance upstream of one host, in links: hop 1
 * is the switch port feeding the host, hop 2 every port feeding that switch (the spines' downlinks and the NICs of
 * the host's neighbours), hop 3 the ports feeding those switches, and so on. A PFC pause travels exactly this
 * way, one hop per XOFF, so the pauses counted per hop show how far a congestion tree grew. Ports that cannot
 * reach the host (no forwarding path towards it through switches) are left out.
 */
final class PauseHops {
    private final List<SwitchPort> ports = new ArrayList<>();
    private final List<Integer> hops = new ArrayList<>();
    private int maxHop;

    /** The ports of {@code fabric} upstream of host {@code host}, on every plane. */
    PauseHops(Fabric fabric, int host) {
        Map<PacketSink, List<SwitchPort>> feeding = new IdentityHashMap<>();
        List<SwitchPort> all = new ArrayList<>(fabric.switchPorts());
        for (int h = 0; h < fabric.hosts(); h++) {
            all.addAll(List.of(fabric.nics(h)));
        }
        for (SwitchPort p : all) {
            PacketSink sink = p.link().sink();
            if (sink != null) {
                feeding.computeIfAbsent(sink, k -> new ArrayList<>()).add(p);
            }
        }
        Map<SwitchPort, Switch> owner = new IdentityHashMap<>();
        for (Switch s : fabric.switches()) {
            for (int i = 0; i < s.portCount(); i++) {
                owner.put(s.port(i), s);
            }
        }
        Map<SwitchPort, Integer> seen = new IdentityHashMap<>();
        List<SwitchPort> level = new ArrayList<>();
        for (int p = 0; p < fabric.planes(); p++) {
            Link down = fabric.hostDownlink(host, p);
            for (SwitchPort sp : all) {
                if (sp.link() == down) {
                    level.add(sp);
                }
            }
        }
        for (int hop = 1; !level.isEmpty(); hop++) {
            List<SwitchPort> next = new ArrayList<>();
            for (SwitchPort sp : level) {
                if (seen.putIfAbsent(sp, hop) != null) {
                    continue;
                }
                ports.add(sp);
                hops.add(hop);
                maxHop = hop;
                Switch node = owner.get(sp);
                if (node != null) { // a host NIC is a leaf of the tree: hosts forward nothing
                    next.addAll(feeding.getOrDefault(node, List.of()));
                }
            }
            level = next;
        }
    }

    /** Largest hop of any port (0 when nothing feeds the host). */
    int maxHop() { return maxHop; }

    /** Ports counted. */
    int size() { return ports.size(); }

    SwitchPort port(int i) { return ports.get(i); }

    /** Hop (1..{@link #maxHop()}) of port {@code i}. */
    int hop(int i) { return hops.get(i); }
}
