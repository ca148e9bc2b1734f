package io.metaroce.cli.perf;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * What one side of a run measured: the record's metrics (in order), and a data-verification failure if
 * {@code --verify} found one.
 */
final class Result {
    final Map<String, Object> metrics = new LinkedHashMap<>();
    /** Iterations as the record's workload states them. */
    long iters;
    /** Message size, bytes, when the peer's differs from this side's -s (a server reports the client's); 0: -s. */
    long size;
    /** Null when the data was verified or not checked. */
    String verifyFailure;
    /** True when {@code --verify} checked data on this side. */
    boolean verified;
}
