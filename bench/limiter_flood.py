#!/usr/bin/env python3
"""The limiter flood (bench/limiter-flood.sh): a victim account guessed ten times, then COUNT logIn
attempts with random NAME_BYTES names from many loopback source addresses (127.1.x.y), then the
victim's eleventh guess. Prints one JSON line. Standard library only; 127.0.0.1 only.

usage: limiter_flood.py URL PID COUNT ADDRESSES NAME_BYTES THREADS MAX_GROWTH_MIB
The flood stops early when the server's RSS has grown by more than MAX_GROWTH_MIB (a build that
keeps every name would otherwise take the machine's memory)."""
import http.client, json, os, sys, threading, time
from urllib.parse import urlparse

LOGIN = ('mutation L($u: String!, $p: String!) { logIn(input: {username: $u, password: $p}) '
         '{ viewer { sessionToken } } }')
SIGNUP = ('mutation S($f: CreateUserFieldsInput) { signUp(input: {fields: $f}) '
          '{ viewer { sessionToken } } }')


def rss_kib(pid):
    with open(f'/proc/{pid}/status') as f:
        for line in f:
            if line.startswith('VmRSS:'):
                return int(line.split()[1])
    return 0


class Client:
    """One keep-alive connection from a chosen loopback source address."""
    def __init__(self, url, source):
        u = urlparse(url)
        assert u.hostname == '127.0.0.1', 'only 127.0.0.1'
        self.path = u.path
        self.conn = http.client.HTTPConnection(u.hostname, u.port, timeout=60, source_address=(source, 0))

    def post(self, query, variables):
        body = json.dumps({'query': query, 'variables': variables})
        self.conn.request('POST', self.path, body, {'Content-Type': 'application/json'})
        r = self.conn.getresponse()
        doc = json.loads(r.read() or b'null')
        errors = (doc or {}).get('errors') or []
        return errors[0].get('extensions', {}).get('code') if errors else 0

    def close(self):
        self.conn.close()


def main():
    url, pid = sys.argv[1], int(sys.argv[2])
    count, addresses, name_bytes, threads, max_growth = (int(a) for a in sys.argv[3:8])
    victim_source = '127.0.0.3'
    c = Client(url, '127.0.0.2')
    assert c.post(SIGNUP, {'f': {'username': 'victim', 'password': 'the-right-password'}}) == 0, 'sign-up failed'
    c.close()
    v = Client(url, victim_source)
    guesses = [v.post(LOGIN, {'u': 'victim', 'p': f'guess-{i}'}) for i in range(10)]
    assert guesses == [101] * 10, guesses
    start = rss_kib(pid)

    lock = threading.Lock()
    state = {'next': 0, 'codes': {}, 'stopped': False, 'peak': start, 'trace': []}
    per_connection = max(1, count // addresses)

    def worker(index):
        address = index
        while True:
            source = f'127.1.{address // 250 % 250}.{address % 250 + 1}'
            address += threads
            client = Client(url, source)
            try:
                for _ in range(per_connection):
                    with lock:
                        if state['next'] >= count or state['stopped']:
                            return
                        state['next'] += 1
                        n = state['next']
                    name = os.urandom(name_bytes // 2).hex()
                    code = client.post(LOGIN, {'u': name, 'p': 'guess'})
                    with lock:
                        state['codes'][code] = state['codes'].get(code, 0) + 1
                    if n % 250 == 0:
                        rss = rss_kib(pid)
                        with lock:
                            state['peak'] = max(state['peak'], rss)
                            if n % 5000 == 0:
                                state['trace'].append((n, round(rss / 1024, 1)))
                            if rss - start > max_growth * 1024:
                                state['stopped'] = True
            finally:
                client.close()

    t0 = time.time()
    ts = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in ts: t.start()
    for t in ts: t.join()
    seconds = time.time() - t0
    end = rss_kib(pid)
    v.close()
    v = Client(url, victim_source)  # the server has closed the idle one
    eleventh = v.post(LOGIN, {'u': 'victim', 'p': 'guess-10'})
    right = v.post(LOGIN, {'u': 'victim', 'p': 'the-right-password'})
    v.close()
    sent = sum(state['codes'].values())
    print(json.dumps({
        'attempts': sent, 'stopped_at_cap': state['stopped'], 'seconds': round(seconds, 1),
        'codes': {str(k): n for k, n in sorted(state['codes'].items())},
        'rss_start_mib': round(start / 1024, 1), 'rss_end_mib': round(end / 1024, 1),
        'rss_peak_mib': round(max(state['peak'], end) / 1024, 1),
        'growth_mib': round((end - start) / 1024, 1),
        'rss_trace_mib': sorted(state['trace']),
        'victim_eleventh_guess': eleventh, 'victim_right_password': right,
    }))


if __name__ == '__main__':
    main()
