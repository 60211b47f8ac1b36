"""Schemathesis hooks of Deploy/dev/fuzz.sh (loaded through SCHEMATHESIS_HOOKS): credentials for every security
scheme of docs/openapi.yaml, and the geotag request signature.

The secrets come from the environment that fuzz.sh exports (made by Deploy/dev/fuzz/setup.py):

  adminToken          FUZZ_ADMIN_TOKEN
  twomesAccountToken  FUZZ_TWOMES_ACCOUNT_TOKEN
  twomesDeviceToken   FUZZ_TWOMES_DEVICE_TOKEN
  accessToken         FUZZ_VAULT_TOKEN, a vault user's token from setup's POST /oauth/token; after 100 minutes
                      a new one with FUZZ_VAULT_EMAIL / FUZZ_VAULT_PASSWORD (FUZZ_BASE_URL)
  geotag*             FUZZ_GEOTAG_KEY / FUZZ_GEOTAG_SECRET: every request is signed over what is really sent

Each provider applies to the operations whose `security` names its scheme. Schemathesis leaves a case without
them when it tests missing credentials on purpose (negative testing of the security parameters), so those requests
must be answered with the documented 401/403.
"""

import hashlib
import hmac
import os
import threading
import time

import requests
import schemathesis

SIGNATURE_PENDING = "to-be-signed-by-fuzz-hooks"


def _schemes(operation):
    """The security schemes an operation accepts (its own `security`, else the document's)."""
    security = operation.definition.raw.get("security")
    if security is None:
        security = operation.schema.raw_schema.get("security", [])
    return {name for requirement in security for name in requirement}


def _uses(scheme):
    def matcher(ctx):
        return scheme in _schemes(ctx.operation)

    return matcher


def _set_header(case, name, value):
    if case.headers is None:
        case.headers = {}
    case.headers[name] = value


class _EnvBearer:
    variable = ""

    def get(self, case, context):
        return os.environ[self.variable]

    def set(self, case, data, context):
        _set_header(case, "Authorization", f"Bearer {data}")


@schemathesis.auth(refresh_interval=None).apply_to(_uses("adminToken"))
class AdminToken(_EnvBearer):
    variable = "FUZZ_ADMIN_TOKEN"


@schemathesis.auth(refresh_interval=None).apply_to(_uses("twomesAccountToken"))
class TwomesAccountToken(_EnvBearer):
    variable = "FUZZ_TWOMES_ACCOUNT_TOKEN"


@schemathesis.auth(refresh_interval=None).apply_to(_uses("twomesDeviceToken"))
class TwomesDeviceToken(_EnvBearer):
    variable = "FUZZ_TWOMES_DEVICE_TOKEN"


# Logs in once and keeps the token (valid 2 hours) for 100 minutes. Not more often: POST /api/password's wrong
# current passwords count as failed logins of the same email (docs/vault.md, "Throttling failed logins"), so the
# fuzzer keeps the user's password logins locked (429) for much of a run; if a refresh is refused, the token in hand
# is kept while it is valid. A 401 is a finding, not a reason to log in again (retry_on=[]).
@schemathesis.auth(refresh_interval=None).apply_to(_uses("accessToken"))
class VaultAccessToken:
    # setup.py's login, a moment ago: the fuzzer may have locked the password logins before the first vault request
    token = os.environ.get("FUZZ_VAULT_TOKEN")
    fetched = time.monotonic()
    lock = threading.Lock()

    def get(self, case, context):
        cls = type(self)
        with cls.lock:
            age = time.monotonic() - cls.fetched
            if cls.token is None or age > 6000:
                try:
                    cls.token = self.login()
                    cls.fetched = time.monotonic()
                except requests.RequestException:
                    if cls.token is None or age > 7000:
                        raise
            return cls.token

    @staticmethod
    def login():
        response = requests.post(
            os.environ["FUZZ_BASE_URL"] + "/oauth/token",
            json={
                "grant_type": "password",
                "email": os.environ["FUZZ_VAULT_EMAIL"],
                "password": os.environ["FUZZ_VAULT_PASSWORD"],
            },
            timeout=30,
        )
        response.raise_for_status()
        return response.json()["access_token"]

    def set(self, case, data, context):
        _set_header(case, "Authorization", f"Bearer {data}")


