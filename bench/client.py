#!/usr/bin/env python3
"""HTTP helpers for the bench scripts (127.0.0.1 only): seeding, cache-invalidation latency,
user-enumeration timing, fault-test sign-ups and checks. Standard library only."""
import hashlib, http.client, json, random, statistics, sys, threading, time
from urllib.parse import urlparse

SIGNUP = ('mutation S($f: CreateUserFieldsInput) { signUp(input: {fields: $f}) '
          '{ viewer { sessionToken user { objectId username } } } }')
LOGIN = ('mutation L($u: String!, $p: String!) { logIn(input: {username: $u, password: $p}) '
         '{ viewer { sessionToken user { objectId username } } } }')
VIEWER = '{ viewer { user { username } } }'
LOGOUT = 'mutation { logOut(input: {clientMutationId: "x"}) { ok } }'


class Client:
    def __init__(self, url, timeout=30):
        u = urlparse(url)
        assert u.hostname == '127.0.0.1', 'only 127.0.0.1'
        self.host, self.port, self.path, self.timeout = u.hostname, u.port, u.path, timeout
        self.conn = None

    def post(self, query, variables=None, token=None, installation=None, master=None):
        body = json.dumps({'query': query, 'variables': variables or {}})
        headers = {'Content-Type': 'application/json'}
        if token: headers['X-Parse-Session-Token'] = token
        if master: headers['X-Parse-Master-Key'] = master
        if installation: headers['X-Parse-Installation-Id'] = installation
        for attempt in range(2):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
            try:
                self.conn.request('POST', self.path, body, headers)
                r = self.conn.getresponse()
                data = r.read()
                return r.status, json.loads(data) if data else None
            except (http.client.RemoteDisconnected, BrokenPipeError, ConnectionResetError):
                self.conn.close(); self.conn = None
                if attempt: raise
        raise RuntimeError('unreachable')


def error_code(doc):
    errs = (doc or {}).get('errors') or []
    return errs[0].get('extensions', {}).get('code') if errs else None


def seed(url, n, out, parallel=16, prefix='u'):
    """Signs up n users (parallel); writes 'username password token objectId' and digests."""
    results = [None] * n
    lock = threading.Lock()
    next_i = [0]
    failures = []

    def worker():
        c = Client(url, timeout=120)
        while True:
            with lock:
                i = next_i[0]; next_i[0] += 1
            if i >= n: return
            name, pw = f'{prefix}{i}', f'pw-{prefix}{i}-secret'
            for _ in range(1200):
                status, doc = c.post(SIGNUP, {'f': {'username': name, 'password': pw}})
                if error_code(doc) == 155: time.sleep(0.05); continue
                break
            try:
                v = doc['data']['signUp']['viewer']
                results[i] = (name, pw, v['sessionToken'], v['user']['objectId'])
            except Exception:
                failures.append((name, status, doc))
    ts = [threading.Thread(target=worker) for _ in range(parallel)]
    t0 = time.time()
    for t in ts: t.start()
    for t in ts: t.join()
    if failures:
        print(f'seed: {len(failures)} failures, first: {failures[0]}', file=sys.stderr); sys.exit(1)
    with open(out, 'w') as f:
        for r in results: f.write(' '.join(r) + '\n')
    with open(out + '.digests', 'w') as f:
        for r in results: f.write(hashlib.sha256(r[2].encode()).hexdigest() + '\n')
    print(f'seeded {n} users in {time.time() - t0:.1f} s', file=sys.stderr)


PROFILE = ('mutation U($id: ID!, $f: UpdateUserFieldsInput) { updateUser(input: {id: $id, fields: $f}) '
           '{ user { objectId } } }')


