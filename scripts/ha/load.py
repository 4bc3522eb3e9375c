#!/usr/bin/env python3
"""The load, the checks and the table of `make ha` (scripts/ha/run). Standard library, and
python3-cryptography for the passkeys' software authenticator (authenticator.py).

  load.py run     mixed load across the instances; records every acknowledged write and every
                  error (kind, instance, time) and Patroni's /primary answers, into --state
  load.py verify  after the fault: checks every acknowledged write against the primary and through
                  every instance; writes the run's figures (--out, JSON); exits 1 on a lost write
                  or a stale token
  load.py table   the figures of several runs as a Markdown table

The mix: viewer (of live and of logged-out tokens), sign-up, log-in, wrong passwords, log-out,
revokeOtherSessions, resetPassword, and passkeys: registration for a user with a recent session
and log-in (with the username or as a discoverable credential), each a ceremony of two requests,
often on different instances. Every instance must use the origin given as --origin as its
GATEHOUSE_PUBLIC_URL (the relying party)."""
import argparse, glob, http.client, json, os, random, socket, subprocess, sys, threading, time
from urllib.parse import urlparse

import authenticator

SIGNUP = ('mutation SignUp($f: CreateUserFieldsInput) { signUp(input: {fields: $f}) '
          '{ viewer { sessionToken user { objectId } } } }')
LOGIN = ('mutation LogIn($u: String!, $p: String!) { logIn(input: {username: $u, password: $p}) '
         '{ viewer { sessionToken } } }')
VIEWER = 'query Viewer { viewer { user { username } } }'
LOGOUT = 'mutation LogOut { logOut(input: {clientMutationId: "x"}) { ok } }'
RESET = 'mutation Reset($e: String!) { resetPassword(input: {email: $e}) { ok } }'
REVOKE = 'mutation Revoke { revokeOtherSessions(input: {}) { revoked } }'
PASSKEY_REGISTRATION_OPTIONS = 'mutation O { passkeyRegistrationOptions(input: {}) { options } }'
REGISTER_PASSKEY = ('mutation R($c: Object!) { registerPasskey(input: {credential: $c, name: "HA"}) '
                    '{ passkey { objectId } } }')
PASSKEY_LOGIN_OPTIONS = 'mutation O($u: String) { passkeyLoginOptions(input: {username: $u}) { options } }'
PASSKEY_LOGIN = ('mutation L($c: Object!) { logInWithPasskey(input: {credential: $c}) '
                 '{ viewer { sessionToken user { username } } } }')
# Weights of the mix: reads dominate, as in front of a real application.
MIX = [('viewer', 40), ('signUp', 12), ('logIn', 12), ('logOut', 10), ('resetPassword', 5),
       ('revokeOtherSessions', 5), ('wrongPassword', 8), ('viewerLoggedOut', 8), ('registerPasskey', 3),
       ('logInWithPasskey', 6)]
INVALID_SESSION, INVALID_CREDENTIALS = 209, 101
PASSKEY_OPS = ('passkeyRegistrationOptions', 'registerPasskey', 'passkeyLoginOptions', 'logInWithPasskey')
WRITES = ('signUp', 'logIn', 'logOut', 'resetPassword', 'revokeOtherSessions') + PASSKEY_OPS
# Registering a passkey needs a session younger than GATEHOUSE_RECENT_AUTH (300 s by default).
RECENT_S = 240
PASSKEYS_PER_USER = 2
LOSABLE_S = 1.0
# The bound of the session cache's invalidation across instances (bench/cache-invalidation.sh's target).
INVALIDATION_MS = 50


class Failure(Exception):
    """A request without a usable answer; `kind` names it (http503, reset, timeout, gql1, ...)."""
    def __init__(self, kind):
        super().__init__(kind)
        self.kind = kind