# The key goes in now; the timestamp and signature in `before_call`, once the body and target are final.
@schemathesis.auth(refresh_interval=None).apply_to(_uses("geotagSignature"))
class GeotagSignature:
    def get(self, case, context):
        return os.environ["FUZZ_GEOTAG_KEY"]

    def set(self, case, data, context):
        _set_header(case, "X-API-Key", data)
        _set_header(case, "X-API-Timestamp", SIGNATURE_PENDING)
        _set_header(case, "X-API-Sig", SIGNATURE_PENDING)


# The server refuses a signature it saw before, and two identical requests in the same second sign alike
# (schemathesis replays a failing case to confirm it): such a repeat gets an earlier timestamp, still in the window.
_signed = set()
_signed_lock = threading.Lock()


def _timestamp(method, target, digest):
    now = int(time.time())
    with _signed_lock:
        for timestamp in range(now, now - 250, -1):
            if (method, target, digest, timestamp) not in _signed:
                _signed.add((method, target, digest, timestamp))
                return str(timestamp)
    return str(now)


def _sent_request(case):
    """The request as `requests` will send it: method, target (path and query, as on the request line) and body."""
    data = case.as_transport_kwargs()
    request = requests.Request(
        method=data["method"],
        url=data["url"],
        headers=data.get("headers"),
        params=data.get("params"),
        data=data.get("data"),
        json=data.get("json"),
        files=data.get("files"),
    )
    prepared = requests.Session().prepare_request(request)
    body = prepared.body or b""
    if isinstance(body, str):
        # http.client sends a str body as ISO-8859-1
        body = body.encode("iso-8859-1")
    return prepared.method, prepared.path_url, body


@schemathesis.hook
def before_call(context, case, kwargs):
    headers = case.headers or {}
    if headers.get("X-API-Sig") != SIGNATURE_PENDING:
        return
    method, target, body = _sent_request(case)
    digest = hashlib.sha256(body).hexdigest()
    timestamp = _timestamp(method, target, digest)
    canonical = "\n".join([method, target, timestamp, digest])
    signature = hmac.new(os.environ["FUZZ_GEOTAG_SECRET"].encode(), canonical.encode(), hashlib.sha256).hexdigest()
    case.headers["X-API-Timestamp"] = timestamp
    case.headers["X-API-Sig"] = signature


# What the documentation states in prose but the document's schemas cannot: both would fail the stricter checks
# (FUZZ_CHECKS=all) on every operation. Nothing else is dropped.
NUL_MESSAGE = "The request contains a NUL character (U+0000)"


@schemathesis.hook
def filter_failure(context, failure, case, response):
    kind = type(failure).__name__
    # A NUL character anywhere is refused with 400 (docs/README.md, "API styles"); JSON Schema cannot say "no NUL".
    if kind == "RejectedPositiveData" and response.status_code == 400 and NUL_MESSAGE in (response.text or ""):
        return False
    # Twomes answers a missing Authorization header with 403, as FastAPI's HTTPBearer does (APIStyle.swift).
    if kind == "MissingHeaderNotRejected" and response.status_code == 403 and "twomes" in (case.operation.tags or []):
        return False
    return True


# Every 5xx answer, failure or not (a documented 503 or 504 is no failure, but says that something could not
# keep up): fuzz.sh prints them at the end.
@schemathesis.hook
def after_call(context, case, response):
    path = os.environ.get("FUZZ_SERVER_ERRORS")
    if path and response.status_code >= 500:
        line = f"{response.status_code} {case.method} {case.formatted_path} {(response.text or '')[:300]!r}\n"
        with _signed_lock, open(path, "a") as f:
            f.write(line)
