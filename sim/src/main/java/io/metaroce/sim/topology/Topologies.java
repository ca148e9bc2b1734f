package io.metaroce.sim.topology;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.fabric.Fabric;
import io.metaroce.sim.fabric.FabricConfig;
import io.metaroce.sim.fabric.PacketPool;

import java.util.SplittableRandom;

/** Builds the {@link Fabric} a {@link FabricConfig} describes: a {@link LeafSpine} or a {@link FatTree}. */
public final class Topologies {
    private Topologies() {
    }

    /**
     * Builds the topology {@code cfg.topology} names ({@link FabricConfig#LEAF_SPINE} or
     * {@link FabricConfig#FAT_TREE}), drawing every random stream from {@code rng}; an invalid configuration
     * throws IllegalArgumentException naming the bad field.
     *
     * @param cfg  the fabric's configuration (validated here)
     * @param loop the event loop the fabric's links and switches schedule on
     * @param pool the packet pool they share
     * @param rng  the random stream every link, port and ECMP salt splits from
     * @return the built fabric
     */
    public static Fabric build(FabricConfig cfg, EventLoop loop, PacketPool pool, SplittableRandom rng) {
        cfg.validate();
        return FabricConfig.FAT_TREE.equals(cfg.topology) ? new FatTree(cfg, loop, pool, rng)
                : new LeafSpine(cfg, loop, pool, rng);
    }
}
