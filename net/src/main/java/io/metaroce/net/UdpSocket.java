package io.metaroce.net;

import java.io.IOException;
import java.net.InetSocketAddress;

/**
 * One non-blocking UDP/IPv4 socket of the datapath. Used by the device's agent thread only.
 */
interface UdpSocket extends AutoCloseable {
    /** The bound local address (with the actual port when 0 was asked). */
    InetSocketAddress localAddress();

    /**
     * Sends the slots {@code indices[0, n)} of {@code batch} to their addr/port; returns how many the kernel
     * took (the rest are dropped and counted by the caller: the protocol recovers them).
     */
    int send(PacketBatch batch, int[] indices, int n) throws IOException;

    /** Receives up to {@code batch.capacity} datagrams into slots 0..; returns how many (0 when none wait). */
    int receive(PacketBatch batch) throws IOException;

    /**
     * Fixes the socket's destination ({@code connect(2)}): sends to it then skip the route lookup per datagram
     * ({@code addr} an IPv4 address as an int). Other destinations still work. False when not supported or refused.
     */
    default boolean connect(int addr, int port) {
        return false;
    }

    /** From now on, adds what this socket sends to {@code stats} (which may be shared by several sockets). */
    default void countInto(SendStats stats) {
    }

    /** True when received datagrams carry their real ECN codepoint. */
    boolean seesEcn();

    /** True when the socket hands coalesced (GRO) buffers; slot segment sizes then tell how to split them. */
    boolean gro();

    @Override
    void close();
}