def profiles(url, users_file, parallel=8):
    """Sets every seeded user's displayName, photoURL and bench/user-fields.graphql's fields."""
    users = [l.split() for l in open(users_file) if l.strip()]
    lock, it, failures = threading.Lock(), iter(users), []

    def worker():
        c = Client(url, timeout=120)
        while True:
            with lock:
                u = next(it, None)
            if u is None: return
            name, _, token, object_id = u[:4]
            fields = {'displayName': f'User {name}', 'photoURL': f'https://example.com/avatars/{name}.png',
                      'bio': f'Hello, I am {name} and I like benchmarks.', 'newsletter': True, 'plan': 'PRO'}
            status, doc = c.post(PROFILE, {'id': object_id, 'f': fields}, token=token)
            if status != 200 or (doc or {}).get('errors'):
                with lock: failures.append((name, status, doc))
    ts = [threading.Thread(target=worker) for _ in range(parallel)]
    for t in ts: t.start()
    for t in ts: t.join()
    if failures:
        print(f'profiles: {len(failures)} failures, first: {failures[0]}', file=sys.stderr); sys.exit(1)
    print(f'profiles set for {len(users)} users', file=sys.stderr)


def pct(values, p):
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def invalidation(url_a, url_b, users_file, n):
    """logOut through A, poll viewer on B until 209; prints ms figures."""
    users = [l.split() for l in open(users_file)][:n]
    a, b = Client(url_a), Client(url_b)
    lat = []
    for name, pw, token, _ in users:
        _, doc = b.post(VIEWER, token=token)  # B has the session cached
        assert doc['data']['viewer']['user']['username'] == name, doc
        _, doc = b.post(VIEWER, token=token)
        t0 = time.perf_counter()
        _, doc = a.post(LOGOUT, token=token)
        assert doc['data']['logOut']['ok'], doc
        while True:
            _, doc = b.post(VIEWER, token=token)
            if error_code(doc) == 209: break
            if time.perf_counter() - t0 > 5: break
        lat.append((time.perf_counter() - t0) * 1000)
    print(f'n={len(lat)} median={statistics.median(lat):.2f} p99={pct(lat, 99):.2f} max={max(lat):.2f} '
          f'within50={sum(1 for x in lat if x <= 50)}')


def enumeration(url, n, limit_pct, groups):
    """Interleaved logIns with a wrong password: a missing name, and a user of each group
    ('label=file', the first word of each line a username), in a new random order each round.
    Prints the median per group in ms and its difference from the missing name's; exits 1
    unless every median is within limit_pct% of it."""
    users = {}
    for g in groups:
        label, path = g.split('=', 1)
        users[label] = [l.split()[0] for l in open(path) if l.strip()]
    labels = ['unknown'] + list(users)
    times = {label: [] for label in labels}
    c = Client(url)
    rng = random.Random(16)
    # Two rounds of warm-up, not counted (the server learns a kind of hash when it first meets it).
    for i in range(-2, n):
        order = labels[:]
        rng.shuffle(order)
        for label in order:
            name = f'nobody{i}x{rng.randrange(10**9)}' if label == 'unknown' else users[label][i % len(users[label])]
            t0 = time.perf_counter()
            _, doc = c.post(LOGIN, {'u': name, 'p': 'wrong-password-123'})
            dt = (time.perf_counter() - t0) * 1000
            assert error_code(doc) == 101, doc
            if i >= 0: times[label].append(dt)
    base = statistics.median(times['unknown'])
    worst = 0.0
    parts = [f'n={n}', f'unknown={base:.1f}']
    for label in labels[1:]:
        m = statistics.median(times[label])
        diff = (m - base) / base * 100
        worst = max(worst, abs(diff))
        parts.append(f'{label}={m:.1f}({diff:+.1f}%)')
    parts.append(f'worst={worst:.1f}%')
    print(' '.join(parts))
    sys.exit(0 if worst <= limit_pct else 1)


RESET = 'mutation R($e: String!) { resetPassword(input: {email: $e}) { ok } }'


def reset_enumeration(url, n, emails_file):
    """resetPassword for n registered addresses (each once) and n unknown ones, interleaved in a
    random order; prints medians (ms) and the registered addresses' difference from the unknown."""
    known = [l.strip() for l in open(emails_file)][:n]
    assert len(known) == n, 'not enough addresses'
    jobs = [('known', e) for e in known] + [('unknown', f'nobody-{i}-{random.random()}@example.net') for i in range(n)]
    random.shuffle(jobs)
    c = Client(url)
    times = {'known': [], 'unknown': []}
    for kind, email in jobs:
        t0 = time.perf_counter()
        _, doc = c.post(RESET, {'e': email})
        times[kind].append((time.perf_counter() - t0) * 1000)
        assert doc['data']['resetPassword']['ok'], doc
    k, u = statistics.median(times['known']), statistics.median(times['unknown'])
    print(f'n={n} unknown={u:.3f} known={k:.3f} diff={100 * (k - u) / u:+.1f}%')


