package io.metaroce.net;

import java.io.IOException;
import java.net.Inet4Address;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.StandardSocketOptions;
import java.nio.ByteBuffer;
import java.nio.channels.DatagramChannel;

/**
 * The portable fallback: a non-blocking {@link DatagramChannel}, one system call per datagram and blind to ECN
 * (every datagram is reported as not-ECT). Slower than {@link LinuxUdp}; used where FFM or Linux is missing.
 */
final class ChannelUdp implements UdpSocket {
    private final DatagramChannel channel;
    private final InetSocketAddress local;
    private ByteBuffer[] views;
    private PacketBatch viewsOf;
    private int lastAddr;
    private int lastPort = -1;
    private InetSocketAddress lastTarget;
    private SendStats stats = new SendStats();

    ChannelUdp(InetSocketAddress bindTo, int bufferBytes) throws IOException {
        channel = DatagramChannel.open(StandardProtocolFamily.INET);
        channel.configureBlocking(false);
        channel.setOption(StandardSocketOptions.SO_REUSEADDR, true);
        channel.setOption(StandardSocketOptions.SO_RCVBUF, bufferBytes);
        channel.setOption(StandardSocketOptions.SO_SNDBUF, bufferBytes);
        channel.setOption(StandardSocketOptions.IP_TOS, 2); // ECT(0), where the platform lets us
        channel.bind(bindTo);
        local = (InetSocketAddress) channel.getLocalAddress();
    }

    private ByteBuffer[] views(PacketBatch b) {
        if (viewsOf != b) {
            views = new ByteBuffer[b.capacity];
            for (int i = 0; i < b.capacity; i++) {
                views[i] = b.slots[i].asByteBuffer();
            }
            viewsOf = b;
        }
        return views;
    }

    @Override
    public InetSocketAddress localAddress() {
        return local;
    }

    @Override
    public int send(PacketBatch batch, int[] indices, int n) throws IOException {
        ByteBuffer[] v = views(batch);
        int sent = 0;
        for (int k = 0; k < n; k++) {
            int i = indices[k];
            batch.flatten(i); // a DatagramChannel sends one buffer: gathered payloads are copied into the slot
            ByteBuffer b = v[i];
            b.clear().limit(batch.length[i]);
            if (batch.addr[i] != lastAddr || batch.port[i] != lastPort) { // one peer per run: reuse it
                lastAddr = batch.addr[i];
                lastPort = batch.port[i];
                lastTarget = new InetSocketAddress(Ipv4.address(lastAddr), lastPort);
            }
            stats.sendCalls++;
            if (channel.send(b, lastTarget) > 0) {
                sent++;
            }
        }
        stats.messages += sent;
        stats.datagrams += sent;
        return sent;
    }

    @Override
    public void countInto(SendStats s) {
        stats = s;
    }

    @Override
    public int receive(PacketBatch batch) throws IOException {
        ByteBuffer[] v = views(batch);
        int n = 0;
        while (n < batch.capacity) {
            ByteBuffer b = v[n];
            b.clear();
            InetSocketAddress from = (InetSocketAddress) channel.receive(b);
            if (from == null) {
                break;
            }
            batch.length[n] = b.position();
            batch.arrivalNs[n] = System.nanoTime(); // handed over now (a DatagramChannel reports no kernel time)
            if (from.getAddress() instanceof Inet4Address a4) {
                batch.addr[n] = Ipv4.of(a4);
            }
            batch.port[n] = from.getPort();
            batch.ecn[n] = 0;
            batch.dscp[n] = 0;
            batch.segmentSize[n] = 0;
            batch.truncated[n] = false; // a channel drops the excess silently: the engine's length checks catch it
            n++;
        }
        batch.count = n;
        return n;
    }

    @Override
    public boolean seesEcn() {
        return false;
    }

    @Override
    public boolean gro() {
        return false;
    }

    @Override
    public void close() {
        try {
            channel.close();
        } catch (IOException ignored) {
            // closing a datagram channel cannot lose data
        }
    }
}
