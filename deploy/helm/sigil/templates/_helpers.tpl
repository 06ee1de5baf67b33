{{- define "sigil.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "sigil.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{- define "sigil.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "sigil.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ (default .Chart.AppVersion .Values.image.tag) | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component (api, worker, migration): include with (dict "ctx" $ "component" "api"). */}}
{{- define "sigil.selectorLabels" -}}
app.kubernetes.io/name: {{ include "sigil.name" .ctx }}
app.kubernetes.io/instance: {{ .ctx.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "sigil.image" -}}
{{ .Values.image.repository }}:{{ default .Chart.AppVersion .Values.image.tag }}
{{- end -}}

{{- define "sigil.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "sigil.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "sigil.secretName" -}}
{{- if .Values.secrets.existingSecret -}}
{{- .Values.secrets.existingSecret -}}
{{- else -}}
{{- include "sigil.fullname" . -}}
{{- end -}}
{{- end -}}

{{/* The settings every process shares (the ConfigMap's data, and the migration Job's environment). */}}
{{- define "sigil.settings" -}}
PUBLIC_URL: {{ required "config.publicUrl is required: the URL clients reach the API at" .Values.config.publicUrl | quote }}
TEMPORAL_ADDRESS: {{ required "config.temporal.address is required: the frontend (host:port) of the existing Temporal cluster" .Values.config.temporal.address | quote }}
TEMPORAL_NAMESPACE: {{ .Values.config.temporal.namespace | quote }}
TEMPORAL_TASK_QUEUE: {{ .Values.config.temporal.taskQueue | quote }}
HOST: "0.0.0.0"
PORT: {{ .Values.api.port | quote }}
SIGIL_WORKER_PORT: {{ .Values.worker.port | quote }}
SIGIL_DATA_DIR: "/var/lib/sigil"
SIGIL_LOG_FORMAT: "json"
LOG_LEVEL: {{ .Values.config.logLevel | quote }}
SIGIL_MIGRATE_ON_START: {{ ternary "false" "true" .Values.migration.enabled | quote }}
{{- with .Values.config.trustedProxies }}
SIGIL_TRUSTED_PROXIES: {{ . | quote }}
{{- end }}
{{- with .Values.config.otlpEndpoint }}
OTEL_EXPORTER_OTLP_ENDPOINT: {{ . | quote }}
{{- end }}
{{- range $name, $value := .Values.config.extraEnv }}
{{ $name }}: {{ $value | toString | quote }}
{{- end }}
{{- end -}}

{{/*
The secret settings, each by name (not envFrom) so that a pod whose Secret lacks one does not start
(CreateContainerConfigError) instead of falling back to an embedded default.
*/}}
{{- define "sigil.secretEnv" -}}
{{- $secret := include "sigil.secretName" . -}}
{{- range $key := list "DATABASE_URL" "REDIS_URL" "SIGIL_SEALING_KEYS" "SIGIL_BACKUP_SEALING_KEYS" }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ $secret }}
      key: {{ $key }}
{{- end }}
{{- end -}}

{{/* Volumes of every Sigil container: the root filesystem is read-only. */}}
{{- define "sigil.volumes" -}}
- name: data
  emptyDir: {}
- name: tmp
  emptyDir: {}
{{- end -}}

{{- define "sigil.volumeMounts" -}}
- name: data
  mountPath: /var/lib/sigil
- name: tmp
  mountPath: /tmp
{{- end -}}