class Client:
    """One keep-alive connection to one instance (127.0.0.1 only)."""
    def __init__(self, url, timeout=15):
        u = urlparse(url)
        assert u.hostname == '127.0.0.1', 'only 127.0.0.1'
        self.port, self.timeout, self.conn = u.port, timeout, None

    def post(self, query, variables=None, token=None):
        """The GraphQL answer's `data` or its error code; raises Failure on anything else."""
        headers = {'Content-Type': 'application/json'}
        if token: headers['X-Parse-Session-Token'] = token
        body = json.dumps({'query': query, 'variables': variables or {}})
        try:
            if self.conn is None:
                self.conn = http.client.HTTPConnection('127.0.0.1', self.port, timeout=self.timeout)
            self.conn.request('POST', '/graphql', body, headers)
            r = self.conn.getresponse()
            raw = r.read()
        except socket.timeout:
            self.close(); raise Failure('timeout')
        except ConnectionRefusedError:
            self.close(); raise Failure('refused')
        except (http.client.HTTPException, OSError):
            self.close(); raise Failure('reset')
        if r.getheader('Connection', '').lower() == 'close': self.close()
        try: doc = json.loads(raw)
        except ValueError: raise Failure(f'http{r.status}')
        errors = doc.get('errors') or []
        if errors:
            code = errors[0].get('extensions', {}).get('code')
            if r.status == 503 and not r.getheader('Retry-After'): raise Failure('http503 without Retry-After')
            if r.status >= 500: raise Failure(f'http{r.status}')
            return None, code
        if r.status != 200: raise Failure(f'http{r.status}')
        return doc['data'], None

    def close(self):
        if self.conn: self.conn.close()
        self.conn = None


class Recorder:
    """Everything a run acknowledged or saw fail, with wall-clock times."""
    def __init__(self):
        self.lock = threading.Lock()
        self.requests = []        # [time, instance, op, error kind or None]
        self.signups = []         # [time, username, password, email, objectId]
        self.logged_out = []      # [time, token]  (logOut or revokeOtherSessions acknowledged)
        self.unknown = []         # tokens whose logOut/revoke outcome is unknown
        self.live = {}            # token -> username
        self.mails = []           # [time, email]
        self.wrong = {}           # username -> [acknowledged failed logIns, unknown ones, times acknowledged]
        self.stale = []           # [time, instance, token, ms since its log-out]: accepted during the load
        self.lost_sessions = []   # [time, instance]: a live token refused during the load
        self.patroni = []         # [time, primary index or -1]
        self.passkeys = []        # [time, passkey objectId, username, user objectId]: registrations
        self.passkey_logins = []  # [time, token, username, passkey objectId, its counter]

    def request(self, instance, op, kind):
        with self.lock: self.requests.append([time.time(), instance, op, kind])

    def state(self):
        return {k: v for k, v in self.__dict__.items() if k != 'lock'}


