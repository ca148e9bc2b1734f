package io.metaroce.net;

import java.util.concurrent.locks.LockSupport;

/** How the agent waits between duty cycles that found no work (after Aeron's idle strategies). */
abstract class IdleStrategy {
    /** Called after every duty cycle with the work it did. */
    abstract void idle(int workCount);

    static IdleStrategy of(DeviceOptions.Idle kind) {
        return switch (kind) {
            case SPIN -> new IdleStrategy() {
                @Override
                void idle(int work) {
                    if (work == 0) {
                        Thread.onSpinWait();
                    }
                }
            };
            case YIELD -> new IdleStrategy() {
                @Override
                void idle(int work) {
                    if (work == 0) {
                        Thread.yield();
                    }
                }
            };
            case PARK -> new IdleStrategy() {
                @Override
                void idle(int work) {
                    if (work == 0) {
                        LockSupport.parkNanos(100_000);
                    }
                }
            };
            case BACKOFF, BLOCK -> new Backoff(100, 5_000, 1_000, 50_000); // parking costs >= 100 us here: yield first
        };
    }

    /** Spin, then yield, then park with a doubling period up to a cap; any work resets it. */
    static final class Backoff extends IdleStrategy {
        private final int maxSpins;
        private final int maxYields;
        private final long minParkNs;
        private final long maxParkNs;
        private int spins;
        private int yields;
        private long parkNs;

        Backoff(int maxSpins, int maxYields, long minParkNs, long maxParkNs) {
            this.maxSpins = maxSpins;
            this.maxYields = maxYields;
            this.minParkNs = minParkNs;
            this.maxParkNs = maxParkNs;
            this.parkNs = minParkNs;
        }

        @Override
        void idle(int work) {
            if (work > 0) {
                spins = 0;
                yields = 0;
                parkNs = minParkNs;
            } else if (spins < maxSpins) {
                spins++;
                Thread.onSpinWait();
            } else if (yields < maxYields) {
                yields++;
                Thread.yield();
            } else {
                LockSupport.parkNanos(parkNs);
                parkNs = Math.min(parkNs * 2, maxParkNs);
            }
        }
    }
}
