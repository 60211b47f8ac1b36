# Stand-in for the official swift:6.3-bookworm (no registry is reachable here): Debian 12, the packages the official
# image installs, and this machine's Swift toolchain under /usr as the official image has it. The machine's copies of
# the Swift packages come along with git's redirect to them, so that `swift package resolve` works offline.
FROM custodian-standin/bookworm-minbase
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends binutils git gnupg2 libc6-dev libcurl4-openssl-dev libedit2 \
       libgcc-12-dev libpython3-dev libsqlite3-0 libstdc++-12-dev libxml2-dev libncurses-dev libz3-dev pkg-config \
       tzdata zlib1g-dev ca-certificates \
    && rm -rf /var/lib/apt/lists/*
COPY usr/ /usr/
COPY swift-packages/ /opt/swift-packages/
RUN git config --system url./opt/swift-packages/.insteadOf https://github.com/ \
    && git config --system --add url./opt/swift-packages/.insteadOf git@github.com: \
    && swift --version
