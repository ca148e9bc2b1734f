#!/usr/bin/env python3
"""Recomputes the AUTH vectors of docs/spec/10-auth.md with Python's `cryptography` package (an AES-GCM and HKDF
independent of the JDK's) and checks them against the page: the keys of TV-19, and for TV-20..TV-22 the tag over
the stated bytes (decrypting an encrypted payload) and the CRC32C trailer; for TV-23 (a CM message, AUTH-11) the
CM key and the truncated HMAC-SHA256 tag with Python's own `hmac` and `hashlib` (HKDF written out from RFC 5869);
for TV-24 (a key update, AUTH-17) the update secrets S_0, S_1 and the key K_1 with `hmac`/`hashlib`, and the tag under
K_1 with `cryptography`. Exit 0 when every vector agrees.

    python3 tools/auth-vectors.py [docs/spec/10-auth.md]
"""
import hashlib
import hmac
import re
import struct
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

EXT = {0x01: 32, 0x02: 32, 0x03: 32, 0x04: 32, 0x05: 32, 0x06: 32, 0x10: 56, 0x11: 16, 0x20: 16, 0x21: 16}
FLAG_AUTH, FLAG_ENCRYPTED, FLAG_KEY_PHASE = 0x0010, 0x0020, 0x0040


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


def hkdf_sha256(salt, ikm, info, length):
    """RFC 5869 with HMAC-SHA256, from the standard library (independent of the `cryptography` package)."""
    prk = hmac.new(salt, ikm, hashlib.sha256).digest()
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        out, i = out + t, i + 1
    return out[:length]


def check_cm(number, body, wire, psk):
    """AUTH-11, AUTH-12: K_cm from the PSK, tag = HMAC-SHA256(K_cm, header..extension || counter)[:16]."""
    k_cm = hkdf_sha256(b"MetaRoCE CM v1", psk, b"MetaRoCE CM MAC", 32)
    shown = re.search(r"^\| K_cm \| `([0-9a-f]+)` \|$", body, re.M).group(1)
    plen, = struct.unpack(">H", wire[10:12])
    end = 32 + 32 + plen
    tag, counter = wire[end:end + 16], wire[end + 16:end + 24]
    flags, = struct.unpack(">H", wire[2:4])
    expected = hmac.new(k_cm, wire[:end] + counter, hashlib.sha256).digest()[:16]
    ok_key = k_cm.hex() == shown
    ok_tag = bool(flags & FLAG_AUTH) and hmac.compare_digest(tag, expected) and len(wire) == end + 28
    ok_crc = struct.unpack(">I", wire[-4:])[0] == crc32c(wire[:-4])
    verdict = "agrees" if ok_key and ok_tag and ok_crc else "DISAGREES"
    print(f"TV-{number}: {len(wire)} bytes, CM message counter {struct.unpack('>Q', counter)[0]}: K_cm "
          f"{'agrees' if ok_key else 'DIFFERS'}, tag {'verifies' if ok_tag else 'does NOT verify'}; "
          f"CRC {'ok' if ok_crc else 'BAD'}: {verdict}")
    return verdict == "agrees"


def hkdf_expand(prk, info, length):
    """RFC 5869 HKDF-Expand with HMAC-SHA256 (standard library)."""
    out, t, i = b"", b"", 1
    while len(out) < length:
        t = hmac.new(prk, t + info + bytes([i]), hashlib.sha256).digest()
        out, i = out + t, i + 1
    return out[:length]


