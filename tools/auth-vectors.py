#!/usr/bin/env python3
"""Recomputes the AUTH vectors of docs/spec/10-auth.md with Python's `cryptography` package (an AES-GCM and HKDF
independent of the JDK's) and checks them against the page: the keys of TV-19, and for TV-20..TV-22 the tag over
the stated bytes (decrypting an encrypted payload) and the CRC32C trailer. Exit 0 when every vector agrees.

    python3 tools/auth-vectors.py [docs/spec/10-auth.md]
"""
import re
import struct
import sys

from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

EXT = {0x01: 32, 0x02: 32, 0x03: 32, 0x04: 32, 0x05: 32, 0x06: 32, 0x10: 56, 0x11: 16, 0x20: 16, 0x21: 16}
FLAG_AUTH, FLAG_ENCRYPTED = 0x0010, 0x0020


def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ (0x82F63B78 if crc & 1 else 0)
    return crc ^ 0xFFFFFFFF


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
            ok_tag = bool(flags & FLAG_AUTH)
        except Exception as e:  # cryptography raises InvalidTag
            ok_tag, detail = False, f"tag does not verify ({type(e).__name__})"
        verdict = "agrees" if ok_tag and ok_crc else "DISAGREES"
        failures += verdict != "agrees"
        print(f"TV-{number}: {len(wire)} bytes, path {path}, seq {seq}: {detail}; CRC {'ok' if ok_crc else 'BAD'}: {verdict}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
