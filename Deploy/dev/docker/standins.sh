#!/usr/bin/env bash
# Sourced by Deploy/dev/compose.sh: local stand-ins for the base images the Dockerfile and compose file name, since
# no image registry is reachable from these machines. Users with a registry get the real ones; the Dockerfile and the
# compose file stay as they run them.
#
#   debian:bookworm-slim       Debian 12 minbase (debootstrap), trimmed as the slim image is
#   swift:6.3-bookworm         that, the packages the official image installs, this machine's toolchain under /usr,
#                              and its Swift package copies with git's redirect to them (resolution works offline)
#   swift:6.3-bookworm-slim    that, libcurl4, libxml2, tzdata and the Swift runtime in /usr/lib/swift/linux
#   postgres:15                that, Debian's postgresql-15 and an entrypoint with the official image's contract
#
# build_standins builds whichever is missing or older than its recipe in the running engine (the engine's data root
# is cached, so this happens once per machine), and keeps the debootstrap tarball in the cache.

standins_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/standins" && pwd)

# The recipe of every stand-in: its files, this script and the toolchain's version. A change rebuilds them.
standins_recipe() {
  { cat "$standins_dir"/* "${BASH_SOURCE[0]}"; swift --version 2>&1 | head -1; } | sha256sum | cut -c1-16
}

minbase_tarball() {
  local tarball=$docker_cache/bookworm-minbase.tar root
  if [ ! -s "$tarball" ]; then
    echo "Making a Debian 12 minbase with debootstrap (a few minutes, once) ..." >&2
    root=$(mktemp -d /tmp/custodian-minbase.XXXXXX)
    debootstrap --variant=minbase bookworm "$root/rootfs" "$(debian_mirror)" > "$root/debootstrap.log" 2>&1 ||
      { tail -20 "$root/debootstrap.log" >&2; rm -rf "$root"; return 1; }
    # As Debian's slim images: no documentation, manuals or translations, now or from later installs.
    cat > "$root/rootfs/etc/dpkg/dpkg.cfg.d/docker-slim" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
EOF
    echo 'APT::Install-Recommends "false";' > "$root/rootfs/etc/apt/apt.conf.d/docker-no-recommends"
    find "$root/rootfs/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    rm -rf "$root/rootfs"/usr/share/{man,info,locale,lintian}/* "$root/rootfs"/var/lib/apt/lists/* \
           "$root/rootfs"/var/cache/apt/*.bin "$root/rootfs"/var/cache/apt/archives/*.deb "$root/rootfs"/var/log/*.log
    tar -C "$root/rootfs" --numeric-owner -cf "$tarball.new" . && mv "$tarball.new" "$tarball"
    rm -rf "$root"
  fi
  echo "$tarball"
}

# standin_current NAME: whether image NAME exists and was built from this recipe.
standin_current() {
  [ "$(docker image inspect -f '{{index .Config.Labels "custodian.standin"}}' "$1" 2>/dev/null)" = "$recipe" ]
}

build_standins() {
  local recipe toolchain packages started
  recipe=$(standins_recipe)
  started=$(date +%s)
  if ! standin_current custodian-standin/bookworm-minbase; then
    docker import --change "LABEL custodian.standin=$recipe" --change 'CMD ["bash"]' \
      "$(minbase_tarball)" custodian-standin/bookworm-minbase >/dev/null
  fi
  if ! standin_current debian:bookworm-slim; then
    docker tag custodian-standin/bookworm-minbase debian:bookworm-slim
  fi
  # The toolchain as `swift` on PATH finds it, and the package copies git redirects github.com to.
  toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
  packages=$(git config --system --get-regexp 'url\..*\.insteadof' | awk '{print $1}' | head -1 | sed -E 's/^url\.(.*)\.insteadof$/\1/')
  packages=${packages%/}
  if ! standin_current swift:6.3-bookworm; then
    echo "Building the stand-in swift:6.3-bookworm (toolchain $toolchain, packages $packages) ..."
    # The context is streamed as a tar: the toolchain (less its IDE and debugger parts) and the packages, renamed.
    tar -c -C "$standins_dir" --transform 's,^swift\.Dockerfile$,Dockerfile,' swift.Dockerfile \
        --exclude='usr/bin/sourcekit-lsp' --exclude='usr/bin/lldb*' --exclude='usr/lib/liblldb*' --exclude='usr/bin/docc' \
        --exclude='usr/share/docc' --exclude='usr/bin/clangd' --exclude='usr/lib/libsourcekitdInProc.so' \
        -C "$toolchain/.." usr \
        -C "$(dirname "$packages")" --transform "s,^$(basename "$packages"),swift-packages," "$(basename "$packages")" |
      docker build -q --label "custodian.standin=$recipe" -t swift:6.3-bookworm - >/dev/null
  fi
  if ! standin_current swift:6.3-bookworm-slim; then
    echo "Building the stand-in swift:6.3-bookworm-slim ..."
    tar -c -C "$standins_dir" --transform 's,^swift-slim\.Dockerfile$,Dockerfile,' swift-slim.Dockerfile \
        -C "$toolchain/.." usr/lib/swift/linux |
      docker build -q --label "custodian.standin=$recipe" -t swift:6.3-bookworm-slim - >/dev/null
  fi
  if ! standin_current postgres:15; then
    echo "Building the stand-in postgres:15 ..."
    tar -c -C "$standins_dir" --transform 's,^postgres\.Dockerfile$,Dockerfile,' postgres.Dockerfile postgres-entrypoint.sh |
      docker build -q --label "custodian.standin=$recipe" -t postgres:15 - >/dev/null
  fi
  echo "Stand-in base images ready ($(( $(date +%s) - started )) s)"
}
