package io.metaroce.fuzz;

/** Keeps values the fuzz targets read alive, so that the reads cannot be optimised away. */
final class Sink {
    private static volatile long sink;

    private Sink() {
    }

    static void consume(long v) {
        sink += v;
    }
}
