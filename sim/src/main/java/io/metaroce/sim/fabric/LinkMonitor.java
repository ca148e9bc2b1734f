package io.metaroce.sim.fabric;

import io.metaroce.sim.event.EventHandler;
import io.metaroce.sim.event.EventLoop;

/**
 * Failure detection for one switch port on a cable (BFD or loss of signal, as a delay): when either direction of
 * the cable changes state, the switch learns it {@code detectPs} later, withdrawing the port from its ECMP group
 * while the cable is down and letting it rejoin once both directions are up. It reads the cable's state when the
 * delay ends, so a flap shorter than the delay may go unnoticed, as with a real detector. Then the rest of the
 * fabric learns which of its uplinks no longer reach a destination ({@code RouteWithdrawal}).
 */
public final class LinkMonitor implements EventHandler {
    private final EventLoop loop;
    private final Switch sw;
    private final int port;
    private final Link out;
    private final Link in;
    private final long detectPs;
    private final Runnable detected;

    /**
     * Watches {@code out} (sent on by {@code sw}'s {@code port}) and {@code in} (its reverse); after each detected
     * change runs {@code detected} (the fabric's routing update, {@code RouteWithdrawal}).
     */
    public LinkMonitor(EventLoop loop, Switch sw, int port, Link out, Link in, long detectPs, Runnable detected) {
        if (detectPs < 0) {
            throw new IllegalArgumentException("detection delay must be >= 0 ps, got " + detectPs);
        }
        this.loop = loop;
        this.sw = sw;
        this.port = port;
        this.out = out;
        this.in = in;
        this.detectPs = detectPs;
        this.detected = detected;
        out.watch(this);
        in.watch(this);
    }

    /** A watched link went down or came up (called by {@link Link#setUp}). */
    void changed() {
        loop.schedule(loop.nowPs() + detectPs, this, 0);
    }

    @Override
    public void onEvent(long arg) {
        boolean down = !(out.isUp() && in.isUp());
        if (sw.isWithdrawn(port) != down) {
            sw.setWithdrawn(port, down);
            detected.run();
        }
    }
}
