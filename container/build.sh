#!/usr/bin/env bash
# Build the agent image (and its test image) from the wheels in dist/.
#
#   container/build.sh [--base IMAGE] [--engines all|claude|codex|gemini|opencode] [--ca-certs DIR]
#                      [--tag NAME] [--no-test-image]
#
# The default base is localhost/holon-debian-base:trixie, built here by base-image.sh from the
# host's Debian mirror. --ca-certs copies DIR/*.crt into the image (users behind a
# TLS-inspecting proxy); none by default. Images: NAME (default holon-agent:latest, or
# holon-agent:ENGINE for one engine) and NAME-test (with the conformance suite).
set -euo pipefail
# podman's network helper (netavark) runs iptables, which lives in the sbin directories.
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH="$PATH:/usr/sbin:/sbin" ;; esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
base="" engines=all ca_dir="" tag="" test_image=1
while [ $# -gt 0 ]; do
    case $1 in
        --base) base=$2; shift 2 ;;
        --engines) engines=$2; shift 2 ;;
        --ca-certs) ca_dir=$2; shift 2 ;;
        --tag) tag=$2; shift 2 ;;
        --no-test-image) test_image=0; shift ;;
        *) echo "build.sh: unknown option $1 (see the comment at the top of $0)" >&2; exit 1 ;;
    esac
done
case $engines in
    all|claude|codex|gemini|opencode) ;;
    *) echo "build.sh: --engines $engines: use all, claude, codex, gemini or opencode" >&2; exit 1 ;;
esac
[ -n "$tag" ] || { [ "$engines" = all ] && tag=holon-agent:latest || tag=holon-agent:$engines; }

export CONTAINERS_CONF=${CONTAINERS_CONF:-$("$here/containers-conf.sh" --write "$here/.build")}
if [ -z "$base" ]; then
    "$here/base-image.sh"
    base=localhost/holon-debian-base:trixie
fi
if ! ls "$root"/dist/holon_core-*.whl >/dev/null 2>&1; then
    echo "build.sh: no wheels in dist/: run make dist first" >&2
    exit 1
fi

context=$(mktemp -d "${TMPDIR:-/tmp}/holon-image.XXXXXX")
trap 'rm -rf "$context"' EXIT
mkdir "$context/dist" "$context/ca"
cp "$root"/dist/*.whl "$context/dist/"
if [ -n "$ca_dir" ] && [ -d "$ca_dir" ]; then  # a missing dir adds nothing
    find "$ca_dir" -maxdepth 2 -name '*.crt' -type f -exec cp {} "$context/ca/" \;
fi

build=(podman build --quiet --file "$here/Containerfile" --build-arg "BASE=$base"
    --build-arg "ENGINES=$engines" --label "org.opencontainers.image.title=holon-agent")
"${build[@]}" --target agent --tag "$tag" "$context" >/dev/null
[ "$test_image" = 0 ] || "${build[@]}" --target test --tag "$tag-test" "$context" >/dev/null
# The images these tags pointed to before are left untagged: remove them (ours only, by label).
podman image prune --force --filter label=org.opencontainers.image.title=holon-agent >/dev/null
podman image ls --format '{{.Repository}}:{{.Tag}} {{.Size}}' | grep -F "${tag%%:*}" || true
