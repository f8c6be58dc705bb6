{{- define "gotmpl.greet" -}}
hello {{ . }}
{{- end -}}
{{- define "gotmpl.block" -}}default block body{{- end -}}
{{- define "gotmpl.dot" -}}{{ .name }}/{{ $.count }}{{- end -}}
