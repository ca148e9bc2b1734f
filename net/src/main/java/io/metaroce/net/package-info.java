/**
 * The real datapath and the application's entry point: {@link io.metaroce.net.Device} (one engine, one UDP
 * socket per plane and per path, one I/O agent thread), {@link io.metaroce.net.DeviceQp} and
 * {@link io.metaroce.net.DeviceCq} for non-blocking posts and polls, {@link io.metaroce.net.BufferInfo} and
 * {@link io.metaroce.net.BufferExchange} to tell a peer where a buffer is, the connection manager over UDP, and
 * the UDP transports (FFM {@code sendmmsg}/{@code recvmmsg} with ECN, or {@code DatagramChannel}). The guide is
 * {@code docs/guide/}.
 */
package io.metaroce.net;