def burst(url, n, prefix):
    """n sign-ups sent at the same instant, each on its own connection opened beforehand;
    prints how many succeeded, were refused with 155 or failed otherwise, and latency in ms."""
    barrier = threading.Barrier(n)
    results = [None] * n

    def worker(i):
        c = Client(url, timeout=120)
        c.conn = http.client.HTTPConnection(c.host, c.port, timeout=120)
        c.conn.connect()
        barrier.wait()
        t0 = time.perf_counter()
        try:
            _, doc = c.post(SIGNUP, {'f': {'username': f'{prefix}{i}', 'password': f'pw-{prefix}{i}-secret'}})
            code = error_code(doc)
            outcome = 'ok' if code is None and doc['data']['signUp']['viewer']['sessionToken'] else str(code)
        except Exception as e:
            outcome = type(e).__name__
        results[i] = ((time.perf_counter() - t0) * 1000, outcome)
    ts = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in ts: t.start()
    for t in ts: t.join()
    lat = [r[0] for r in results]
    ok = sum(1 for r in results if r[1] == 'ok')
    refused = sum(1 for r in results if r[1] == '155')
    print(f'n={n} ok={ok} refused_155={refused} other={n - ok - refused} p50_ms={pct(lat, 50):.0f} '
          f'p99_ms={pct(lat, 99):.0f} max_ms={max(lat):.0f}')


def signup_until_dead(url, out, parallel, prefix, seconds):
    """Signs up users until the server goes away (or `seconds`); records tokens received and
    every name attempted (a name in 'attempted' but not 'granted' got no response)."""
    lock = threading.Lock()
    granted, attempted = open(out + '.granted', 'w'), open(out + '.attempted', 'w')
    stop = time.time() + seconds
    counter = [0]

    def worker(w):
        c = Client(url, timeout=10)
        while time.time() < stop:
            with lock:
                counter[0] += 1; i = counter[0]
                name, pw = f'{prefix}{w}x{i}', f'pw-{prefix}-{i}-secret'
                attempted.write(f'{name} {pw}\n'); attempted.flush()
            try:
                status, doc = c.post(SIGNUP, {'f': {'username': name, 'password': pw}})
            except Exception:
                return
            if error_code(doc) == 155: continue
            try:
                v = doc['data']['signUp']['viewer']
                with lock:
                    granted.write(f"{name} {pw} {v['sessionToken']} {v['user']['objectId']}\n"); granted.flush()
            except Exception:
                pass
    ts = [threading.Thread(target=worker, args=(w,)) for w in range(parallel)]
    for t in ts: t.start()
    for t in ts: t.join()


def login_all(url, users_file, parallel=8):
    """Every user in the file can log in; prints the count, exits 1 otherwise."""
    users = [l.split() for l in open(users_file) if l.strip()]
    bad, lock, it = [], threading.Lock(), iter(users)

    def worker():
        c = Client(url, timeout=60)
        while True:
            with lock:
                u = next(it, None)
            if u is None: return
            for _ in range(100):
                _, doc = c.post(LOGIN, {'u': u[0], 'p': u[1]})
                if error_code(doc) == 155: time.sleep(0.05); continue
                break
            if not ((doc or {}).get('data') or {}).get('logIn'):
                with lock: bad.append((u[0], doc))
                continue
            if len(u) > 2:
                _, doc = c.post(VIEWER, token=u[2])
                if not (((doc or {}).get('data') or {}).get('viewer') or {}).get('user', {}).get('username') == u[0]:
                    with lock: bad.append((u[0], 'token', doc))
    ts = [threading.Thread(target=worker) for _ in range(parallel)]
    for t in ts: t.start()
    for t in ts: t.join()
    print(f'logged_in={len(users) - len(bad)} of={len(users)} failed={len(bad)} first={bad[:1]}')
    sys.exit(1 if bad else 0)


