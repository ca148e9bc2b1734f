-- metaroce.lua: Wireshark dissector for the MetaRoCE-J wire format, version 1.
--
-- Spec: docs/spec/01-wire.md (layout) and docs/spec/09-test-vectors.md (golden vectors). A packet is the whole
-- payload of one UDP datagram: 32-byte base header, an extension header fixed by the opcode (CM: 32 bytes plus
-- 18-byte plane entries), the payload, and a CRC32C trailer (big-endian) over everything before it.
--
-- Registered on udp.port 4793 (preference "UDP port") and as the UDP heuristic dissector "metaroce_udp", which
-- accepts a datagram only when: length >= 36, version == 1, opcode defined, and
-- length == 32 + extension(opcode) + payload length + 4 (optionally also a good CRC32C, preference).
--
-- Usage: tshark -X lua_script:/path/to/metaroce.lua -r capture.pcap   (see README.md in this directory)
--
-- Written for the Lua of every Wireshark since 3.x: Lua 5.2 (Wireshark <= 4.2) and Lua 5.3/5.4 (4.4+). It uses
-- only the BitOp library Wireshark preloads as the global "bit" (no native bitwise operators, no "//").

local VERSION = 1
local DEFAULT_UDP_PORT = 4793
local BASE_LEN = 32
local CRC_LEN = 4
local AUTH_LEN = 24 -- AUTH trailer: 16-byte GCM tag, 8-byte sequence number (AUTH-2)
local MIN_LEN = BASE_LEN + CRC_LEN
local CM_FIXED_LEN = 32
local CM_PLANE_LEN = 18
local TWO32 = 4294967296

local metaroce = Proto("metaroce", "MetaRoCE-J")

---------------------------------------------------------------------------------------------------------------
-- Constants (Opcode, NakHeader, CM-9 of the Java codec)
---------------------------------------------------------------------------------------------------------------

local OP = {
    WRITE = 0x01, WRITE_IMM = 0x02, SEND = 0x03, SEND_IMM = 0x04, READ_REQ = 0x05, READ_RESP = 0x06,
    PARITY = 0x08, PARITY_Q = 0x09, PARITY_R = 0x0a, ACK = 0x10, NAK = 0x11, ACK_BUNDLE = 0x12, PROBE = 0x20, PROBE_REPLY = 0x21,
    CM_REQ = 0x30, CM_REP = 0x31, CM_RTU = 0x32, CM_DREQ = 0x33, CM_REJ = 0x34,
}

local opcode_names = {
    [0x01] = "WRITE", [0x02] = "WRITE_IMM", [0x03] = "SEND", [0x04] = "SEND_IMM", [0x05] = "READ_REQ",
    [0x06] = "READ_RESP", [0x08] = "PARITY", [0x09] = "PARITY_Q", [0x0a] = "PARITY_R", [0x10] = "ACK", [0x11] = "NAK", [0x12] = "ACK_BUNDLE", [0x20] = "PROBE", [0x21] = "PROBE_REPLY",
    [0x30] = "CM_REQ", [0x31] = "CM_REP", [0x32] = "CM_RTU", [0x33] = "CM_DREQ", [0x34] = "CM_REJ",
}

-- extension header length per opcode (CM: the fixed part; the plane entries are counted as payload)
local ext_len = {
    [0x01] = 32, [0x02] = 32, [0x03] = 32, [0x04] = 32, [0x05] = 32, [0x06] = 32, [0x08] = 36, [0x09] = 36, [0x0a] = 36,
    [0x10] = 56, [0x11] = 16, [0x12] = 8, [0x20] = 16, [0x21] = 16,
    [0x30] = 32, [0x31] = 32, [0x32] = 32, [0x33] = 32, [0x34] = 32,
}

local function is_data(op)
    return op == OP.WRITE or op == OP.WRITE_IMM or op == OP.SEND or op == OP.SEND_IMM or op == OP.READ_RESP
end

local function is_cm(op)
    return op >= OP.CM_REQ and op <= OP.CM_REJ
end

local nak_code_names = {
    [1] = "RNR", [2] = "BAD_RKEY", [3] = "OUT_OF_BOUNDS", [4] = "NO_PERMISSION", [5] = "INVALID_REQUEST",
    [6] = "BUSY",
    [7] = "MISSING",
    [8] = "TRIMMED",
}

local cm_reason_names = {
    [0] = "none", [1] = "NO_RESOURCES", [2] = "INVALID_PARAMS", [3] = "UNSUPPORTED", [4] = "CONSUMER",
    [5] = "STALE",
}

local family_names = { [4] = "IPv4", [6] = "IPv6" }

local crc_status_names = { [0] = "Bad", [1] = "Good", [2] = "Unverified" }
local CRC_BAD, CRC_GOOD, CRC_UNVERIFIED = 0, 1, 2

---------------------------------------------------------------------------------------------------------------
-- Fields
---------------------------------------------------------------------------------------------------------------

