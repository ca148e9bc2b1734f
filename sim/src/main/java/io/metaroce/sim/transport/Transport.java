package io.metaroce.sim.transport;

import io.metaroce.sim.event.EventLoop;
import io.metaroce.sim.fabric.Fabric;

import java.util.Map;

/**
 * A transport protocol serving every host of one {@link Fabric}: MetaRoCE (the real engine from {@code core},
 * see {@code MetaRoceTransport}) or the RoCEv2 baseline ({@code RoceTransport}). Workloads see only this:
 * they open connections (one QP pair each), post messages, and hear when a message is delivered at the
 * receiver and completed at the sender. All times are virtual (picoseconds of the shared {@link EventLoop}).
 */
public interface Transport {
    /** Hears about messages. Called from inside the event loop. */
    interface Listener {
        /** The receiver of connection {@code conn} holds every byte of message {@code tag}. */
        void delivered(int conn, long tag, long nowPs);

        /** The sender's completion of message {@code tag} on {@code conn}; {@code ok} false for an error. */
        void completed(int conn, long tag, long nowPs, boolean ok);
    }

    /** Short name used in records: {@code metaroce} or {@code rocev2}. */
    String name();

    /** Sets the one listener (replacing any earlier one). */
    void setListener(Listener listener);

    /** Opens a connection (one QP pair) from host {@code src} to host {@code dst}; ids count up from 0. */
    int connect(int src, int dst);

    /** Connections opened so far. */
    int connections();

    /** Source host of connection {@code conn}. */
    int source(int conn);

    /** Destination host of connection {@code conn}. */
    int destination(int conn);

    /**
     * Posts a message of {@code bytes} (&gt; 0) on {@code conn}, now; messages of one connection are
     * delivered and completed in posting order.
     */
    void send(int conn, long bytes, long tag);

    /** New payload bytes of {@code conn} received so far (duplicates not counted): goodput over time. */
    long receivedBytes(int conn);

    /** Data packets sent by all hosts (originals and retransmits): the benchmark's unit of work. */
    long dataPacketsSent();

    /**
     * Named counters summed over every host, with the metric names of EXPERIMENTS.md where one exists:
     * {@code retransmits}, {@code timeouts}, {@code path_failovers}, {@code cnps}, {@code naks},
     * {@code internal_errors}, ...; a transport reports the ones it has.
     */
    Map<String, Long> counters();
}
