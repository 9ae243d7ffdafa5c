#!/usr/bin/env bash
# Builds (once) and runs the `helm` CLI from its published Go module, so CI needs no prebuilt download.
#
# usage: deploy/tools/helm.sh [--print-path | --locate] [HELM ARGS ...]
#   --print-path  build if needed, print the binary's path and exit
#   --locate      print the binary's path if it is built (exit 0), else say so on stderr (exit 3); never builds
#                 (the e2e suite uses this to skip or fail instead of compiling during a test run)
#   HELM ARGS     build if needed, then exec `helm HELM ARGS`
#
# The binary is cached outside the repository, keyed by the helm version and the Go version:
#   ${RAILYARD_HELM_CACHE:-$HOME/.cache/railyard-helm}/helm-<version>_<go version>/helm
# A cold build is `go install helm.sh/helm/v3/cmd/helm@<version>` under nice -n 19 (and ionice -c3): about
# 4 minutes of CPU on this 2-core machine; a cached run costs nothing. Override the version with HELM_VERSION.
set -euo pipefail

HELM_VERSION=${HELM_VERSION:-v3.22.0}
if ! command -v go >/dev/null; then
  echo "helm.sh: go not found on PATH: helm is built from the Go module helm.sh/helm/v3@${HELM_VERSION}" >&2
  exit 1
fi
GO_VERSION=$(go env GOVERSION)
DIR="${RAILYARD_HELM_CACHE:-$HOME/.cache/railyard-helm}/helm-${HELM_VERSION}_${GO_VERSION}"
HELM="$DIR/helm"

if [ "${1:-}" = "--locate" ]; then
  if [ -x "$HELM" ]; then echo "$HELM"; exit 0; fi
  echo "helm.sh: helm ${HELM_VERSION} for ${GO_VERSION} is not built in $DIR; build it with deploy/tools/helm.sh --print-path" >&2
  exit 3
fi

if [ ! -x "$HELM" ]; then
  RUN=(nice -n 19)
  command -v ionice >/dev/null && RUN=(ionice -c3 "${RUN[@]}")
  mkdir -p "$DIR"
  tmp=$(mktemp -d "$DIR/.build.XXXXXX")
  trap 'rm -rf "$tmp"' EXIT
  echo "helm.sh: building helm ${HELM_VERSION} with ${GO_VERSION} into $DIR (once; nice -n 19)" >&2
  start=$(date +%s)
  # The version stamp helm's Makefile injects, so `helm version` prints the module version.
  GOBIN="$tmp" CGO_ENABLED=0 GOTOOLCHAIN=local GOFLAGS=-buildvcs=false "${RUN[@]}" go install -trimpath \
    -ldflags "-s -w -X helm.sh/helm/v3/internal/version.version=${HELM_VERSION} -X helm.sh/helm/v3/internal/version.gitTreeState=clean" \
    "helm.sh/helm/v3/cmd/helm@${HELM_VERSION}"
  mv "$tmp/helm" "$HELM"
  echo "helm.sh: built in $(( $(date +%s) - start )) s" >&2
fi

if [ "${1:-}" = "--print-path" ]; then
  echo "$HELM"
  exit 0
fi
exec "$HELM" "$@"
