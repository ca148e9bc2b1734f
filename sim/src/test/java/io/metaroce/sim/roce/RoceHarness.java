package io.metaroce.sim.roce;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.Link;
import io.metaroce.sim.fabric.PacketPool;
import io.metaroce.sim.fabric.SwitchPort;
import io.metaroce.sim.topology.Topologies;
import io.metaroce.sim.transport.Transport;

import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;

/** A fabric with the RoCEv2 transport on every host, recording deliveries and completions (tests only). */
final class RoceHarness implements Transport.Listener {
    /** One completion: connection, tag, time, status. */
    record Completion(int conn, long tag, long atPs, boolean ok) { }

    final EventLoop loop = new EventLoop();
    final PacketPool pool = new PacketPool(16); // header-level model: no payload bytes
    final Fabric fabric;
    final RoceTransport roce;
    final List<Completion> completions = new ArrayList<>();
    final List<Completion> deliveries = new ArrayList<>();

    RoceHarness(long seed, FabricConfig fc, RoceConfig rc) {
        SplittableRandom master = new SplittableRandom(seed);
        fabric = Topologies.build(fc, loop, pool, master.split());
        roce = new RoceTransport(loop, pool, fabric, rc, master.split());
        roce.setListener(this);
    }

    @Override
    public void delivered(int conn, long tag, long nowPs) {
        deliveries.add(new Completion(conn, tag, nowPs, true));
    }

    @Override
    public void completed(int conn, long tag, long nowPs, boolean ok) {
        completions.add(new Completion(conn, tag, nowPs, ok));
    }

    long okCompletions() {
        return completions.stream().filter(Completion::ok).count();
    }

    long lastCompletionPs() {
        return completions.stream().mapToLong(Completion::atPs).max().orElse(-1);
    }

    long counter(String name) {
        Long v = roce.counters().get(name);
        if (v == null) {
            throw new IllegalArgumentException("no counter " + name);
        }
        return v;
    }

    /** The switch port that sends on {@code fabric.hostDownlink(host, plane)}: the last hop to a host. */
    SwitchPort lastHop(int host, int plane) {
        Link down = fabric.hostDownlink(host, plane);
        for (SwitchPort sp : fabric.switchPorts()) {
            if (sp.link() == down) {
                return sp;
            }
        }
        throw new IllegalStateException("no port feeds host " + host);
    }

    /** Runs {@code action} at {@code atPs}. */
    void at(long atPs, Runnable action) {
        loop.schedule(atPs, arg -> action.run(), 0);
    }

    /** Calls {@code sample} every {@code periodPs} from {@code periodPs} up to {@code untilPs}. */
    void every(long periodPs, long untilPs, Runnable sample) {
        for (long t = periodPs; t <= untilPs; t += periodPs) {
            at(t, sample);
        }
    }
}
