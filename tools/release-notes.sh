#!/usr/bin/env bash
# Usage: tools/release-notes.sh vX.Y.Z [CHANGELOG]
#
# Prints the section of CHANGELOG.md for version X.Y.Z: the lines after its
# heading ("## X.Y.Z" or "## X.Y.Z (date)") up to the next "## " heading,
# without leading and trailing blank lines (the command substitution drops the
# trailing ones). The release workflow passes them to
# `goreleaser release --release-notes`, so the notes of a GitHub release are
# the changelog's entries for that version. Fails if the section is missing or
# empty, so that a release cannot go out without its notes.
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: tools/release-notes.sh vX.Y.Z [CHANGELOG]" >&2
	exit 2
fi
version=${1#refs/tags/}
version=${version#v}
changelog=${2:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/CHANGELOG.md}

notes=$(awk -v v="$version" '
	/^## / {
		if (found) exit
		h = $0
		sub(/^## +/, "", h)
		sub(/ .*/, "", h)
		if (h == v) { found = 1; next }
	}
	found { print }
' "$changelog" | sed -e '/./,$!d')

if [ -z "$notes" ]; then
	echo "tools/release-notes.sh: no entries for $version in $changelog (add a \"## $version\" section)" >&2
	exit 1
fi
printf '%s\n' "$notes"
