{{/*
Names. Everything the chart creates is named from railyard.fullname; cluster-scoped objects carry it too, so two
releases in different namespaces must use different release names (or fullnameOverride).
*/}}
{{- define "railyard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "railyard.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "railyard.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* Labels on every object. */}}
{{- define "railyard.labels" -}}
helm.sh/chart: {{ include "railyard.chart" . }}
app.kubernetes.io/name: {{ include "railyard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: railyard
{{- with .Values.commonLabels }}
{{ toYaml . }}
{{- end }}
{{- end }}

{{/* Selector labels of one component: include with (dict "root" $ "component" "extender"). */}}
{{- define "railyard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "railyard.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "railyard.componentLabels" -}}
{{ include "railyard.labels" .root }}
app.kubernetes.io/component: {{ .component }}
{{- end }}

{{- define "railyard.extenderName" -}}
{{- printf "%s-extender" (include "railyard.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "railyard.agentName" -}}
{{- printf "%s-agent" (include "railyard.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "railyard.extenderServiceAccount" -}}
{{- if .Values.serviceAccount.create }}
{{- include "railyard.extenderName" . }}
{{- else }}
{{- required "serviceAccount.extenderName is required when serviceAccount.create is false" .Values.serviceAccount.extenderName }}
{{- end }}
{{- end }}

{{- define "railyard.agentServiceAccount" -}}
{{- if .Values.serviceAccount.create }}
{{- include "railyard.agentName" . }}
{{- else }}
{{- required "serviceAccount.agentName is required when serviceAccount.create is false" .Values.serviceAccount.agentName }}
{{- end }}
{{- end }}

{{/* The Service in front of the extender (the leader only: readiness is leader-only). */}}
{{- define "railyard.serviceName" -}}
{{- include "railyard.fullname" . }}
{{- end }}

{{- define "railyard.leaseName" -}}
{{- default (include "railyard.fullname" .) .Values.extender.leaderElection.leaseName }}
{{- end }}

{{- define "railyard.webhookName" -}}
{{- printf "%s-hints" (include "railyard.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "railyard.webhookSecretName" -}}
{{- printf "%s-webhook-tls" (include "railyard.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "railyard.image" -}}
{{- $tag := default .Chart.AppVersion .Values.image.tag }}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository $tag }}
{{- end }}
{{- end }}

{{/*
"true" when the webhook certificate comes from cert-manager: webhook.certManager.enabled is true, or "auto" and the
cert-manager.io/v1 API is served (helm template: pass --api-versions cert-manager.io/v1 to simulate it).
*/}}
{{- define "railyard.useCertManager" -}}
{{- $mode := toString .Values.webhook.certManager.enabled }}
{{- if not (has $mode (list "true" "false" "auto")) }}
{{- fail (printf "webhook.certManager.enabled must be true, false or auto; got %q" $mode) }}
{{- end }}
{{- if and .Values.webhook.enabled (or (eq $mode "true") (and (eq $mode "auto") (.Capabilities.APIVersions.Has "cert-manager.io/v1"))) }}true{{ end }}
{{- end }}

{{/* Namespaces excluded from the webhook by default. */}}
{{- define "railyard.webhookNamespaceSelector" -}}
{{- if .Values.webhook.namespaceSelector }}
{{- toYaml .Values.webhook.namespaceSelector }}
{{- else -}}
matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values: [kube-system, {{ .Release.Namespace | quote }}]
{{- end }}
{{- end }}

{{/* The ConfigMap holding the rdma-shared-dev-plugin config for the agent: the user's, the chart's, or none. */}}
{{- define "railyard.rdmaConfigMap" -}}
{{- $c := .Values.agent.rdmaSharedDevicePlugin }}
{{- if and $c.configMap $c.config }}
{{- fail "agent.rdmaSharedDevicePlugin: set configMap (an existing ConfigMap) or config (inline), not both" }}
{{- end }}
{{- if $c.configMap }}{{ $c.configMap }}{{ else if $c.config }}{{ printf "%s-rdma-shared-dev-plugin" (include "railyard.agentName" .) }}{{ end }}
{{- end }}

{{/*
"true" when the secure port's certificates come from cert-manager: extender.secure.certManager.enabled is true, or
"auto" and the cert-manager.io/v1 API is served.
*/}}
{{- define "railyard.secureCertManager" -}}
{{- $mode := toString .Values.extender.secure.certManager.enabled }}
{{- if not (has $mode (list "true" "false" "auto")) }}
{{- fail (printf "extender.secure.certManager.enabled must be true, false or auto; got %q" $mode) }}
{{- end }}
{{- if and (not .Values.extender.secure.existingSecret) (or (eq $mode "true") (and (eq $mode "auto") (.Capabilities.APIVersions.Has "cert-manager.io/v1"))) }}true{{ end }}
{{- end }}

{{/* "true" when the secure port is served (a certificate source exists): kube-scheduler verbs and /explain. */}}
{{- define "railyard.secureEnabled" -}}
{{- if or .Values.extender.secure.existingSecret (include "railyard.secureCertManager" .) }}true{{ end }}
{{- end }}

{{/* The Secret with the secure port's tls.crt, tls.key and ca.crt (the client CA). */}}
{{- define "railyard.secureSecretName" -}}
{{- default (printf "%s-secure-tls" (include "railyard.fullname" .) | trunc 63 | trimSuffix "-") .Values.extender.secure.existingSecret }}
{{- end }}

{{/* The Secret holding kube-scheduler's client certificate (cert-manager mode). */}}
{{- define "railyard.kubeSchedulerClientSecretName" -}}
{{- printf "%s-kube-scheduler-client" (include "railyard.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "railyard.secureCaName" -}}
{{- printf "%s-secure-ca" (include "railyard.fullname" .) | trunc 63 | trimSuffix "-" }}
{{- end }}
