#!/usr/bin/python3
"""A real SMTP server for tests (Debian's python3-aiosmtpd), started by TestSupport's SMTPTestServer.

Listens on 127.0.0.1 in one of three modes: plain, starttls (STARTTLS offered) or smtps (TLS
from the first byte). With --user/--password it offers AUTH LOGIN and PLAIN and accepts only
that pair. Each message is stored in --dir as NNNNNN.eml (the bytes as received) and
NNNNNN.json: the envelope, whether the session was TLS, who authenticated, and Python's own
parse of the MIME (the `email` package): decoded Subject, headers, the text/plain and text/html
parts decoded, and the parser's defects. Every AUTH attempt is appended to auth.jsonl (never
the password). The file `behaviour` in --dir, read at every RCPT and DATA, makes the server
refuse recipients (`refuse`: 550) or fail temporarily (`tempfail`: 451). When listening, it
writes the port to `port`. Files appear whole (written, then renamed). With --parse FILE it
only writes the parse of that message to --dir/parse.json.
"""
import argparse
import asyncio
import email
import email.policy
import json
import os
import ssl

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword


def write_atomically(path, data):
    temporary = path + ".tmp"
    with open(temporary, "wb") as file:
        file.write(data)
    os.rename(temporary, path)


def parse(data):
    message = email.message_from_bytes(data, policy=email.policy.default)
    parsed = {
        "subject": str(message["subject"] or ""),
        "headers": [[name, str(value)] for name, value in message.items()],
        "content_type": message.get_content_type(),
        "defects": [repr(d) for d in message.defects],
        "text": None,
        "html": None,
    }
    for part in message.walk():
        parsed["defects"] += [repr(d) for d in part.defects]
        if part.is_multipart():
            continue
        kind = part.get_content_type()
        # Decoded, with line ends as "\n" (as a program shows the text).
        if kind == "text/plain" and parsed["text"] is None:
            parsed["text"] = part.get_content().replace("\r\n", "\n")
        elif kind == "text/html" and parsed["html"] is None:
            parsed["html"] = part.get_content().replace("\r\n", "\n")
    return parsed


def uses_tls(server):
    """Whether the session is encrypted: STARTTLS done, or TLS from the start."""
    return server.transport.get_extra_info("ssl_object") is not None


class Handler:
    def __init__(self, directory):
        self.directory = directory
        self.count = len([n for n in os.listdir(directory) if n.endswith(".json")])

    def behaviour(self):
        try:
            with open(os.path.join(self.directory, "behaviour")) as file:
                return file.read().strip()
        except FileNotFoundError:
            return "accept"

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        behaviour = self.behaviour()
        if behaviour == "refuse":
            return "550 5.1.1 Recipient refused"
        if behaviour == "tempfail":
            return "451 4.3.0 Try again later"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):
        if self.behaviour() == "tempfail":
            return "451 4.3.0 Try again later"
        self.count += 1
        base = os.path.join(self.directory, "%06d" % self.count)
        data = envelope.original_content
        record = {
            "mail_from": envelope.mail_from,
            "rcpt_to": envelope.rcpt_tos,
            "tls": uses_tls(server),
            "authenticated_as": session.auth_data.login.decode() if isinstance(session.auth_data, LoginPassword) else None,
        }
        record.update(parse(data))
        write_atomically(base + ".eml", data)
        write_atomically(base + ".json", json.dumps(record).encode())
        return "250 OK stored"


def main():
    arguments = argparse.ArgumentParser()
    arguments.add_argument("--parse", help="only write the parse of this message file to --dir/parse.json")
    arguments.add_argument("--dir", required=True)
    arguments.add_argument("--port", type=int, default=0)
    arguments.add_argument("--mode", choices=["plain", "starttls", "smtps"], default="plain")
    arguments.add_argument("--cert")
    arguments.add_argument("--key")
    arguments.add_argument("--user")
    arguments.add_argument("--password")
    options = arguments.parse_args()
    if options.parse:
        with open(options.parse, "rb") as file:
            record = {"mail_from": "", "rcpt_to": [], "tls": False, "authenticated_as": None}
            record.update(parse(file.read()))
            write_atomically(os.path.join(options.dir, "parse.json"), json.dumps(record).encode())
        return

    context = None
    if options.mode != "plain":
        context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        context.load_cert_chain(options.cert, options.key)

    def authenticate(server, session, envelope, mechanism, auth_data):
        ok = (isinstance(auth_data, LoginPassword)
              and auth_data.login.decode() == options.user and auth_data.password.decode() == options.password)
        attempt = {"mechanism": mechanism, "user": auth_data.login.decode() if isinstance(auth_data, LoginPassword) else None,
                   "tls": uses_tls(server), "ok": ok}
        with open(os.path.join(options.dir, "auth.jsonl"), "a") as file:
            file.write(json.dumps(attempt) + "\n")
        return AuthResult(success=ok, handled=False, auth_data=auth_data if ok else None)

    handler = Handler(options.dir)
    parameters = {"hostname": "gatehouse-test-smtp", "enable_SMTPUTF8": True}
    if options.mode == "starttls":
        parameters["tls_context"] = context
    if options.user is not None:
        parameters.update(authenticator=authenticate, auth_required=True, auth_require_tls=False)
    else:
        parameters.update(auth_require_tls=False)

    async def serve():
        loop = asyncio.get_running_loop()
        server = await loop.create_server(lambda: SMTP(handler, **parameters), "127.0.0.1", options.port,
                                          ssl=context if options.mode == "smtps" else None, reuse_address=True)
        port = server.sockets[0].getsockname()[1]
        write_atomically(os.path.join(options.dir, "port"), str(port).encode())
        await server.serve_forever()

    asyncio.run(serve())


if __name__ == "__main__":
    main()
