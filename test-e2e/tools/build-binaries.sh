#!/usr/bin/env bash
# Builds the control-plane binaries the e2e suite runs, from the published Go modules pinned by our
# wrapper modules in test-e2e/tools/{etcd,k8s,volcano}/go.mod (only those go.mod/go.sum files are ours;
# upstream code comes from the Go module proxy into the Go module cache).
#
# usage: test-e2e/tools/build-binaries.sh [--print-bin-dir] [COMPONENT ...]
#   COMPONENT: etcd (etcd), k8s (kube-apiserver, kube-scheduler), volcano (vc-scheduler,
#              vc-controller-manager). Default: etcd k8s volcano.
#   --print-bin-dir  print the cache directory for the current pin set and exit (builds nothing).
#
# Binaries go to ${RAILYARD_E2E_CACHE:-$HOME/.cache/railyard-e2e}/<key>/bin, where <key> names the pins
# and the Go version. A component whose stamp file (bin/.built-<component>) exists and names the current
# hash of its wrapper go.mod/go.sum is skipped; one built from the same wrapper hash and Go version under
# another pin set's directory is copied from there. Each build prints its wall time. Exit status is non-zero if
# any requested component failed; the others are still built.
set -euo pipefail

TOOLS=$(cd "$(dirname "$0")" && pwd)
if ! command -v go >/dev/null; then
  echo "go not found on PATH: the e2e binaries are built with the machine's Go (1.26.x) from the Go module proxy" >&2
  exit 1
fi
export GOFLAGS=-mod=mod CGO_ENABLED=0 GOTOOLCHAIN=local

# Version of a required module, read from a wrapper go.mod (`module vX.Y.Z` in a require line).
pin() { # <wrapper> <module>
  awk -v m="$2" '($1==m || ($1=="require" && $2==m)) && $0 !~ /=>/ {print ($1=="require") ? $3 : $2; exit}' "$TOOLS/$1/go.mod"
}

K8S_VERSION=$(pin k8s k8s.io/kubernetes)
ETCD_VERSION=$(pin etcd go.etcd.io/etcd/server/v3)
VOLCANO_VERSION=$(pin volcano volcano.sh/volcano)
GO_VERSION=$(go env GOVERSION)
KEY="k8s-${K8S_VERSION}_etcd-${ETCD_VERSION}_volcano-${VOLCANO_VERSION}_${GO_VERSION}"
# Hash of one wrapper's go.mod/go.sum: a component is rebuilt when its wrapper changes, even at the same pins.
wrapper_hash() { # <component>
  local f
  for f in "$TOOLS/$1/go.mod" "$TOOLS/$1/go.sum"; do if [ -f "$f" ]; then cat "$f"; fi; done | sha256sum | cut -c1-16
}
CACHE_ROOT="${RAILYARD_E2E_CACHE:-$HOME/.cache/railyard-e2e}"
BIN="$CACHE_ROOT/$KEY/bin"

if [ "${1:-}" = "--print-bin-dir" ]; then
  echo "$BIN"
  exit 0
fi

# Frugal: the machine is shared. Lowest CPU and I/O priority.
RUN=(nice -n 19)
command -v ionice >/dev/null && RUN=(ionice -c3 "${RUN[@]}")
BUILD_DATE=$(date -u +%Y-%m-%dT%H:%M:%SZ)
mkdir -p "$BIN"

build_etcd() {
  (cd "$TOOLS/etcd" && "${RUN[@]}" go build -trimpath \
    -ldflags "-s -w -X go.etcd.io/etcd/api/v3/version.GitSHA=module-${ETCD_VERSION}" \
    -o "$BIN/etcd.tmp" go.etcd.io/etcd/server/v3) && mv "$BIN/etcd.tmp" "$BIN/etcd"
}

