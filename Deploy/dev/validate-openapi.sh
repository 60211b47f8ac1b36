#!/usr/bin/env bash
# Validates docs/openapi.yaml as an OpenAPI 3.1 document with openapi-spec-validator (pinned in
# Deploy/dev/python-tools.sh): the structure, every schema and every $ref. The test suite runs it
# (OpenAPIDocumentTests), and checks the document against the route table.
set -euo pipefail
cd "$(dirname "$0")/../.."
source Deploy/dev/python-tools.sh
"$tools/python" - <<'PYTHON'
import yaml
from openapi_spec_validator import validate
document = yaml.safe_load(open("docs/openapi.yaml"))
validate(document)
operations = sum(1 for item in document["paths"].values() for method in item if method in ("get", "put", "post", "delete", "patch"))
print("OK: docs/openapi.yaml is a valid OpenAPI %s document: %d paths, %d operations" % (document["openapi"], len(document["paths"]), operations))
PYTHON
