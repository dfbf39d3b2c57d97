#!/usr/bin/env bash
# compose.yaml run for real on a host that cannot pull from Docker Hub: podman-compose brings up the
# app (built by compose from the Dockerfile on the local base image), PostgreSQL (a local stand-in for
# the official image: scripts/compose-postgres) and the Rewards emulator; scripts/compose-smoke.ts
# checks /healthz and /readyz, places one kudos and brings the stack down with its volume.
#
# Usage: scripts/compose-smoke.sh    Environment: LTS_NODE_VERSION (default 24.22.3).
# Needs: root, podman, runc, podman-compose (Debian packages), debootstrap for a first base image.
set -euo pipefail
cd "$(dirname "$0")/.."

node_version="${LTS_NODE_VERSION:-24.22.3}"
base_image="localhost/kudos-base:${node_version}"
base_cache="/var/cache/kudos-ci/kudos-base-${node_version}.tar"
postgres_image="localhost/kudos-postgres:15"
started=$SECONDS
step() { echo "compose-smoke: $1 ($((SECONDS - started)) s)"; }

if ! command -v podman-compose >/dev/null || ! command -v runc >/dev/null; then
  step "installing podman, runc and podman-compose"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc podman-compose debootstrap >/dev/null
fi

# runc, not crun (crun refuses this machine's hybrid cgroups), and ulimits an unprivileged runc may
# set; builds without a container of their own (chroot), in Docker format (HEALTHCHECK kept).
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cat >"$work/containers.conf" <<'CONF'
[containers]
default_ulimits = ["nofile=1024:1024", "nproc=1024:1024"]

[engine]
runtime = "runc"
CONF
export CONTAINERS_CONF="$work/containers.conf" BUILDAH_ISOLATION=chroot BUILDAH_FORMAT=docker

if ! podman image exists "$base_image"; then
  if [ -f "$base_cache" ]; then
    step "loading the base image from ${base_cache}"
    podman load --quiet --input "$base_cache" >/dev/null
  else
    step "building the base image ${base_image} (once; about a minute)"
    NODE_VERSION="$node_version" scripts/container-base.sh "$base_image"
  fi
fi
postgres_cache="/var/cache/kudos-ci/kudos-postgres-15-${node_version}.tar"
if ! podman image exists "$postgres_image"; then
  if [ -f "$postgres_cache" ]; then
    step "loading ${postgres_image} from ${postgres_cache}"
    podman load --quiet --input "$postgres_cache" >/dev/null
  else
    step "building ${postgres_image}: Debian's PostgreSQL on ${base_image} (once; about a minute)"
    podman build --quiet --build-arg "BASE_IMAGE=${base_image}" -t "$postgres_image" scripts/compose-postgres >/dev/null
    mkdir -p "$(dirname "$postgres_cache")"
    podman save --quiet --output "${postgres_cache}.tmp" "$postgres_image"
    mv "${postgres_cache}.tmp" "$postgres_cache"
  fi
fi

# A copy of what compose.yaml and the Dockerfile read: the smoke's .env and override stay out of the
# checkout.
step "copying the project"
mkdir "$work/project"
tar -c compose.yaml Dockerfile .dockerignore package.json package-lock.json patches tsconfig.json \
  scripts/build.ts src migrations | tar -x -C "$work/project"

step "build, up, one kudos, down"
export KUDOS_BASE_IMAGE="$base_image" POSTGRES_IMAGE="$postgres_image" KUDOS_IMAGE="localhost/kudos:compose-smoke"
npx tsx scripts/compose-smoke.ts "$work/project"
step "done"
