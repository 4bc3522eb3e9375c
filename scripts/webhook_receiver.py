#!/usr/bin/python3
"""A webhook receiver for Gatehouse's tests: verifies every request with the Standard Webhooks
reference library (`standardwebhooks` from PyPI: scripts/install-deps.sh --test), records it, and
answers as told.

    webhook_receiver.py --dir DIR --secret whsec_...

Writes its port to DIR/port. Each request is appended to DIR/requests.jsonl as
{"path", "id", "timestamp", "signature", "verified", "error", "body" (parsed), "received"}.
Answers: DIR/answers-<path without slashes>.json, a JSON list consumed one per request, each
{"status": 200, "body": "..."}, {"delay": seconds, "status": ...}, or {"hold": "NAME", "status": ...}
(answered once the file DIR/release-NAME exists); when empty, 200 with {"allow": true}.
"""
import argparse
import json
import os
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from standardwebhooks.webhooks import Webhook, WebhookVerificationError

parser = argparse.ArgumentParser()
parser.add_argument("--dir", required=True)
parser.add_argument("--secret", required=True)
parser.add_argument("--port", type=int, default=0)
args = parser.parse_args()
webhook = Webhook(args.secret)
lock = threading.Lock()


def next_answer(path):
    name = os.path.join(args.dir, "answers-" + path.strip("/").replace("/", "_") + ".json")
    with lock:
        try:
            with open(name) as f:
                answers = json.load(f)
        except (OSError, ValueError):
            answers = []
        if not answers:
            return {"status": 200, "body": '{"allow": true}'}
        answer = answers.pop(0)
        with open(name + ".tmp", "w") as f:
            json.dump(answers, f)
        os.replace(name + ".tmp", name)
        return answer


class Handler(BaseHTTPRequestHandler):
    # Keep-alive: a sender reusing its connections is not made to connect per request.
    protocol_version = "HTTP/1.1"
    # The headers and the body go out in two writes: with Nagle's algorithm the body would wait
    # for the client's delayed ACK of the headers (40 ms on Linux) on a kept-alive connection.
    disable_nagle_algorithm = True

    def log_message(self, *_):
        pass

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        headers = {k: v for k, v in self.headers.items()}
        record = {
            "path": self.path, "id": self.headers.get("webhook-id"), "timestamp": self.headers.get("webhook-timestamp"),
            "signature": self.headers.get("webhook-signature"), "contentType": self.headers.get("Content-Type"),
            "received": time.time(),
        }
        try:
            record["body"] = webhook.verify(body, headers)
            record["verified"] = True
        except WebhookVerificationError as error:
            record["verified"] = False
            record["error"] = str(error)
            record["body"] = None
        with lock:
            with open(os.path.join(args.dir, "requests.jsonl"), "a") as f:
                f.write(json.dumps(record) + "\n")
        answer = next_answer(self.path)
        if answer.get("delay"):
            time.sleep(answer["delay"])
        if answer.get("hold"):
            released = os.path.join(args.dir, "release-" + answer["hold"])
            while not os.path.exists(released):
                time.sleep(0.01)
        payload = answer.get("body", "").encode()
        try:
            self.send_response(answer.get("status", 200))
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            self.end_headers()
            self.wfile.write(payload)
        except OSError:
            pass  # the client gave up (a timeout)


class Server(ThreadingHTTPServer):
    # The default backlog (5) drops the SYNs of a burst of connections: each then waits out a
    # one-second retransmission.
    request_queue_size = 128


server = Server(("127.0.0.1", args.port), Handler)
server.daemon_threads = True
with open(os.path.join(args.dir, "port.tmp"), "w") as f:
    f.write(str(server.server_address[1]))
os.replace(os.path.join(args.dir, "port.tmp"), os.path.join(args.dir, "port"))
server.serve_forever()
