#!/usr/bin/env bash
# Install what building and testing the agent image needs (podman, runc, mmdebstrap), only what
# is missing. Idempotent: a machine that has them all runs no apt command at all.
set -euo pipefail

missing=()
for tool in podman:podman runc:runc mmdebstrap:mmdebstrap newuidmap:uidmap; do
    command -v "${tool%%:*}" >/dev/null || missing+=("${tool##*:}")
done
[ ${#missing[@]} -eq 0 ] && exit 0
if ! command -v apt-get >/dev/null; then
    echo "container/ci-deps.sh: missing ${missing[*]}; install them with your package manager" >&2
    exit 1
fi
sudo=""
[ "$(id -u)" -eq 0 ] || sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get install -y -q "${missing[@]}" >/dev/null \
    || { $sudo apt-get update -q && $sudo apt-get install -y -q "${missing[@]}"; }
