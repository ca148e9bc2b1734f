/**
 * The RoCEv2 baseline transport: reliable-connection QPs with go-back-N retransmission, one QP per flow pinned to
 * one path by its UDP source port, DCQCN rate control reacting to ECN, and its counters.
 */
package io.metaroce.sim.roce;
