package io.metaroce.net;

import java.util.concurrent.locks.LockSupport;

/** How the agent waits between duty cycles that found no work (after Aeron's idle strategies). */
abstract class IdleStrategy {
    /**
     * YIELD spins this long after the last work before it yields: on an overloaded host a yield gives up the
     * rest of the thread's time slice, and the next one may be many milliseconds away, while a reply or an ACK
     * usually comes within microseconds.
     */
    static final long SPIN_BEFORE_YIELD_NS = 20_000;

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
            case YIELD -> new SpinThenYield(SPIN_BEFORE_YIELD_NS);
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

    /** Spins while the last work is recent, then yields once per idle call; any work restarts the spin. */
    static final class SpinThenYield extends IdleStrategy {
        private final long spinNs;
        private long lastWorkNs;

        SpinThenYield(long spinNs) {
            this.spinNs = spinNs;
        }

        @Override
        void idle(int work) {
            long now = System.nanoTime();
            if (work > 0) {
                lastWorkNs = now;
            } else if (now - lastWorkNs < spinNs) {
                Thread.onSpinWait();
            } else {
                Thread.yield();
            }
        }
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
