package io.metaroce.sim.fabric;

import java.util.List;
import java.util.function.ToLongFunction;

/**
 * A built multi-plane fabric: per plane an independent graph of {@link Switch}es, {@link SwitchPort}s and
 * {@link Link}s, with one NIC port per host per plane. Implemented by the topologies of {@code io.metaroce.sim.topology}, built by {@code Topologies.build};
 * transports and workloads see only this.
 *
 * <p>Faults are plain methods meant to be called at scripted virtual times (e.g. from an event scheduled on
 * the loop): {@link #setLinkLoss(double)} on every link, {@link Link#setLoss} on chosen links (found by
 * {@link #link(String)}), {@link Link#setUp} for one link and {@link #setPlaneUp} for a whole plane.
 */
public interface Fabric {
    /** The configuration the fabric was built from. */
    FabricConfig config();

    /** Hosts attached to the fabric. */
    int hosts();

    /** Independent planes. */
    int planes();

    /** Host {@code host}'s NIC output ports, indexed by plane (owned by the host's transport). */
    SwitchPort[] nics(int host);

    /** Connects host {@code host}'s downlinks (every plane) to {@code sink}; the in-port is the plane. */
    void attach(int host, PacketSink sink);

    /** Host {@code host}'s link towards the fabric on {@code plane}. */
    Link hostUplink(int host, int plane);

    /** The fabric's link towards host {@code host} on {@code plane}. */
    Link hostDownlink(int host, int plane);

    /** Every link, host links included. */
    List<Link> links();

    /** Every link of one plane, host links included (a plane failure takes them all down). */
    List<Link> planeLinks(int plane);

    /** Every switch output port (host NIC ports excluded). */
    List<SwitchPort> switchPorts();

    /** Every switch. */
    List<Switch> switches();

    /** The link named {@code name} (as {@link Link#name()} prints it); IllegalArgumentException if none. */
    default Link link(String name) {
        for (Link l : links()) {
            if (l.name().equals(name)) {
                return l;
            }
        }
        throw new IllegalArgumentException("no link named " + name);
    }

    /** Sets the random loss probability of every link (0..1). */
    default void setLinkLoss(double probability) {
        if (!(probability >= 0 && probability <= 1)) {
            throw new IllegalArgumentException("loss probability must be in [0, 1], got " + probability);
        }
        for (Link l : links()) {
            l.setLoss(probability);
        }
    }

    /** Takes every link of {@code plane} (host links included) down, dropping what is in flight, or up. */
    default void setPlaneUp(int plane, boolean up) {
        if (plane < 0 || plane >= planes()) {
            throw new IllegalArgumentException("no plane " + plane + " (planes: " + planes() + ")");
        }
        for (Link l : planeLinks(plane)) {
            l.setUp(up);
        }
    }

    /** Packets dropped at full buffers: every switch port and host NIC. */
    default long bufferDrops() {
        return sumPorts(SwitchPort::dropped);
    }

    /** PFC pauses received by every switch port and host NIC. */
    default long pfcPauses() {
        return sumPorts(SwitchPort::pfcPauses);
    }

    /** Sum of {@code counter} over every switch port and host NIC. */
    default long sumPorts(ToLongFunction<SwitchPort> counter) {
        long n = 0;
        for (SwitchPort p : switchPorts()) {
            n += counter.applyAsLong(p);
        }
        for (int h = 0; h < hosts(); h++) {
            for (SwitchPort p : nics(h)) {
                n += counter.applyAsLong(p);
            }
        }
        return n;
    }
}
