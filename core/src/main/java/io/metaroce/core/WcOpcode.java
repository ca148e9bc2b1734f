package io.metaroce.core;

/** Work completion opcode; mirrors libibverbs' {@code enum ibv_wc_opcode}. */
public enum WcOpcode {
    SEND, RDMA_WRITE, RDMA_READ, RECV, RECV_RDMA_WITH_IMM
}
