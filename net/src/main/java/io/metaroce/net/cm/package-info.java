/**
 * The connection manager (spec CM-1..CM-16), sans-IO: {@link io.metaroce.net.cm.CmEndpoint} parses CM datagrams,
 * drives the engine's QPs through their verbs and emits its own datagrams through a {@link
 * io.metaroce.net.cm.CmHost}, on the time every call carries. The real datapath ({@code Device}) and the
 * conformance suite's in-process target and agent run this same code.
 */
package io.metaroce.net.cm;