def updated_key(body, psk, context):
    """AUTH-17: S_0 = Expand(PRK, "<direction> update", 32), S_1 = Expand(S_0, "key update", 32),
    K_1 = Expand(S_1, "key", 16); each checked against the page. Returns K_1 (None when one differs)."""
    prk = hmac.new(context, psk, hashlib.sha256).digest()
    s0 = hkdf_expand(prk, b"MetaRoCE AUTH v1 initiator to responder update", 32)
    s1 = hkdf_expand(s0, b"MetaRoCE AUTH v1 key update", 32)
    k1 = hkdf_expand(s1, b"MetaRoCE AUTH v1 key", 16)
    ok = True
    for name, value in (("S_i2r,0", s0), ("S_i2r,1", s1), ("K_i2r,1", k1)):
        shown = re.search(r"^\| " + re.escape(name) + r" \| `([0-9a-f]+)` \|$", body, re.M).group(1)
        same = shown == value.hex()
        ok &= same
        print(f"TV-24 {name} = {value.hex()}: {'agrees' if same else 'DIFFERS from ' + shown}")
    return k1 if ok else None


def main():
    page = open(sys.argv[1] if len(sys.argv) > 1 else "docs/spec/10-auth.md").read()
    section = page[page.index("<!-- auth-vectors:begin"):page.index("<!-- auth-vectors:end")]
    values = dict(re.findall(r"^\| (PSK|context \(salt\)|PRK|K_i2r[^|]*|K_r2i[^|]*) \| `([0-9a-f]+)` \|$", section, re.M))
    psk, context = bytes.fromhex(values["PSK"]), bytes.fromhex(values["context (salt)"])
    keys = {}
    for label, name in (("initiator to responder", "K_i2r"), ("responder to initiator", "K_r2i")):
        info = ("MetaRoCE AUTH v1 " + label).encode("ascii")
        keys[name] = HKDF(algorithm=hashes.SHA256(), length=16, salt=context, info=info).derive(psk)
        shown = next(v for k, v in values.items() if k.startswith(name))
        assert keys[name].hex() == shown, f"{name}: computed {keys[name].hex()}, page shows {shown}"
        print(f"TV-19 {name} = {shown}: agrees")
    failures = 0
    for number, body in re.findall(r"### TV-(\d+) .*?\n(.*?)(?=### TV-|\Z)", section, re.S):
        dump = re.search(r"```text\n(.*?)```", body, re.S)
        if not dump:
            continue
        wire = bytes(int(b, 16) for line in dump.group(1).splitlines() for b in line.split()[1:])
        if 0x30 <= wire[1] <= 0x34:
            failures += not check_cm(number, body, wire, psk)
            continue
        if "key K_i2r,1" in body:
            key = updated_key(body, psk, context)
            if key is None:
                failures += 1
                continue
        else:
            key = keys["K_i2r" if "key K_i2r" in body else "K_r2i"]
        flags, = struct.unpack(">H", wire[2:4])
        path, = struct.unpack(">H", wire[8:10])
        plen, = struct.unpack(">H", wire[10:12])
        headers = 32 + EXT[wire[1]]
        end = headers + plen
        tag, seq = wire[end:end + 16], struct.unpack(">Q", wire[end + 16:end + 24])[0]
        nonce = struct.pack(">IQ", path, seq)
        ok_crc = struct.unpack(">I", wire[-4:])[0] == crc32c(wire[:-4])
        aead = AESGCM(key)
        try:
            if flags & FLAG_ENCRYPTED:
                plain = aead.decrypt(nonce, wire[headers:end] + tag, wire[:headers])
                detail = f"payload decrypts to {plain!r}"
            else:
                aead.decrypt(nonce, tag, wire[:end])
                detail = "tag verifies"
            ok_tag = bool(flags & FLAG_AUTH) and bool(flags & FLAG_KEY_PHASE) == ("key K_i2r,1" in body)
        except Exception as e:  # cryptography raises InvalidTag
            ok_tag, detail = False, f"tag does not verify ({type(e).__name__})"
        verdict = "agrees" if ok_tag and ok_crc else "DISAGREES"
        failures += verdict != "agrees"
        print(f"TV-{number}: {len(wire)} bytes, path {path}, seq {seq}: {detail}; CRC {'ok' if ok_crc else 'BAD'}: {verdict}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