build_k8s() {
  # The version stamp upstream's hack/lib/version.sh injects (component-base/version and client-go/pkg/version).
  local minor=${K8S_VERSION#v1.}; minor=${minor%%.*}
  local flags="-s -w" pkg
  for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
    flags+=" -X $pkg.gitVersion=$K8S_VERSION -X $pkg.gitMajor=1 -X $pkg.gitMinor=$minor"
    flags+=" -X $pkg.gitCommit=module-$K8S_VERSION -X $pkg.gitTreeState=clean -X $pkg.buildDate=$BUILD_DATE"
  done
  local tmp="$BIN/.k8s.tmp"
  rm -rf "$tmp" && mkdir -p "$tmp"
  (cd "$TOOLS/k8s" && "${RUN[@]}" go build -trimpath -ldflags "$flags" -o "$tmp/" \
    k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-scheduler) \
    && mv "$tmp/kube-apiserver" "$tmp/kube-scheduler" "$BIN/" && rmdir "$tmp"
}

build_volcano() {
  local flags="-s -w -X volcano.sh/volcano/pkg/version.Version=$VOLCANO_VERSION"
  flags+=" -X volcano.sh/volcano/pkg/version.GitSHA=module-$VOLCANO_VERSION -X volcano.sh/volcano/pkg/version.Built=$BUILD_DATE"
  (cd "$TOOLS/volcano" \
    && "${RUN[@]}" go build -trimpath -ldflags "$flags" -o "$BIN/vc-scheduler.tmp" volcano.sh/volcano/cmd/scheduler \
    && "${RUN[@]}" go build -trimpath -ldflags "$flags" -o "$BIN/vc-controller-manager.tmp" volcano.sh/volcano/cmd/controller-manager) \
    && mv "$BIN/vc-scheduler.tmp" "$BIN/vc-scheduler" && mv "$BIN/vc-controller-manager.tmp" "$BIN/vc-controller-manager"
}

# Binaries each component produces.
binaries_of() { # <component>
  case "$1" in etcd) echo etcd ;; k8s) echo kube-apiserver kube-scheduler ;; volcano) echo vc-scheduler vc-controller-manager ;; esac
}

# A component's inputs are its wrapper go.mod/go.sum and the Go version, not the other components' pins: when
# another pin set's directory (same Go version) holds this component built from the same wrapper hash, copy its
# binaries instead of recompiling (e.g. after only the Volcano pin changed).
reuse() { # <component> <wrapper hash>
  local stamp dir b
  for stamp in "$CACHE_ROOT"/*_"$GO_VERSION"/bin/.built-"$1"; do
    [ -f "$stamp" ] && grep -q "wrapper $2" "$stamp" || continue
    dir=$(dirname "$stamp")
    [ "$dir" != "$BIN" ] || continue
    for b in $(binaries_of "$1"); do [ -x "$dir/$b" ] || continue 2; done
    for b in $(binaries_of "$1"); do cp -p "$dir/$b" "$BIN/$b.tmp" && mv "$BIN/$b.tmp" "$BIN/$b" || return 1; done
    echo "$(cat "$stamp"); copied from $dir" > "$BIN/.built-$1"
    return 0
  done
  return 1
}

components=("$@"); [ ${#components[@]} -gt 0 ] || components=(etcd k8s volcano)
echo "e2e binaries: $BIN"
# The suite reads Volcano's CRDs from the module cache, so fetch the module even when its binaries fail to build.
if ! crds=$(cd "$TOOLS/volcano" && go mod download -json "volcano.sh/volcano@$VOLCANO_VERSION" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p') \
   || [ ! -d "$crds/config/crd" ]; then
  echo "volcano.sh/volcano@$VOLCANO_VERSION could not be downloaded: the suite has no Volcano CRDs" >&2
  exit 1
fi
echo "Volcano CRDs: $crds/config/crd"
echo "pins: k8s.io/kubernetes $K8S_VERSION, go.etcd.io/etcd/server/v3 $ETCD_VERSION, volcano.sh/volcano $VOLCANO_VERSION, $GO_VERSION"
failed=()
total_start=$(date +%s)
for c in "${components[@]}"; do
  case "$c" in etcd|k8s|volcano) ;; *) echo "unknown component '$c' (expected etcd, k8s or volcano)" >&2; exit 2 ;; esac
  hash=$(wrapper_hash "$c")
  if [ -f "$BIN/.built-$c" ] && grep -q "wrapper $hash" "$BIN/.built-$c"; then
    echo "build $c: cached ($(cat "$BIN/.built-$c"))"
    continue
  fi
  if reuse "$c" "$hash"; then
    echo "build $c: reused ($(cat "$BIN/.built-$c"))"
    continue
  fi
  start=$(date +%s)
  log="$BIN/../build-$c.log"
  if "build_$c" >"$log" 2>&1; then
    secs=$(( $(date +%s) - start ))
    echo "built in ${secs} s on $(date -u +%Y-%m-%d), wrapper $hash" > "$BIN/.built-$c"
    echo "build $c: ok in ${secs} s"
  else
    secs=$(( $(date +%s) - start ))
    echo "build $c: FAILED after ${secs} s; last lines of $log:" >&2
    tail -n 6 "$log" >&2
    if grep -q 'volcano.sh/apis@.*403' "$log"; then
      echo "build $c: volcano.sh/apis is not served by this machine's Go module proxy (403), so vc-scheduler and" \
        "vc-controller-manager cannot be built here; the Volcano scenarios skip (or fail with -Drailyard.e2e.required=true)" >&2
    fi
    failed+=("$c")
  fi
done
echo "build total: $(( $(date +%s) - total_start )) s"
if [ ${#failed[@]} -gt 0 ]; then
  echo "failed components: ${failed[*]}" >&2
  exit 1
fi
