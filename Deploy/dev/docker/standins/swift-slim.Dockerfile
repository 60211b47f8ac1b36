# Stand-in for the official swift:6.3-bookworm-slim: Debian 12 slim, libcurl4, libxml2 and tzdata, and the Swift
# runtime (the toolchain's usr/lib/swift/linux), as the official image has them.
FROM custodian-standin/bookworm-minbase
RUN export DEBIAN_FRONTEND=noninteractive \
    && apt-get -q update \
    && apt-get -q install -y --no-install-recommends libcurl4 libxml2 tzdata \
    && rm -rf /var/lib/apt/lists/*
COPY usr/lib/swift/linux/ /usr/lib/swift/linux/
