#!/usr/bin/env bash
# docs/openapi.yaml is the API description; the gateway serves it as /openapi.json from a Swift copy of it, which this
# script writes: run it after every change to docs/openapi.yaml (a test fails while the two differ), then validate.
#
#   Deploy/dev/openapi.sh && Deploy/dev/validate-openapi.sh
set -euo pipefail
cd "$(dirname "$0")/../.."
source Deploy/dev/python-tools.sh
"$tools/python" - <<'PYTHON'
import json, yaml
document = yaml.safe_load(open("docs/openapi.yaml"))
text = json.dumps(document, ensure_ascii=False, separators=(",", ":"))
assert '"##' not in text, "the document holds the Swift raw-string delimiter"
with open("Services/gateway/GatewayKit/OpenAPI/OpenAPIDocument+Text.swift", "w") as swift:
    swift.write("// Written by Deploy/dev/openapi.sh from docs/openapi.yaml: edit that and run the script.\n\n")
    swift.write("extension OpenAPIDocument {\n    static let text = ##\"\"\"\n")
    swift.write(text)
    swift.write("\n\"\"\"##\n}\n")
print("Services/gateway/GatewayKit/OpenAPI/OpenAPIDocument+Text.swift: %d paths, %d bytes of JSON" % (len(document["paths"]), len(text)))
PYTHON
