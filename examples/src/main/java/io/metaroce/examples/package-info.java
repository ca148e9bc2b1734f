/**
 * Programs to copy: two processes talking RDMA over the real UDP datapath ({@code metaroce-net}).
 * {@link io.metaroce.examples.WritePingPong} is a WRITE + SEND/RECV ping-pong, {@link io.metaroce.examples.RemoteRead}
 * a one-sided READ of a buffer the other side exports. Both exchange buffer information (address, rkey, length)
 * over the connection with {@link io.metaroce.net.BufferExchange}. The walk-through is {@code docs/guide/}.
 */
package io.metaroce.examples;