class Worker(threading.Thread):
    def __init__(self, n, urls, rec, stop, run_id, origin):
        super().__init__(daemon=True)
        self.n, self.rec, self.stop, self.run_id, self.origin = n, rec, stop, run_id, origin
        self.clients = [Client(u) for u in urls]
        self.rng = random.Random(n)
        # dicts: name, id, password, email, tokens (live), recent (newest token, its time), reset,
        # passkeys [(authenticator.Credential, passkey objectId)]
        self.users = []
        self.ended = []      # (token, time) of the tokens acknowledged as ended
        self.count = 0

    def call(self, op, query, variables=None, token=None):
        i = self.rng.randrange(len(self.clients))
        try:
            data, code = self.clients[i].post(query, variables, token)
        except Failure as f:
            return i, None, f.kind  # recorded by `ok`, as every answer
        return i, data, code

    def ok(self, i, op, code, expected=None):
        """Records the answer; True when it is the expected one (no error, or code `expected`)."""
        if code == expected:
            self.rec.request(i, op, None); return True
        self.rec.request(i, op, code if isinstance(code, str) else f'gql{code}')
        return False

    def run(self):
        ops, weights = zip(*MIX)
        while not self.stop.is_set():
            op = self.rng.choices(ops, weights)[0] if len(self.users) >= 3 else 'signUp'
            getattr(self, op)()

    def live_user(self):
        users = [u for u in self.users if u['tokens']]
        return self.rng.choice(users) if users else None

    def signUp(self):
        self.count += 1
        name = f'ha{self.run_id}w{self.n}n{self.count}'
        password, email = f'pw-{name}-z9', f'{name}@example.com'
        i, data, code = self.call('signUp', SIGNUP, {'f': {'username': name, 'password': password, 'email': email}})
        if self.ok(i, 'signUp', code) and data:
            v = data['signUp']['viewer']
            u = {'name': name, 'id': v['user']['objectId'], 'password': password, 'email': email,
                 'tokens': [v['sessionToken']], 'recent': (v['sessionToken'], time.time()), 'reset': False, 'passkeys': []}
            self.users.append(u)
            with self.rec.lock:
                self.rec.signups.append([time.time(), name, password, email, v['user']['objectId']])
                self.rec.live[v['sessionToken']] = name

    def logIn(self):
        u = self.rng.choice(self.users)
        i, data, code = self.call('logIn', LOGIN, {'u': u['name'], 'p': u['password']})
        if self.ok(i, 'logIn', code) and data:
            token = data['logIn']['viewer']['sessionToken']
            u['tokens'].append(token)
            u['recent'] = (token, time.time())
            with self.rec.lock: self.rec.live[token] = u['name']

    def viewer(self):
        u = self.live_user()
        if not u: return
        token = self.rng.choice(u['tokens'])
        i, data, code = self.call('viewer', VIEWER, token=token)
        if self.ok(i, 'viewer', code) and data:
            if data['viewer']['user']['username'] != u['name']:
                self.rec.request(i, 'viewer', 'wrong_user')
        elif code == INVALID_SESSION:
            with self.rec.lock: self.rec.lost_sessions.append([time.time(), i])

    def end(self, u, tokens, acknowledged):
        for t in tokens:
            u['tokens'].remove(t)
            with self.rec.lock:
                self.rec.live.pop(t, None)
                if acknowledged: self.rec.logged_out.append([time.time(), t])
                else: self.rec.unknown.append(t)
            if acknowledged: self.ended.append((t, time.time()))

    def logOut(self):
        u = self.live_user()
        if not u: return
        token = self.rng.choice(u['tokens'])
        i, data, code = self.call('logOut', LOGOUT, token=token)
        self.end(u, [token], self.ok(i, 'logOut', code) and data and data['logOut']['ok'])

    def revokeOtherSessions(self):
        u = self.live_user()
        if not u: return
        keep = u['tokens'][0]
        others = u['tokens'][1:]
        i, data, code = self.call('revokeOtherSessions', REVOKE, token=keep)
        self.end(u, others, bool(self.ok(i, 'revokeOtherSessions', code) and data))

    def resetPassword(self):
        fresh = [u for u in self.users if not u['reset']]
        if not fresh: return
        u = self.rng.choice(fresh)
        u['reset'] = True  # one request per address: the hourly limit per address stays out of it
        i, data, code = self.call('resetPassword', RESET, {'e': u['email']})
        if self.ok(i, 'resetPassword', code) and data and data['resetPassword']['ok']:
            with self.rec.lock: self.rec.mails.append([time.time(), u['email']])

    def wrongPassword(self):
        u = self.rng.choice(self.users)
        i, data, code = self.call('wrongPassword', LOGIN, {'u': u['name'], 'p': 'not-the-password-1'})
        acknowledged = self.ok(i, 'wrongPassword', code, expected=INVALID_CREDENTIALS)
        with self.rec.lock:
            counts = self.rec.wrong.setdefault(u['name'], [0, 0, []])
            counts[0 if acknowledged else 1] += 1
            if acknowledged: counts[2].append(time.time())

    def viewerLoggedOut(self):
        if not self.ended: return
        token, ended_at = self.rng.choice(self.ended)
        i, data, code = self.call('viewerLoggedOut', VIEWER, token=token)
        if self.ok(i, 'viewerLoggedOut', code, expected=INVALID_SESSION): return
        if data is not None:
            with self.rec.lock: self.rec.stale.append([time.time(), i, token, (time.time() - ended_at) * 1000])

    def registerPasskey(self):
        """Options with the user's newest session, then the new credential: both acknowledged, the
        authenticator keeps it; otherwise it is dropped (a registration of unknown outcome is never used).
        A user who has a passkey adds another only from a session made with one (a second factor)."""
        now = time.time()
        users = [u for u in self.users if len(u['passkeys']) < PASSKEYS_PER_USER
                 and u['recent'][0] in u['tokens'] and now - u['recent'][1] < RECENT_S
                 and (not u['passkeys'] or u.get('recent_passkey') == u['recent'][0])]
        if not users: return
        u = self.rng.choice(users)
        token = u['recent'][0]
        i, data, code = self.call('passkeyRegistrationOptions', PASSKEY_REGISTRATION_OPTIONS, token=token)
        if not (self.ok(i, 'passkeyRegistrationOptions', code) and data): return
        credential, response = authenticator.register(data['passkeyRegistrationOptions']['options'], self.origin)
        i, data, code = self.call('registerPasskey', REGISTER_PASSKEY, {'c': response}, token=token)
        if self.ok(i, 'registerPasskey', code) and data:
            passkey = data['registerPasskey']['passkey']['objectId']
            u['passkeys'].append((credential, passkey))
            with self.rec.lock: self.rec.passkeys.append([time.time(), passkey, u['name'], u['id']])

    def logInWithPasskey(self):
        """Options with the username half the time, else none (a discoverable credential), then the
        assertion. Its counter goes up whatever the outcome: the server accepts any higher one."""
        users = [u for u in self.users if u['passkeys']]
        if not users: return
        u = self.rng.choice(users)
        credential, passkey = self.rng.choice(u['passkeys'])
        name = u['name'] if self.rng.random() < 0.5 else None
        i, data, code = self.call('passkeyLoginOptions', PASSKEY_LOGIN_OPTIONS, {'u': name})
        if not (self.ok(i, 'passkeyLoginOptions', code) and data): return
        assertion = authenticator.assert_(credential, data['passkeyLoginOptions']['options'], self.origin)
        i, data, code = self.call('logInWithPasskey', PASSKEY_LOGIN, {'c': assertion})
        if not (self.ok(i, 'logInWithPasskey', code) and data): return
        viewer = data['logInWithPasskey']['viewer']
        if viewer['user']['username'] != u['name']:
            self.rec.request(i, 'logInWithPasskey', 'wrong_user'); return
        token = viewer['sessionToken']
        u['tokens'].append(token)
        u['recent'] = (token, time.time())
        u['recent_passkey'] = token
        with self.rec.lock:
            self.rec.live[token] = u['name']
            self.rec.passkey_logins.append([time.time(), token, u['name'], passkey, credential.sign_count])


