package io.metaroce.sim.workload;

/** What the hosts of an experiment do: one of the workload kinds with its sizes and start times. */
public final class WorkloadSpec {
    /** Defaults: a random permutation of 1 MiB flows over all hosts. */
    public WorkloadSpec() {
    }

    /**
     * {@code bulk} (explicit {@code pairs} src-dst flows, or host i to host i+hosts/2), {@code incast}
     * ({@code senders} hosts to {@code receiver}), {@code permutation} (seeded random permutation, every host sends
     * to one and receives from one), {@code alltoall} (nccl-tests' all-to-all: every rank sends bytes/N to every
     * other, all at once), {@code alltoall-pairwise} (the same in N-1 rounds of pairwise exchange: in round k rank
     * r sends to r+k and receives from r-k, and starts round k+1 when both are done), {@code allreduce} (RCCL's
     * ring all-reduce, reduce-scatter + all-gather, pipelined: see {@code RingAllReduce}), {@code
     * allreduce-stepwise} (the same ring with every one of its 2(N-1) steps of bytes/N sent as one message the
     * next step waits for), {@code hotspot} (E6 congestion tree: the
     * victim flows of {@code pairs} from {@code startPs}, and from {@code hotStartPs} an incast of
     * {@code hotSenders} into {@code receiver}), {@code storm} (E6 pause storm: as {@code hotspot}, and the
     * receiver's NIC stops draining at {@code hotStartPs}).
     */
    public String kind = "permutation";
    /**
     * Bytes per flow (bulk, incast, permutation), or a collective's buffer per rank, nccl-tests' "size" (all-reduce:
     * the buffer reduced; all-to-all: the send buffer, bytes/N of it to each rank).
     */
    public long bytes = 1 << 20;
    /** Messages each flow is split into (posted together, or one every {@code messageGapPs}). */
    public int messages = 1;
    /** Message m of a flow is posted at the flow's start + m * messageGapPs (0 = all at the start). */
    public long messageGapPs = 0;
    /**
     * Connections (QP pairs) per source-destination pair; bytes are split over them. For {@code allreduce} the
     * channels (RCCL's nChannels): each channel is one QP per ring neighbour running its own share of the buffer.
     */
    public int qpsPerPair = 1;
    /**
     * Pipelined all-reduce: bytes of one slice, the unit forwarded as soon as it has arrived (RCCL's slice: 2 of
     * the 8 FIFO steps of a 4 MiB buffer, 1 MiB). A step's chunk is {@code chunkSlices} slices, smaller when the
     * buffer is small.
     */
    public long sliceBytes = 1 << 20;
    /** Pipelined all-reduce: slices per chunk (the data one ring step moves per channel and loop). */
    public int chunkSlices = 2;
    /**
     * Pipelined all-reduce: receive FIFO depth per channel, in slices (RCCL: 8 steps of 2 per slice, 4); a rank
     * sends slice g only once its neighbour has consumed slice g - slots. Must exceed {@code chunkSlices}.
     */
    public int slots = 4;
    /** Incast: number of senders. */
    public int senders = 8;
    /** Incast: the receiving host. */
    public int receiver = 0;
    /** Bulk: explicit pairs as "src-dst,src-dst,..."; empty = host i to host (i + hosts/2) for the first half. */
    public String pairs = "";
    /** Collectives: ranks taking part (hosts 0..ranks-1); 0 = every host. */
    public int ranks = 0;
    /** Virtual time at which the workload starts. */
    public long startPs = 0;
    /** Flow i (or sender i) starts at startPs + i * staggerPs. */
    public long staggerPs = 0;
    /**
     * Cross traffic (E8, one congested path among many): a switch port, by name ({@code Switch.name() + ":" +
     * port}), on which constant-rate filler packets addressed to host {@code crossDst} are queued from
     * {@code crossStartPs} to {@code crossStopPs} (0 = until the workload ends); empty = none. The filler takes
     * the port's buffer and link like any packet (PFC cannot pause it); the destination host discards it.
     */
    public String crossPort = "";
    /** Cross traffic: offered rate in Gb/s. */
    public double crossGbps = 0;
    /** Cross traffic: destination host (reachable through {@code crossPort}, best one no flow uses). */
    public int crossDst = -1;
    /** Cross traffic: bytes per filler packet. */
    public int crossPacketBytes = 4096;
    /** Cross traffic: start time. */
    public long crossStartPs = 0;
    /** Cross traffic: stop time (0 = when the workload ends). */
    public long crossStopPs = 0;
    /**
     * Hotspot and storm: the incast senders into {@code receiver}, as host numbers and inclusive ranges
     * ({@code "8..11,16..19"}); the {@code pairs} flows are the victims.
     */
    public String hotSenders = "";
    /** Hotspot and storm: bytes each hot sender sends (0 = {@code bytes}). */
    public long hotBytes = 0;
    /** Hotspot and storm: when the hot senders start (and, for storm, when the receiver stops draining). */
    public long hotStartPs = 0;
}
