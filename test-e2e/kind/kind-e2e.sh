#!/usr/bin/env bash
# The end-to-end suites against a kind cluster, for machines with internet and Docker (see README.md here).
# It cannot run on the project's build machine: no container registry is reachable there.
#
# usage: test-e2e/kind/kind-e2e.sh [--keep] [--volcano-extender] [-- MAVEN ARGS ...]
#   --keep              keep the cluster afterwards (default: delete it when the suites pass, keep it when they fail)
#   --volcano-extender  also paste deploy/config/volcano-scheduler.conf into Volcano's scheduler ConfigMap, i.e.
#                       make Railyard Volcano's extender (what a user does; VolcanoRdmaTestJobIT then needs the
#                       seed's NetworkAttachmentDefinitions, which it does not create, so leave it off for the suites)
#   MAVEN ARGS          appended to the Maven command, e.g. -Dit.test=HelmChartIT
#
# Steps: kind cluster -> Volcano release manifests -> kwok controller with node stages only -> the suite's CRDs
# (whereabouts, NetworkAttachmentDefinition, MacvlanNetwork) -> Railyard's image built with Jib to a tarball and
# loaded into kind -> helm install of deploy/helm/railyard -> the JUnit suites with -Drailyard.e2e.kubeconfig.
# Every step prints its time. Pins (override by environment): KIND_NODE_IMAGE, VOLCANO_VERSION, KWOK_VERSION.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CLUSTER=${KIND_CLUSTER:-railyard-e2e}
# kind v0.30's node image for Kubernetes 1.34, the newest line Volcano v1.15 lists as supported.
KIND_NODE_IMAGE=${KIND_NODE_IMAGE:-kindest/node:v1.34.0}
VOLCANO_VERSION=${VOLCANO_VERSION:-v1.15.1}
KWOK_VERSION=${KWOK_VERSION:-v0.8.0}
WORK="$ROOT/test-e2e/target/kind"
NS=railyard-system

keep=false
volcano_extender=false
while [ $# -gt 0 ]; do
  case "$1" in
    --keep) keep=true; shift ;;
    --volcano-extender) volcano_extender=true; shift ;;
    --) shift; break ;;
    *) echo "kind-e2e.sh: unknown argument '$1' (see the usage at the top of the script)" >&2; exit 2 ;;
  esac
done

start=$(date +%s); last=$start
phase() { local now; now=$(date +%s); echo "== [+$(( now - last ))s, total $(( now - start ))s] $*"; last=$now; }

for tool in kind kubectl docker; do
  command -v "$tool" >/dev/null || { echo "kind-e2e.sh: $tool not found on PATH" >&2; exit 1; }
done
if command -v helm >/dev/null; then HELM=$(command -v helm); else HELM=$(bash "$ROOT/deploy/tools/helm.sh" --print-path); fi
if [ -z "${JAVA_HOME:-}" ]; then
  for cand in /usr/lib/jvm/temurin-25-jdk-amd64 /usr/lib/jvm/temurin-21-jdk-amd64; do
    [ -x "$cand/bin/java" ] && export JAVA_HOME="$cand" && break
  done
fi
VERSION=$(sed -n 's|^  <version>\(.*\)</version>$|\1|p' "$ROOT/pom.xml" | head -1)
mkdir -p "$WORK"
export KUBECONFIG="$WORK/kubeconfig"

phase "kind cluster $CLUSTER ($KIND_NODE_IMAGE)"
kind create cluster --name "$CLUSTER" --image "$KIND_NODE_IMAGE" --kubeconfig "$KUBECONFIG" --wait 180s
CONTROL_PLANE="$CLUSTER-control-plane"
# The fake GPU nodes the suites add are schedulable; keep the real workloads on the one real node.
pin() { # <namespace> <deployment ...>
  local ns=$1; shift
  for d in "$@"; do
    kubectl -n "$ns" patch "$d" --type merge \
      -p "{\"spec\":{\"template\":{\"spec\":{\"nodeSelector\":{\"kubernetes.io/hostname\":\"$CONTROL_PLANE\"}}}}}"
  done
}

