#!/usr/bin/env python3
"""An OTLP/HTTP trace receiver for tests and benchmarks: what a collector would be, small enough to read.

    python3 Deploy/dev/otlp/receiver.py [--port 0] [--out spans.jsonl] [--keep 100000] [--delay SECONDS] [--fail]

It takes `POST /v1/traces` with an ExportTraceServiceRequest in protobuf (`Content-Encoding: gzip` too), as an
OpenTelemetry SDK sends it, and answers 200 with an empty ExportTraceServiceResponse. Each span becomes one JSON object:
trace_id, span_id, parent_span_id (hex; "" for a root), name, kind (SERVER, CLIENT, INTERNAL, ...), start_ns, end_ns,
status_code (UNSET, OK, ERROR), status_message, attributes {key: value}, events [{name, time_ns, attributes}], scope
(the instrumentation's name) and resource {key: value} (service.name, service.instance.id, ...).

    --out FILE      appends each span to FILE as one line of JSON
    --keep N        spans kept in memory for GET /spans (the newest N; 0 keeps none, for a benchmark's long run)
    --delay S       waits S seconds before answering each export: a slow collector
    --fail          answers every export 503: a collector that is there and cannot take anything

`GET /spans` answers the kept spans as a JSON array, `GET /stats` {"exports": n, "spans": n, "refused": n}: exports and
spans taken, and exports answered 503 (--fail). On start it prints `listening <port>` on standard output, so that a
caller that asked for port 0 can read which port it has. Loopback only. Needs opentelemetry-proto (the pins of
Deploy/dev/python-tools.sh); Deploy/dev/otlp/receiver_test.py tests it.
"""

import argparse
import collections
import gzip
import json
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from google.protobuf.message import DecodeError
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.trace.v1.trace_pb2 import Span, Status

# An exporter's batch is at most a few MiB; a body larger than this is refused rather than read.
MAX_BODY = 64 * 1024 * 1024


def any_value(value):
    """An OTLP AnyValue as plain JSON: arrays as lists, key-value lists as objects, bytes as hex."""
    kind = value.WhichOneof("value")
    if kind is None:
        return None
    if kind == "array_value":
        return [any_value(item) for item in value.array_value.values]
    if kind == "kvlist_value":
        return attributes(value.kvlist_value.values)
    if kind == "bytes_value":
        return value.bytes_value.hex()
    return getattr(value, kind)


def attributes(pairs):
    return {pair.key: any_value(pair.value) for pair in pairs}


def enum_name(enum, number, prefix):
    """SPAN_KIND_SERVER as SERVER; a number the proto does not know as itself."""
    try:
        return enum.Name(number).removeprefix(prefix)
    except ValueError:
        return str(number)


def spans_of(request):
    """Every span of an ExportTraceServiceRequest, flattened with its resource and scope."""
    for resource_spans in request.resource_spans:
        resource = attributes(resource_spans.resource.attributes)
        for scope_spans in resource_spans.scope_spans:
            for span in scope_spans.spans:
                yield {
                    "trace_id": span.trace_id.hex(),
                    "span_id": span.span_id.hex(),
                    "parent_span_id": span.parent_span_id.hex(),
                    "name": span.name,
                    "kind": enum_name(Span.SpanKind, span.kind, "SPAN_KIND_"),
                    "start_ns": span.start_time_unix_nano,
                    "end_ns": span.end_time_unix_nano,
                    "status_code": enum_name(Status.StatusCode, span.status.code, "STATUS_CODE_"),
                    "status_message": span.status.message,
                    "attributes": attributes(span.attributes),
                    "events": [
                        {"name": event.name, "time_ns": event.time_unix_nano, "attributes": attributes(event.attributes)}
                        for event in span.events
                    ],
                    "scope": scope_spans.scope.name,
                    "resource": resource,
                }


def span_count(request):
    return sum(len(scope.spans) for resource in request.resource_spans for scope in resource.scope_spans)


