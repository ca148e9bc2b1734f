package io.metaroce.net;

import io.metaroce.core.WcOpcode;
import io.metaroce.core.WcStatus;

/** A completion polled from a {@link DeviceCq}: a reusable holder, like {@code struct ibv_wc}. */
public final class DeviceCompletion {
    long wrId;
    WcStatus status;
    WcOpcode opcode;
    int byteLen;
    int immediate;
    boolean hasImmediate;
    int qpn;

    public DeviceCompletion() {
    }

    public long wrId() { return wrId; }
    public WcStatus status() { return status; }
    public WcOpcode opcode() { return opcode; }
    public int byteLen() { return byteLen; }
    public int immediate() { return immediate; }
    public boolean hasImmediate() { return hasImmediate; }
    public int qpn() { return qpn; }

    @Override
    public String toString() {
        return "WC[wr=" + wrId + " " + opcode + " " + status + " len=" + byteLen
                + (hasImmediate ? " imm=" + immediate : "") + " qp=" + qpn + "]";
    }
}