def watch_patroni(urls, rec, stop):
    """Which node answers 200 at /primary, every 0.1 s; a row at every change."""
    last = None
    while not stop.is_set():
        primary = -1
        for i, u in enumerate(urls):
            p = urlparse(u)
            try:
                c = http.client.HTTPConnection(p.hostname, p.port, timeout=0.5)
                c.request('GET', '/primary'); r = c.getresponse(); r.read(); c.close()
                if r.status == 200: primary = i
            except OSError:
                pass
        if primary != last:
            with rec.lock: rec.patroni.append([time.time(), primary])
            last = primary
        time.sleep(0.1)


def run(args):
    rec, stop = Recorder(), threading.Event()
    urls = [u + '/graphql' for u in args.instances.split(',')]
    run_id = f'{int(time.time()) % 100000}'
    threads = [Worker(n, urls, rec, stop, run_id, args.origin) for n in range(args.workers)]
    threads.append(threading.Thread(target=watch_patroni, args=(args.patroni.split(','), rec, stop), daemon=True))
    for t in threads: t.start()
    time.sleep(args.seconds)
    stop.set()
    for t in threads: t.join(30)
    with open(args.state, 'w') as f: json.dump(rec.state(), f)
    print(f'{len(rec.requests)} requests, {sum(1 for r in rec.requests if r[3])} errors', file=sys.stderr)


def psql(conninfo, sql):
    out = subprocess.run(['/usr/lib/postgresql/15/bin/psql', conninfo, '-XAtq', '-F', '\t', '-v', 'ON_ERROR_STOP=1',
                          '-c', sql], check=True, capture_output=True, text=True).stdout
    return [line.split('\t') for line in out.splitlines() if line]


def check_tokens(urls, tokens, expect_valid):
    """Tokens answering otherwise than expected on any instance: [(instance, token, answer)]."""
    bad, lock, queue = [], threading.Lock(), list(tokens)

    def worker():
        clients = [Client(u, timeout=30) for u in urls]
        while True:
            with lock:
                if not queue: return
                token = queue.pop()
            for i, c in enumerate(clients):
                for attempt in range(3):
                    try:
                        data, code = c.post(VIEWER, token=token); break
                    except Failure as f:
                        data, code = None, f.kind; time.sleep(0.5)
                good = data is not None if expect_valid else code == INVALID_SESSION
                if not good:
                    with lock: bad.append((i, token, code if data is None else 'accepted'))
    ts = [threading.Thread(target=worker) for _ in range(8)]
    for t in ts: t.start()
    for t in ts: t.join()
    return bad


