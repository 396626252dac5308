#!/usr/bin/env python3
"""Failover past a proxy host that is down (issue 37): the time of an apbasil call whose first listed proxy drops
packets and whose second is a live daemon, with the default connect_timeout (3 s), beside the same call to the live
daemon alone; last, one call with connect_timeout=0 and timeout=20 shows what the limit replaces.

The dead host is on loopback: a listener that never accepts, its accept queue filled, so the kernel drops the SYNs.

  bin/alpsbridge proxy serve --listen 127.0.0.1:16831 --backend emulator:xc30:16 --auth none &
  apbasil-proxy/bench/connect-timeout-failover.py 127.0.0.1:16831 5 \
      native=apbasil-proxy/target/c/apbasil 'java=env APBASIL_CLIENT=jvm bin/apbasil'
"""
import os
import re
import shlex
import socket
import statistics
import subprocess
import sys
import time

live, n, clients = sys.argv[1], int(sys.argv[2]), dict(a.split("=", 1) for a in sys.argv[3:])
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(0)
fillers = []
while True:
    c = socket.socket()
    c.settimeout(0.3)
    try:
        c.connect(listener.getsockname())
        fillers.append(c)
    except socket.timeout:
        break  # the queue is full: connects now hang
down = "127.0.0.1:%d" % listener.getsockname()[1]

ENGINE = b'<?xml version="1.0"?>\n<BasilRequest protocol="1.3" method="QUERY" type="ENGINE"/>\n'


def reserve(i):
    return ('<?xml version="1.0"?>\n<BasilRequest protocol="1.3" method="RESERVE"><ReserveParamArray user_name="root" '
            'batch_id="bench%d"><ReserveParam architecture="XT" width="1"/></ReserveParamArray></BasilRequest>\n'
            % i).encode()


def release(rid):
    return ('<?xml version="1.0"?>\n<BasilRequest protocol="1.3" method="RELEASE" reservation_id="%s"/>\n'
            % rid).encode()


def call(command, proxy, request, extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith("APBASIL_")}
    env.update({"APBASIL_CONFIG": "/dev/null", "APBASIL_PROXY": proxy, "APBASIL_AUTH": "none", "APBASIL_RETRIES": "0"})
    env.update(extra or {})
    t = time.monotonic()
    r = subprocess.run(shlex.split(command), input=request, capture_output=True, env=env)
    return r, (time.monotonic() - t) * 1000


def figures(v):
    return "min %.0f median %.0f max %.0f ms" % (min(v), statistics.median(v), max(v))


for name, command in clients.items():
    for label, proxy in (("live alone", live), ("down,live", down + "," + live)):
        queries, reserves = [], []
        for i in range(n):
            r, ms = call(command, proxy, ENGINE)
            assert r.returncode == 0, r.stderr
            queries.append(ms)
            r, ms = call(command, proxy, reserve(i))
            assert r.returncode == 0, r.stderr
            reserves.append(ms)
            rid = re.search(rb'reservation_id="(\d+)"', r.stdout).group(1).decode()
            r, _ = call(command, live, release(rid))
            assert r.returncode == 0 and b"SUCCESS" in r.stdout, r.stdout
        print("%-6s %-10s QUERY %s | RESERVE %s (n=%d)" % (name, label, figures(queries), figures(reserves), n))
name, command = next(iter(clients.items()))
r, ms = call(command, down + "," + live, ENGINE, {"APBASIL_CONNECT_TIMEOUT": "0", "APBASIL_TIMEOUT": "20"})
print("%s down,live connect_timeout=0 timeout=20: exit %d after %.0f ms: %s"
      % (name, r.returncode, ms, r.stderr.decode().strip()))
