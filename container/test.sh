#!/usr/bin/env bash
# make image-test: the agent image end to end.
#   1. `holon-agent --probe` in the image (the CI preflight), a replay run, podman stop mid-run
#      and `holon run --container` against process mode: container/tests (pytest, on the host).
#   2. The RFC-0002 conformance suite for claude, inside the test image, on the host's network
#      (its scripted model server listens on the host's 127.0.0.1).
# Needs the images from container/build.sh (make image). Leaves no container behind.
set -euo pipefail
# podman's network helper (netavark) runs iptables, which lives in the sbin directories.
case ":$PATH:" in *:/usr/sbin:*) ;; *) PATH="$PATH:/usr/sbin:/sbin" ;; esac
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
cd "$root"
export CONTAINERS_CONF=${CONTAINERS_CONF:-$("$here/containers-conf.sh" --write "$here/.build")}
image=${HOLON_CONTAINER_IMAGE:-holon-agent:latest}
export HOLON_CONTAINER_IMAGE=$image
for needed in "$image" "$image-test"; do
    if ! podman image exists "$needed"; then
        echo "container/test.sh: image $needed is missing: run make image (container/build.sh)" >&2
        exit 1
    fi
done
uv=${UV:-$(command -v uv || echo "$root/.tools/bin/uv")}

echo "== probe, replay, podman stop, holon run --container (container/tests)"
"$uv" run --frozen --no-sync pytest container/tests -q -p no:cacheprovider "$@"

echo "== conformance suite for claude inside $image-test, the room on"
# The image sets HOLON_SANDBOX=off (the container is the boundary: docs/sandbox.md). Here the
# room is turned on, with the one flag podman needs for it (its own /proc inside the room),
# so the room's rows (HOLON-ROOM-*) run inside the image as they do on the host.
podman run --rm --network host --workdir /tmp --entrypoint pytest \
    --security-opt 'unmask=/proc/*' --env HOLON_SANDBOX=on \
    --env HOLON_CONFORMANCE_PASS_ENV=HOLON_SANDBOX "$image-test" \
    -q -p no:cacheprovider --holon-adapter claude