def metric(url, name):
    """The sum of a /metrics series' samples."""
    p = urlparse(url)
    c = http.client.HTTPConnection(p.hostname, p.port, timeout=5)
    c.request('GET', '/metrics'); text = c.getresponse().read().decode()
    return sum(float(l.split()[-1]) for l in text.splitlines() if l.startswith(name) and not l.startswith('#'))


def verify(args):
    s = json.load(open(args.state))
    urls = [u + '/graphql' for u in args.instances.split(',')]
    t0 = float(args.fault_at)
    db = args.primary
    names = {r[0] for r in psql(db, 'SELECT username FROM users')}
    lost_signups = [r[1] for r in s['signups'] if r[1] not in names]
    # Mail: the senders drain the outbox (up to 60 s), then every acknowledged request has its
    # message, and every message marked sent reached the SMTP server (once, unless a failover
    # cut the sender between delivery and marking).
    acked_mail = {m[1] for m in s['mails']}
    for _ in range(60):
        rows = psql(db, "SELECT recipient, state, message_id FROM mail_outbox")
        if not any(r[1] == 'pending' and r[0] in acked_mail for r in rows): break
        time.sleep(1)
    delivered = {}
    for path in glob.glob(os.path.join(args.smtp_dir, '*.json')):
        headers = json.load(open(path))['headers']
        mid = next((v for k, v in headers if k.lower() == 'message-id'), '').strip('<>')
        delivered[mid] = delivered.get(mid, 0) + 1
    states = {}
    for recipient, state, mid in rows:
        ok = state == 'pending' or (state == 'sent' and delivered.get(mid.strip('<>'), 0) > 0)
        states[recipient] = states.get(recipient, False) or ok
    lost_mails = [m for m in acked_mail if not states.get(m)]
    mail = {'sent': sum(1 for r in rows if r[1] == 'sent' and r[0] in acked_mail),
            'pending': sum(1 for r in rows if r[1] == 'pending' and r[0] in acked_mail),
            'failed': sum(1 for r in rows if r[1] == 'failed' and r[0] in acked_mail),
            'delivered_twice': sum(n - 1 for n in delivered.values() if n > 1),
            # Still leased by a sender that lost its database between delivering and marking it.
            'pending_delivered': sum(1 for r in rows if r[1] == 'pending' and delivered.get(r[2].strip('<>')))}
    counts = {name: int(n) for name, n in psql(
        db, 'SELECT u.username, sum(a.attempts) FROM login_attempts a JOIN users u ON u.object_id = a.user_id GROUP BY 1')}
    # logIn attempts are written with synchronous_commit off (UserStore): a crash may lose the
    # ones acknowledged in its last moment; the loss must stay within LOSABLE_S of the fault.
    lost_attempts, lost_early = 0, 0
    for name, (acked, unknown, times) in s['wrong'].items():
        missing = acked - counts.get(name, 0)
        if missing > 0:
            lost_attempts += missing
            lost_early += max(0, missing - sum(1 for t in times if abs(t - t0) <= LOSABLE_S))
    # Passkeys: every acknowledged registration is stored for its user, not disabled as a clone;
    # every acknowledged log-in's counter is stored (a later one may be higher).
    stored = {r[0]: r[1:] for r in psql(db, "SELECT object_id, user_id, sign_count, disabled_at IS NOT NULL FROM passkeys")}
    lost_passkeys = [p[1] for p in s['passkeys'] if p[1] not in stored or stored[p[1]][0] != p[3]]
    disabled_passkeys = [p[1] for p in s['passkeys'] if p[1] in stored and stored[p[1]][2] == 't']
    acked_counter = {}
    for _, _, _, passkey, counter in s['passkey_logins']:
        acked_counter[passkey] = max(acked_counter.get(passkey, 0), counter)
    lost_counters = [p for p, n in acked_counter.items() if p in stored and int(stored[p][1]) < n]
    passkey_ops = {}
    for r in s['requests']:
        if r[2] in PASSKEY_OPS:
            op = passkey_ops.setdefault(r[2], {'requests': 0, 'errors': {}})
            op['requests'] += 1
            if r[3]: op['errors'][r[3]] = op['errors'].get(r[3], 0) + 1
    stale = check_tokens(urls, [t for _, t in s['logged_out']], expect_valid=False)
    late = [r for r in s['stale'] if r[3] > INVALIDATION_MS]
    dead = check_tokens(urls, list(s['live']), expect_valid=True)

    # Patroni: when a node promoted itself after the fault (its log), else when /primary answered
    # again after answering nowhere (REST).
    promoted = []
    for i, path in enumerate(args.patroni_logs.split(',')):
        for line in open(path, errors='replace'):
            if 'promoted self to leader' in line:
                t = time.mktime(time.strptime(line[:19], '%Y-%m-%d %H:%M:%S')) + int(line[20:23]) / 1000
                if t >= t0: promoted.append((t, i))
    rows = [r for r in s['patroni'] if r[0] >= t0]
    gone = next((r[0] for r in rows if r[1] == -1), None)
    back = next(([r[0], r[1]] for r in rows if gone is not None and r[0] > gone and r[1] != -1), None)
    if promoted: back = list(min(promoted))
    primary_ready = back[0] if back else t0
    new_primary = back[1] if back else None

    per_instance = []
    for i, url in enumerate(args.instances.split(',')):
        mine = [r for r in s['requests'] if r[1] == i]
        errors = [r for r in mine if r[3] and r[0] >= t0]
        last_error = max((r[0] for r in errors), default=None)
        recovered = next((r[0] for r in mine if last_error and r[0] > last_error and not r[3] and r[2] in WRITES), None)
        window = (last_error - t0) if last_error else 0.0
        kinds = {}
        for r in errors: kinds[r[3]] = kinds.get(r[3], 0) + 1
        pid = int(args.pids.split(',')[i])
        log = open(args.logs.split(',')[i], errors='replace').read()
        per_instance.append({
            'requests': len(mine), 'errors_before_fault': [r[2:] for r in mine if r[3] and r[0] < t0],
            'errors_after_fault': kinds, 'window_s': round(window, 2),
            'first_write_after_s': round(recovered - t0, 2) if recovered else None,
            'gatehouse_after_primary_s': round(max(0.0, last_error - primary_ready), 2) if last_error else 0.0,
            'same_pid': os.path.exists(f'/proc/{pid}'),
            'session_cache_live': metric(url, 'gatehouse_session_cache_live'),
            'notification_reconnects': metric(url, 'gatehouse_notification_reconnects_total'),
            'db_retries': metric(url, 'gatehouse_db_retries_total'),
            'cache_on_again_lines': log.count('session cache on again'),
        })
    report = {
        'fault': args.fault, 'route': args.route,
        'requests': len(s['requests']), 'acknowledged': {
            'signups': len(s['signups']), 'logouts': len(s['logged_out']), 'mails': len(s['mails']),
            'failed_logins': sum(w[0] for w in s['wrong'].values()), 'live_tokens': len(s['live']),
            'passkey_registrations': len(s['passkeys']), 'passkey_logins': len(s['passkey_logins'])},
        'patroni_primary_after_s': round(primary_ready - t0, 2), 'new_primary': f'n{new_primary + 1}' if new_primary is not None else '?',
        'instances': per_instance, 'mail': mail, 'passkey_ops': passkey_ops,
        'lost': {'signups': lost_signups[:20], 'signups_count': len(lost_signups), 'mails': len(lost_mails),
                 'rate_limit_attempts': lost_attempts, 'rate_limit_attempts_older': lost_early, 'live_tokens_refused': len(dead), 'refused_sample': dead[:5],
                 'passkeys': len(lost_passkeys), 'passkeys_sample': lost_passkeys[:5], 'passkey_counters': len(lost_counters)},
        'passkeys_disabled': len(disabled_passkeys),
        # A token logged out on one instance may still be accepted on the other until the
        # notification arrives: within INVALIDATION_MS that is the cache's documented bound.
        'stale_tokens': len(stale) + len(late), 'stale_sample': (stale + late)[:5],
        'stale_within_invalidation_bound': len(s['stale']) - len(late),
        'stale_within_bound_max_ms': round(max((r[3] for r in s['stale']), default=0), 1),
        'live_tokens_refused_during_load': len(s['lost_sessions']),
        'unknown_outcome_tokens': len(s['unknown']), 'note': args.note,
    }
    json.dump(report, open(args.out, 'w'), indent=1)
    print(json.dumps(report, indent=1))
    wrong_user = sum(1 for r in s['requests'] if r[3] == 'wrong_user')  # a token answering as another user
    bad = (lost_signups or lost_mails or lost_early or stale or late or dead or s['lost_sessions'] or wrong_user
           or lost_passkeys or lost_counters or disabled_passkeys
           or not all(p['same_pid'] for p in per_instance) or 'EXITED' in args.note)
    sys.exit(1 if bad else 0)


