#!/usr/bin/env bash
# The researcher web console (/console, docs/console.md) in a real browser: starts `custodian up --no-demo` on a
# fresh data directory (HTTPS with its self-signed certificate, as researchers run it: the session cookie is Secure;
# rate limits off), and drives the console with Selenium and Debian's headless Chromium
# (Deploy/dev/console/browser_test.py): login and logout, the session cookie's attributes, CSRF refusals, the
# Content-Security-Policy, creating a Twomes account, registering a device, printing its label sheet, a CSV export
# download, every other page, and form labels; the identity behind the session, admin tokens (made, revoked), the audit
# log (a pseudonym's history, filters, CSV) and a researcher's session refused the owners' pages. It prints `ok <step>` per step and stops at the first failure with the
# page's URL and source.
#
#   Deploy/dev/console-browser.sh                               # CI (the debug build in .build/debug: build it first)
#   Deploy/dev/console-browser.sh --screenshots docs/console    # also regenerate the screenshots of docs/console.md
#   CONSOLE_PORT=18600 CUSTODIAN_BIN=.build-release/release Deploy/dev/console-browser.sh
#
# Installs chromium and chromium-driver with apt when /usr/bin/chromium or /usr/bin/chromedriver is missing (with sudo
# unless root), and Selenium into the Python tools' virtual environment (Deploy/dev/python-tools.sh).
#
# Environment:
#   CUSTODIAN_BIN       the binaries (.build/debug)
#   CONSOLE_PORT        the platform's port (18531)
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/../.."

screenshots=""
while [ $# -gt 0 ]; do
  case $1 in
    --screenshots)
      [ $# -ge 2 ] || { echo "console-browser.sh: --screenshots needs a directory" >&2; exit 2; }
      screenshots=$2; shift 2 ;;
    --screenshots=*) screenshots=${1#--screenshots=}; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "console-browser.sh: unknown argument $1 (--screenshots DIR, --help)" >&2; exit 2 ;;
  esac
done
if [ -n "$screenshots" ]; then
  # Relative to where the script was called from.
  case $screenshots in /*) ;; *) screenshots=$caller/$screenshots ;; esac
  mkdir -p "$screenshots"
fi

bin=${CUSTODIAN_BIN:-.build/debug}
port=${CONSOLE_PORT:-18531}
[ -x "$bin/custodian" ] || { echo "no $bin/custodian: build first (swift build)" >&2; exit 2; }
bin=$(cd "$bin" && pwd)

if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
  # As Deploy/dev/install-dependencies.sh installs Debian packages: with sudo unless root.
  echo "Installing chromium chromium-driver ..."
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends chromium chromium-driver >/dev/null
fi

source Deploy/dev/lib/platform.sh   # stop_platform
source Deploy/dev/python-tools.sh   # $tools: the venv with the pinned selenium

tmp=$(mktemp -d /tmp/custodian-console.XXXXXX)
chmod 755 "$tmp"   # PostgreSQL runs as its own user when this script runs as root
platform=""
cleanup() {
  local status=$?
  trap - EXIT INT TERM
  stop_platform
  rm -rf "$tmp"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

echo "== starting the platform on 127.0.0.1:$port ($bin)"
(cd "$tmp" && CUSTODIAN_RATE_LIMITS=off CUSTODIAN_LOG_LEVEL=warning \
  exec "$bin/custodian" up --data-dir "$tmp/.custodian" --port "$port" --no-demo) > "$tmp/up.log" 2>&1 &
platform=$!
for _ in $(seq 240); do
  grep -q "custodian ready" "$tmp/up.log" && break
  kill -0 "$platform" 2>/dev/null || break
  sleep 0.5
done
grep -q "custodian ready" "$tmp/up.log" || { cat "$tmp/up.log"; echo "console-browser.sh: the platform did not get ready" >&2; exit 1; }
[ -s "$tmp/.custodian/admin-token" ] || { echo "console-browser.sh: no admin token in $tmp/.custodian/admin-token" >&2; exit 1; }

if [ -n "$screenshots" ]; then
  # Pages with something on them: a few seconds of every domain's real flows (accounts, devices and their
  # measurements, OpenSense uploads, vault users, consumers, LEMON submissions), made as the apps make them.
  echo "== sample data for the screenshots: custodian loadgen --scenario mixed"
  "$bin/custodian" loadgen --server "https://127.0.0.1:$port" --data-dir "$tmp/.custodian" --scenario mixed \
    --rate 20 --duration 6s --ramp-up 1s --clients 6 > "$tmp/loadgen.log" 2>&1 || { cat "$tmp/loadgen.log"; exit 1; }
fi

echo "== the console in headless Chromium ($(/usr/bin/chromium --version 2>/dev/null))"
status=0
PYTHONDONTWRITEBYTECODE=1 "$tools/python" Deploy/dev/console/browser_test.py \
  --base "https://127.0.0.1:$port" --token-file "$tmp/.custodian/admin-token" \
  ${screenshots:+--screenshots "$screenshots"} || status=$?
if [ $status -ne 0 ]; then
  for log in up.log .custodian/logs/gateway.log; do
    [ -f "$tmp/$log" ] && { echo "== last lines of $log"; tail -n 30 "$tmp/$log" | sed 's/^/   /'; }
  done
  echo "FAIL"
else
  [ -n "$screenshots" ] && echo "screenshots in $screenshots"
  echo "PASS"
fi
exit $status
