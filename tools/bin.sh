#!/usr/bin/env bash
# Usage: tools/bin.sh [--cached] NAME
#
# Prints the absolute path of the tool NAME, building it from the Go module
# proxy first if it is not cached yet. NAME is one of:
#
#   kube-apiserver  etcd  kubectl  tofu  terraform  terraform11  terraform14
#   terraform16  tfplugindocs  golangci-lint
#
# "terraform" is the terraform on PATH; without one, the Terraform 1.16 that
# make test builds anyway (terraform16), so that make demo and make test share
# one build; with ADMISSION_TF=tofu, the OpenTofu CLI built from tools/tofu.
# "terraform16" is Terraform 1.16 built from tools/terraform16, the CLI of the
# acceptance tests (the newest release line; list resources, `terraform query`
# and import by resource identity need 1.14 or later). "terraform14" is
# Terraform 1.14 built from tools/terraform, the older line of the matrix
# (make testacc-tf14). "terraform11" is Terraform 1.11 built from
# tools/terraform11, the last release line before resource identity, which
# the benchmark measures beside the newest (make bench with -terraform).
#
# Binaries are cached as ${ADMISSION_CACHE:-$HOME/.cache/terraform-provider-admission}/bin/NAME-VERSION,
# where VERSION is read from the go.mod of the tool's module under tools/, so
# a binary is rebuilt only when its version changes. A build goes to a
# temporary directory and is renamed into place when complete, and builds of
# the same binary are serialised with a lock, so an interrupted or concurrent
# build never leaves a half-written binary behind.
#
# With --cached, a binary that is not built yet is not built: the script says
# so and exits with status 3.
set -euo pipefail

tools_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
cache_dir=${ADMISSION_CACHE:-$HOME/.cache/terraform-provider-admission}/bin

die() {
	echo "tools/bin.sh: $*" >&2
	exit 1
}

