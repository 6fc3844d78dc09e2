#!/usr/bin/env bash
# prebuild.sh compiles, into the Go build cache, what make check builds after make test: the
# oracles of the version matrix (one build of k8s.io/kubernetes per release, the same flags as
# TestMatrix's `go run`) and the two parity test binaries. make check runs it at the lowest
# priority beside lint and make test, which leave a CPU idle much of the time (the acceptance
# tests mostly wait on terraform and the API server), so that on a first run the builds of the
# steps after make test are mostly done when those steps start. Warm, each build is a cache hit.
# A failure here fails nothing: the step that needs the build makes it again and reports.
set -uo pipefail
cd "$(dirname "$0")/.."
start=$SECONDS
status=0
for mod in internal/validation/matrix/v1.*.mod internal/validation/matrix/go.mod; do
	minor=$(sed -n 's#^require k8s.io/kubernetes v1\.\([0-9]*\)\..*#\1#p; s#^[[:space:]]*k8s.io/kubernetes v1\.\([0-9]*\)\..*#\1#p' "$mod" | head -1)
	tags=()
	if [ -n "$minor" ] && [ "$minor" -ge 36 ]; then tags=(-tags mapv1); fi
	t=$SECONDS
	if (cd internal/validation/matrix && go build -modfile="$(basename "$mod")" "${tags[@]}" -o /dev/null .); then
		echo "prebuild: matrix oracle $(basename "$mod") (k8s.io/kubernetes 1.$minor) in $((SECONDS - t)) s"
	else
		echo "prebuild: matrix oracle $(basename "$mod") failed"; status=1
	fi
done
for dir in internal/validation/parity internal/typecheck/parity; do
	t=$SECONDS
	if (cd "$dir" && go test -c -o /dev/null .); then
		echo "prebuild: $dir test binary in $((SECONDS - t)) s"
	else
		echo "prebuild: $dir failed"; status=1
	fi
done
echo "prebuild: done in $((SECONDS - start)) s"
exit $status
