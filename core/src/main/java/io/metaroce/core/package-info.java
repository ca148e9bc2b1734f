/**
 * The sans-IO MetaRoCE engine and its verbs model: {@link io.metaroce.core.Engine} takes datagrams, time and
 * verbs calls, and gives back datagrams to send, work completions and its next deadline. It owns no socket,
 * thread or clock, so the same code runs on the real network, in the simulator and under the compliance
 * suite. Protection domains, memory regions over {@code MemorySegment}s, completion queues and queue pairs
 * follow libibverbs; paths, SACK, retransmission, congestion control and grants follow {@code docs/spec/}.
 */
package io.metaroce.core;
