#!/usr/bin/python3
"""Verifies access tokens with two JWT libraries independent of Gatehouse's own code, as a service
would: Debian's python3-jwt (PyJWT) and python3-jwcrypto. Run by ServerTestSupport's
IndependentVerifiers.

    verify_access_tokens.py (--jwks-url URL | --jwks-file PATH) --issuer ISS --audience AUD

The key set comes from the URL (PyJWT's PyJWKClient fetches it itself; jwcrypto gets it with
urllib) or from a file. Tokens are read from standard input, one a line; for each, one JSON line is
written: {"pyjwt": VERDICT, "jwcrypto": VERDICT}, where VERDICT is {"ok": true, "header": {...},
"claims": {...}} or {"ok": false, "error": "ExceptionName: message"}. Both check the signature
(ES256 or RS256 only), exp and nbf, iss and aud.
"""
import argparse
import json
import sys
import urllib.request

import jwt
from jwcrypto import jwk
from jwcrypto import jwt as jwcrypto_jwt

ALGORITHMS = ["ES256", "RS256"]


def failure(error):
    return {"ok": False, "error": f"{type(error).__name__}: {error}"}


def with_pyjwt(token, args, key_set_text):
    try:
        if args.jwks_url:
            key = jwt.PyJWKClient(args.jwks_url, cache_jwk_set=False).get_signing_key_from_jwt(token).key
        else:
            kid = jwt.get_unverified_header(token).get("kid")
            matches = [k for k in jwt.PyJWKSet.from_json(key_set_text).keys if k.key_id == kid]
            if not matches:
                raise jwt.PyJWKClientError(f"no key {kid} in the set")
            key = matches[0].key
        claims = jwt.decode(
            token, key, algorithms=ALGORITHMS, audience=args.audience, issuer=args.issuer,
            options={"require": ["exp", "iat", "nbf", "iss", "sub", "aud", "jti"]})
        return {"ok": True, "header": jwt.get_unverified_header(token), "claims": claims}
    except Exception as error:  # every refusal is a verdict, not a crash
        return failure(error)


def with_jwcrypto(token, args, key_set_text):
    try:
        key_set = jwk.JWKSet.from_json(key_set_text)
        checked = jwcrypto_jwt.JWT(
            jwt=token, key=key_set, algs=ALGORITHMS,
            check_claims={"iss": args.issuer, "aud": args.audience, "exp": None, "nbf": None, "sub": None})
        return {"ok": True, "header": json.loads(checked.header), "claims": json.loads(checked.claims)}
    except Exception as error:
        return failure(error)


def main():
    parser = argparse.ArgumentParser()
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--jwks-url")
    source.add_argument("--jwks-file")
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--audience", required=True)
    args = parser.parse_args()
    if args.jwks_url:
        with urllib.request.urlopen(args.jwks_url, timeout=30) as response:
            key_set_text = response.read().decode("utf-8")
    else:
        with open(args.jwks_file, encoding="utf-8") as file:
            key_set_text = file.read()
    for line in sys.stdin:
        token = line.strip()
        if not token:
            continue
        verdicts = {"pyjwt": with_pyjwt(token, args, key_set_text), "jwcrypto": with_jwcrypto(token, args, key_set_text)}
        print(json.dumps(verdicts), flush=True)


if __name__ == "__main__":
    main()
