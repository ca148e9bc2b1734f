package io.metaroce.bench;

import io.metaroce.core.CompletionQueue;
import io.metaroce.core.Engine;
import io.metaroce.core.EngineConfig;
import io.metaroce.core.ProtectionDomain;
import io.metaroce.core.QueuePair;

import java.util.SplittableRandom;

/**
 * The engine's heap per idle connected QP (issue 9: at most 16 KiB at 16 paths), excluding the application's buffers:
 * creates N QPs on one engine, connects them to 64 peers, and divides the heap growth (after full GCs) by N. Run
 * with {@code bench/qp-memory.sh [N] [paths]}.
 */
public final class QpMemoryBench {
    private QpMemoryBench() {
    }

    public static void main(String[] args) {
        int n = args.length > 0 ? Integer.parseInt(args[0]) : 4000;
        int paths = args.length > 1 ? Integer.parseInt(args[1]) : 16;
        EngineConfig cfg = new EngineConfig().paths(paths).planes(Math.min(4, paths));
        Engine engine = new Engine(cfg, new SplittableRandom(1));
        ProtectionDomain pd = engine.allocPd();
        CompletionQueue cq = engine.createCq(16);
        long before = usedAfterGc();
        QueuePair[] qps = new QueuePair[n];
        for (int i = 0; i < n; i++) {
            qps[i] = engine.createQp(pd, cq, cq);
            qps[i].connect(i % 64, 1000 + i, 0, 0);
        }
        long after = usedAfterGc();
        System.out.printf("QPs=%d paths=%d sqDepth=%d rqDepth=%d bytesPerIdleConnectedQp=%.0f (target <= 16384)%n", n,
                paths, cfg.sqDepth, cfg.rqDepth, (after - before) / (double) n);
        System.out.println(qps[n - 1].state()); // keeps the QPs reachable until measured
    }

    private static long usedAfterGc() {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
