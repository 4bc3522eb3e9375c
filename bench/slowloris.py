#!/usr/bin/env python3
"""Slow-loris against a running Gatehouse, measured from both sides.

    slowloris.py PORT SECONDS [ATTEMPTS]

An honest client on 127.0.0.1 sends `{ health }` on a new connection (`Connection: close`) every
20 ms for SECONDS and reports its latency. With ATTEMPTS (> 0), an attacker on 127.0.0.2 opens
that many connections at once, each sending a request line and the start of a header, then one
more header byte every second (so none is ever idle); a connection the server closes is reopened
a second later, as an attacker would. The honest client starts 3 s into the attack. Prints one
JSON object: the honest client's requests, failures and p50/p99/max latency in ms; the attacker's
connection attempts, those closed within a second of opening (refused), those closed later (cut),
and the connections the server held open for it (median and most, sampled each second of the
honest run from /proc/net/tcp).
"""
import json
import selectors
import socket
import sys
import threading
import time

HOST = "127.0.0.1"
BODY = b'{"query":"{ health }"}'
REQUEST = (b"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
           b"Content-Length: %d\r\nConnection: close\r\n\r\n" % len(BODY)) + BODY
OPENING = b"POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-Slow: "


def percentile(values, p):
    if not values:
        return None
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def honest(port, seconds):
    latencies, failures = [], 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        start = time.monotonic()
        ok = False
        try:
            with socket.create_connection((HOST, port), timeout=10, source_address=("127.0.0.1", 0)) as s:
                s.sendall(REQUEST)
                data = b""
                while True:
                    chunk = s.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                ok = data.startswith(b"HTTP/1.1 200") and b'"health":true' in data
        except OSError:
            pass
        if ok:
            latencies.append((time.monotonic() - start) * 1000)
        else:
            failures += 1
        time.sleep(0.02)
    return latencies, failures


class Attacker(threading.Thread):
    def __init__(self, port, attempts):
        super().__init__(daemon=True)
        self.port, self.slots = port, attempts
        self.stop = threading.Event()
        self.attempts = self.refused = self.cut = 0
        self.open = {}  # socket -> opened at
        self.lock = threading.Lock()

    def held(self):
        """Connections from 127.0.0.2 the server holds open, as the kernel lists them (the
        attacker may not yet have read the end of a connection the server has shut down)."""
        local, remote = "0100007F:%04X" % self.port, "0200007F:"
        with open("/proc/net/tcp") as table:
            next(table)
            return sum(1 for line in table
                       if (f := line.split())[1] == local and f[2].startswith(remote) and f[3] == "01")

    def connect(self, selector):
        self.attempts += 1
        s = socket.socket()
        try:
            s.bind(("127.0.0.2", 0))
            s.settimeout(2)
            s.connect((HOST, self.port))
            s.sendall(OPENING)
            s.setblocking(False)
        except OSError:
            s.close()
            self.refused += 1
            return False
        selector.register(s, selectors.EVENT_READ)
        with self.lock:
            self.open[s] = time.monotonic()
        return True

    def closed(self, selector, s):
        selector.unregister(s)
        with self.lock:
            opened = self.open.pop(s)
        s.close()
        if time.monotonic() - opened < 1:
            self.refused += 1
        else:
            self.cut += 1

    def run(self):
        selector = selectors.DefaultSelector()
        reopen = []  # times at which a closed slot reconnects
        for _ in range(self.slots):
            if not self.connect(selector):
                reopen.append(time.monotonic() + 1)
        next_byte = time.monotonic() + 1
        while not self.stop.is_set():
            for key, _ in selector.select(timeout=0.05):
                try:
                    data = key.fileobj.recv(4096)
                except OSError:
                    data = b""
                if not data:
                    self.closed(selector, key.fileobj)
                    reopen.append(time.monotonic() + 1)
            now = time.monotonic()
            if now >= next_byte:
                next_byte = now + 1
                for s in list(self.open):
                    try:
                        s.send(b"a")
                    except OSError:
                        self.closed(selector, s)
                        reopen.append(now + 1)
            due = [t for t in reopen if t <= now]
            reopen = [t for t in reopen if t > now]
            for _ in due:
                if not self.connect(selector):
                    reopen.append(time.monotonic() + 1)
        for s in list(self.open):
            s.close()


def main():
    port, seconds = int(sys.argv[1]), float(sys.argv[2])
    attempts = int(sys.argv[3]) if len(sys.argv) > 3 else 0
    attacker = None
    samples = []
    if attempts:
        attacker = Attacker(port, attempts)
        attacker.start()
        time.sleep(3)
        sampling = threading.Event()

        def sample():
            while not sampling.wait(1):
                samples.append(attacker.held())
        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
    latencies, failures = honest(port, seconds)
    result = {
        "requests": len(latencies) + failures, "failures": failures,
        "p50_ms": percentile(latencies, 50), "p99_ms": percentile(latencies, 99),
        "max_ms": max(latencies) if latencies else None,
    }
    if attacker:
        sampling.set()
        attacker.stop.set()
        attacker.join()
        result.update({
            "attempts": attacker.attempts, "refused": attacker.refused, "cut": attacker.cut,
            "held_median": percentile(samples, 50), "held_max": max(samples) if samples else 0,
        })
    print(json.dumps(result))


if __name__ == "__main__":
    main()
