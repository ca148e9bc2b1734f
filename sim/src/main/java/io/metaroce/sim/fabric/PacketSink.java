package io.metaroce.sim.fabric;

/** Where a {@link Link} delivers packets: a switch or a host NIC. */
public interface PacketSink {
    /** Takes ownership of {@code p}, arriving now on {@code inPort} of this node. */
    void receive(Packet p, int inPort);
}
