"""Makes the fixtures Deploy/dev/fuzz.sh fuzzes with, on a fresh `custodian up --no-demo`, through the public API.

    python setup.py BASE_URL ADMIN_TOKEN OUT_DIR

Writes OUT_DIR/fuzz.env (`export FUZZ_…=…` lines, sourced by fuzz.sh; hooks.py reads them) and
OUT_DIR/schemathesis.toml (fuzz dictionaries with the real ids, so that part of the generated requests reach
existing devices, repos, users, modules, routes, links; the rest stay random and must be answered with a
documented 4xx). Every credential scheme of docs/openapi.yaml gets one:

  adminToken          the data directory's admin token
  twomesAccountToken  POST /account, POST /account/activate (the session token, used once so it is final)
  twomesDeviceToken   POST /device, POST /account/device/activate, POST /device/activate
  accessToken         POST /admin/v1/vault/users, …/modules, …/repos, …/permissions; hooks.py logs in with
                      POST /oauth/token (password grant) whenever it needs a fresh token
  geotag*             POST /admin/v1/api-consumers: a key and secret; hooks.py signs every request
"""

import base64
import hashlib
import hmac
import json
import os
import secrets
import shlex
import sys
import time

import requests

base, admin_token, out = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
session = requests.Session()
admin = {"Authorization": f"Bearer {admin_token}"}


def call(method, path, expect, **kwargs):
    response = session.request(method, base + path, timeout=30, **kwargs)
    if response.status_code != expect:
        sys.exit(f"fuzz setup: {method} {path} answered {response.status_code}, not {expect}: {response.text[:500]}")
    return response.json() if response.content else None


def signed(method, target, body, key, secret):
    timestamp = str(int(time.time()))
    canonical = "\n".join([method, target, timestamp, hashlib.sha256(body).hexdigest()])
    signature = hmac.new(secret.encode(), canonical.encode(), hashlib.sha256).hexdigest()
    return {"X-API-Key": key, "X-API-Timestamp": timestamp, "X-API-Sig": signature}


env = {}

# Twomes (docs/twomes.md, README "Try it"): an account, a device attached to it and activated.
device_name = "TWOMES-" + secrets.token_hex(3).upper()
device_pop = secrets.token_urlsafe(12)
account = call("POST", "/account", 200, headers=admin, json={})
call("POST", "/device", 200, headers=admin,
     json={"name": device_name, "device_type": "Generic-Test", "activation_token": device_pop})
account_session = call("POST", "/account/activate", 200, json={"activation_token": account["activation_token"]})["session_token"]
account_auth = {"Authorization": f"Bearer {account_session}"}
call("GET", f"/device_type/{device_name}", 200, headers=account_auth)   # the first use: the activation token ends
call("POST", "/account/device/activate", 200, headers=account_auth, json={"activation_token": device_pop})
device_session = call("POST", "/device/activate", 200, json={"activation_token": device_pop})["session_token"]
now = int(time.time())
call("POST", "/device/measurements/variable-interval", 200, headers={"Authorization": f"Bearer {device_session}"},
     json={"upload_time": now, "property_measurements": [
         {"property_name": "heartbeat", "measurements": [{"timestamp": now, "value": "0"}]}]})
env.update(FUZZ_TWOMES_ACCOUNT_TOKEN=account_session, FUZZ_TWOMES_DEVICE_TOKEN=device_session,
           FUZZ_TWOMES_DEVICE=device_name, FUZZ_TWOMES_PSEUDONYM=str(account["pseudonym"]))

# The data vault (docs/vault.md): a user with a module and a repo the module may read and write.
email = f"fuzz-{secrets.token_hex(4)}@example.org"
password = secrets.token_urlsafe(18)
user = call("POST", "/admin/v1/vault/users", 201, headers=admin,
            json={"email": email, "name": "Fuzz User", "password": password})
repo = "fuzz.notes"
call("POST", f"/admin/v1/vault/users/{user['id']}/repos", 201, headers=admin, json={"identifier": repo})
module = call("POST", f"/admin/v1/vault/users/{user['id']}/modules", 201, headers=admin,
              json={"name": "Fuzz Module", "url": "https://fuzz.example.org/"})