def passkey_requests(report):
    """Requests of the registration and log-in ceremonies (options and response each), and their
    errors by kind over the whole run."""
    ops = report['passkey_ops']
    count = lambda names: sum(ops.get(name, {}).get('requests', 0) for name in names)
    errors = {}
    for op in ops.values():
        for k, v in op['errors'].items(): errors[k] = errors.get(k, 0) + v
    kinds = ', '.join(f'{k} {v}' for k, v in sorted(errors.items())) or '0'
    return f"{count(PASSKEY_OPS[:2])} / {count(PASSKEY_OPS[2:])} ({kinds})"


def table(args):
    print('| fault | route | requests | errors after the fault (instance a; b) | Patroni promoted after | '
          'last error a / b | first write served a / b | acknowledged sign-ups / log-outs / mails / failed log-ins | '
          'passkey requests: registration / log-in (errors) | acknowledged passkeys / passkey log-ins | '
          'lost sign-ups / mails / rate-limit attempts / passkeys | mails sent / pending / delivered twice | stale tokens | same PIDs |')
    print('|' + ' --- |' * 14)
    for path in args.files:
        r = json.load(open(path))
        a, b = r['instances']
        kinds = lambda p: ', '.join(f'{k} {v}' for k, v in sorted(p['errors_after_fault'].items())) or '0'
        ack, lost = r['acknowledged'], r['lost']
        within = lambda r: (f" ({r['stale_within_invalidation_bound']} within {r['stale_within_bound_max_ms']} ms of its log-out)"
                            if r['stale_within_invalidation_bound'] else '')
        first = lambda p: '-' if p['first_write_after_s'] is None else p['first_write_after_s']
        print(f"| {r['fault']} | {r['route']} | {r['requests']} | {kinds(a)}; {kinds(b)} | "
              f"{r['patroni_primary_after_s']} s ({r['new_primary']}) | {a['window_s']} / {b['window_s']} s | "
              f"{first(a)} / {first(b)} s | {ack['signups']} / {ack['logouts']} / {ack['mails']} / {ack['failed_logins']} | "
              f"{passkey_requests(r)} | {ack['passkey_registrations']} / {ack['passkey_logins']} | "
              f"{lost['signups_count']} / {lost['mails']} / {lost['rate_limit_attempts']} / {lost['passkeys'] + lost['passkey_counters']} | "
              f"{r['mail']['sent']} / {r['mail']['pending']} / {r['mail']['delivered_twice']} | "
              f"{r['stale_tokens']}{within(r)} | {'yes' if a['same_pid'] and b['same_pid'] else 'NO'} |")
    for path in args.files:
        r = json.load(open(path))
        if r.get('note'): print(f"\n{r['fault']}/{r['route']}: {r['note']}")


def main():
    ap = argparse.ArgumentParser()
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('run')
    p.add_argument('--instances', required=True); p.add_argument('--patroni', required=True)
    p.add_argument('--seconds', type=float, default=40); p.add_argument('--workers', type=int, default=8)
    p.add_argument('--state', required=True)
    p.add_argument('--origin', required=True, help="the instances' GATEHOUSE_PUBLIC_URL: the passkeys' origin")
    p = sub.add_parser('verify')
    for a in ('instances', 'state', 'primary', 'fault', 'route', 'fault-at', 'pids', 'logs', 'out', 'patroni-logs', 'smtp-dir'):
        p.add_argument('--' + a, required=True)
    p.add_argument('--note', default='')
    p = sub.add_parser('table'); p.add_argument('files', nargs='+')
    args = ap.parse_args()
    {'run': run, 'verify': verify, 'table': table}[args.cmd](args)


if __name__ == '__main__':
    main()
