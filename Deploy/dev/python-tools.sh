#!/usr/bin/env bash
# Sourced by the scripts that run Python test tooling: makes (once) a virtual environment with the pinned tools and
# sets $tools to its bin directory. ${CUSTODIAN_TOOLS_VENV:-$HOME/.cache/custodian/tools-venv}.
#
#   source Deploy/dev/python-tools.sh && "$tools/kubernetes-validate" --version

# The pins: bump them together with the scripts that use them.
python_tools=(
  "kubernetes-validate==1.37.0"      # Deploy/dev/validate-manifests.sh
  "openapi-spec-validator==0.9.0"    # Deploy/dev/validate-openapi.sh
  "schemathesis==4.32.5"             # Deploy/dev/fuzz.sh
  "selenium==4.51.0"                 # Deploy/dev/console-browser.sh (Deploy/dev/console/browser_test.py)
  # Deploy/dev/otlp/receiver.py (the OTLP/HTTP receiver of the tracing tests and Deploy/dev/bench-tracing.sh); it
  # brings protobuf (>=5,<8), which pip resolves by itself.
  "opentelemetry-proto==1.45.2"
)

tools_venv=${CUSTODIAN_TOOLS_VENV:-$HOME/.cache/custodian/tools-venv}
tools=$tools_venv/bin

install_python() {
  # As Deploy/dev/install-dependencies.sh installs Debian packages: with sudo unless root.
  echo "Installing python3 python3-venv python3-pip ..."
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends python3 python3-venv python3-pip >/dev/null
}

# The pins installed last time, so a run that has them all does not ask pip. Several tests source this at once on a
# fresh machine (the Swift suite runs its Python-backed tests in parallel): one at a time makes or updates the venv, under
# a lock, and the others find it done; without the lock, one's `venv --clear` removed what another had just installed.
if [ "$(cat "$tools_venv/pins" 2>/dev/null)" != "${python_tools[*]}" ]; then
  mkdir -p "$(dirname "$tools_venv")"
  {
    flock 9
    if [ "$(cat "$tools_venv/pins" 2>/dev/null)" != "${python_tools[*]}" ]; then
      command -v python3 >/dev/null || install_python
      if [ ! -x "$tools/pip" ]; then
        # Debian's python3 makes a venv only with python3-venv (ensurepip) installed.
        if ! python3 -m venv --clear "$tools_venv" >/dev/null 2>&1; then
          install_python
          python3 -m venv --clear "$tools_venv"
        fi
      fi
      "$tools/pip" install -q --disable-pip-version-check "${python_tools[@]}"
      echo "${python_tools[*]}" > "$tools_venv/pins"
    fi
  } 9> "$tools_venv.lock"
fi
