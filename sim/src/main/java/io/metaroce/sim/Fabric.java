package io.metaroce.sim;

import java.util.List;
import java.util.SplittableRandom;

/**
 * A built multi-plane fabric: per plane an independent graph of {@link Switch}es, {@link SwitchPort}s and
 * {@link Link}s, with one NIC port per host per plane. Implemented by {@link LeafSpine} and the fat-tree
 * builder; transports and workloads see only this.
 */
public interface Fabric {
    /** Builds the topology {@code cfg} names, drawing every random stream from {@code rng}. */
    static Fabric build(FabricConfig cfg, EventLoop loop, PacketPool pool, SplittableRandom rng) {
        return new LeafSpine(cfg, loop, pool, rng);
    }

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
}
