#!/usr/bin/env python3
"""Tests Deploy/dev/otlp/receiver.py as its callers use it: started as a process on a free port, sent exports built
with the same opentelemetry-proto classes an SDK's are built from, read back through --out, GET /spans and GET /stats.

    source Deploy/dev/python-tools.sh && "$tools/python" Deploy/dev/otlp/receiver_test.py
"""

import gzip
import http.client
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
import unittest

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, ArrayValue, InstrumentationScope, KeyValue
from opentelemetry.proto.resource.v1.resource_pb2 import Resource
from opentelemetry.proto.trace.v1.trace_pb2 import ResourceSpans, ScopeSpans, Span, Status

RECEIVER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "receiver.py")
TRACE = bytes.fromhex("4bf92f3577b34da6a3ce929d0e0e4736")
ROOT = bytes.fromhex("00f067aa0ba902b7")
CHILD = bytes.fromhex("b7ad6b7169203331")


def pair(key, **value):
    return KeyValue(key=key, value=AnyValue(**value))


def export(service, instance, spans):
    """An ExportTraceServiceRequest of one process's spans, as swift-otel sends it."""
    return ExportTraceServiceRequest(
        resource_spans=[
            ResourceSpans(
                resource=Resource(
                    attributes=[
                        pair("service.name", string_value=service),
                        pair("service.instance.id", string_value=instance),
                        pair("service.namespace", string_value="custodian"),
                    ]
                ),
                scope_spans=[ScopeSpans(scope=InstrumentationScope(name="swift-otel"), spans=spans)],
            )
        ]
    )


def gateway_spans():
    server = Span(
        trace_id=TRACE,
        span_id=ROOT,
        name="POST /device/measurements/variable-interval",
        kind=Span.SPAN_KIND_SERVER,
        start_time_unix_nano=1_700_000_000_000_000_000,
        end_time_unix_nano=1_700_000_000_004_000_000,
        attributes=[
            pair("http.request.method", string_value="POST"),
            pair("http.response.status_code", int_value=201),
            pair("custodian.synthetic", bool_value=True),
            pair("custodian.weight", double_value=0.5),
            pair("custodian.hops", array_value=ArrayValue(values=[AnyValue(string_value="devices"), AnyValue(int_value=2)])),
        ],
        events=[Span.Event(name="rate_limit.checked", time_unix_nano=1_700_000_000_001_000_000, attributes=[pair("allowed", bool_value=True)])],
        status=Status(code=Status.STATUS_CODE_UNSET),
    )
    client = Span(
        trace_id=TRACE,
        span_id=CHILD,
        parent_span_id=ROOT,
        name="devices.measurements.upload",
        kind=Span.SPAN_KIND_CLIENT,
        start_time_unix_nano=1_700_000_000_001_000_000,
        end_time_unix_nano=1_700_000_000_003_000_000,
        status=Status(code=Status.STATUS_CODE_ERROR, message="timed out"),
    )
    return [server, client]


class Receiver:
    """receiver.py as a process, on the port it found."""

    def __init__(self, *options):
        self.process = subprocess.Popen(
            [sys.executable, RECEIVER, "--port", "0", *options],
            stdout=subprocess.PIPE,
            text=True,
            preexec_fn=with_signals_blocked,
        )
        line = self.process.stdout.readline().split()
        assert line[:1] == ["listening"], f"the receiver said {line!r}"
        self.port = int(line[1])

    def request(self, method, path, body=None, headers=None):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        try:
            connection.request(method, path, body=body, headers=headers or {})
            response = connection.getresponse()
            return response.status, response.getheader("Content-Type"), response.read()
        finally:
            connection.close()

    def post(self, request, gzipped=False):
        body = request.SerializeToString()
        headers = {"Content-Type": "application/x-protobuf"}
        if gzipped:
            body = gzip.compress(body)
            headers["Content-Encoding"] = "gzip"
        return self.request("POST", "/v1/traces", body, headers)

    def json(self, path):
        status, content_type, body = self.request("GET", path)
        assert status == 200 and content_type == "application/json", (status, content_type)
        return json.loads(body)

    def stop(self):
        """SIGTERM, as the scripts stop it; a receiver that outlives it is killed, and the test fails."""
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            raise AssertionError("the receiver did not stop on SIGTERM")
        finally:
            self.process.stdout.close()


def with_signals_blocked():
    """Starts the receiver as a Swift test runner does: with SIGTERM and SIGINT blocked, a mask its children inherit."""
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM, signal.SIGINT})