phase "Volcano $VOLCANO_VERSION release manifests"
# Server-side apply: the jobs CRD is too large for client-side apply's last-applied annotation.
# One retry: objects of Volcano's own kinds in the file can reach the API server before their CRDs are established.
volcano_yaml="https://raw.githubusercontent.com/volcano-sh/volcano/$VOLCANO_VERSION/installer/volcano-development.yaml"
kubectl apply --server-side -f "$volcano_yaml" || { sleep 10; kubectl apply --server-side -f "$volcano_yaml"; }
mapfile -t volcano_deployments < <(kubectl -n volcano-system get deployments -o name)
pin volcano-system "${volcano_deployments[@]}"
for d in "${volcano_deployments[@]}"; do kubectl -n volcano-system rollout status "$d" --timeout=300s; done

phase "kwok $KWOK_VERSION controller, node stages only"
kubectl apply -f "https://github.com/kubernetes-sigs/kwok/releases/download/$KWOK_VERSION/kwok.yaml"
# Only node-initialize and node-heartbeat: the suites' FakeKubelet plays the pods, and kwok's pod-complete stage
# would finish Volcano job pods at once (kwok v0.8.0 kustomize/stage/pod/fast/pod-complete.yaml selects on the owner kind only).
for stage in node/fast/node-initialize.yaml node/heartbeat/node-heartbeat.yaml; do
  kubectl apply -f "https://raw.githubusercontent.com/kubernetes-sigs/kwok/$KWOK_VERSION/kustomize/stage/$stage"
done
pin kube-system deployment/kwok-controller
kubectl -n kube-system rollout status deployment/kwok-controller --timeout=180s

phase "the suite's CRDs (before Railyard, whose informers start only for CRDs that exist)"
kubectl apply --server-side -f "$ROOT/test-e2e/src/test/resources/crds/"

phase "Railyard image $VERSION with Jib (tarball) -> kind"
(cd "$ROOT" && ./mvnw -B -q -Pimage package -pl scheduler -am -DskipTests)
kind load image-archive "$ROOT/scheduler/target/jib-image.tar" --name "$CLUSTER"

phase "helm install railyard ($HELM)"
kubectl create namespace "$NS" --dry-run=client -o yaml | kubectl apply -f -
kubectl label namespace "$NS" pod-security.kubernetes.io/enforce=privileged --overwrite
"$HELM" install railyard "$ROOT/deploy/helm/railyard" -n "$NS" --set image.tag="$VERSION" \
  --set-string "extender.nodeSelector.kubernetes\.io/hostname=$CONTROL_PLANE" --wait --timeout 5m

if $volcano_extender; then
  phase "Railyard as Volcano's extender (deploy/config/volcano-scheduler.conf)"
  kubectl -n volcano-system create configmap volcano-scheduler-configmap \
    --from-file=volcano-scheduler.conf="$ROOT/deploy/config/volcano-scheduler.conf" --dry-run=client -o yaml \
    | kubectl apply -f -
fi

phase "JUnit suites against $KUBECONFIG"
status=0
(cd "$ROOT" && ./mvnw -B verify -pl test-e2e -am -Dtest=none -Dsurefire.failIfNoSpecifiedTests=false \
  -Drailyard.e2e.kubeconfig="$KUBECONFIG" -Drailyard.e2e.helm="$HELM" "$@") || status=$?

if [ $status -eq 0 ] && ! $keep; then
  phase "deleting the cluster"
  kind delete cluster --name "$CLUSTER"
else
  echo "cluster $CLUSTER kept (kubeconfig $KUBECONFIG); delete it with: kind delete cluster --name $CLUSTER"
fi
phase "done (exit $status)"
exit $status
