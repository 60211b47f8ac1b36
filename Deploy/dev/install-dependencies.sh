#!/usr/bin/env bash
# Installs the Debian packages Custodian needs to build and run it, and with --tests those its tests need too, if any
# is missing.
set -euo pipefail

# libzbar-dev and libturbojpeg0-dev: `custodian geotag` finds the QR photo with them. libpng-dev writes QR codes' PNGs.
packages=(libsodium-dev libqrencode-dev libpng-dev pkg-config postgresql postgresql-client libzbar-dev libturbojpeg0-dev)
if [ "${1:-}" = "--tests" ]; then
  # zbar-tools (zbarimg) reads the QR codes back in the tests; librsvg2-bin (rsvg-convert) lets them read SVGs too.
  # libimage-exiftool-perl (exiftool) sets capture times and reads the written GPS tags back. python3-venv: the Python
  # test tools live in a virtual environment (Deploy/dev/python-tools.sh). curl, iproute2 and openssl: the fault and
  # multi-host scripts (Deploy/dev/chaos.sh, multihost.sh) poll the platform, make network namespaces and try TLS.
  # chromium and chromium-driver: the researcher console's browser test (Deploy/dev/console-browser.sh).
  packages+=(zbar-tools librsvg2-bin libimage-exiftool-perl python3-venv curl iproute2 openssl chromium chromium-driver)
fi
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
