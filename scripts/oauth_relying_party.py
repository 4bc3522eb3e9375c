#!/usr/bin/env python3
"""A stock OpenID Connect relying party (Authlib) signing in through Gatehouse.

Run by the OAuth tests under Debian's /usr/bin/python3 (python3-authlib, python3-requests:
scripts/install-deps.sh --test). It does what an app does with Authlib and nothing of its own:
discovery, RFC 7591 registration, the authorization code flow with PKCE (S256), ID token
validation against the served key set (signature, iss, aud, nonce, exp), userinfo, two refreshes
with rotation, reuse of a rotated refresh token, and RFC 7009 revocation. The browser's part, the
page's form post, is done with the session tokens given (a signed-in user who approves), as the
authorization page itself posts it.

Prints one JSON object: each step's result, or {"failed": step, "error": ...}.
"""
import argparse
import json
import secrets
import sys
import urllib.parse

import requests
from authlib.integrations.requests_client import OAuth2Session
from authlib.integrations.base_client.errors import OAuthError
from authlib.jose import JsonWebKey, jwt
from authlib.oidc.core import CodeIDToken

REDIRECT_URI = "http://127.0.0.1:9/callback"
SCOPE = "openid profile email offline_access"


def approve(authorization_url, session_token):
    """The page's part: the page loads, then posts the request's parameters with the session and
    the decision; the answer is a 303 to the redirect URI, which is returned."""
    page = requests.get(authorization_url, allow_redirects=False)
    assert page.status_code == 200 and "text/html" in page.headers["Content-Type"], (page.status_code, page.text[:200])
    query = urllib.parse.urlsplit(authorization_url).query
    form = urllib.parse.parse_qsl(query, keep_blank_values=True) + [("session_token", session_token), ("decision", "approve")]
    answer = requests.post(authorization_url.split("?")[0], data=form, allow_redirects=False)
    assert answer.status_code == 303, (answer.status_code, answer.text[:200])
    return answer.headers["Location"]


def sign_in(metadata, client_id, client_secret, session_token, keys):
    """One code flow with PKCE: the tokens and the ID token's claims, validated by Authlib."""
    client = OAuth2Session(
        client_id, client_secret, scope=SCOPE, redirect_uri=REDIRECT_URI, code_challenge_method="S256",
        token_endpoint_auth_method="client_secret_basic")
    verifier = secrets.token_urlsafe(48)
    nonce = secrets.token_urlsafe(16)
    url, state = client.create_authorization_url(metadata["authorization_endpoint"], code_verifier=verifier, nonce=nonce)
    location = approve(url, session_token)
    returned = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))
    assert returned.get("state") == state, returned
    assert returned.get("iss") == metadata["issuer"], returned  # RFC 9207
    token = client.fetch_token(metadata["token_endpoint"], authorization_response=location, code_verifier=verifier)
    claims = jwt.decode(
        token["id_token"], keys, claims_cls=CodeIDToken,
        claims_options={"iss": {"essential": True, "value": metadata["issuer"]}},
        claims_params={"nonce": nonce, "client_id": client_id})
    claims.validate()
    return client, token, dict(claims)


def refresh_error(client, metadata, refresh_token):
    try:
        client.refresh_token(metadata["token_endpoint"], refresh_token=refresh_token)
    except OAuthError as error:
        return error.error
    return None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--issuer", required=True)
    parser.add_argument("--session", action="append", required=True, help="two session tokens of the user")
    arguments = parser.parse_args()
    result = {}
    step = "discovery"
    try:
        metadata = requests.get(arguments.issuer + "/.well-known/openid-configuration").json()
        assert metadata["issuer"] == arguments.issuer
        assert metadata["code_challenge_methods_supported"] == ["S256"]
        keys = JsonWebKey.import_key_set(requests.get(metadata["jwks_uri"]).json())
        result["discovery"] = True

        step = "registration"
        registered = requests.post(metadata["registration_endpoint"], json={
            "redirect_uris": [REDIRECT_URI], "client_name": "Authlib relying party",
            "token_endpoint_auth_method": "client_secret_basic"})
        assert registered.status_code == 201, (registered.status_code, registered.text)
        assert registered.headers.get("Cache-Control") == "no-store"
        client_id, client_secret = registered.json()["client_id"], registered.json()["client_secret"]
        result["client_id"] = client_id

        step = "code flow"
        client, token, claims = sign_in(metadata, client_id, client_secret, arguments.session[0], keys)
        result["id_token"] = claims
        result["scope"] = token["scope"]
        result["access_token"] = token["access_token"]

        step = "userinfo"
        result["userinfo"] = client.get(metadata["userinfo_endpoint"]).json()

        step = "refresh"
        first = token["refresh_token"]
        second = client.refresh_token(metadata["token_endpoint"], refresh_token=first)
        third = client.refresh_token(metadata["token_endpoint"], refresh_token=second["refresh_token"])
        result["rotated"] = len({first, second["refresh_token"], third["refresh_token"]}) == 3
        result["refreshed_userinfo"] = client.get(metadata["userinfo_endpoint"]).json()

        step = "reuse"
        result["reuse_error"] = refresh_error(client, metadata, first)
        result["latest_after_reuse_error"] = refresh_error(client, metadata, third["refresh_token"])
        result["userinfo_after_reuse_status"] = client.get(metadata["userinfo_endpoint"]).status_code

        step = "revocation"
        client, token, _ = sign_in(metadata, client_id, client_secret, arguments.session[1], keys)
        revoked = client.revoke_token(metadata["revocation_endpoint"], token=token["refresh_token"], token_type_hint="refresh_token")
        result["revocation_status"] = revoked.status_code
        result["refresh_after_revocation_error"] = refresh_error(client, metadata, token["refresh_token"])
        result["userinfo_after_revocation_status"] = client.get(metadata["userinfo_endpoint"]).status_code
    except Exception as error:  # the step that failed, for the test's message
        result["failed"] = step
        result["error"] = f"{type(error).__name__}: {error}"
    json.dump(result, sys.stdout)
    print()


if __name__ == "__main__":
    main()
