#!/usr/bin/env bash
# Regenerates the wrapper modules under test-e2e/tools/{k8s,etcd,volcano} for a new pin set.
# Only our own go.mod/go.sum files are written; upstream code stays in the Go module cache.
#
# usage: test-e2e/tools/update-wrappers.sh [k8s|etcd|volcano ...]   (default: all three)
# pins:  K8S_VERSION (default v1.35.4), ETCD_VERSION (v3.6.16), VOLCANO_VERSION (v1.14.1),
#        VOLCANO_APIS_VERSION (v1.14.0: the newest volcano.sh/apis this machine's Go module proxy serves that
#        vc-scheduler v1.14.1 compiles against; see test-e2e/README.md and docs/adr/ on the Volcano version)
#
# k8s: k8s.io/kubernetes requires its staging modules at v0.0.0 and replaces them with
# ./staging/src/k8s.io/NAME. A consumer must replace each with the published k8s.io/NAME at
# v0.MINOR.PATCH, so the list is derived from the downloaded go.mod (kubernetes/kubernetes#79384).
# volcano: volcano.sh/volcano replaces volcano.sh/apis with a local staging dir that is not in the
# module zip; the wrapper maps it to the published volcano.sh/apis and copies every other replace.
set -euo pipefail
export GOFLAGS=-mod=mod CGO_ENABLED=0 GOTOOLCHAIN=local
K8S_VERSION=${K8S_VERSION:-v1.35.4}
ETCD_VERSION=${ETCD_VERSION:-v3.6.16}
VOLCANO_VERSION=${VOLCANO_VERSION:-v1.14.1}
VOLCANO_APIS_VERSION=${VOLCANO_APIS_VERSION:-v1.14.0}
TOOLS=$(cd "$(dirname "$0")" && pwd)
GO="nice -n 19 go"
command -v ionice >/dev/null && GO="ionice -c3 $GO"

# Reads the go and godebug lines of a downloaded go.mod so the wrapper keeps upstream's defaults.
mirror_go_lines() { # <dir> <upstream go.mod>
  local gover godebug
  gover=$(awk '$1=="go"{print $2; exit}' "$2")
  godebug=$(awk '$1=="godebug" && $2!="("{print $2; exit}' "$2")
  (cd "$1" && go mod edit -go="$gover" && { [ -z "$godebug" ] || go mod edit -godebug="$godebug"; })
}

fresh() { # <dir> <module>
  rm -f "$1/go.mod" "$1/go.sum"
  (cd "$1" && go mod init "$2" >/dev/null 2>&1)
}

k8s() {
  local d=$TOOLS/k8s minor staging mod
  fresh "$d" dev.railyard/test-e2e/tools/k8s
  mod=$(cd "$d" && $GO mod download -json "k8s.io/kubernetes@$K8S_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  [ -f "$mod" ] || { echo "k8s: cannot download k8s.io/kubernetes@$K8S_VERSION" >&2; return 1; }
  mirror_go_lines "$d" "$mod"
  staging="v0.${K8S_VERSION#v1.}"
  for name in $(sed -n 's#^[[:space:]]*\(k8s.io/[^[:space:]]*\) => ./staging/src/k8s.io/.*#\1#p' "$mod"); do
    (cd "$d" && go mod edit -replace="$name=$name@$staging")
  done
  (cd "$d" && $GO get -tool "k8s.io/kubernetes/cmd/kube-apiserver@$K8S_VERSION" "k8s.io/kubernetes/cmd/kube-scheduler@$K8S_VERSION" \
     && $GO mod tidy)
}

etcd() {
  local d=$TOOLS/etcd mod
  fresh "$d" dev.railyard/test-e2e/tools/etcd
  mod=$(cd "$d" && $GO mod download -json "go.etcd.io/etcd/server/v3@$ETCD_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  mirror_go_lines "$d" "$mod"
  (cd "$d" && $GO get -tool "go.etcd.io/etcd/server/v3@$ETCD_VERSION" && $GO mod tidy)
}

volcano() {
  local d=$TOOLS/volcano mod
  fresh "$d" dev.railyard/test-e2e/tools/volcano
  mod=$(cd "$d" && $GO mod download -json "volcano.sh/volcano@$VOLCANO_VERSION" | sed -n 's/.*"GoMod": "\(.*\)".*/\1/p')
  mirror_go_lines "$d" "$mod"
  (cd "$d" && go mod edit -require="volcano.sh/volcano@$VOLCANO_VERSION")
  # Copy every module => module version replace of volcano's go.mod; map the local apis dir to the published module.
  awk '/^replace \(/{r=1;next} r&&/^\)/{r=0} r&&NF==4&&$2=="=>"{print $1"="$3"@"$4}' "$mod" | while read -r rep; do
    (cd "$d" && go mod edit -replace="$rep")
  done
  (cd "$d" && go mod edit -replace="volcano.sh/apis=volcano.sh/apis@$VOLCANO_APIS_VERSION")
  (cd "$d" && go mod edit -tool=volcano.sh/volcano/cmd/scheduler -tool=volcano.sh/volcano/cmd/controller-manager && $GO mod tidy)
}

targets=("$@"); [ ${#targets[@]} -gt 0 ] || targets=(etcd k8s volcano)
for t in "${targets[@]}"; do
  start=$(date +%s)
  if "$t"; then echo "wrapper $t: ok ($(( $(date +%s) - start )) s)"; else echo "wrapper $t: FAILED ($(( $(date +%s) - start )) s)" >&2; fi
done
