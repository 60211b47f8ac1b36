#!/usr/bin/env bash
# Validates the Kubernetes manifests under Deploy/k8s offline, against the JSON schemas of one Kubernetes release that
# kubernetes-validate ships: every object, with unknown fields refused (--strict). No cluster is needed.
#
#   Deploy/dev/validate-manifests.sh
#
# kubernetes-validate is installed into the tools' virtual environment (Deploy/dev/python-tools.sh), made on first
# use. Exits non-zero when any manifest fails.
#
# What it cannot check with those schemas, and what it does instead:
# - kustomization.yaml is kustomize's file, not a Kubernetes object: it is not validated as one. Every file it lists
#   must exist and every manifest beside it must be listed; when kubectl is installed, `kubectl kustomize` renders
#   it and the rendered objects are validated too.
# - Custom resources (the CloudNativePG Cluster in examples/) have no schema there, and kubernetes-validate only warns
#   about them and passes. Their kinds are listed below; their metadata is validated against Kubernetes' ObjectMeta
#   and their spec must be a mapping, but the spec's fields are not checked. Any other kind without a schema fails:
#   a typo in apiVersion or kind must not pass as a warning.
set -euo pipefail
cd "$(dirname "$0")/../.."

# The newest Kubernetes release whose schemas the pinned kubernetes-validate ships (`kubernetes-validate --help`).
kubernetes_version=1.37.0
# apiVersion/kind of the custom resources the examples use.
custom_resources=("postgresql.cnpg.io/v1/Cluster")

# kubernetes-validate, pinned there, in the tools' virtual environment: $tools/kubernetes-validate.
source Deploy/dev/python-tools.sh
venv=$tools_venv

mapfile -t manifests < <(find Deploy/k8s -name '*.yaml' ! -name kustomization.yaml | LC_ALL=C sort)
[ ${#manifests[@]} -gt 0 ] || { echo "no manifests under Deploy/k8s" >&2; exit 1; }

status=0
output=$("$venv/bin/kubernetes-validate" --strict -k "$kubernetes_version" "${manifests[@]}") || status=1
echo "$output"

# kubernetes-validate warns about a kind it has no schema for, and passes it: only the listed custom resources may.
while IFS= read -r line; do
  allowed=0
  for resource in "${custom_resources[@]}"; do
    kind=${resource##*/}
    api_version=${resource%/*}
    [[ $line == *"for kind $kind with api version $api_version "* ]] && allowed=1
  done
  if [ $allowed -eq 0 ]; then
    echo "FAIL  $line" >&2
    status=1
  fi
done < <(grep '^WARN ' <<<"$output" || true)

# The custom resources' metadata, and the kustomization's list of files.
"$venv/bin/python" - "$kubernetes_version" "${custom_resources[*]}" "${manifests[@]}" <<'PYTHON' || status=1
import os, sys
import jsonschema, yaml
from referencing import Registry, Resource
import kubernetes_validate.utils as utils

version, custom, files = sys.argv[1], set(sys.argv[2].split()), sys.argv[3:]
# The schemas kubernetes-validate itself picks for this version.
release = [v for v in utils.all_versions() if utils.major_minor(v) <= utils.major_minor(version)][-1]
definitions = utils.schema_contents("kubernetes-json-schema/v%s-local-strict/_definitions.json" % release, version)
metadata_schema = jsonschema.Draft202012Validator(
    {"$ref": "%s#/$defs/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta" % definitions["$id"]},
    registry=Resource.from_contents(definitions) @ Registry())
failed = False
for path in files:
    with open(path) as stream:
        for document in yaml.safe_load_all(stream):
            if not document or "%s/%s" % (document.get("apiVersion"), document.get("kind")) not in custom:
                continue
            name = "%s/%s" % (document["kind"].lower(), (document.get("metadata") or {}).get("name"))
            try:
                metadata_schema.validate(document.get("metadata"))
                if not isinstance(document.get("spec"), dict):
                    raise jsonschema.ValidationError("spec is not a mapping")
                print("INFO %s custom resource %s: metadata valid, spec not checked (no schema for %s)"
                      % (path, name, document["apiVersion"]))
            except jsonschema.ValidationError as error:
                print("ERROR %s custom resource %s: %s" % (path, name, error.message))
                failed = True

folder = "Deploy/k8s"
with open(os.path.join(folder, "kustomization.yaml")) as stream:
    listed = (yaml.safe_load(stream) or {}).get("resources") or []
beside = sorted(name for name in os.listdir(folder) if name.endswith(".yaml") and name != "kustomization.yaml")
for name in listed:
    if not os.path.isfile(os.path.join(folder, name)):
        print("ERROR %s/kustomization.yaml lists %s, which does not exist" % (folder, name))
        failed = True
for name in beside:
    if name not in listed:
        print("ERROR %s/%s is not listed in kustomization.yaml's resources" % (folder, name))
        failed = True
if not failed:
    print("INFO %s/kustomization.yaml lists every manifest beside it (%d)" % (folder, len(beside)))
sys.exit(1 if failed else 0)
PYTHON

if command -v kubectl >/dev/null; then
  rendered=$(mktemp)
  trap 'rm -f "$rendered"' EXIT
  if kubectl kustomize Deploy/k8s >"$rendered"; then
    "$venv/bin/kubernetes-validate" --strict --quiet -k "$kubernetes_version" "$rendered" || status=1
    echo "INFO Deploy/k8s rendered by kubectl kustomize: $(grep -c '^kind:' "$rendered") objects validated"
  else
    echo "ERROR kubectl kustomize Deploy/k8s failed" >&2
    status=1
  fi
else
  echo "INFO kubectl is not installed: the kustomization was not rendered"
fi

if [ $status -eq 0 ]; then
  echo "OK: ${#manifests[@]} files under Deploy/k8s valid for Kubernetes $kubernetes_version (kubernetes-validate $("$venv/bin/kubernetes-validate" --version) --strict)"
else
  echo "FAILED: Deploy/k8s has invalid manifests (Kubernetes $kubernetes_version)" >&2
fi
exit $status
