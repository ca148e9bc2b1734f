package io.metaroce.cli.sim;

import picocli.CommandLine.Command;
import picocli.CommandLine.Unmatched;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code metaroce sim bench}: the simulator benchmark of {@code bench/sim.sh} ({@link SimBench}) in the launcher's
 * process, so a cold run pays what every {@code ./metaroce} command pays (JVM start, class loading, JIT) and gains
 * what the launcher's AOT cache saves.
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "The htsim-comparable simulator benchmark (k-ary fat-tree, 100 Gb/s, a permutation of 2 MB "
                + "flows or an all-to-all of 512 KiB): --k K (8: 128 hosts), --workload permutation|alltoall, "
                + "--flow-bytes B, --seed S, --paths P, --warmups N (1), --limit-ms M, --payload on|off, --trimming "
                + "on|off (switches trim what their buffers cannot take, receivers NAK it: REL-17), --counters on|off "
                + "(every engine counter that is not zero, summed), --set engine.KEY=VALUE (any engine setting, as "
                + "in an experiment file; repeatable). Prints "
                + "data packets per wall- and CPU-second, events per packet, wall time, peak RSS and, for the "
                + "all-to-all, memory per connection.")
public final class BenchCommand implements Callable<Integer> {
    @Unmatched
    List<String> args = new ArrayList<>();

    public BenchCommand() {
    }

    @Override
    public Integer call() {
        try {
            SimBench.main(args.toArray(new String[0]));
            return 0;
        } catch (IllegalArgumentException e) {
            System.err.println("metaroce sim bench: " + e.getMessage());
            return 2;
        }
    }
}
