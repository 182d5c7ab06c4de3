{{/* The app.kubernetes.io/name of every object (the kustomize manifests' name). */}}
{{- define "podwait.name" -}}
{{- default "podwait-exporter" .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{/* <release>-exporter when the release name says podwait, else <release>-podwait-exporter. */}}
{{- define "podwait.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else if contains "podwait" .Release.Name -}}
{{- printf "%s-exporter" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-podwait-exporter" .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "podwait.selectorLabels" -}}
app.kubernetes.io/name: {{ include "podwait.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* Every object's labels; app.kubernetes.io/version never goes into a selector. */}}
{{- define "podwait.labels" -}}
{{ include "podwait.selectorLabels" . }}
app.kubernetes.io/part-of: podwait
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{- define "podwait.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* The route prefix without a trailing slash ("" for the root): routePrefix, else the path of
externalURL, as the exporter derives it. */}}
{{- define "podwait.routePrefix" -}}
{{- $prefix := .Values.routePrefix -}}
{{- if and (not $prefix) .Values.externalURL -}}
{{- $prefix = (urlParse .Values.externalURL).path -}}
{{- end -}}
{{- trimSuffix "/" $prefix -}}
{{- end -}}

{{- define "podwait.scheme" -}}
{{- if .Values.webConfig.tlsSecretName -}}https{{- else -}}http{{- end -}}
{{- end -}}

{{/* Where the on-call opens the exporter: externalURL, else the Service's in-cluster address. */}}
{{- define "podwait.url" -}}
{{- if .Values.externalURL -}}
{{- trimSuffix "/" .Values.externalURL -}}
{{- else -}}
{{- printf "%s://%s.%s.svc:9877%s" (include "podwait.scheme" .) (include "podwait.fullname" .) .Release.Namespace (include "podwait.routePrefix" .) -}}
{{- end -}}
{{- end -}}

{{- define "podwait.runbookBaseURL" -}}
{{- default (printf "%s/runbook" (include "podwait.url" .)) .Values.prometheusRule.runbookBaseURL -}}
{{- end -}}

{{/* The exporter's metric contract (`podwait-exporter contract`, kept in mixin/contract.json). */}}
{{- define "podwait.contract" -}}
{{- $contract := .Files.Get "files/contract.json" | fromJson -}}
{{- if or (not $contract) (hasKey $contract "Error") -}}
{{- fail "files/contract.json (mixin/contract.json) is missing or not JSON" -}}
{{- end -}}
{{- toJson $contract -}}
{{- end -}}

{{/*
The RBAC rules of the watched namespaces (scope "namespace") or of the whole cluster (scope
"cluster"), as a YAML list, derived from the contract the way tests/deploy/check_manifests.py
derives them: list and watch of pods and events, the contract's v1 resources (pingcap.com
tidbclusters and dmclusters), every v2 kind, every autoscaler resource without a name, and at
cluster scope the cluster-scoped ones (NodeClaims) and the volume watch's resources (claims and
volumes; the namespaced mode turns that watch off); with eventsWrite, the contract's event write.
*/}}
{{- define "podwait.rules" -}}
{{- $root := index . 0 -}}
{{- $scope := index . 1 -}}
{{- $c := include "podwait.contract" $root | fromJson -}}
{{- $grants := dict -}}
{{- $add := list -}}
{{- range $r := list "pods" "events" -}}
{{- $add = append $add (dict "group" "" "resource" $r "verbs" (list "list" "watch")) -}}
{{- end -}}
{{- range $r := $c.v1.resources -}}
{{- $add = append $add (dict "group" $c.v1.apiGroup "resource" $r.resource "verbs" $r.verbs) -}}
{{- end -}}
{{- range $k := $c.v2.kinds -}}
{{- $add = append $add (dict "group" $c.v2.apiGroup "resource" $k.resource "verbs" $c.v2.verbs) -}}
{{- end -}}
{{- range $a := $c.autoscalers -}}
{{- range $r := $a.resources -}}
{{- if and (not $r.name) (or (not $r.clusterScoped) (eq $scope "cluster")) -}}
{{- $add = append $add (dict "group" $r.apiGroup "resource" $r.resource "verbs" $r.verbs) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- if eq $scope "cluster" -}}
{{- range $r := $c.volumes.resources -}}
{{- $add = append $add (dict "group" $r.apiGroup "resource" $r.resource "verbs" $r.verbs) -}}
{{- end -}}
{{- end -}}
{{- if $root.Values.eventsWrite.enabled -}}
{{- $add = append $add (dict "group" $c.events.apiGroup "resource" $c.events.resource "verbs" $c.events.verbs) -}}
{{- end -}}
{{- /* One rule per API group and verb set, its resources in the order first seen. */ -}}
{{- $rules := list -}}
{{- range $g := $add -}}
{{- $verbs := $g.verbs | uniq | sortAlpha -}}
{{- $key := printf "%s/%s" $g.group (join "," $verbs) -}}
{{- if hasKey $grants $key -}}
{{- $rule := get $grants $key -}}
{{- if not (has $g.resource $rule.resources) -}}
{{- $_ := set $rule "resources" (append $rule.resources $g.resource) -}}
{{- end -}}
{{- else -}}
{{- $rule := dict "apiGroups" (list $g.group) "resources" (list $g.resource) "verbs" $verbs -}}
{{- $_ := set $grants $key $rule -}}
{{- $rules = append $rules $key -}}
{{- end -}}
{{- end -}}
{{- $out := list -}}
{{- range $key := $rules -}}
{{- $out = append $out (get $grants $key) -}}
{{- end -}}
{{- toYaml $out -}}
{{- end -}}

{{/* The contract's named objects (the cluster-autoscaler status ConfigMap), as a dict from
namespace to a list of rules that name their object. */}}
{{- define "podwait.namedRules" -}}
{{- $c := include "podwait.contract" . | fromJson -}}
{{- $byNamespace := dict -}}
{{- range $a := $c.autoscalers -}}
{{- range $r := $a.resources -}}
{{- if $r.name -}}
{{- $rule := dict "apiGroups" (list $r.apiGroup) "resources" (list $r.resource) "resourceNames" (list $r.name) "verbs" $r.verbs -}}
{{- $_ := set $byNamespace $r.namespace (append (get $byNamespace $r.namespace | default list) $rule) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toJson $byNamespace -}}
{{- end -}}

{{/* The probes' httpGet: the route prefix, HTTPS with a TLS web config, the probe's header. */}}
{{- define "podwait.probe" -}}
{{- $root := index . 0 -}}
httpGet:
  path: {{ include "podwait.routePrefix" $root }}{{ index . 1 }}
  port: metrics
  {{- if $root.Values.webConfig.tlsSecretName }}
  scheme: HTTPS
  {{- end }}
  {{- with $root.Values.webConfig.probeAuthorization }}
  httpHeaders:
    - name: Authorization
      value: {{ . | quote }}
  {{- end }}
{{- end -}}