class ReceiverTests(unittest.TestCase):
    def start(self, *options):
        receiver = Receiver(*options)
        self.addCleanup(receiver.stop)
        return receiver

    def test_plain_and_gzipped_exports_become_one_json_object_per_span(self):
        out = tempfile.NamedTemporaryFile(suffix=".jsonl", delete=False).name
        self.addCleanup(os.remove, out)
        receiver = self.start("--out", out)

        status, content_type, body = receiver.post(export("gateway", "gateway-1", gateway_spans()))
        self.assertEqual(status, 200)
        self.assertEqual(content_type, "application/x-protobuf")
        ExportTraceServiceResponse().ParseFromString(body)  # an empty response is a valid one
        self.assertEqual(body, b"")
        vault = Span(trace_id=TRACE, span_id=bytes.fromhex("53995c3f42cd8ad8"), parent_span_id=CHILD, name="SELECT items", kind=Span.SPAN_KIND_INTERNAL)
        self.assertEqual(receiver.post(export("vault", "vault-2", [vault]), gzipped=True)[0], 200)

        with open(out, encoding="utf-8") as file:
            lines = [json.loads(line) for line in file]
        self.assertEqual(receiver.json("/spans"), lines)
        self.assertEqual(receiver.json("/stats"), {"exports": 2, "spans": 3, "refused": 0})
        server, client, sql = lines
        self.assertEqual(
            server,
            {
                "trace_id": TRACE.hex(),
                "span_id": ROOT.hex(),
                "parent_span_id": "",
                "name": "POST /device/measurements/variable-interval",
                "kind": "SERVER",
                "start_ns": 1_700_000_000_000_000_000,
                "end_ns": 1_700_000_000_004_000_000,
                "status_code": "UNSET",
                "status_message": "",
                "attributes": {
                    "http.request.method": "POST",
                    "http.response.status_code": 201,
                    "custodian.synthetic": True,
                    "custodian.weight": 0.5,
                    "custodian.hops": ["devices", 2],
                },
                "events": [{"name": "rate_limit.checked", "time_ns": 1_700_000_000_001_000_000, "attributes": {"allowed": True}}],
                "scope": "swift-otel",
                "resource": {"service.name": "gateway", "service.instance.id": "gateway-1", "service.namespace": "custodian"},
            },
        )
        self.assertEqual((client["kind"], client["parent_span_id"]), ("CLIENT", ROOT.hex()))
        self.assertEqual((client["status_code"], client["status_message"]), ("ERROR", "timed out"))
        # The gzipped export's span, with its own process's resource.
        self.assertEqual((sql["name"], sql["kind"], sql["parent_span_id"]), ("SELECT items", "INTERNAL", CHILD.hex()))
        self.assertEqual(sql["resource"]["service.instance.id"], "vault-2")

    def test_what_is_not_an_export_is_refused_and_not_counted(self):
        receiver = self.start()
        self.assertEqual(receiver.request("POST", "/v1/traces", b"\xff\xff\xff", {"Content-Type": "application/x-protobuf"})[0], 400)
        self.assertEqual(receiver.request("POST", "/v1/traces", b"not gzip", {"Content-Encoding": "gzip"})[0], 400)
        self.assertEqual(receiver.request("POST", "/v1/traces", b"", {"Content-Encoding": "br"})[0], 415)
        self.assertEqual(receiver.request("POST", "/v1/metrics", b"", {})[0], 404)
        self.assertEqual(receiver.json("/stats"), {"exports": 0, "spans": 0, "refused": 0})

    def test_a_failing_collector_answers_503_and_keeps_nothing(self):
        receiver = self.start("--fail")
        self.assertEqual(receiver.post(export("gateway", "gateway-1", gateway_spans()))[0], 503)
        self.assertEqual(receiver.json("/stats"), {"exports": 0, "spans": 0, "refused": 1})
        self.assertEqual(receiver.json("/spans"), [])

    def test_a_slow_collector_answers_after_its_delay(self):
        receiver = self.start("--delay", "0.5")
        started = time.monotonic()
        self.assertEqual(receiver.post(export("gateway", "gateway-1", gateway_spans()))[0], 200)
        self.assertGreaterEqual(time.monotonic() - started, 0.5)
        # Reading what it has is not held up.
        started = time.monotonic()
        self.assertEqual(receiver.json("/stats")["spans"], 2)
        self.assertLess(time.monotonic() - started, 0.5)

    def test_keep_bounds_what_is_held_but_not_what_is_counted(self):
        receiver = self.start("--keep", "1")
        self.assertEqual(receiver.post(export("gateway", "gateway-1", gateway_spans()))[0], 200)
        self.assertEqual([span["span_id"] for span in receiver.json("/spans")], [CHILD.hex()])
        self.assertEqual(receiver.json("/stats")["spans"], 2)
        counting = self.start("--keep", "0")
        self.assertEqual(counting.post(export("gateway", "gateway-1", gateway_spans()), gzipped=True)[0], 200)
        self.assertEqual(counting.json("/spans"), [])
        self.assertEqual(counting.json("/stats"), {"exports": 1, "spans": 2, "refused": 0})


if __name__ == "__main__":
    unittest.main(verbosity=2)
