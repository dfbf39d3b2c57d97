#!/usr/bin/env bash
# CI's "container" stage, runnable alone: builds the image (Dockerfile) on a local base image, runs it
# against PostgreSQL on 127.0.0.1 with the Rewards emulator and the Slack simulator, and places one
# kudos through it (scripts/container-smoke.ts). Docker Hub is out of reach here: the base is a local
# stand-in for the official Node image (scripts/container-base.sh), built once and kept both as a
# podman image and as a tarball under /var/cache/kudos-ci, so later runs skip it.
#
# Usage: scripts/ci-container.sh      Environment: LTS_NODE_VERSION (default 24.22.3), CI_DATABASE_URL.
set -euo pipefail
cd "$(dirname "$0")/.."

node_version="${LTS_NODE_VERSION:-24.22.3}"
base_image="localhost/kudos-base:${node_version}"
base_cache="/var/cache/kudos-ci/kudos-base-${node_version}.tar"
image="localhost/kudos:ci"
started=$SECONDS
step() { echo "container: $1 ($((SECONDS - started)) s)"; }

if ! command -v podman >/dev/null || ! command -v runc >/dev/null || ! command -v debootstrap >/dev/null; then
  step "installing podman, runc and debootstrap"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq podman runc debootstrap >/dev/null
fi

if ! podman image exists "$base_image"; then
  if [ -f "$base_cache" ]; then
    step "loading the base image from ${base_cache}"
    podman load --quiet --input "$base_cache" >/dev/null
  else
    step "building the base image ${base_image} (once; about a minute)"
    NODE_VERSION="$node_version" scripts/container-base.sh "$base_image"
    mkdir -p "$(dirname "$base_cache")"
    podman save --quiet --output "${base_cache}.tmp" "$base_image"
    mv "${base_cache}.tmp" "$base_cache"
  fi
fi

step "building ${image} on ${base_image}"
# chroot isolation: this machine's runtimes cannot run the build's steps in a container of their own.
# Docker format, so that HEALTHCHECK is kept (OCI images have no such field).
podman build --quiet --isolation=chroot --format docker --build-arg "BASE_IMAGE=${base_image}" -t "$image" . >/dev/null

step "running ${image} against PostgreSQL"
npx tsx scripts/container-smoke.ts "$image"
step "done"
