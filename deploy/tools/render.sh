#!/usr/bin/env bash
# Renders the Railyard chart to plain manifests (helm template), for review and for the e2e suite's server-side
# dry-run against a real kube-apiserver.
#
# usage: deploy/tools/render.sh [--variant NAME] [--out FILE] [HELM TEMPLATE ARGS ...]
#   --variant default  the chart's defaults (self-signed webhook certificate, leader routing by label, PDB,
#                      the agent's own-node admission policy); CRDs included. This is the default.
#   --variant options  every option a bare kube-apiserver can admit: readiness routing (so no PDB), an inline
#                      rdma-shared-dev-plugin config (chart ConfigMap), nvidia-smi off, a RuntimeClass, priority
#                      classes, extra args and env, a user-given webhook namespaceSelector and matchConditions, a
#                      bind address, the secure port from an existing Secret, NetworkPolicy peers.
#   --variant addons   cert-manager (Certificates, Issuers: webhook and secure port) and Prometheus Operator
#                      (ServiceMonitor, PodMonitor) objects, rendered as if those APIs were served; admissible only
#                      where their CRDs exist.
#   --out FILE         write there (default: stdout)
#   HELM ARGS          appended to `helm template` (e.g. --set image.tag=0.1.0)
#
# Release `railyard` in namespace `railyard-system`, Kubernetes version ${KUBE_VERSION:-1.35.4} (the e2e suite's).
# helm comes from deploy/tools/helm.sh (built once from its Go module), or from $HELM when set (a helm binary's
# path; the e2e suite passes the one `helm.sh --locate` found, so rendering never builds). Exit status is helm's.
set -euo pipefail

DEPLOY=$(cd "$(dirname "$0")/.." && pwd)
variant=default
out=
while [ $# -gt 0 ]; do
  case "$1" in
    --variant) variant=$2; shift 2 ;;
    --variant=*) variant=${1#*=}; shift ;;
    --out) out=$2; shift 2 ;;
    --out=*) out=${1#*=}; shift ;;
    *) break ;;
  esac
done

args=(template railyard "$DEPLOY/helm/railyard" --namespace railyard-system --kube-version "${KUBE_VERSION:-1.35.4}")
case "$variant" in
  default)
    args+=(--include-crds) ;;
  options)
    args+=(--set extender.leaderElection.routing=readiness
           --set extender.podDisruptionBudget.enabled=false
           --set extender.priorityClassName=system-cluster-critical
           --set extender.bindAddress=0.0.0.0
           --set-string 'extender.extraArgs[0]=--idle-timeout=100s'
           --set extender.secure.existingSecret=railyard-secure-tls-by-hand
           --set-json 'extender.networkPolicy.secureFrom=[{"ipBlock":{"cidr":"10.0.0.0/24"}}]'
           --set-json 'extender.networkPolicy.extraFrom=[{"namespaceSelector":{"matchLabels":{"kubernetes.io/metadata.name":"ops"}}}]'
           --set 'extender.extraEnv[0].name=TZ' --set 'extender.extraEnv[0].value=UTC'
           --set-json 'agent.rdmaSharedDevicePlugin.config={"configList":[{"resourceName":"mlx5_0","rdmaHcaMax":100,"selectors":{"vendors":["15b3"],"ifNames":["lan2"]}}]}'
           --set agent.nvidiaSmi.enabled=false
           --set agent.nvidiaSmi.runtimeClassName=nvidia
           --set webhook.namespaceSelector.matchLabels.railyard\\.dev/hints=enabled
           --set 'webhook.matchConditions[0].name=gpu-pods'
           --set-string 'webhook.matchConditions[0].expression=has(object.metadata.annotations)'
           --set webhook.certManager.enabled=false) ;;
  addons)
    args+=(--api-versions cert-manager.io/v1 --api-versions monitoring.coreos.com/v1
           --set serviceMonitor.enabled=true) ;;
  *)
    echo "render.sh: unknown variant '$variant' (default, options, addons)" >&2
    exit 2 ;;
esac

# helm logs one line per symlink it follows (chart crds/ -> deploy/crds, see deploy/README.md); drop that line.
filter() { grep -v 'found symbolic link in path' >&2 || true; }
if [ -n "${HELM:-}" ]; then helm=("$HELM"); else helm=("$DEPLOY/tools/helm.sh"); fi
if [ -n "$out" ]; then
  mkdir -p "$(dirname "$out")"
  # nothing half-written: the rendering lands at $out only when helm succeeded
  if "${helm[@]}" "${args[@]}" "$@" > "$out.tmp" 2> >(filter); then
    mv "$out.tmp" "$out"
  else
    rc=$?
    rm -f "$out.tmp"
    exit $rc
  fi
else
  "${helm[@]}" "${args[@]}" "$@" 2> >(filter)
fi
