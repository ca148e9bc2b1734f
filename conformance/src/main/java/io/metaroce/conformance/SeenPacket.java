package io.metaroce.conformance;

import io.metaroce.conformance.target.Target;

/** One datagram the IUT sent, decoded, with its position in the case and whether an {@code expect} consumed it. */
final class SeenPacket {
    final Target.Captured captured;
    final PacketView view;
    /** 0-based position among the datagrams the IUT sent in this case (the {@code n=} field). */
    final int index;
    boolean consumed;

    SeenPacket(Target.Captured captured, PacketView view, int index) {
        this.captured = captured;
        this.view = view;
        this.index = index;
    }
}
