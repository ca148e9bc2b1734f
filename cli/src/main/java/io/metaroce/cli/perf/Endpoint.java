package io.metaroce.cli.perf;

import io.metaroce.net.BufferInfo;
import io.metaroce.core.MemoryRegion;
import io.metaroce.net.DeviceQp;

/** One connected QP of a perf run, with its control and data regions and the peer's buffer message. */
final class Endpoint {
    // control region layout (bytes)
    static final int CTRL_BYTES = 4096;
    static final long CTRL_MY_INFO = 0;
    static final long CTRL_PEER_INFO = 64;
    static final long CTRL_DONE_SEND = 128;
    static final long CTRL_BYE_SEND = 192;
    static final long CTRL_READY_SEND = 224;
    static final long CTRL_RECV_BASE = 256;
    static final int CTRL_RECV_SLOT = 64;
    static final int CTRL_RECV_SLOTS = 32;

    final int index;
    final DeviceQp qp;
    final MemoryRegion ctrl;
    MemoryRegion data;
    /** Bytes per receive slot of {@link #data} when it holds receive buffers (send tests). */
    int recvSlotBytes;
    /** Message slots of {@link #data} the data moves through (bandwidth tests). */
    int slots;
    BufferInfo mine;
    BufferInfo peer;
    int remoteQpn = -1;

    // progress
    long posted;
    long completed;
    /** Client: messages of {@link #completed} that completed during {@code --omit}, left out of the measurement. */
    long omitted;
    /** Client of a bandwidth test: queued among the QPs that may post (BwTest). */
    boolean postable;
    long dataReceived;
    Wire.Done done;
    /** Client of a bandwidth test: the server's "ready" arrived on this QP (the first one). */
    boolean ready;
    boolean bye;
    boolean byeSent;
    boolean byeCompleted;

    Endpoint(int index, DeviceQp qp, MemoryRegion ctrl) {
        this.index = index;
        this.qp = qp;
        this.ctrl = ctrl;
    }

    static long ctrlRecvOffset(int slot) {
        return CTRL_RECV_BASE + (long) slot * CTRL_RECV_SLOT;
    }
}
