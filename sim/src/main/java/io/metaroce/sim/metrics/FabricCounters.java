package io.metaroce.sim.metrics;

import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.SwitchPort;

/** Loss and marking counters summed over a whole fabric (every switch port, host NIC and link). */
public final class FabricCounters {
    private FabricCounters() {
    }

    /**
     * Buffer drops (switch ports and host NICs) and link drops (random loss, link down) of {@code fabric}.
     *
     * @param fabric the fabric
     * @return {buffer drops, link drops}, packets
     */
    public static long[] drops(Fabric fabric) {
        long buffer = 0;
        for (SwitchPort sp : fabric.switchPorts()) {
            buffer += sp.dropped();
        }
        for (int h = 0; h < fabric.hosts(); h++) {
            for (SwitchPort nic : fabric.nics(h)) {
                buffer += nic.dropped();
            }
        }
        long link = 0;
        for (Link l : fabric.links()) {
            link += l.dropped();
        }
        return new long[] {buffer, link};
    }

    /**
     * CE marks made by the switch ports of {@code fabric}.
     *
     * @param fabric the fabric
     * @return packets marked
     */
    public static long ecnMarks(Fabric fabric) {
        long n = 0;
        for (SwitchPort sp : fabric.switchPorts()) {
            n += sp.ecnMarked();
        }
        return n;
    }
}
