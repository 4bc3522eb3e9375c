#!/usr/bin/python3
"""A local OpenID Connect provider for tests (Debian's python3-cryptography), started by
ServerTestSupport's OIDCTestProvider.

Generates an RSA (2048) and an EC P-256 key and serves, on 127.0.0.1:
- GET /jwks: the key set {"keys": [...]} with the configured Cache-Control header; counts fetches.
  When unreachable, the connection is closed without an answer.
- GET /state: {"fetches": N, "issuer": ..., "rsa_kid": ..., "ec_kid": ...}.
- GET /bytes/N: a body of N bytes (for HTTP client tests).
- POST /mint {"claims": {...}, "alg": "RS256", "kid": "...", "foreign": false}: a compact JWT.
  Claims default to iss (this issuer), aud "test-client", sub "user-1", iat now, exp now + 600;
  a claim given as null is left out. alg: RS256, ES256, "none" (no signature) or HS256 (HMAC with
  the RSA public key's PEM as the secret, the classic key-confusion forgery). kid defaults to the
  current key of the algorithm; null leaves it out. "foreign": signed by a fresh key not in the set.
- POST /rotate: new keys with new kids; the old ones leave the set.
- POST /control {"unreachable": bool, "cache_control": "max-age=N" or null}.
When listening, it writes the port to --dir/port.
"""
import argparse
import base64
import hashlib
import hmac
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa
from cryptography.hazmat.primitives.asymmetric.utils import decode_dss_signature


def b64url(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def integer_bytes(value, length=None):
    length = length or (value.bit_length() + 7) // 8
    return value.to_bytes(length, "big")


class Keys:
    def __init__(self, generation):
        self.rsa = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.ec = ec.generate_private_key(ec.SECP256R1())
        self.rsa_kid = "rsa-%d" % generation
        self.ec_kid = "ec-%d" % generation

    def jwks(self):
        rsa_numbers = self.rsa.public_key().public_numbers()
        ec_numbers = self.ec.public_key().public_numbers()
        return {"keys": [
            {"kty": "RSA", "kid": self.rsa_kid, "use": "sig", "alg": "RS256",
             "n": b64url(integer_bytes(rsa_numbers.n)), "e": b64url(integer_bytes(rsa_numbers.e))},
            {"kty": "EC", "kid": self.ec_kid, "use": "sig", "alg": "ES256", "crv": "P-256",
             "x": b64url(integer_bytes(ec_numbers.x, 32)), "y": b64url(integer_bytes(ec_numbers.y, 32))},
        ]}


class State:
    def __init__(self):
        self.lock = threading.Lock()
        self.generation = 1
        self.keys = Keys(1)
        self.fetches = 0
        self.unreachable = False
        self.cache_control = None
        self.issuer = ""


STATE = State()


def sign(alg, signing_input, keys):
    if alg == "RS256":
        return keys.rsa.sign(signing_input, padding.PKCS1v15(), hashes.SHA256())
    if alg == "ES256":
        r, s = decode_dss_signature(keys.ec.sign(signing_input, ec.ECDSA(hashes.SHA256())))
        return integer_bytes(r, 32) + integer_bytes(s, 32)
    if alg == "none":
        return b""
    if alg == "HS256":
        secret = keys.rsa.public_key().public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        return hmac.new(secret, signing_input, hashlib.sha256).digest()
    raise ValueError("unknown alg " + alg)


def mint(request):
    with STATE.lock:
        keys, issuer = STATE.keys, STATE.issuer
    alg = request.get("alg", "RS256")
    now = int(time.time())
    claims = {"iss": issuer, "aud": "test-client", "sub": "user-1", "iat": now, "exp": now + 600}
    for name, value in request.get("claims", {}).items():
        if value is None:
            claims.pop(name, None)
        else:
            claims[name] = value
    header = {"alg": alg, "typ": "JWT"}
    kid = request.get("kid", keys.ec_kid if alg == "ES256" else keys.rsa_kid)
    if kid is not None:
        header["kid"] = kid
    signer = Keys(0) if request.get("foreign") else keys
    signing_input = (b64url(json.dumps(header).encode()) + "." + b64url(json.dumps(claims).encode())).encode()
    return signing_input.decode() + "." + b64url(sign(alg, signing_input, signer))


class Handler(BaseHTTPRequestHandler):
    def log_message(self, format, *args):
        pass

    def answer(self, status, body, content_type="application/json", extra=None):
        data = body.encode() if isinstance(body, str) else body
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(data)))
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        if self.path == "/jwks":
            with STATE.lock:
                if STATE.unreachable:
                    self.close_connection = True
                    return
                STATE.fetches += 1
                body = json.dumps(STATE.keys.jwks())
                extra = {"Cache-Control": STATE.cache_control} if STATE.cache_control else {}
            self.answer(200, body, extra=extra)
        elif self.path == "/state":
            with STATE.lock:
                body = json.dumps({"fetches": STATE.fetches, "issuer": STATE.issuer,
                                   "rsa_kid": STATE.keys.rsa_kid, "ec_kid": STATE.keys.ec_kid})
            self.answer(200, body)
        elif self.path.startswith("/bytes/"):
            self.answer(200, b"x" * int(self.path[len("/bytes/"):]), content_type="text/plain")
        else:
            self.answer(404, "{}")

    def do_POST(self):
        length = int(self.headers.get("Content-Length") or 0)
        request = json.loads(self.rfile.read(length) or b"{}")
        if self.path == "/mint":
            self.answer(200, mint(request), content_type="text/plain")
        elif self.path == "/rotate":
            keys = None
            with STATE.lock:
                STATE.generation += 1
                generation = STATE.generation
            keys = Keys(generation)
            with STATE.lock:
                STATE.keys = keys
            self.answer(200, "{}")
        elif self.path == "/control":
            with STATE.lock:
                if "unreachable" in request:
                    STATE.unreachable = bool(request["unreachable"])
                if "cache_control" in request:
                    STATE.cache_control = request["cache_control"]
            self.answer(200, "{}")
        else:
            self.answer(404, "{}")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--dir", required=True)
    parser.add_argument("--port", type=int, default=0)
    arguments = parser.parse_args()
    server = ThreadingHTTPServer(("127.0.0.1", arguments.port), Handler)
    server.daemon_threads = True
    port = server.server_address[1]
    STATE.issuer = "http://127.0.0.1:%d" % port
    temporary = os.path.join(arguments.dir, "port.tmp")
    with open(temporary, "w") as file:
        file.write(str(port))
    os.rename(temporary, os.path.join(arguments.dir, "port"))
    server.serve_forever()


if __name__ == "__main__":
    main()
