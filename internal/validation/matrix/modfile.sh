#!/usr/bin/env bash
# modfile.sh VERSION writes the module file that builds the oracle against k8s.io/kubernetes
# VERSION (for example v1.33.13): go.mod for the newest release, v1.NN.mod for the others, with
# the release's staging modules (its go.mod's replace block, ./staging/src/k8s.io/X) replaced
# by their published versions v0.NN.P, then fills in its requirements (and its .sum) through the
# Go module proxy for the oracle's packages with the release's build tags (mapv1 from 1.36).
set -euo pipefail
cd "$(dirname "$0")"
version=${1:?usage: modfile.sh v1.NN.P [go.mod]}
minor=${version#v1.}; minor=${minor%%.*}
patch=${version##*.}
file=${2:-v1.$minor.mod}
module=github.com/seed-a73d233f/terraform-provider-admission/internal/validation/matrix

gomod=$(go mod download -json "k8s.io/kubernetes@$version" | sed -n 's/^[[:space:]]*"GoMod": "\(.*\)",$/\1/p')
{
	echo "module $module"
	echo
	echo "go 1.26.0"
	echo
	echo "require k8s.io/kubernetes $version"
	echo
	echo "replace ("
	sed -n '/^replace (/,/^)/p' "$gomod" | sed -n 's#^[[:space:]]*\(k8s.io/[a-z0-9-]*\) => ./staging/src/.*#\t\1 => \1 v0.'"$minor.$patch"'#p'
	echo ")"
} >"$file"
# Not go mod tidy: it reads the files of every build tag, and mutating_policy.go imports
# packages that releases before 1.36 do not have.
tags=()
if [ "$minor" -ge 36 ]; then tags=(-tags mapv1); fi
go list -mod=mod -modfile="$file" "${tags[@]}" -deps . >/dev/null
