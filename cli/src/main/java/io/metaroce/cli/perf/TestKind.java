package io.metaroce.cli.perf;

/** The perf tests, after perftest's ib_write_bw, ib_send_bw, ib_read_bw, ib_write_lat and ib_send_lat. */
enum TestKind {
    WRITE_BW("write-bw", "RDMA_Write BW Test", false),
    SEND_BW("send-bw", "Send BW Test", false),
    READ_BW("read-bw", "RDMA_Read BW Test", false),
    WRITE_LAT("write-lat", "RDMA_Write Latency Test", true),
    SEND_LAT("send-lat", "Send Latency Test", true);

    /** Default message size of bandwidth tests, bytes (perftest's). */
    static final int BW_DEFAULT_SIZE = 65_536;
    /** Default message size of latency tests, bytes (perftest's). */
    static final int LAT_DEFAULT_SIZE = 8;

    private final String id;
    private final String title;
    private final boolean latency;

    TestKind(String id, String title, boolean latency) {
        this.id = id;
        this.title = title;
        this.latency = latency;
    }

    /** The subcommand name and the record's workload kind, e.g. {@code write-bw}. */
    String id() {
        return id;
    }

    /** The perftest-style title of the header block. */
    String title() {
        return title;
    }

    boolean latency() {
        return latency;
    }

    int defaultSize() {
        return latency ? LAT_DEFAULT_SIZE : BW_DEFAULT_SIZE;
    }

    /** perftest's defaults: 5000 iterations for bandwidth, 1000 for latency. */
    long defaultIters() {
        return latency ? 1_000 : 5_000;
    }
}
