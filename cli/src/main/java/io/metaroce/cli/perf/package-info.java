/**
 * perftest-style tools over the real UDP datapath ({@code metaroce perf write-bw|send-bw|read-bw|write-lat|send-lat})
 * and {@code metaroce stats}: one side per process, the buffer exchange and the close over the RDMA connection
 * itself, perftest's report format, experiment records and a statistics file.
 */
package io.metaroce.cli.perf;
