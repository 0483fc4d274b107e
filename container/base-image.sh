#!/usr/bin/env bash
# Build the default base image, localhost/holon-debian-base:SUITE, from Debian packages with
# mmdebstrap (no container registry needed). The mirror comes from this host's apt
# configuration. Skipped when the image exists (--force rebuilds it).
# Its package list is written to container/.build/base-SUITE.packages (not reproducible byte
# for byte: it reflects the archive on the day).
set -euo pipefail
cd "$(dirname "$0")"
suite=trixie  # Node 20 (Gemini CLI needs 20+); bookworm ships 18
force=0
for arg in "$@"; do
    case $arg in
        --force) force=1 ;;
        --suite=*) suite=${arg#--suite=} ;;
        *) echo "base-image.sh: unknown option $arg (use --force, --suite=NAME)" >&2; exit 1 ;;
    esac
done
image=localhost/holon-debian-base:$suite
if [ "$force" = 0 ] && podman image exists "$image"; then
    echo "base image $image exists"
    exit 0
fi
mirror=$(apt-get indextargets --format '$(SITE)' 'Created-By: Packages' 2>/dev/null \
    | grep -v security | head -1)
if [ -z "$mirror" ]; then
    echo "base-image.sh: no Debian mirror in this host's apt configuration;" \
        "pass a registry base instead: container/build.sh --base debian:trixie-slim" >&2
    exit 1
fi
mkdir -p .build
mmdebstrap --variant=minbase --mode=root --format=tar --skip=output/dev \
    --hook-dir=/usr/share/mmdebstrap/hooks/merged-usr \
    --customize-hook='chroot "$1" dpkg-query -W > "$1/base.packages"' \
    "$suite" - "deb $mirror $suite main" \
    | podman import --change 'CMD ["/bin/bash"]' - "$image" >/dev/null
podman run --rm "$image" cat /base.packages >".build/base-$suite.packages"
echo "built $image ($(wc -l <".build/base-$suite.packages") packages)"
