package io.metaroce.cli.perf;

import io.metaroce.net.Device;
import io.metaroce.net.DeviceOptions;

import java.util.concurrent.locks.LockSupport;

/**
 * How the application thread waits between completion polls that found nothing. On a small shared machine a
 * hard spin starves the device's agent, and parking costs about 100 us per call on some VMs, so {@code backoff}
 * spins a few hundred times, then yields a few thousand times, then parks 10 us at a time; {@code block} (the
 * bandwidth tests' default) spins as long, then sleeps in the inline device until a datagram, a deadline or a
 * post; {@code yield} (the latency tests') spins, then yields. Any progress resets it.
 */
final class Poller {
    private static final int SPINS = 300;
    private static final int YIELDS = 3_000;
    private static final long PARK_NS = 10_000;

    private final DeviceOptions.Idle mode;
    private final Device device;
    private int idleCalls;

    /** {@code device}: the device this thread drives when it runs inline (it sleeps in it under BLOCK). */
    Poller(DeviceOptions.Idle mode, Device device) {
        this.mode = mode;
        this.device = device;
    }

    /** Progress was made: the next idle starts again from spinning. */
    void reset() {
        idleCalls = 0;
    }

    /** Nothing to do this time round. */
    void idle() {
        switch (mode) {
            case SPIN -> Thread.onSpinWait();
            case YIELD -> {
                // spin briefly first: a yield on an overloaded host can cost the rest of the time slice
                if (idleCalls < SPINS) {
                    idleCalls++;
                    Thread.onSpinWait();
                } else {
                    Thread.yield();
                }
            }
            case PARK -> LockSupport.parkNanos(PARK_NS);
            case BLOCK -> {
                if (device == null || !device.inline()) {
                    backoff();
                } else if (idleCalls < SPINS) {
                    idleCalls++;
                    Thread.onSpinWait();
                } else {
                    device.await(1_000_000); // the device's sockets, deadline and posts wake it
                }
            }
            case BACKOFF -> backoff();
        }
    }

    private void backoff() {
        if (idleCalls < SPINS) {
            idleCalls++;
            Thread.onSpinWait();
        } else if (idleCalls < SPINS + YIELDS) {
            idleCalls++;
            Thread.yield();
        } else {
            LockSupport.parkNanos(PARK_NS);
        }
    }
}
