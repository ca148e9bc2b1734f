package io.metaroce.sim.topology;

import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.Switch;
import io.metaroce.sim.fabric.SwitchPort;

import java.util.ArrayList;
import java.util.List;

/** Finds a fabric's ports and links by the names experiment files use ({@code p0.leaf0:3}, {@code p0.leaf0>p0.spine1}). */
public final class FabricNames {
    private FabricNames() {
    }

    /** The plane {@code l} belongs to (0 when none lists it). */
    public static int planeOf(Fabric fabric, Link l) {
        for (int p = 0; p < fabric.planes(); p++) {
            if (fabric.planeLinks(p).contains(l)) {
                return p;
            }
        }
        return 0;
    }

    /** The switch port named {@code switch name:port index}. */
    public static SwitchPort port(Fabric fabric, String name) {
        int colon = name.lastIndexOf(':');
        if (colon > 0) {
            String sw = name.substring(0, colon);
            int idx;
            try {
                idx = Integer.parseInt(name.substring(colon + 1));
            } catch (NumberFormatException e) {
                idx = -1;
            }
            for (Switch s : fabric.switches()) {
                if (s.name().equals(sw) && idx >= 0 && idx < s.portCount()) {
                    return s.port(idx);
                }
            }
        }
        throw new IllegalArgumentException("no switch port named '" + name + "' (switch name:port index)");
    }

    /** The link named {@code name}. */
    public static Link link(Fabric fabric, String name) {
        for (Link l : fabric.links()) {
            if (l.name().equals(name)) {
                return l;
            }
        }
        throw new IllegalArgumentException("no link named '" + name + "'");
    }

    /** The switch output port that sends on {@code link}. */
    public static SwitchPort portFeeding(Fabric fabric, Link link) {
        for (Switch s : fabric.switches()) {
            for (int i = 0; i < s.portCount(); i++) {
                if (s.port(i).link() == link) {
                    return s.port(i);
                }
            }
        }
        throw new IllegalArgumentException("no switch port sends on " + link.name());
    }

    /** Links named {@code P.<kind><n>>T} for the cross link's plane P, target T and source kind. */
    public static List<Link> peers(Fabric fabric, Link of) {
        String n = of.name();
        int dot = n.indexOf('.');
        int gt = n.indexOf('>');
        if (dot < 0 || gt < dot) {
            return List.of(of);
        }
        String plane = n.substring(0, dot + 1);
        String target = n.substring(gt);
        String kind = n.substring(dot + 1, gt).replaceAll("[0-9]+$", "");
        List<Link> out = new ArrayList<>();
        for (Link l : fabric.links()) {
            String m = l.name();
            int g = m.indexOf('>');
            if (m.startsWith(plane) && g > plane.length() && m.substring(g).equals(target)
                    && m.substring(plane.length(), g).replaceAll("[0-9]+$", "").equals(kind)) {
                out.add(l);
            }
        }
        return out;
    }
}