call("POST", f"/admin/v1/vault/modules/{module['id']}/permissions", 200, headers=admin,
     json={"repo": repo, "read": True, "write": True})
token = call("POST", "/oauth/token", 200,
             json={"grant_type": "password", "email": email, "password": password})["access_token"]
call("POST", f"/api/repos/{repo}/items", 200, headers={"Authorization": f"Bearer {token}"},
     json={"value": "fuzz", "note": "a first record"})
env.update(FUZZ_VAULT_EMAIL=email, FUZZ_VAULT_PASSWORD=password, FUZZ_VAULT_TOKEN=token, FUZZ_VAULT_USER_ID=str(user["id"]),
           FUZZ_VAULT_MODULE_ID=str(module["id"]), FUZZ_VAULT_REPO=repo)

# Geotag (docs/geotag.md): an API consumer, and a stored route with a lookup id.
consumer = call("POST", "/admin/v1/api-consumers", 201, headers=admin, json={"name": "fuzz"})
key, secret = consumer["consumer_key"], consumer["consumer_secret"]
lookup_id = secrets.token_hex(32)
route_body = json.dumps({"route": base64.b64encode(os.urandom(48)).decode(), "lookup_id": lookup_id}).encode()
route = call("POST", "/route", 201, data=route_body,
             headers={"Content-Type": "application/json", **signed("POST", "/route", route_body, key, secret)})
env.update(FUZZ_GEOTAG_KEY=key, FUZZ_GEOTAG_SECRET=secret)

# Links and OpenSense: a short link and a registered device.
link = call("POST", "/admin/v1/links", 201, headers=admin, json={"app_url": "warmtewachter://activate?token=fuzz"})
opensense_device = f"fuzz-{secrets.token_hex(8)}"
call("POST", "/register", 200, data={"device_id": opensense_device})
symptoms = call("GET", "/admin/v1/statistics/symptoms", 200, headers=admin)
symptom_keys = [s["key"] for s in (symptoms.get("symptoms", []) if isinstance(symptoms, dict) else symptoms)][:3]

with open(os.path.join(out, "fuzz.env"), "w") as f:
    for name, value in env.items():
        f.write(f"export {name}={shlex.quote(value)}\n")


# Fuzz dictionaries: a path parameter takes one of the real values in about half of the generated requests (the
# positive ones: dictionary entries that do not fit the parameter's schema are used only by negative requests).
def toml_list(values):
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


dictionaries = {
    "device_name": [device_name],
    "device_id": [opensense_device],
    "code": [link["code"]],
    "identifier": [repo],
    "user_id": [user["id"]],
    "module_id": [module["id"]],
    "route_id": [route["route_id"]],
    "lookup_id": [lookup_id],
    "alpha2": ["NL", "de"],
    "key": symptom_keys or ["fever"],
}
with open(os.path.join(out, "schemathesis.toml"), "w") as f:
    f.write("# Written by Deploy/dev/fuzz/setup.py for one run of Deploy/dev/fuzz.sh.\n\n")
    for name, values in dictionaries.items():
        f.write(f"[dictionaries.{name}]\nvalues = {toml_list(values)}\n\n")
    # (FUZZ_CHECKS=all) A body over the route's limit is refused with 413 before anything looks inside it.
    f.write("[checks.negative_data_rejection]\n"
            "expected-statuses = [400, 401, 403, 404, 405, 406, 409, 413, 415, 422, 428, 429]\n\n")
    f.write("[parameters]\n")
    for name in dictionaries:
        f.write(f'"path.{name}" = {{ dictionary = "{name}", probability = 0.5 }}\n')
# Not the vault password, although POST /api/repos/{identifier}/items/decrypted would then decrypt: schemathesis
# reuses values it has sent in fields of similar names, and a right `current_password` in POST /api/password would
# change the password under hooks.py's feet.

print(f"fuzz setup: twomes device {device_name} (account {account['pseudonym']}), vault user {user['id']} "
      f"module {module['id']} repo {repo}, geotag consumer {key} route {route['route_id']}, link {link['code']}, "
      f"opensense device {opensense_device}")
