{{- define "common.configmap" -}}
apiVersion: v1
kind: ConfigMap
metadata:
  name: {{ .name }}-common
  labels:
    chart: {{ .root.Chart.Name }}
data:
  region: {{ .root.Values.global.region }}
{{- end }}
