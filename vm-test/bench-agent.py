#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The host's side of make bench's disk model (started by 05-boot.sh).

    bench-agent.py CTL_SOCKET QMP_SOCKET MEMCPY_TOOL

The guest (guest/bench.sh) sends one request per line on its third serial
port (ttyS2), which QEMU connects to CTL_SOCKET, and reads one answer line:

    memcpy                          -> "ok NS": MEMCPY_TOOL run on the host
                                       (ns per 4 KiB memcpy), measured while
                                       the guest waits, so in the same boot
    throttle DRIVE RD_BPS WR_BPS IOPS
                                    -> "ok" once QEMU throttles the drive
                                       (the -drive id) to those limits
                                       (iops counted per 4 KiB; 0 0 0 =
                                       unthrottled), through QMP's
                                       block_set_io_throttle
    anything else, or a failure     -> "error TEXT"

It ends when the guest's side of the socket closes (QEMU exits).
"""
import json
import socket
import subprocess
import sys
import time


def connect(path, timeout=300):
    """Connect to a QEMU server socket, waiting for QEMU to create it."""
    end = time.time() + timeout
    while True:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            s.connect(path)
            return s
        except OSError:
            s.close()
            if time.time() > end:
                raise
            time.sleep(0.5)


class Qmp:
    def __init__(self, path):
        self.f = connect(path).makefile("rw")
        self.reply()                      # the greeting
        self.call("qmp_capabilities")

    def reply(self):
        while True:
            line = self.f.readline()
            if not line:
                raise EOFError("QMP closed")
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def call(self, cmd, **args):
        self.f.write(json.dumps({"execute": cmd, "arguments": args}) + "\n")
        self.f.flush()
        msg = self.reply()
        if "error" in msg:
            raise RuntimeError(msg["error"].get("desc", str(msg["error"])))
        return msg.get("return")


def answer(req, qmp, tool):
    words = req.split()
    if words == ["memcpy"]:
        out = subprocess.run([tool], capture_output=True, text=True,
                             check=True, timeout=60)
        return "ok " + out.stdout.strip()
    if len(words) == 5 and words[0] == "throttle":
        rd, wr, iops = (int(w) for w in words[2:])
        qmp.call("block_set_io_throttle", device=words[1], bps=0,
                 bps_rd=rd, bps_wr=wr, iops=iops, iops_rd=0, iops_wr=0,
                 iops_size=4096 if iops else 0)
        return "ok"
    return "error unknown request: " + req


def main():
    ctl_path, qmp_path, tool = sys.argv[1:4]
    ctl = connect(ctl_path).makefile("rwb", buffering=0)
    qmp = Qmp(qmp_path)
    buf = b""
    while True:
        data = ctl.read(1)
        if not data:
            return
        if data not in b"\r\n":
            buf += data
            continue
        req = buf.decode(errors="replace").strip()
        buf = b""
        if not req:
            continue
        try:
            ans = answer(req, qmp, tool)
        except Exception as e:            # the guest gets the reason
            ans = "error " + str(e).replace("\n", " ")
        print(f"bench-agent: {req} -> {ans}", flush=True)
        ctl.write((ans + "\n").encode())


if __name__ == "__main__":
    main()