# modversion DIR MODULE prints the version of MODULE required by DIR/go.mod.
modversion() {
	local v
	v=$(awk -v m="$2" '
		/=>/ { next }
		$1 == "require" && $2 == m { print $3; exit }
		$1 == m { print $2; exit }
	' "$1/go.mod")
	[ -n "$v" ] || die "no version of $2 in $1/go.mod"
	echo "$v"
}

# build NAME VERSION MODULE_DIR PACKAGE [GO BUILD FLAGS...]
build() {
	local name=$1 version=$2 dir=$3 pkg=$4
	shift 4
	local out=$cache_dir/$name-$version
	if [ -x "$out" ]; then
		echo "$out"
		return
	fi
	if [ -n "$cached_only" ]; then
		echo "tools/bin.sh: $name $version is not built yet (run: tools/bin.sh $name, or make tools)" >&2
		exit 3
	fi
	mkdir -p "$cache_dir"
	# Serialise builds of the same binary (two test packages or a test and
	# `make demo` may ask for it at the same time).
	if command -v flock >/dev/null 2>&1; then
		exec 9>"$cache_dir/.$name-$version.lock"
		flock 9
		if [ -x "$out" ]; then
			echo "$out"
			return
		fi
		# Holding the lock, any temporary directory of this binary is a
		# leftover of a killed build.
		rm -rf "$cache_dir/.tmp-$name-$version".*
	fi
	echo "building $name $version (first run only, takes ${build_takes:-several minutes})..." >&2
	local start
	# Global, so that the traps still see it.
	build_tmp=$(mktemp -d "$cache_dir/.tmp-$name-$version.XXXXXX")
	trap 'rm -rf "$build_tmp"' EXIT
	trap 'rm -rf "$build_tmp"; exit 130' INT
	trap 'rm -rf "$build_tmp"; exit 143' TERM
	start=$(date +%s)
	local trim=-trimpath
	[ -n "${share_build_cache:-}" ] && trim=
	(cd "$dir" && go build $trim "$@" -o "$build_tmp/$name" "$pkg") >&2 ||
		die "building $name $version failed"
	mv -f "$build_tmp/$name" "$out"
	rm -rf "$build_tmp"
	trap - EXIT INT TERM
	echo "built $out in $(($(date +%s) - start))s" >&2
	echo "$out"
}

# k8s_ldflags VERSION prints the linker flags that set the version a
# Kubernetes binary reports (kube-apiserver at /version, kubectl version), as
# the release build sets them.
k8s_ldflags() {
	local v=$1 major minor
	major=${v#v}
	major=${major%%.*}
	minor=${v#v*.}
	minor=${minor%%.*}
	local ld="-s -w" p
	for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
		ld+=" -X $p.gitVersion=$v -X $p.gitMajor=$major -X $p.gitMinor=$minor"
		ld+=" -X $p.gitTreeState=clean -X $p.buildDate=2026-10-27T12:01:04Z"
	done
	echo "$ld"
}

# kube-apiserver is built without -trimpath, the flag of every other tool:
# tools/kube-apiserver requires the same versions of its modules as the
# provider (k8s.io/apiserver, client-go, api, apimachinery and what they
# import), as internal/validation/parity, internal/typecheck/parity and the
# 1.37 oracle of internal/validation/matrix do, and go test builds those
# without -trimpath: with the same flags, the packages compiled for
# kube-apiserver are reused from the Go build cache by the first go test
# instead of being compiled again (-trimpath is part of a package's action
# ID in cmd/go/internal/work buildActionID).
tool_kube_apiserver() {
	local dir=$tools_dir/kube-apiserver v
	v=$(modversion "$dir" k8s.io/kubernetes)
	share_build_cache=1 build kube-apiserver "$v" "$dir" k8s.io/kubernetes/cmd/kube-apiserver -ldflags "$(k8s_ldflags "$v")"
}

# kubectl for the benchmark, from its own module (its dependencies are not
# the server's), at the version of kube-apiserver.
tool_kubectl() {
	local dir=$tools_dir/kubectl v sv
	v=$(modversion "$dir" k8s.io/kubernetes)
	sv=$(modversion "$tools_dir/kube-apiserver" k8s.io/kubernetes)
	[ "$v" = "$sv" ] || die "tools/kubectl has k8s.io/kubernetes $v, tools/kube-apiserver $sv: keep them at the same version"
	build kubectl "$v" "$dir" k8s.io/kubernetes/cmd/kubectl -ldflags "$(k8s_ldflags "$v")"
}

tool_etcd() {
	local dir=$tools_dir/etcd v
	v=$(modversion "$dir" go.etcd.io/etcd/server/v3)
	# etcd's version number is in its source (go.etcd.io/etcd/api/v3/version);
	# its release build sets only the git commit, which a module build has not.
	build etcd "$v" "$dir" go.etcd.io/etcd/server/v3 -ldflags "-s -w"
}

tool_tofu() {
	local dir=$tools_dir/tofu v
	v=$(modversion "$dir" github.com/opentofu/opentofu)
	# dev=no drops the "-dev" suffix from the reported version, as a release does.
	build tofu "$v" "$dir" github.com/opentofu/opentofu/cmd/tofu \
		-ldflags "-s -w -X github.com/opentofu/opentofu/version.dev=no"
}

# Terraform from its module, github.com/hashicorp/terraform. Its go.mod
# replaces ten nested modules (nine state backends and internal/legacy) with
# directories that the module proxy does not serve, so tools/terraform
# replaces them in turn with the stand-ins under tools/terraform/stand-ins.
# Some 1,200 packages: the first build takes 10 to 25 minutes on 2 CPUs.
tool_terraform14() {
	local dir=$tools_dir/terraform v
	v=$(modversion "$dir" github.com/hashicorp/terraform)
	# dev=no (package github.com/hashicorp/terraform/version) drops the "-dev"
	# suffix from the reported version, as Terraform's release build does.
	build_takes="10 to 25 minutes on 2 CPUs" \
		build terraform "$v" "$dir" github.com/hashicorp/terraform \
		-ldflags "-s -w -X github.com/hashicorp/terraform/version.dev=no"
}

# The newest release line of Terraform, built the same way from tools/terraform16,
# which shares the stand-ins of tools/terraform.
tool_terraform16() {
	local dir=$tools_dir/terraform16 v
	v=$(modversion "$dir" github.com/hashicorp/terraform)
	build_takes="10 to 25 minutes on 2 CPUs" \
		build terraform "$v" "$dir" github.com/hashicorp/terraform \
		-ldflags "-s -w -X github.com/hashicorp/terraform/version.dev=no"
}

# The last release line before resource identity (Terraform sends the prior
# identity from 1.12), for the benchmark, built the same way from
# tools/terraform11.
tool_terraform11() {
	local dir=$tools_dir/terraform11 v
	v=$(modversion "$dir" github.com/hashicorp/terraform)
	build_takes="10 to 25 minutes on 2 CPUs" \
		build terraform "$v" "$dir" github.com/hashicorp/terraform \
		-ldflags "-s -w -X github.com/hashicorp/terraform/version.dev=no"
}

tool_tfplugindocs() {
	local v
	v=$(modversion "$tools_dir" github.com/hashicorp/terraform-plugin-docs)
	build tfplugindocs "$v" "$tools_dir" github.com/hashicorp/terraform-plugin-docs/cmd/tfplugindocs \
		-ldflags "-s -w"
}

tool_golangci_lint() {
	local dir=$tools_dir/golangci-lint v
	v=$(modversion "$dir" github.com/golangci/golangci-lint/v2)
	build golangci-lint "$v" "$dir" github.com/golangci/golangci-lint/v2/cmd/golangci-lint \
		-ldflags "-s -w -X main.version=${v#v} -X main.commit=module -X main.date=unknown"
}

tool_terraform() {
	local tf
	if [ "${ADMISSION_TF:-}" != tofu ] && tf=$(type -P terraform); then
		case $tf in
		/*) echo "$tf" ;;
		*) echo "$(cd "$(dirname "$tf")" && pwd)/$(basename "$tf")" ;;
		esac
		return
	fi
	if [ "${ADMISSION_TF:-}" = tofu ]; then
		tool_tofu
		return
	fi
	tool_terraform16
}

cached_only=
if [ "${1:-}" = --cached ]; then
	cached_only=1
	shift
fi
[ $# -eq 1 ] || die "usage: tools/bin.sh [--cached] kube-apiserver|etcd|kubectl|tofu|terraform|terraform11|terraform14|terraform16|tfplugindocs|golangci-lint"
case $1 in
kube-apiserver) tool_kube_apiserver ;;
etcd) tool_etcd ;;
kubectl) tool_kubectl ;;
tofu) tool_tofu ;;
terraform) tool_terraform ;;
terraform11) tool_terraform11 ;;
terraform14) tool_terraform14 ;;
terraform16) tool_terraform16 ;;
tfplugindocs) tool_tfplugindocs ;;
golangci-lint) tool_golangci_lint ;;
*) die "unknown tool $1" ;;
esac
