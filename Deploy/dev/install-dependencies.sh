#!/usr/bin/env bash
# Installs the Debian packages Custodian needs to build, run and test, if any is missing.
set -euo pipefail

# zbar-tools (zbarimg) reads the QR codes back in the tests; librsvg2-bin (rsvg-convert) lets them read SVGs too.
# libzbar-dev and libturbojpeg0-dev: `custodian geotag` finds the QR photo with them; libimage-exiftool-perl
# (exiftool) sets capture times and reads the written GPS tags back in the tests. python3-venv: the Python test
# tools live in a virtual environment (Deploy/dev/python-tools.sh). curl, iproute2 and openssl: the fault and
# multi-host scripts (Deploy/dev/chaos.sh, multihost.sh) poll the platform, make network namespaces and try TLS.
# chromium and chromium-driver: the researcher console's browser test (Deploy/dev/console-browser.sh).
packages=(libsodium-dev libqrencode-dev pkg-config postgresql postgresql-client zbar-tools librsvg2-bin
          libzbar-dev libturbojpeg0-dev libimage-exiftool-perl python3-venv curl iproute2 openssl
          chromium chromium-driver)
missing=()
for package in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
done
[ ${#missing[@]} -eq 0 ] && exit 0

echo "Installing ${missing[*]} ..."
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
# The package's own cluster is not used (Custodian makes a private one), so don't let it start one.
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
