package io.metaroce.core;

/** Work completion status; names and meanings mirror libibverbs' {@code enum ibv_wc_status}. */
public enum WcStatus {
    SUCCESS, LOC_LEN_ERR, LOC_QP_OP_ERR, LOC_PROT_ERR, WR_FLUSH_ERR, REM_INV_REQ_ERR, REM_ACCESS_ERR,
    REM_OP_ERR, RETRY_EXC_ERR, RNR_RETRY_EXC_ERR, GENERAL_ERR
}
