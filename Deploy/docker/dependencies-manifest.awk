# Reads Package.swift and writes a manifest with the same dependencies and one executable target, `Dependencies`,
# that uses every product the package's non-test targets use. Deploy/Dockerfile builds it before copying any source,
# so that the layer holding the compiled dependencies is reused until the dependencies themselves change, however the
# package's own targets and code change (a manifest edit alone would otherwise rebuild them all, about 70% of the
# image's build time).
#
#   awk -f Deploy/docker/dependencies-manifest.awk Package.swift > /elsewhere/Package.swift
#
# It relies on the manifest's layout, which DeployTests checks: top-level arguments indented four spaces, each
# target's closing parenthesis eight.

/^    products: \[/ { skipping = 1 }
skipping { if ($0 ~ /^    \],?$/) skipping = 0; next }

/^    targets: \[/ { in_targets = 1; next }

!in_targets { print; next }

# Inside the targets: note the products that a target other than a test target uses.
/^        \.testTarget\(/ { in_test = 1 }
{
    line = $0
    while (!in_test && match(line, /\.product\(name: "[^"]+", package: "[^"]+"\)/)) {
        product = substr(line, RSTART, RLENGTH)
        if (!(product in seen)) { seen[product] = 1; products[++count] = product }
        line = substr(line, RSTART + RLENGTH)
    }
}
/^        \),?$/ { in_test = 0 }

END {
    print "    targets: ["
    print "        .executableTarget("
    print "            name: \"Dependencies\","
    print "            dependencies: ["
    for (i = 1; i <= count; i++) print "                " products[i] ","
    print "            ],"
    print "            path: \"Dependencies\""
    print "        ),"
    print "    ]"
    print ")"
}
