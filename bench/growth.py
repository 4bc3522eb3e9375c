#!/usr/bin/env python3
"""The bulk users of bench/growth.sh and the `users` searches it measures on them, kept together:
each search's value is picked for the share of users the export gives it (written beside it).
Standard library only; HTTP to 127.0.0.1 only.

  growth.py export N PASSWORD_HASH     a Parse export of N users (JSON lines) on stdout
  growth.py bulk-sql                   SQL, run after the import, for what an export cannot say
  growth.py queries URL MASTER_KEY DIR one request body per search in DIR (DIR/<i>.json) and
                                       DIR/list: "<i> <matches> <name>" a line

User k (0 <= k < N) is g<k>, object id g<k, nine digits>, email g<k>@example.com; other bench
scripts (reset.lua) rely on those names.
"""
import datetime, json, os, sys

from client import Client

# Creation times spread over three years, in an order unrelated to k: the names g1..., which a
# prefix search finds, are then spread over the whole time range as real names are.
START = datetime.datetime(2022, 1, 1, tzinfo=datetime.timezone.utc)
SPAN = datetime.timedelta(days=1096)


def created(k):
    fraction = (k * 2654435761 % 2**32) / 2**32  # Knuth's multiplicative hash: a permutation of 32-bit k
    return START + SPAN * fraction


def iso(time):
    return time.strftime('%Y-%m-%dT%H:%M:%S.') + f'{time.microsecond // 1000:03d}Z'


def provider(k):
    """The provider linked to user k, if any: Google 20 %, Facebook 5 %, Apple 1 %."""
    r = k % 100
    return 'google' if r < 20 else 'facebook' if r < 25 else 'apple' if r == 25 else None


def export(n, password_hash):
    out = sys.stdout
    for k in range(n):
        user = {'objectId': f'g{k:09d}', 'username': f'g{k}', 'email': f'g{k}@example.com',
                'emailVerified': k % 10 < 7, '_hashed_password': password_hash, 'createdAt': iso(created(k))}
        p = provider(k)
        if p: user['authData'] = {p: {'id': f'{p}-{k}'}}
        out.write(json.dumps(user, separators=(',', ':')) + '\n')


# Disabled (0.2 %, a day after sign-up) and TOTP on (2 %; the secret is a placeholder these users
# never log in with): the import takes neither.
BULK_SQL = r"""
CREATE TEMP TABLE bulk AS SELECT object_id, substr(object_id, 2)::bigint AS k, created_at FROM users
    WHERE object_id ~ '^g[0-9]{9}$';
UPDATE users u SET disabled_at = b.created_at + interval '1 day', disabled_reason = 'growth.sh: spam'
    FROM bulk b WHERE u.object_id = b.object_id AND b.k % 500 = 7;
INSERT INTO user_totp (user_id, sealed_secret, last_step, created_at)
    SELECT object_id, '\x00', 0, created_at FROM bulk WHERE k % 50 = 3;
"""

# One week of sign-ups (0.64 % of the bulk users).
WEEK = {'greaterThan': '2023-06-01T00:00:00.000Z', 'lessThan': '2023-06-08T00:00:00.000Z'}

