#!/usr/bin/env bash
# Usage: tools/validate-examples.sh
#
# Runs `terraform validate` in every directory under examples/ that holds .tf
# files, each as a root module of its own, against the provider built from
# this tree. The provider's own checks run too (validate calls its
# ValidateResourceConfig, which holds the API server's rules), so an example
# that the server would reject fails here.
#
# The CLI is TF_ACC_TERRAFORM_PATH (a path, or a name on PATH), else
# terraform, else tofu, from PATH (`tools/bin.sh terraform` gives one, building
# Terraform 1.16 if need be). It finds the provider through a CLI configuration with
# dev_overrides for both registry addresses, so nothing is downloaded. There is
# no `terraform init`: with dev_overrides it still asks the registry for the
# overridden provider (which fails offline, and before the first release), and
# validate does not need it when every provider of the module is overridden.
#
# Each directory is validated in a temporary copy of its .tf files (each
# import-*.tf file with the others but on its own: they are alternatives), so no
# .terraform directory or lock file is left in examples/. Besides being valid,
# a directory must declare the provider's source exactly once
# (required_providers), so that each example works when pasted, and must not
# draw any warning other than the one about dev_overrides.
#
# Files with an import block by resource identity (identity = { ... }) need
# Terraform or OpenTofu 1.12 or later; with an older CLI they are left out of
# their directory's copy, and the script says so. The same goes for the
# .tfquery.hcl files of list resources, validated with `validate -query`,
# which needs Terraform 1.14 or later (OpenTofu has no list resources).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export CHECKPOINT_DISABLE=1
source_addr=seed-a73d233f/admission

die() {
	echo "tools/validate-examples.sh: $*" >&2
	exit 1
}

cli=${TF_ACC_TERRAFORM_PATH:-}
if [ -z "$cli" ]; then
	cli=$(type -P terraform || type -P tofu) ||
		die "no terraform or tofu on PATH: set TF_ACC_TERRAFORM_PATH (bash tools/bin.sh terraform builds Terraform 1.16)"
fi
case $cli in
*/*) [ -x "$cli" ] || die "$cli is not an executable" ;;
*) cli=$(type -P "$cli") || die "no $cli on PATH" ;;
esac

tmp=$(mktemp -d "${TMPDIR:-/tmp}/admission-examples.XXXXXX")
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/cli.tfrc" <<EOF
provider_installation {
  dev_overrides {
    "registry.terraform.io/$source_addr"  = "$tmp/plugins"
    "registry.opentofu.org/$source_addr" = "$tmp/plugins"
  }
  direct {}
}
EOF
export TF_CLI_CONFIG_FILE=$tmp/cli.tfrc

# "Terraform v1.11.4" or "OpenTofu v1.12.6" (awk reads it all: no SIGPIPE).
read -r cli_name cli_version < <("$cli" version | awk 'NR == 1 { print $1, $2 }')
cli_version=${cli_version#v}
[[ $cli_version =~ ^([0-9]+)\.([0-9]+)\. ]] || die "cannot read the version of $cli ($cli_name $cli_version)"
major=${BASH_REMATCH[1]} minor=${BASH_REMATCH[2]}
identity_import=yes
if [ "$major" -lt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -lt 12 ]; }; then
	identity_import=
fi
query=
if [ "$cli_name" = Terraform ] && { [ "$major" -gt 1 ] || { [ "$major" -eq 1 ] && [ "$minor" -ge 14 ]; }; }; then
	query=-query
fi
echo "validating examples/ with $cli_name $cli_version ($cli)"

go build -o "$tmp/plugins/terraform-provider-admission" .

dirs=()
while IFS= read -r d; do
	dirs+=("$d")
done < <(find examples -name '*.tf' | sed 's|/[^/]*$||' | LC_ALL=C sort -u)
[ ${#dirs[@]} -gt 0 ] || die "no .tf files under examples/"

# validate_files DIR FILE...: one validation of those files as a root module;
# prints what went wrong and returns non-zero if anything did.
validate_files() {
	local dir=$1 ws rc=0 out sources warnings
	shift
	ws=$(mktemp -d "$tmp/ws.XXXXXX")
	cp "$@" "$ws/"
	local problems=()
	sources=$(cat "$ws"/*.tf | grep -Ec "^[[:space:]]*source[[:space:]]*=[[:space:]]*\"(registry\.(terraform|opentofu)\.io/)?$source_addr\"" || true)
	if [ "$sources" -ne 1 ]; then
		problems+=("declares source = \"$source_addr\" in required_providers $sources times, not once")
	fi
	out=$(cd "$ws" && "$cli" validate -no-color ${query:+"$query"} 2>&1) || rc=$?
	if [ $rc -ne 0 ]; then
		problems+=("$cli_name validate failed (exit status $rc)")
	elif warnings=$(grep 'Warning: ' <<<"$out" | grep -v 'Provider development overrides are in effect'); then
		problems+=("unexpected warnings: $warnings")
	fi
	[ ${#problems[@]} -eq 0 ] && return 0
	echo "FAIL  $dir ($(for f in "$@"; do basename "$f"; done | tr '\n' ' '| sed 's/ $//'))"
	printf '        %s\n' "${problems[@]}"
	# shellcheck disable=SC2001 # a prefix on every line of the output
	sed 's/^/        | /' <<<"$out"
	return 1
}

# Each import-*.tf file is an alternative way to adopt the directory's
# resources (by id, by identity), shown on its own in the docs: it is
# validated with the rest of the directory, one at a time.
validated=0 failed=0
for dir in "${dirs[@]}"; do
	base=() imports=() notes=()
	for f in "$dir"/*.tf; do
		case $(basename "$f") in
		import-*.tf)
			if [ -z "$identity_import" ] && grep -Eq '^[[:space:]]*identity[[:space:]]*=' "$f"; then
				notes+=("left out $(basename "$f"): import by resource identity needs 1.12 or later")
			else
				imports+=("$f")
			fi
			;;
		*) base+=("$f") ;;
		esac
	done
	for f in "$dir"/*.tfquery.hcl; do
		[ -e "$f" ] || continue
		if [ -n "$query" ]; then
			base+=("$f")
		else
			notes+=("left out $(basename "$f"): list blocks need Terraform 1.14 or later")
		fi
	done
	ok=yes
	if [ ${#imports[@]} -eq 0 ]; then
		validate_files "$dir" "${base[@]}" || ok=
	else
		for f in "${imports[@]}"; do
			validate_files "$dir" "${base[@]}" "$f" || ok=
		done
	fi
	if [ -n "$ok" ]; then
		validated=$((validated + 1))
		echo "ok    $dir"
	else
		failed=$((failed + 1))
	fi
	if [ ${#notes[@]} -gt 0 ]; then
		printf '        %s\n' "${notes[@]}"
	fi
done

if [ $failed -gt 0 ]; then
	echo "examples: $failed of ${#dirs[@]} directories failed ($cli_name $cli_version)" >&2
	exit 1
fi
echo "examples: $validated directories validated ($cli_name $cli_version)"