class Store:
    """What the receiver took, shared by the request threads."""

    def __init__(self, out, keep):
        self.lock = threading.Lock()
        self.kept = collections.deque(maxlen=keep)
        self.keep = keep
        self.out = open(out, "a", encoding="utf-8") if out else None
        self.exports = 0
        self.spans = 0
        self.refused = 0

    def take(self, request):
        # Turning spans into JSON is most of the work: a benchmark that keeps none and writes none only counts them.
        flat = list(spans_of(request)) if self.keep or self.out else None
        count = len(flat) if flat is not None else span_count(request)
        lines = "".join(json.dumps(span, separators=(",", ":")) + "\n" for span in flat) if self.out else ""
        with self.lock:
            self.exports += 1
            self.spans += count
            if flat:
                self.kept.extend(flat)
            if self.out:
                self.out.write(lines)
                self.out.flush()

    def refuse(self):
        with self.lock:
            self.refused += 1

    def stats(self):
        with self.lock:
            return {"exports": self.exports, "spans": self.spans, "refused": self.refused}

    def all_spans(self):
        with self.lock:
            return list(self.kept)


def handler(store, delay, fail):
    class Handler(BaseHTTPRequestHandler):
        # Keep-alive, as an exporter's HTTP client expects; every answer says its length.
        protocol_version = "HTTP/1.1"

        def log_message(self, format, *args):
            pass  # one line per export would drown the caller's output

        def answer(self, status, body=b"", content_type="application/x-protobuf"):
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):
            if self.path == "/spans":
                self.answer(200, json.dumps(store.all_spans()).encode(), "application/json")
            elif self.path == "/stats":
                self.answer(200, json.dumps(store.stats()).encode(), "application/json")
            else:
                self.answer(404, b"not found\n", "text/plain")

        def do_POST(self):
            length = int(self.headers.get("Content-Length") or 0)
            if self.path != "/v1/traces":
                self.rfile.read(min(length, MAX_BODY))
                self.answer(404, b"only /v1/traces\n", "text/plain")
                return
            if length > MAX_BODY:
                self.close_connection = True
                self.answer(413, b"too large\n", "text/plain")
                return
            body = self.rfile.read(length)
            if delay:
                time.sleep(delay)
            if fail:
                store.refuse()
                self.answer(503, b"refusing every export (--fail)\n", "text/plain")
                return
            encoding = (self.headers.get("Content-Encoding") or "identity").lower()
            try:
                if encoding == "gzip":
                    body = gzip.decompress(body)
                elif encoding != "identity":
                    self.answer(415, f"unknown Content-Encoding {encoding}\n".encode(), "text/plain")
                    return
                request = ExportTraceServiceRequest()
                request.ParseFromString(body)
            except (DecodeError, OSError, EOFError) as error:
                self.answer(400, f"not an ExportTraceServiceRequest: {error}\n".encode(), "text/plain")
                return
            store.take(request)
            self.answer(200, ExportTraceServiceResponse().SerializeToString())

    return Handler


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--port", type=int, default=4318, help="0: any free port (printed)")
    parser.add_argument("--out", help="append each span to this file as a line of JSON")
    parser.add_argument("--keep", type=int, default=100_000, help="spans kept for GET /spans (0: none)")
    parser.add_argument("--delay", type=float, default=0, help="seconds to wait before answering each export")
    parser.add_argument("--fail", action="store_true", help="answer every export 503")
    options = parser.parse_args()
    # A caller stops it with SIGTERM (or Ctrl-C). A parent may have blocked those signals (a Swift test runner does) and
    # its children inherit the mask: the receiver would outlive it, holding the parent's pipes open.
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    store = Store(options.out, max(options.keep, 0))
    server = ThreadingHTTPServer(("127.0.0.1", options.port), handler(store, options.delay, options.fail))
    server.daemon_threads = True
    print(f"listening {server.server_address[1]}", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass


if __name__ == "__main__":
    main()