# Each filter of the contract alone, in the default order (createdAt_DESC), and the share of the
# bulk users it finds.
FILTERS = [
    ('no filter', {}),                                                   # all
    ('objectId equalTo', {'objectId': {'equalTo': 'g000000042'}}),        # one
    ('username equalTo', {'username': {'equalTo': 'G42'}}),               # one (case ignored)
    ('username startsWith g1', {'username': {'startsWith': 'g1'}}),       # 11 %
    ('username startsWith g123', {'username': {'startsWith': 'G123'}}),   # 0.1 %
    ('username startsWith g12345', {'username': {'startsWith': 'g12345'}}),  # 11 users of 1,000,000
    ('email equalTo', {'email': {'equalTo': 'G42@Example.com'}}),         # one
    ('email startsWith g98', {'email': {'startsWith': 'g98'}}),           # 1.1 %
    ('emailVerified true', {'emailVerified': {'equalTo': True}}),        # 70 %
    ('emailVerified false', {'emailVerified': {'equalTo': False}}),      # 30 %
    ('disabled true', {'disabled': {'equalTo': True}}),                  # 0.2 %
    ('disabled false', {'disabled': {'equalTo': False}}),                # 99.8 %
    ('createdAt in one week', {'createdAt': WEEK}),                      # 0.64 %
    ('authProvider google', {'authProvider': {'equalTo': 'google'}}),    # 20 %
    ('authProvider apple', {'authProvider': {'equalTo': 'apple'}}),      # 1 %
    ('mfa true', {'mfa': {'equalTo': True}}),                            # 2 %
    ('mfa false', {'mfa': {'equalTo': False}}),                          # 98 %
]
# The other orders, second pages (after the first page's endCursor) and filters together.
MORE = [
    ('createdAt_ASC', {}, 'createdAt_ASC', 2),
    ('username_ASC', {}, 'username_ASC', 2),
    ('username startsWith g1, username_ASC', {'username': {'startsWith': 'g1'}}, 'username_ASC', 2),
    ('username startsWith g123, createdAt_ASC', {'username': {'startsWith': 'g123'}}, 'createdAt_ASC', 1),
    ('createdAt in one week, createdAt_ASC', {'createdAt': WEEK}, 'createdAt_ASC', 2),
    ('authProvider apple, username_ASC', {'authProvider': {'equalTo': 'apple'}}, 'username_ASC', 1),
    ('disabled true, username_ASC', {'disabled': {'equalTo': True}}, 'username_ASC', 1),
    ('emailVerified false and createdAt in one week', {'emailVerified': {'equalTo': False}, 'createdAt': WEEK}, None, 1),
    ('mfa true and authProvider google', {'mfa': {'equalTo': True}, 'authProvider': {'equalTo': 'google'}}, None, 1),
]

# A page as the console asks for it, at the default size (100), and the count alone.
PAGE = ('query U($w: UserWhereInput, $o: [UserOrder!], $a: String) { users(where: $w, order: $o, after: $a) '
        '{ pageInfo { hasNextPage endCursor } edges { cursor node { objectId username email emailVerified '
        'disabled createdAt } } } }')
COUNT = 'query C($w: UserWhereInput) { users(where: $w, first: 1) { count } }'


def searches():
    """(name, where, order, page, count?): each filter's first and second page, the other
    orders and combinations, then each filter's count."""
    rows = []
    for name, where in FILTERS:
        rows.append((name, where, None, 1, False))
        rows.append((name + ', page 2', where, None, 2, False))
    for name, where, order, pages in MORE:
        for page in range(1, pages + 1):
            rows.append((name + (', page 2' if page == 2 else ''), where, order, page, False))
    for name, where in FILTERS:
        rows.append(('count: ' + name, where, None, 1, True))
    return rows


def data(status, doc):
    if status != 200 or not doc or doc.get('errors'):
        sys.exit(f'users query failed: {status} {doc}')
    return doc['data']['users']


def queries(url, key, out):
    os.makedirs(out, exist_ok=True)
    client = Client(url, timeout=300)
    counts = {}
    with open(os.path.join(out, 'list'), 'w') as listing:
        for i, (name, where, order, page, count) in enumerate(searches()):
            variables = {'w': where}
            key_of_where = json.dumps(where, sort_keys=True)
            if key_of_where not in counts:
                counts[key_of_where] = data(*client.post(COUNT, variables, master=key))['count']
            if count:
                body = {'query': COUNT, 'variables': variables}
            else:
                if order: variables['o'] = [order]
                if page == 2:
                    first = data(*client.post(PAGE, variables, master=key))
                    if not first['pageInfo']['hasNextPage']:
                        continue  # no second page at this size: nothing to measure
                    variables['a'] = first['pageInfo']['endCursor']
                body = {'query': PAGE, 'variables': variables}
                data(*client.post(PAGE, variables, master=key))  # fails here, not under load
            with open(os.path.join(out, f'{i}.json'), 'w') as f:
                json.dump(body, f, separators=(',', ':'))
            listing.write(f'{i} {counts[key_of_where]} {name}\n')


if __name__ == '__main__':
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == 'export': export(int(args[0]), args[1])
    elif cmd == 'bulk-sql': sys.stdout.write(BULK_SQL)
    elif cmd == 'queries': queries(args[0], args[1], args[2])
    else: sys.exit(f'unknown command {cmd}')