local F = {}
-- base header
F.version      = ProtoField.uint8("metaroce.version", "Version", base.DEC)
F.opcode       = ProtoField.uint8("metaroce.opcode", "Opcode", base.HEX, opcode_names)
F.flags        = ProtoField.uint16("metaroce.flags", "Flags", base.HEX)
F.flag_last    = ProtoField.bool("metaroce.flags.last", "LAST", 16, nil, 0x0001)
F.flag_first   = ProtoField.bool("metaroce.flags.first", "FIRST", 16, nil, 0x0002)
F.flag_retx    = ProtoField.bool("metaroce.flags.retransmit", "RETRANSMIT", 16, nil, 0x0004)
F.flag_ackreq  = ProtoField.bool("metaroce.flags.ack_req", "ACK_REQ", 16, nil, 0x0008)
F.flag_auth    = ProtoField.bool("metaroce.flags.auth", "AUTH", 16, nil, 0x0010)
F.flag_enc     = ProtoField.bool("metaroce.flags.encrypted", "ENCRYPTED", 16, nil, 0x0020)
F.flag_kphase  = ProtoField.bool("metaroce.flags.key_phase", "KEY_PHASE", 16, nil, 0x0040)
F.flag_hold    = ProtoField.bool("metaroce.flags.ack_hold", "ACK_HOLD", 16, nil, 0x0080)
F.flag_rsvd    = ProtoField.uint16("metaroce.flags.reserved", "Reserved flags", base.HEX, nil, 0xff00)
F.dest_qpn     = ProtoField.uint32("metaroce.dest_qpn", "Destination QPN", base.HEX)
F.path         = ProtoField.uint16("metaroce.path", "Path id", base.DEC)
F.payload_len  = ProtoField.uint16("metaroce.payload_length", "Payload length", base.DEC)
F.psn          = ProtoField.uint32("metaroce.psn", "PSN", base.DEC_HEX)
F.psn_floor    = ProtoField.uint32("metaroce.psn_floor", "PSN floor", base.DEC_HEX)
F.src_qpn      = ProtoField.uint32("metaroce.src_qpn", "Source QPN", base.HEX)
F.timestamp    = ProtoField.uint64("metaroce.timestamp", "Sender timestamp (ns)", base.DEC)
F.qpn          = ProtoField.uint32("metaroce.qpn", "QPN (source or destination)", base.HEX)
-- data header (WRITE, WRITE_IMM, SEND, SEND_IMM, READ_RESP); MSN also READ_REQ and NAK, offset also NAK,
-- rkey also READ_REQ
F.msn          = ProtoField.uint32("metaroce.msn", "MSN", base.DEC)
F.msg_len      = ProtoField.uint32("metaroce.msg_length", "Message length", base.DEC)
F.offset       = ProtoField.uint32("metaroce.offset", "Offset", base.DEC)
F.rkey         = ProtoField.uint32("metaroce.rkey", "rkey", base.HEX)
F.va           = ProtoField.uint64("metaroce.va", "Virtual address", base.HEX)
F.rsn          = ProtoField.uint32("metaroce.rsn", "RSN", base.DEC)
F.imm          = ProtoField.uint32("metaroce.imm", "Immediate", base.HEX)
F.payload      = ProtoField.bytes("metaroce.payload", "Payload")
-- PARITY (REL-18, WIRE-22): MSN .. immediate as the data header's (fields above), then the message's opcode,
-- the number of segments covered and a reserved u16; the payload is the XOR of the covered segments (PARITY_Q,
-- REL-20: their sum with segment i weighted by 2^i in GF(2^8)). A PARITY_R (REL-21) carries its repair index j
-- (2..15) in the first reserved byte, the second stays reserved; its payload weights segment i by 2^(j*i)
F.par_op       = ProtoField.uint8("metaroce.parity.op", "Message opcode", base.HEX, opcode_names)
F.par_count    = ProtoField.uint8("metaroce.parity.count", "Segments covered", base.DEC)
F.par_rsvd     = ProtoField.uint16("metaroce.parity.reserved", "Reserved", base.HEX)
F.par_repair   = ProtoField.uint8("metaroce.parity.repair", "Repair index", base.DEC)
F.par_rsvd_r   = ProtoField.uint8("metaroce.parity.r_reserved", "Reserved", base.HEX)
-- READ_REQ
F.rd_len       = ProtoField.uint32("metaroce.read.length", "Read length", base.DEC)
F.rd_rsvd      = ProtoField.uint32("metaroce.read.reserved", "Reserved", base.HEX)
F.rd_rva       = ProtoField.uint64("metaroce.read.remote_va", "Remote va", base.HEX)
F.rd_sva       = ProtoField.uint64("metaroce.read.sink_va", "Sink va", base.HEX)
-- ACK
F.ack_cum      = ProtoField.uint32("metaroce.ack.cum_psn", "Cumulative PSN", base.DEC_HEX)
F.ack_ce       = ProtoField.uint16("metaroce.ack.ce_count", "CE count", base.DEC)
F.ack_rsvd     = ProtoField.uint16("metaroce.ack.reserved", "Reserved", base.HEX)
F.ack_echo     = ProtoField.uint64("metaroce.ack.echo_ts", "Echoed timestamp (ns)", base.DEC)
F.ack_grant    = ProtoField.uint32("metaroce.ack.grant", "Grant (Mb/s, 0 = no cap)", base.DEC)
F.ack_rxmsn    = ProtoField.uint32("metaroce.ack.rx_msn", "Rx MSN", base.DEC)
-- ACK hold times (WIRE-21): the PSN-floor field of an ACK or ACK_BUNDLE with flag ACK_HOLD
F.ack_hold_new = ProtoField.uint16("metaroce.ack.hold_newest", "Newest hold (us)", base.DEC)
F.ack_hold_max = ProtoField.uint16("metaroce.ack.hold_longest", "Longest hold (us)", base.DEC)
F.ack_sack     = {
    ProtoField.uint64("metaroce.ack.sack0", "SACK word 0 (cum+1..cum+64)", base.HEX),
    ProtoField.uint64("metaroce.ack.sack1", "SACK word 1 (cum+65..cum+128)", base.HEX),
    ProtoField.uint64("metaroce.ack.sack2", "SACK word 2 (cum+129..cum+192)", base.HEX),
    ProtoField.uint64("metaroce.ack.sack3", "SACK word 3 (cum+193..cum+256)", base.HEX),
}
F.ack_sacked   = ProtoField.string("metaroce.ack.sacked", "SACKed (relative to cum)")
F.ack_sacked_abs = ProtoField.string("metaroce.ack.sacked_psns", "SACKed PSNs")
F.ack_sack_cnt = ProtoField.uint16("metaroce.ack.sacked_count", "SACKed PSN count", base.DEC)
F.ack_sack_psn = ProtoField.uint32("metaroce.ack.sacked_psn", "SACKed PSN", base.DEC_HEX)
-- ACK_BUNDLE (ACK-11): grant and rx MSN as the ACK's; each entry reuses the ACK's per-path fields
F.ackb_entries = ProtoField.uint16("metaroce.ack.entries", "Bundle entries", base.DEC)
F.ackb_path    = ProtoField.uint16("metaroce.ack.entry_path", "Acknowledged path id", base.DEC)
-- NAK
F.nak_code     = ProtoField.uint8("metaroce.nak.code", "NAK code", base.DEC, nak_code_names)
F.nak_rsvd     = ProtoField.uint24("metaroce.nak.reserved", "Reserved", base.HEX)
F.nak_psn      = ProtoField.uint32("metaroce.nak.psn", "NAKed PSN", base.DEC_HEX)
-- PROBE, PROBE_REPLY
F.probe_id     = ProtoField.uint64("metaroce.probe.id", "Probe id", base.DEC)
F.probe_echo   = ProtoField.uint64("metaroce.probe.echo_ts", "Echoed timestamp (ns)", base.DEC)
-- CM
F.cm_conn      = ProtoField.uint64("metaroce.cm.conn_id", "Connection id", base.HEX)
F.cm_sqpn      = ProtoField.uint32("metaroce.cm.sender_qpn", "Sender QPN", base.HEX)
F.cm_pqpn      = ProtoField.uint32("metaroce.cm.peer_qpn", "Peer QPN", base.HEX)
F.cm_ipsn      = ProtoField.uint32("metaroce.cm.initial_psn", "Initial PSN", base.DEC_HEX)
F.cm_mtu       = ProtoField.uint16("metaroce.cm.mtu", "MTU", base.DEC)
F.cm_paths     = ProtoField.uint16("metaroce.cm.paths", "Paths", base.DEC)
F.cm_caps      = ProtoField.uint32("metaroce.cm.caps", "Capabilities", base.HEX)
F.cm_cap_auth  = ProtoField.bool("metaroce.cm.caps.auth", "CAP_AUTH", 32, nil, 0x00000001)
F.cm_cap_enc   = ProtoField.bool("metaroce.cm.caps.encrypt", "CAP_ENCRYPT", 32, nil, 0x00000002)
F.cm_port      = ProtoField.uint16("metaroce.cm.port", "UDP port", base.DEC)
F.cm_planes    = ProtoField.uint8("metaroce.cm.plane_count", "Plane count", base.DEC)
F.cm_reason    = ProtoField.uint8("metaroce.cm.reason", "Reject reason", base.DEC, cm_reason_names)
F.cm_family    = ProtoField.uint8("metaroce.cm.plane.family", "Family", base.DEC, family_names)
F.cm_prsvd     = ProtoField.uint8("metaroce.cm.plane.reserved", "Reserved", base.HEX)
F.cm_ipv4      = ProtoField.ipv4("metaroce.cm.plane.ipv4", "Address")
F.cm_ipv6      = ProtoField.ipv6("metaroce.cm.plane.ipv6", "Address")
F.cm_addr      = ProtoField.bytes("metaroce.cm.plane.address", "Address bytes")
-- AUTH trailer (spec 10-auth.md, AUTH-2): GCM tag and auth sequence number, before the CRC
F.auth_tag     = ProtoField.bytes("metaroce.auth.tag", "GCM tag")
F.auth_seq     = ProtoField.uint64("metaroce.auth.seq", "Auth sequence number", base.DEC)
-- the same trailer on a CM message (AUTH-11, AUTH-12): truncated HMAC-SHA256 under the CM key, CM message counter
F.cm_tag       = ProtoField.bytes("metaroce.auth.cm_tag", "HMAC-SHA256 tag (first 16 bytes)")
F.cm_counter   = ProtoField.uint64("metaroce.auth.cm_counter", "CM message counter", base.DEC)
F.ciphertext   = ProtoField.bytes("metaroce.ciphertext", "Encrypted payload")
-- trailer
F.crc          = ProtoField.uint32("metaroce.crc", "CRC32C", base.HEX)
F.crc_computed = ProtoField.uint32("metaroce.crc.computed", "Computed CRC32C", base.HEX)
F.crc_status   = ProtoField.uint8("metaroce.crc.status", "CRC status", base.DEC, crc_status_names)

