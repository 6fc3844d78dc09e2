#!/usr/bin/env bash
# Generates docs/ with tfplugindocs (run by `make docs`, through go generate
# in tools/).
#
# tfplugindocs would build the provider and run `terraform init` itself, which
# finds no terraform unless one is on PATH, then tries to download one, and
# does not work with OpenTofu. So this script builds the provider, reads its
# schema with the Terraform 1.16 of tools/bin.sh through a dev_overrides CLI
# configuration, with no registry involved, and hands the schema to
# tfplugindocs. It is always that Terraform, whatever ADMISSION_TF says, so
# that docs/ does not depend on the CLI: older ones and OpenTofu leave the
# list resources out of the schema.
#
# With --check (make docs-check), nothing in the tree is written: the docs are
# generated into a temporary copy of templates/ and examples/ and compared
# with docs/ as it is in the working tree, committed or not, and the examples
# are checked with `terraform fmt -check`.
set -euo pipefail
check=
[ "${1:-}" = --check ] && check=1

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CHECKPOINT_DISABLE=1

tf=$(bash tools/bin.sh terraform16)
tfplugindocs=$(bash tools/bin.sh tfplugindocs)
source_addr=seed-a73d233f/admission

tmp=$(mktemp -d "${TMPDIR:-/tmp}/admission-docs.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/plugins/terraform-provider-admission" .

cat >"$tmp/cli.tfrc" <<EOF
provider_installation {
  dev_overrides {
    "registry.terraform.io/$source_addr"  = "$tmp/plugins"
    "registry.opentofu.org/$source_addr" = "$tmp/plugins"
  }
  direct {}
}
EOF
mkdir "$tmp/ws"
cat >"$tmp/ws/main.tf" <<EOF
terraform {
  required_providers {
    admission = {
      source = "registry.terraform.io/$source_addr"
    }
  }
}
EOF
(cd "$tmp/ws" && TF_CLI_CONFIG_FILE="$tmp/cli.tfrc" "$tf" providers schema -json) >"$tmp/schema.json" 2>"$tmp/schema.err" || {
	cat "$tmp/schema.err" >&2
	exit 1
}
# tfplugindocs looks the schema up by the provider's short name.
sed 's|"registry\.terraform\.io/'"$source_addr"'"|"admission"|' "$tmp/schema.json" >"$tmp/schema.admission.json"

if [ -z "$check" ]; then
	"$tfplugindocs" generate \
		--provider-dir "$root" \
		--provider-name admission \
		--providers-schema "$tmp/schema.admission.json"
	exit 0
fi

mkdir "$tmp/provider"
cp -R templates examples "$tmp/provider/"
"$tfplugindocs" generate \
	--provider-dir "$tmp/provider" \
	--provider-name admission \
	--providers-schema "$tmp/schema.admission.json" >"$tmp/generate.log" 2>&1 || {
	cat "$tmp/generate.log" >&2
	exit 1
}
status=0
if ! "$tf" fmt -check -recursive examples/ >"$tmp/fmt.log"; then
	echo "examples/ is not formatted (run 'make docs' or 'terraform fmt -recursive examples/'):" >&2
	cat "$tmp/fmt.log" >&2
	status=1
fi
if ! diff -ru docs "$tmp/provider/docs" >"$tmp/docs.diff"; then
	cat "$tmp/docs.diff" >&2
	echo "docs/ is not what templates/ and examples/ generate: run 'make docs'" >&2
	status=1
fi
[ "$status" = 0 ] && echo "docs/ is up to date"
exit "$status"