def probe(url, users_file, out, seconds, kinds, parallel):
    """Sends requests of `kinds` (viewer,login,signup; comma-separated, round robin) from
    `parallel` threads for `seconds`; one line per request:
    start_epoch latency_s kind http_status code message (code 0 = success, -1 = transport error)."""
    users = [l.split() for l in open(users_file) if l.strip()]
    kinds = kinds.split(',')
    stop = time.time() + seconds
    lock = threading.Lock()
    f = open(out, 'w')

    def worker(w):
        c = Client(url, timeout=30)
        i = 0
        while time.time() < stop:
            kind = kinds[(i + w) % len(kinds)]
            u = users[(i * parallel + w) % len(users)]
            i += 1
            t0 = time.time()
            try:
                if kind == 'viewer':
                    status, doc = c.post(VIEWER, token=u[2])
                    good = ((doc or {}).get('data') or {}).get('viewer')
                elif kind == 'login':
                    status, doc = c.post(LOGIN, {'u': u[0], 'p': u[1]}, installation=f'probe-{w}')
                    good = ((doc or {}).get('data') or {}).get('logIn')
                else:
                    name = f'fa{w}x{i}x{random.randrange(10**6)}'
                    status, doc = c.post(SIGNUP, {'f': {'username': name, 'password': 'pw-' + name}})
                    good = ((doc or {}).get('data') or {}).get('signUp')
                errs = (doc or {}).get('errors') or []
                code = 0 if good and not errs else (error_code(doc) if errs else -2)
                msg = errs[0]['message'] if errs else ''
            except Exception as e:
                status, code, msg = 0, -1, type(e).__name__
                c.conn = None
                time.sleep(0.05)
            dt = time.time() - t0
            with lock:
                f.write(f'{t0:.3f} {dt:.4f} {kind} {status} {code} {msg.replace(" ", "_") or "-"}\n'); f.flush()
    ts = [threading.Thread(target=worker, args=(w,)) for w in range(parallel)]
    for t in ts: t.start()
    for t in ts: t.join()


RESET = 'mutation R($e: String!) { resetPassword(input: {email: $e}) { ok } }'


def reset_all(url, emails_file, parallel=16):
    """resetPassword once for each address in emails_file; prints 'requests seconds failures'."""
    emails = [l.strip() for l in open(emails_file) if l.strip()]
    lock, next_i, failures = threading.Lock(), [0], []

    def worker():
        c = Client(url, timeout=60)
        while True:
            with lock:
                i = next_i[0]; next_i[0] += 1
            if i >= len(emails): return
            status, doc = c.post(RESET, {'e': emails[i]})
            if status != 200 or not (((doc or {}).get('data') or {}).get('resetPassword') or {}).get('ok'):
                failures.append((status, doc))
    ts = [threading.Thread(target=worker) for _ in range(parallel)]
    t0 = time.time()
    for t in ts: t.start()
    for t in ts: t.join()
    if failures: print(f'reset: {len(failures)} failures, first: {failures[0]}', file=sys.stderr)
    print(f'{len(emails)} {time.time() - t0:.3f} {len(failures)}')


if __name__ == '__main__':
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'seed': seed(args[0], int(args[1]), args[2], int(args[3]) if len(args) > 3 else 16,
                           args[4] if len(args) > 4 else 'u')
    elif cmd == 'profiles': profiles(args[0], args[1])
    elif cmd == 'invalidation': invalidation(args[0], args[1], args[2], int(args[3]))
    elif cmd == 'enumeration': enumeration(args[0], int(args[1]), float(args[2]), args[3:])
    elif cmd == 'burst': burst(args[0], int(args[1]), args[2])
    elif cmd == 'reset-enumeration': reset_enumeration(args[0], int(args[1]), args[2])
    elif cmd == 'signup-until-dead': signup_until_dead(args[0], args[1], int(args[2]), args[3], float(args[4]))
    elif cmd == 'login-all': login_all(args[0], args[1])
    elif cmd == 'reset-all': reset_all(args[0], args[1], int(args[2]) if len(args) > 2 else 16)
    elif cmd == 'probe': probe(args[0], args[1], args[2], float(args[3]), args[4], int(args[5]))
    else: sys.exit(f'unknown command {cmd}')