local field_list = {}
for _, f in pairs(F) do
    if type(f) == "table" then
        for _, g in ipairs(f) do field_list[#field_list + 1] = g end
    else
        field_list[#field_list + 1] = f
    end
end
metaroce.fields = field_list

local E = {
    crc_bad     = ProtoExpert.new("metaroce.crc.bad", "Bad CRC32C", expert.group.CHECKSUM, expert.severity.ERROR),
    truncated   = ProtoExpert.new("metaroce.truncated", "Datagram too short", expert.group.MALFORMED,
                                  expert.severity.ERROR),
    bad_version = ProtoExpert.new("metaroce.version.bad", "Unknown wire format version", expert.group.MALFORMED,
                                  expert.severity.ERROR),
    bad_opcode  = ProtoExpert.new("metaroce.opcode.bad", "Undefined opcode", expert.group.MALFORMED,
                                  expert.severity.ERROR),
    bad_length  = ProtoExpert.new("metaroce.length.bad", "Datagram length != 32 + extension + payload length + 4",
                                  expert.group.MALFORMED, expert.severity.ERROR),
    bad_cm      = ProtoExpert.new("metaroce.cm.malformed", "Malformed CM message (WIRE-7)", expert.group.MALFORMED,
                                  expert.severity.ERROR),
    nonzero     = ProtoExpert.new("metaroce.reserved.nonzero", "Reserved field is not zero", expert.group.PROTOCOL,
                                  expert.severity.WARN),
    bad_repair  = ProtoExpert.new("metaroce.parity.repair.bad", "PARITY_R repair index outside 2..15 (REL-21)",
                                  expert.group.MALFORMED, expert.severity.ERROR),
    nak         = ProtoExpert.new("metaroce.nak", "NAK", expert.group.SEQUENCE, expert.severity.NOTE),
    retransmit  = ProtoExpert.new("metaroce.retransmit", "Retransmission", expert.group.SEQUENCE,
                                  expert.severity.NOTE),
    cm_rej      = ProtoExpert.new("metaroce.cm.rej", "Connection rejected", expert.group.SEQUENCE,
                                  expert.severity.NOTE),
}
metaroce.experts = { E.crc_bad, E.truncated, E.bad_version, E.bad_opcode, E.bad_length, E.bad_cm, E.nonzero,
                     E.bad_repair, E.nak, E.retransmit, E.cm_rej }

---------------------------------------------------------------------------------------------------------------
-- Preferences
---------------------------------------------------------------------------------------------------------------

metaroce.prefs.udp_port = Pref.uint("UDP port", DEFAULT_UDP_PORT, "UDP port decoded as MetaRoCE-J (default 4793)")
metaroce.prefs.check_crc = Pref.bool("Verify CRC32C", true, "Compute the CRC32C of each packet and compare")
metaroce.prefs.heur_crc = Pref.bool("Heuristic requires good CRC", false,
    "The heuristic dissector accepts a datagram only if its CRC32C trailer is good (stricter; corrupted "
    .. "packets on other ports are then not decoded)")

---------------------------------------------------------------------------------------------------------------
-- Helpers
---------------------------------------------------------------------------------------------------------------

local band, bxor, rshift = bit.band, bit.bxor, bit.rshift

local function u32(x)
    return x % TWO32
end

local function hex32(x)
    return string.format("0x%08x", u32(x))
end

-- CRC-32C (Castagnoli), reflected polynomial 0x82F63B78, init and final xor 0xFFFFFFFF (WIRE-9)
local CRC_TABLE = {}
for i = 0, 255 do
    local c = i
    for _ = 1, 8 do
        if band(c, 1) ~= 0 then
            c = bxor(rshift(c, 1), 0x82F63B78)
        else
            c = rshift(c, 1)
        end
    end
    CRC_TABLE[i] = c
end

local function crc32c(s)
    local crc = 0xFFFFFFFF
    local byte = string.byte
    local t = CRC_TABLE
    for i = 1, #s do
        crc = bxor(rshift(crc, 8), t[band(bxor(crc, byte(s, i)), 0xff)])
    end
    return u32(bxor(crc, 0xFFFFFFFF))
end

-- check value of WIRE-9; a wrong table would make every packet "bad", so refuse to load instead
if crc32c("123456789") ~= 0xE3069283 then
    error("metaroce.lua: CRC32C self-test failed: " .. hex32(crc32c("123456789")))
end

-- Is this datagram a well-formed MetaRoCE-J v1 packet by the length rule? Returns opcode, extension length.
local function structurally_valid(tvb)
    local len = tvb:reported_length_remaining()
    if len < MIN_LEN or tvb:captured_len() < BASE_LEN then return nil end
    if tvb(0, 1):uint() ~= VERSION then return nil end
    local op = tvb(1, 1):uint()
    local x = ext_len[op]
    if x == nil then return nil end
    local natural = BASE_LEN + x + tvb(10, 2):uint() + CRC_LEN
    if len ~= natural and not (len == natural + AUTH_LEN and band(tvb(2, 2):uint(), 0x0010) ~= 0) then
        return nil
    end
    return op, x
end

-- Checks the trailer; returns status, stored crc, computed crc (nil when unverified).
local function verify_crc(tvb)
    local len = tvb:reported_length_remaining()
    if len < MIN_LEN or tvb:captured_len() < len then
        return CRC_UNVERIFIED
    end
    local stored = tvb(len - CRC_LEN, CRC_LEN):uint()
    local computed = crc32c(tvb:raw(0, len - CRC_LEN))
    if stored == computed then return CRC_GOOD, stored, computed end
    return CRC_BAD, stored, computed
end

-- "cum+2..cum+4, cum+256" and "0x00001002..0x00001004, 0x00001100"; also returns the list of offsets
local function sack_offsets(tvb, off)
    local offsets = {}
    for w = 0, 3 do
        local hi = tvb(off + 8 * w, 4):uint()
        local lo = tvb(off + 8 * w + 4, 4):uint()
        if hi ~= 0 or lo ~= 0 then
            for b = 0, 63 do
                local v, s = lo, b
                if b >= 32 then v, s = hi, b - 32 end
                if band(rshift(v, s), 1) ~= 0 then
                    offsets[#offsets + 1] = 1 + 64 * w + b
                end
            end
        end
    end
    return offsets
end

local function ranges(offsets, fmt_one)
    local parts = {}
    local i = 1
    while i <= #offsets do
        local j = i
        while j < #offsets and offsets[j + 1] == offsets[j] + 1 do j = j + 1 end
        if j == i then
            parts[#parts + 1] = fmt_one(offsets[i])
        else
            parts[#parts + 1] = fmt_one(offsets[i]) .. ".." .. fmt_one(offsets[j])
        end
        i = j + 1
    end
    return table.concat(parts, ", ")
end

local function u64str(tvb, off)
    return tostring(tvb(off, 8):uint64())
end

local function need(tvb, off, n)
    return tvb:captured_len() >= off + n
end

---------------------------------------------------------------------------------------------------------------
-- Extension headers; each returns a string for the Info column
---------------------------------------------------------------------------------------------------------------

local function dissect_data(tvb, tree, off)
    local t = tree:add(tvb(off, 32), "Data header")
    t:add(F.msn, tvb(off, 4))
    t:add(F.msg_len, tvb(off + 4, 4))
    t:add(F.offset, tvb(off + 8, 4))
    t:add(F.rkey, tvb(off + 12, 4))
    t:add(F.va, tvb(off + 16, 8))
    t:add(F.rsn, tvb(off + 24, 4))
    t:add(F.imm, tvb(off + 28, 4))
    local info = string.format(" msn=%d off=%d", tvb(off, 4):uint(), tvb(off + 8, 4):uint())
    return info, t
end

-- PARITY, PARITY_Q, PARITY_R: the data header's 32 bytes naming the first covered segment, then op, count,
-- reserved (36 bytes); in a PARITY_R the first reserved byte is the repair index (REL-21)
local function dissect_parity(tvb, tree, off, op)
    local t = tree:add(tvb(off, 36), (opcode_names[op] or "PARITY") .. " header")
    t:add(F.msn, tvb(off, 4))
    t:add(F.msg_len, tvb(off + 4, 4))
    t:add(F.offset, tvb(off + 8, 4)):append_text(" (first covered segment)")
    t:add(F.rkey, tvb(off + 12, 4))
    t:add(F.va, tvb(off + 16, 8))
    t:add(F.rsn, tvb(off + 24, 4))
    t:add(F.imm, tvb(off + 28, 4))
    local mop = tvb(off + 32, 1):uint()
    t:add(F.par_op, tvb(off + 32, 1))
    t:add(F.par_count, tvb(off + 33, 1))
    local repair = ""
    if op == OP.PARITY_R then
        local j = tvb(off + 34, 1):uint()
        local p = t:add(F.par_repair, tvb(off + 34, 1))
        if j < 2 or j > 15 then
            p:append_text(" (outside 2..15: malformed)")
            p:add_proto_expert_info(E.bad_repair)
        end
        local r = t:add(F.par_rsvd_r, tvb(off + 35, 1))
        if tvb(off + 35, 1):uint() ~= 0 then r:add_proto_expert_info(E.nonzero) end
        repair = string.format(" repair=%d", j)
    else
        local r = t:add(F.par_rsvd, tvb(off + 34, 2))
        if tvb(off + 34, 2):uint() ~= 0 then r:add_proto_expert_info(E.nonzero) end
    end
    return string.format(" msn=%d off=%d op=%s count=%d", tvb(off, 4):uint(), tvb(off + 8, 4):uint(),
        opcode_names[mop] or string.format("UNKNOWN(0x%02x)", mop), tvb(off + 33, 1):uint()) .. repair
end

local function dissect_read_req(tvb, tree, off)
    local t = tree:add(tvb(off, 32), "READ_REQ header")
    t:add(F.msn, tvb(off, 4))
    t:add(F.rd_len, tvb(off + 4, 4))
    t:add(F.rkey, tvb(off + 8, 4))
    local r = t:add(F.rd_rsvd, tvb(off + 12, 4))
    if tvb(off + 12, 4):uint() ~= 0 then r:add_proto_expert_info(E.nonzero) end
    t:add(F.rd_rva, tvb(off + 16, 8))
    t:add(F.rd_sva, tvb(off + 24, 8))
    return string.format(" msn=%d rlen=%d rkey=%s", tvb(off, 4):uint(), tvb(off + 4, 4):uint(),
        hex32(tvb(off + 8, 4):uint()))
end

-- the four SACK words at sack_off and what they say, relative to cum; returns the relative ranges
local function add_sack(tvb, t, sack_off, cum)
    for w = 0, 3 do
        t:add(F.ack_sack[w + 1], tvb(sack_off + 8 * w, 8))
    end
    local offsets = sack_offsets(tvb, sack_off)
    local rel = ranges(offsets, function(k) return "cum+" .. k end)
    local abs = ranges(offsets, function(k) return hex32(cum + k) end)
    local sr = tvb(sack_off, 32)
    local s = t:add(F.ack_sacked, sr, rel == "" and "none" or rel)
    s:set_generated()
    local a = s:add(F.ack_sacked_abs, sr, abs == "" and "none" or abs)
    a:set_generated()
    s:add(F.ack_sack_cnt, sr, #offsets):set_generated()
    for _, k in ipairs(offsets) do
        s:add(F.ack_sack_psn, sr, u32(cum + k)):set_generated()
    end
    return rel
end

local function dissect_ack(tvb, tree, off)
    local t = tree:add(tvb(off, 56), "ACK header")
    local cum = tvb(off, 4):uint()
    t:add(F.ack_cum, tvb(off, 4))
    t:add(F.ack_ce, tvb(off + 4, 2))
    local r = t:add(F.ack_rsvd, tvb(off + 6, 2))
    if tvb(off + 6, 2):uint() ~= 0 then r:add_proto_expert_info(E.nonzero) end
    t:add(F.ack_echo, tvb(off + 8, 8))
    t:add(F.ack_grant, tvb(off + 16, 4))
    t:add(F.ack_rxmsn, tvb(off + 20, 4))
    local rel = add_sack(tvb, t, off + 24, cum)
    local info = string.format(" cum=%d ce=%d", cum, tvb(off + 4, 2):uint())
    if rel ~= "" then info = info .. " sack=[" .. rel .. "]" end
    local grant = tvb(off + 16, 4):uint()
    if grant ~= 0 then info = info .. " grant=" .. grant end
    return info .. string.format(" rxmsn=%d", tvb(off + 20, 4):uint())
end

-- ACK_BUNDLE: 8-byte extension (grant, rx MSN), then plen / 48 entries of 48 bytes (docs/spec/01-wire.md)
local function dissect_ack_bundle(tvb, tree, off, plen)
    local n = math.floor(plen / 48)
    local t = tree:add(tvb(off, 8), "ACK bundle header")
    t:add(F.ack_grant, tvb(off, 4))
    t:add(F.ack_rxmsn, tvb(off + 4, 4))
    local c = t:add(F.ackb_entries, tvb(off, 8), n)
    c:set_generated()
    if plen == 0 or plen % 48 ~= 0 then
        c:add_proto_expert_info(E.bad_length, "Payload length is not a positive multiple of 48 (ACK-11)")
    end
    local info = string.format(" entries=%d", n)
    for i = 0, n - 1 do
        local e = off + 8 + 48 * i
        if not need(tvb, e, 48) then
            info = info .. " [snapped]"
            break
        end
        local path = tvb(e, 2):uint()
        local cum = tvb(e + 4, 4):uint()
        local et = tree:add(tvb(e, 48), string.format("Entry %d: path %d", i, path))
        et:add(F.ackb_path, tvb(e, 2))
        et:add(F.ack_ce, tvb(e + 2, 2))
        et:add(F.ack_cum, tvb(e + 4, 4))
        et:add(F.ack_echo, tvb(e + 8, 8))
        local rel = add_sack(tvb, et, e + 16, cum)
        info = info .. string.format(" [path=%d cum=%d ce=%d", path, cum, tvb(e + 2, 2):uint())
        if rel ~= "" then info = info .. " sack=[" .. rel .. "]" end
        info = info .. "]"
    end
    local grant = tvb(off, 4):uint()
    if grant ~= 0 then info = info .. " grant=" .. grant end
    return info .. string.format(" rxmsn=%d", tvb(off + 4, 4):uint())
end

local function dissect_nak(tvb, tree, off)
    local t = tree:add(tvb(off, 16), "NAK header")
    t:add(F.msn, tvb(off, 4))
    local code = tvb(off + 4, 1):uint()
    local c = t:add(F.nak_code, tvb(off + 4, 1))
    local r = t:add(F.nak_rsvd, tvb(off + 5, 3))
    if tvb(off + 5, 3):uint() ~= 0 then r:add_proto_expert_info(E.nonzero) end
    t:add(F.nak_psn, tvb(off + 8, 4))
    t:add(F.offset, tvb(off + 12, 4))
    local name = nak_code_names[code] or ("UNKNOWN(" .. code .. ")")
    c:add_proto_expert_info(E.nak, "NAK " .. name)
    return string.format(" code=%s psn=%d msn=%d off=%d", name, tvb(off + 8, 4):uint(), tvb(off, 4):uint(),
        tvb(off + 12, 4):uint())
end

local function dissect_probe(tvb, tree, off, op)
    local t = tree:add(tvb(off, 16), op == OP.PROBE and "PROBE header" or "PROBE_REPLY header")
    t:add(F.probe_id, tvb(off, 8))
    t:add(F.probe_echo, tvb(off + 8, 8))
    local info = " id=" .. u64str(tvb, off)
    if op == OP.PROBE_REPLY then info = info .. " echo=" .. u64str(tvb, off + 8) end
    return info
end

local function dissect_cm(tvb, tree, off, op, plen)
    local t = tree:add(tvb(off, CM_FIXED_LEN), "CM header")
    t:add(F.cm_conn, tvb(off, 8))
    t:add(F.cm_sqpn, tvb(off + 8, 4))
    t:add(F.cm_pqpn, tvb(off + 12, 4))
    t:add(F.cm_ipsn, tvb(off + 16, 4))
    t:add(F.cm_mtu, tvb(off + 20, 2))
    t:add(F.cm_paths, tvb(off + 22, 2))
    local caps = t:add(F.cm_caps, tvb(off + 24, 4))
    caps:add(F.cm_cap_auth, tvb(off + 24, 4))
    caps:add(F.cm_cap_enc, tvb(off + 24, 4))
    t:add(F.cm_port, tvb(off + 28, 2))
    local np = tvb(off + 30, 1):uint()
    local npi = t:add(F.cm_planes, tvb(off + 30, 1))
    local reason = tvb(off + 31, 1):uint()
    local ri = t:add(F.cm_reason, tvb(off + 31, 1))
    if np * CM_PLANE_LEN ~= plen then
        npi:add_proto_expert_info(E.bad_cm, string.format("plane count %d but payload length %d (expected %d)",
            np, plen, np * CM_PLANE_LEN))
    end
    local addrs = {}
    local p = off + CM_FIXED_LEN
    -- entries are decoded only within the payload length, never from the trailer
    for k = 0, math.min(np, math.floor(plen / CM_PLANE_LEN)) - 1 do
        if not need(tvb, p, CM_PLANE_LEN) then break end
        local fam = tvb(p, 1):uint()
        local pt = t:add(tvb(p, CM_PLANE_LEN), "Plane " .. k)
        local fi = pt:add(F.cm_family, tvb(p, 1))
        pt:add(F.cm_prsvd, tvb(p + 1, 1))
        local text
        if fam == 4 then
            pt:add(F.cm_ipv4, tvb(p + 2, 4))
            text = tostring(tvb(p + 2, 4):ipv4())
        elseif fam == 6 then
            pt:add(F.cm_ipv6, tvb(p + 2, 16))
            text = tostring(tvb(p + 2, 16):ipv6())
        else
            pt:add(F.cm_addr, tvb(p + 2, 16))
            fi:add_proto_expert_info(E.bad_cm, "address family " .. fam .. " is neither 4 nor 6")
            text = "family " .. fam
        end
        pt:append_text(": " .. text)
        addrs[#addrs + 1] = text
        p = p + CM_PLANE_LEN
    end
    local info = " conn=" .. string.format("0x%s", tostring(tvb(off, 8):uint64():tohex()))
    info = info .. " qpn=" .. hex32(tvb(off + 8, 4):uint())
    if op == OP.CM_REQ or op == OP.CM_REP then
        info = info .. string.format(" ipsn=%d mtu=%d paths=%d port=%d", tvb(off + 16, 4):uint(),
            tvb(off + 20, 2):uint(), tvb(off + 22, 2):uint(), tvb(off + 28, 2):uint())
    end
    if op == OP.CM_REJ then
        local name = cm_reason_names[reason] or "CONSUMER(undefined)"
        info = info .. " reason=" .. name
        ri:add_proto_expert_info(E.cm_rej, "CM_REJ reason " .. reason .. " " .. name)
    end
    if #addrs > 0 then info = info .. " planes=" .. table.concat(addrs, ",") end
    return info
end

---------------------------------------------------------------------------------------------------------------
-- Main dissector
---------------------------------------------------------------------------------------------------------------

function metaroce.dissector(tvb, pinfo, tree)
    local len = tvb:reported_length_remaining()
    pinfo.cols.protocol = "MetaRoCE"
    local root = tree:add(metaroce, tvb())
    if len < MIN_LEN or tvb:captured_len() < BASE_LEN then
        root:add_proto_expert_info(E.truncated, "datagram of " .. len .. " bytes, minimum is 36")
        pinfo.cols.info:set("MetaRoCE-J [truncated]")
        return len
    end

    -- base header
    local version = tvb(0, 1):uint()
    local op = tvb(1, 1):uint()
    local flags = tvb(2, 2):uint()
    local dqpn = tvb(4, 4):uint()
    local path = tvb(8, 2):uint()
    local plen = tvb(10, 2):uint()
    local psn = tvb(12, 4):uint()
    local name = opcode_names[op] or string.format("UNKNOWN(0x%02x)", op)

    local bt = root:add(tvb(0, BASE_LEN), "Base header")
    local vi = bt:add(F.version, tvb(0, 1))
    local oi = bt:add(F.opcode, tvb(1, 1))
    local fl = bt:add(F.flags, tvb(2, 2))
    fl:add(F.flag_last, tvb(2, 2))
    fl:add(F.flag_first, tvb(2, 2))
    fl:add(F.flag_retx, tvb(2, 2))
    fl:add(F.flag_ackreq, tvb(2, 2))
    fl:add(F.flag_auth, tvb(2, 2))
    fl:add(F.flag_enc, tvb(2, 2))
    fl:add(F.flag_kphase, tvb(2, 2))
    fl:add(F.flag_hold, tvb(2, 2))
    fl:add(F.flag_rsvd, tvb(2, 2))
    local fnames = {}
    if band(flags, 0x0002) ~= 0 then fnames[#fnames + 1] = "FIRST" end
    if band(flags, 0x0001) ~= 0 then fnames[#fnames + 1] = "LAST" end
    if band(flags, 0x0004) ~= 0 then fnames[#fnames + 1] = "RETRANSMIT" end
    if band(flags, 0x0008) ~= 0 then fnames[#fnames + 1] = "ACK_REQ" end
    if band(flags, 0x0010) ~= 0 then fnames[#fnames + 1] = "AUTH" end
    if band(flags, 0x0020) ~= 0 then fnames[#fnames + 1] = "ENCRYPTED" end
    if band(flags, 0x0040) ~= 0 then fnames[#fnames + 1] = "KEY_PHASE" end
    if band(flags, 0x0080) ~= 0 then fnames[#fnames + 1] = "ACK_HOLD" end
    if #fnames > 0 then fl:append_text(" (" .. table.concat(fnames, ", ") .. ")") end
    bt:add(F.dest_qpn, tvb(4, 4))
    bt:add(F.path, tvb(8, 2))
    bt:add(F.payload_len, tvb(10, 2))
    bt:add(F.psn, tvb(12, 4))
    local pf = bt:add(F.psn_floor, tvb(16, 4))
    local held = (op == 0x10 or op == 0x12) and band(flags, 0x0080) ~= 0
    if held then
        pf:append_text(" (ACK hold times, WIRE-21)")
        pf:add(F.ack_hold_new, tvb(16, 2))
        pf:add(F.ack_hold_max, tvb(18, 2))
    end
    bt:add(F.src_qpn, tvb(20, 4))
    bt:add(F.timestamp, tvb(24, 8))
    bt:add(F.qpn, tvb(4, 4)):set_hidden()
    bt:add(F.qpn, tvb(20, 4)):set_hidden()
    if version == VERSION then root:append_text(", " .. name .. ", path " .. path) end

    local info = string.format("%s qp=%s path=%d", name, hex32(dqpn), path)
    local x = ext_len[op]
    local ok = true
    -- AUTH-2: a datagram 24 bytes longer than its header says, with flag AUTH, carries the AUTH trailer
    local sealed = x ~= nil and band(flags, 0x0010) ~= 0 and len == BASE_LEN + x + plen + AUTH_LEN + CRC_LEN
    local auth_len = sealed and AUTH_LEN or 0
    if version ~= VERSION then
        -- opcode numbers of another version mean nothing here
        vi:add_proto_expert_info(E.bad_version, "version " .. version .. ", this dissector knows version 1")
        info = string.format("MetaRoCE-J version %d opcode=0x%02x qp=%s path=%d [unknown version]", version, op,
            hex32(dqpn), path)
        ok = false
    elseif x == nil then
        oi:add_proto_expert_info(E.bad_opcode)
        ok = false
    elseif len ~= BASE_LEN + x + plen + auth_len + CRC_LEN then
        root:add_proto_expert_info(E.bad_length, string.format("length %d, expected 32 + %d + %d + 4 = %d",
            len, x, plen, BASE_LEN + x + plen + CRC_LEN))
        info = info .. " [bad length]"
        ok = need(tvb, BASE_LEN, x + CRC_LEN) and len >= BASE_LEN + x + CRC_LEN
    end

    -- extension and payload
    if ok and not need(tvb, BASE_LEN, x) then
        root:append_text(" [extension header not captured]")
        info = info .. " [snapped]"
        ok = false
    end
    if ok then
        local off = BASE_LEN
        if is_data(op) then
            info = info .. string.format(" psn=%d", psn)
            local dinfo = dissect_data(tvb, root, off)
            info = info .. dinfo .. " len=" .. plen
        elseif op == OP.READ_REQ then
            info = info .. string.format(" psn=%d", psn) .. dissect_read_req(tvb, root, off)
        elseif op == OP.PARITY or op == OP.PARITY_Q or op == OP.PARITY_R then
            info = info .. dissect_parity(tvb, root, off, op) .. " len=" .. plen
        elseif op == OP.ACK then
            info = info .. dissect_ack(tvb, root, off)
        elseif op == OP.ACK_BUNDLE then
            info = info .. dissect_ack_bundle(tvb, root, off, plen)
        elseif op == OP.NAK then
            info = info .. dissect_nak(tvb, root, off)
        elseif op == OP.PROBE or op == OP.PROBE_REPLY then
            info = info .. dissect_probe(tvb, root, off, op)
        elseif is_cm(op) then
            info = info .. dissect_cm(tvb, root, off, op, plen)
        end
        if not is_cm(op) and op ~= OP.ACK_BUNDLE and plen > 0 then
            local avail = math.min(len - CRC_LEN - auth_len, tvb:captured_len()) - (off + x)
            if avail > 0 then
                local n = math.min(plen, avail)
                local pf = (sealed and band(flags, 0x0020) ~= 0) and F.ciphertext or F.payload
                root:add(pf, tvb(off + x, n)):append_text(" (" .. n .. " bytes)")
            end
        end
        if sealed and is_cm(op) and need(tvb, off + x + plen, AUTH_LEN) then
            local at = off + x + plen
            local ai = root:add(tvb(at, AUTH_LEN), "AUTH trailer (HMAC-SHA256, CM key)")
            ai:add(F.cm_tag, tvb(at, 16))
            ai:add(F.cm_counter, tvb(at + 16, 8))
            info = info .. " cm_counter=" .. u64str(tvb, at + 16) .. " [auth]"
        elseif sealed and need(tvb, off + x + plen, AUTH_LEN) then
            local at = off + x + plen
            local ai = root:add(tvb(at, AUTH_LEN), "AUTH trailer (AES-128-GCM)")
            ai:add(F.auth_tag, tvb(at, 16))
            ai:add(F.auth_seq, tvb(at + 16, 8))
            info = info .. " auth_seq=" .. u64str(tvb, at + 16) .. (band(flags, 0x0020) ~= 0 and " [encrypted]" or " [auth]")
        end
    end
    if band(flags, 0x0004) ~= 0 then
        fl:add_proto_expert_info(E.retransmit)
        info = info .. " RETX"
    end

    -- trailer
    local ci
    if len >= MIN_LEN and tvb:captured_len() >= len then
        ci = root:add(F.crc, tvb(len - CRC_LEN, CRC_LEN))
        if metaroce.prefs.check_crc then
            local status, _, computed = verify_crc(tvb)
            ci:add(F.crc_computed, tvb(len - CRC_LEN, CRC_LEN), computed):set_generated()
            ci:add(F.crc_status, tvb(len - CRC_LEN, CRC_LEN), status):set_generated()
            if status == CRC_GOOD then
                ci:append_text(" [CRC: good]")
            else
                ci:append_text(" [CRC: bad, computed " .. hex32(computed) .. "]")
                ci:add_proto_expert_info(E.crc_bad, "Bad CRC32C: stored " .. hex32(tvb(len - CRC_LEN, 4):uint())
                    .. ", computed " .. hex32(computed))
                info = info .. " [BAD CRC]"
            end
        else
            ci:add(F.crc_status, tvb(len - CRC_LEN, CRC_LEN), CRC_UNVERIFIED):set_generated()
            ci:append_text(" [CRC: unverified]")
        end
    end

    pinfo.cols.info:set(info)
    return len
end

---------------------------------------------------------------------------------------------------------------
-- Registration
---------------------------------------------------------------------------------------------------------------

local function heuristic(tvb, pinfo, tree)
    local op = structurally_valid(tvb)
    if op == nil then return false end
    if metaroce.prefs.heur_crc and verify_crc(tvb) ~= CRC_GOOD then return false end
    metaroce.dissector(tvb, pinfo, tree)
    return true
end

local udp_table = DissectorTable.get("udp.port")
local registered_port = DEFAULT_UDP_PORT
udp_table:add(registered_port, metaroce)

function metaroce.prefs_changed()
    local port = metaroce.prefs.udp_port
    if port ~= registered_port then
        if registered_port ~= 0 then udp_table:remove(registered_port, metaroce) end
        if port ~= 0 then udp_table:add(port, metaroce) end
        registered_port = port
    end
end

metaroce:register_heuristic("udp", heuristic)
