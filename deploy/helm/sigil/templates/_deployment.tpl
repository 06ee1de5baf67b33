{{/*
A Deployment of one Sigil process kind: include with
(dict "ctx" $ "component" "api" "v" .Values.api "args" (list "start" "api")).
Both listen on their own port with /livez (liveness: the process runs; no dependency is checked) and /readyz
(readiness: database, store, Temporal and a worker reachable; 503 otherwise).
*/}}
{{- define "sigil.deployment" -}}
{{- $ := .ctx -}}
{{- $v := .v -}}
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {{ include "sigil.fullname" $ }}-{{ .component }}
  labels:
    {{- include "sigil.labels" $ | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  replicas: {{ $v.replicas }}
  revisionHistoryLimit: 5
  selector:
    matchLabels:
      {{- include "sigil.selectorLabels" (dict "ctx" $ "component" .component) | nindent 6 }}
  strategy:
    type: RollingUpdate
    rollingUpdate:
      maxSurge: 25%
      maxUnavailable: 0
  template:
    metadata:
      labels:
        {{- include "sigil.selectorLabels" (dict "ctx" $ "component" .component) | nindent 8 }}
        {{- with $v.podLabels }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      annotations:
        checksum/config: {{ include "sigil.settings" $ | sha256sum }}
        {{- if not $.Values.secrets.existingSecret }}
        checksum/secret: {{ toJson $.Values.secrets | sha256sum }}
        {{- end }}
        {{- with $v.podAnnotations }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
    spec:
      serviceAccountName: {{ include "sigil.serviceAccountName" $ }}
      automountServiceAccountToken: false
      {{- with $.Values.imagePullSecrets }}
      imagePullSecrets:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      securityContext:
        {{- toYaml $.Values.podSecurityContext | nindent 8 }}
      terminationGracePeriodSeconds: {{ $v.terminationGracePeriodSeconds }}
      containers:
        - name: {{ .component }}
          image: {{ include "sigil.image" $ | quote }}
          imagePullPolicy: {{ $.Values.image.pullPolicy }}
          args: {{ toJson .args }}
          ports:
            - name: http
              containerPort: {{ .port }}
              protocol: TCP
          envFrom:
            - configMapRef:
                name: {{ include "sigil.fullname" $ }}
            - secretRef:
                name: {{ include "sigil.secretName" $ }}
          env:
            {{- include "sigil.secretEnv" $ | nindent 12 }}
            {{- range $name, $value := $v.extraEnv }}
            - name: {{ $name }}
              value: {{ $value | toString | quote }}
            {{- end }}
          startupProbe:
            httpGet: { path: /livez, port: http }
            {{- toYaml $v.startupProbe | nindent 12 }}
          livenessProbe:
            httpGet: { path: /livez, port: http }
            {{- toYaml $v.livenessProbe | nindent 12 }}
          readinessProbe:
            httpGet: { path: /readyz, port: http }
            {{- toYaml $v.readinessProbe | nindent 12 }}
          {{- if .preStopSleepSeconds }}
          lifecycle:
            preStop:
              exec:
                command: ["sleep", {{ .preStopSleepSeconds | quote }}]
          {{- end }}
          resources:
            {{- toYaml $v.resources | nindent 12 }}
          securityContext:
            {{- toYaml $.Values.securityContext | nindent 12 }}
          volumeMounts:
            {{- include "sigil.volumeMounts" $ | nindent 12 }}
      volumes:
        {{- include "sigil.volumes" $ | nindent 8 }}
      {{- with $v.nodeSelector }}
      nodeSelector:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.tolerations }}
      tolerations:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.affinity }}
      affinity:
        {{- toYaml . | nindent 8 }}
      {{- end }}
      {{- with $v.topologySpreadConstraints }}
      topologySpreadConstraints:
        {{- toYaml . | nindent 8 }}
      {{- end }}
{{- end -}}
