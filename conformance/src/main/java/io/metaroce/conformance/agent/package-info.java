/**
 * The conformance agent: an implementation under test behind the suite's control protocol
 * ({@code docs/conformance/AGENT-PROTOCOL.md}); this one serves our own engine on a UDP socket.
 */
package io.metaroce.conformance.agent;
