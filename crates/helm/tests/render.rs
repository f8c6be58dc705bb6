//! Rendering: unknowns, spans, errors, limits and hostile charts.

use std::path::Path;

use fplint_helm::{
    render, to_helm_output, Chart, ChartFile, Limits, Release, RenderErrorKind, Rendered, SetValue,
    ValuesLayer, UNKNOWN_MARKER,
};

fn chart(values: &str, templates: &[(&str, &str)]) -> Chart {
    let mut files = vec![
        ChartFile {
            path: "Chart.yaml".into(),
            data: b"apiVersion: v2\nname: t\nversion: 1.0.0\n".to_vec(),
        },
        ChartFile {
            path: "values.yaml".into(),
            data: values.as_bytes().to_vec(),
        },
    ];
    for (p, t) in templates {
        files.push(ChartFile {
            path: format!("templates/{p}"),
            data: t.as_bytes().to_vec(),
        });
    }
    Chart::from_files(files, &Limits::default(), 0).expect("chart loads")
}

fn known() -> Release {
    Release {
        name: Some("rel".into()),
        namespace: Some("ns".into()),
        ..Release::default()
    }
}

fn one(values: &str, template: &str, release: &Release) -> Rendered {
    render(
        &chart(values, &[("x.yaml", template)]),
        release,
        &Limits::default(),
    )
}

fn text(r: &Rendered) -> &str {
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    &r.manifests[0].text
}

#[test]
fn unknown_release_renders_the_marker() {
    let r = one(
        "",
        "name: {{ .Release.Name }}-app\nns: {{ .Release.Namespace | quote }}\n",
        &Release::default(),
    );
    let t = text(&r);
    assert_eq!(
        t,
        format!("name: {UNKNOWN_MARKER}-app\nns: \"{UNKNOWN_MARKER}\"\n")
    );
    let m = &r.manifests[0];
    assert_eq!(m.unknown.len(), 2);
    assert_eq!(&t[m.unknown[0].clone()], UNKNOWN_MARKER);
}

#[test]
fn if_on_unknown_marks_its_body_unknown() {
    let tpl = "a: 1\n{{- if .Release.Name }}\nhostNetwork: true\n{{- else }}\nhostNetwork: false\n{{- end }}\nb: 2\n";
    let r = one("", tpl, &Release::default());
    let t = text(&r);
    assert_eq!(t, "a: 1\nhostNetwork: true\nb: 2\n");
    let m = &r.manifests[0];
    let at = t.find("hostNetwork").unwrap();
    assert!(m.is_unknown(at..at + 1));
    assert!(!m.is_unknown(0..4));
    // Known, the same chart takes the branch for certain.
    let r = one("", tpl, &known());
    assert!(r.manifests[0].unknown.is_empty());
}

#[test]
fn unknown_values_layer_makes_values_unknown() {
    let release = Release {
        values: vec![ValuesLayer::Unknown],
        ..known()
    };
    let r = one(
        "replicas: 2\n",
        "replicas: {{ .Values.replicas }}\nns: {{ .Release.Namespace }}\n",
        &release,
    );
    assert_eq!(text(&r), format!("replicas: {UNKNOWN_MARKER}\nns: ns\n"));
}

#[test]
fn unknown_functions_and_propagation() {
    let tpl = "p: {{ randAlphaNum 8 }}\nl: {{ lookup \"v1\" \"Secret\" \"ns\" \"x\" | default \"d\" }}\n\
               u: {{ upper .Release.Name }}\nt: {{ trunc 3 .Release.Name }}\nd: {{ default \"x\" .Release.Name }}\n\
               e: {{ eq .Release.Name \"a\" }}\nk: {{ .Release.Name | quote }}\n";
    let r = one("", tpl, &Release::default());
    let t = text(&r);
    for line in t.lines() {
        assert!(line.contains(UNKNOWN_MARKER), "{line}");
    }
    // `ternary` on a known condition picks a branch even with unknown values.
    let r = one(
        "",
        "t: {{ ternary \"a\" .Release.Name true }}\n",
        &Release::default(),
    );
    assert_eq!(text(&r), "t: a\n");
}

#[test]
fn range_over_unknown_renders_once_as_unknown() {
    let release = Release {
        values: vec![ValuesLayer::Unknown],
        ..known()
    };
    let r = one(
        "",
        "items:\n{{- range .Values.list }}\n- {{ . }}\n{{- end }}\n",
        &release,
    );
    let t = text(&r);
    assert_eq!(t, format!("items:\n- {UNKNOWN_MARKER}\n"));
    assert!(r.manifests[0].is_unknown(7..9));
}

#[test]
fn spans_point_at_text_and_actions() {
    let helpers = "{{- define \"t.labels\" -}}\napp: web\n{{- end }}";
    let tpl = "kind: Pod\nmetadata:\n  labels:\n    {{- include \"t.labels\" . | nindent 4 }}\nspec:\n  hostNetwork: {{ .Values.host }}\n";
    let c = chart(
        "host: true\n",
        &[("_helpers.tpl", helpers), ("pod.yaml", tpl)],
    );
    let r = render(&c, &known(), &Limits::default());
    let m = &r.manifests[0];
    assert_eq!(m.path, "t/templates/pod.yaml");
    let t = &m.text;
    // Literal text maps to itself.
    let at = t.find("hostNetwork").unwrap();
    let s = m.source_of(at).unwrap();
    assert_eq!(s.template, "t/templates/pod.yaml");
    assert_eq!(
        &tpl[s.source.clone()][at - s.output.start..][..11],
        "hostNetwork"
    );
    // A value maps to the action that printed it.
    let at = t.find("true").unwrap();
    assert_eq!(
        &tpl[m.source_of(at).unwrap().source.clone()],
        "{{ .Values.host }}"
    );
    // An include's output maps to the include action.
    let at = t.find("app: web").unwrap();
    assert_eq!(
        &tpl[m.source_of(at).unwrap().source.clone()],
        "{{- include \"t.labels\" . | nindent 4 }}"
    );
    // Every byte has a source.
    assert!((0..t.len()).all(|i| m.source_of(i).is_some()));
}

#[test]
fn template_action_keeps_the_defining_file() {
    let helpers = "{{- define \"t.body\" }}\nfrom: helper\n{{- end }}";
    let c = chart(
        "",
        &[
            ("_h.tpl", helpers),
            ("a.yaml", "x: 1{{ template \"t.body\" . }}\n"),
        ],
    );
    let r = render(&c, &known(), &Limits::default());
    let m = &r.manifests[0];
    let at = m.text.find("from").unwrap();
    assert_eq!(m.source_of(at).unwrap().template, "t/templates/_h.tpl");
}

#[test]
fn required_names_the_value() {
    let r = one(
        "",
        "x: {{ required \"image.tag is required\" .Values.image.tag }}\n",
        &known(),
    );
    // `.Values.image` is missing: Go fails first on the nil field.
    assert_eq!(r.errors[0].kind, RenderErrorKind::Template);
    let r = one(
        "image: {}\n",
        "x: {{ required \"image.tag is required\" .Values.image.tag }}\n",
        &known(),
    );
    assert_eq!(r.errors[0].kind, RenderErrorKind::Required);
    assert_eq!(r.errors[0].message, "image.tag is required");
    assert_eq!(r.errors[0].template, "t/templates/x.yaml");
    let tpl = "x: {{ required \"image.tag is required\" .Values.image.tag }}\n";
    assert_eq!(
        &tpl[r.errors[0].span.clone()],
        "required \"image.tag is required\" .Values.image.tag"
    );
}

#[test]
fn fail_is_an_error_unless_its_condition_is_unknown() {
    let r = one("", "{{ fail \"no\" }}", &known());
    assert_eq!(r.errors[0].kind, RenderErrorKind::Fail);
    let r = one(
        "",
        "{{ if .Release.Name }}{{ fail \"no\" }}{{ end }}ok: 1\n",
        &Release::default(),
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    // A fail that may not happen prints nothing: helm template, whose lookup
    // finds nothing, renders an empty file, and so does fplint.
    let r = one(
        "",
        "{{ if lookup \"v1\" \"Secret\" \"ns\" \"old\" }}{{ fail \"no\" }}{{ end }}",
        &known(),
    );
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert!(r.manifests.is_empty(), "{:?}", r.manifests);
}

#[test]
fn every_document_of_a_values_file_is_merged() {
    let release = Release {
        values: vec![ValuesLayer::Yaml {
            file: "a.yaml".into(),
            text: "a: 1\nm: {p: 1, q: 1}\nl: [1]\n---\na: 2\nm: {q: 2}\nl: [2]\n---\n".into(),
        }],
        ..known()
    };
    let r = one("z: 0\n", "{{ toJson .Values }}", &release);
    assert_eq!(text(&r), r#"{"a":2,"l":[2],"m":{"p":1,"q":2},"z":0}"#);
}

#[test]
fn a_file_that_is_not_utf8_is_unknown() {
    let mut c = chart(
        "",
        &[(
            "a.yaml",
            "b: {{ .Files.Get \"blob\" | b64enc }}\nt: {{ .Files.Get \"text\" }}\n",
        )],
    );
    c.files.insert("blob".into(), vec![0x61, 0xff, 0xfe]);
    c.files.insert("text".into(), b"plain".to_vec());
    let r = render(&c, &known(), &Limits::default());
    assert_eq!(text(&r), format!("b: {UNKNOWN_MARKER}\nt: plain\n"));
}

#[test]
fn subcharts_holds_each_subchart_object() {
    let files = vec![
        ChartFile {
            path: "Chart.yaml".into(),
            data: b"apiVersion: v2\nname: top\nversion: 1.0.0\n".to_vec(),
        },
        ChartFile {
            path: "values.yaml".into(),
            data: b"sub: {size: 3}\n".to_vec(),
        },
        ChartFile {
            path: "templates/a.yaml".into(),
            data: b"{{ $s := index .Subcharts \"sub\" }}{{ $s.Chart.Name }} {{ $s.Values.size }} {{ $s.Release.Name }} {{ keys .Subcharts }}".to_vec(),
        },
        ChartFile {
            path: "charts/sub/Chart.yaml".into(),
            data: b"apiVersion: v2\nname: sub\nversion: 0.1.0\n".to_vec(),
        },
        ChartFile {
            path: "charts/sub/values.yaml".into(),
            data: b"size: 1\n".to_vec(),
        },
    ];
    let c = Chart::from_files(files, &Limits::default(), 0).expect("chart loads");
    let r = render(&c, &known(), &Limits::default());
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    assert_eq!(text(&r), "sub 3 rel [sub]");
}

#[test]
fn templates_run_in_helm_order_and_share_the_top_object() {
    // z.yaml runs first (reverse name order) and replaces `$.Values` for the
    // other templates of its chart; the output stays in path order.
    let c = chart(
        "base: {mode: all, size: 2}\nmode: x\n",
        &[
            (
                "a.yaml",
                "a: {{ .Values.mode }} {{ .Values.size }} {{ .Template.Name }}",
            ),
            ("m.yaml", "m: {{ hasKey .Values \"base\" }}"),
            (
                "z.yaml",
                "{{ $d := .Values.base }}{{ $_ := unset .Values \"base\" }}\
                 {{ $_ := set $ \"Values\" (mustMergeOverwrite $d .Values) }}z: 1",
            ),
        ],
    );
    let r = render(&c, &known(), &Limits::default());
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    let texts: Vec<(&str, &str)> = r
        .manifests
        .iter()
        .map(|m| (m.path.as_str(), m.text.as_str()))
        .collect();
    assert_eq!(
        texts,
        [
            ("t/templates/a.yaml", "a: x 2 t/templates/a.yaml"),
            ("t/templates/m.yaml", "m: false"),
            ("t/templates/z.yaml", "z: 1"),
        ]
    );
}

fn files(list: &[(&str, &str)]) -> Chart {
    let files = list
        .iter()
        .map(|(p, d)| ChartFile {
            path: p.to_string(),
            data: d.as_bytes().to_vec(),
        })
        .collect();
    Chart::from_files(files, &Limits::default(), 0).expect("chart loads")
}

fn sources(r: &Rendered) -> Vec<(&str, &str)> {
    assert!(r.errors.is_empty(), "{:?}", r.errors);
    r.manifests
        .iter()
        .map(|m| (m.path.as_str(), m.text.as_str()))
        .collect()
}

#[test]
fn requirements_yaml_declares_a_v1_charts_dependencies() {
    // datadog's chart is apiVersion v1: alias and condition come from
    // requirements.yaml, which stays among its files.
    let c = files(&[
        ("Chart.yaml", "apiVersion: v1\nname: top\nversion: 1.0.0\n"),
        (
            "requirements.yaml",
            "dependencies:\n- name: sub\n  version: 1.x\n  alias: op\n  condition: op.enabled\n- name: crds\n  version: 1.0.0\n  condition: crds.enabled\n",
        ),
        ("values.yaml", "crds: {enabled: false}\n"),
        ("templates/a.yaml", "deps: {{ len .Chart.Dependencies }} {{ .Files.Get \"requirements.yaml\" | len | lt 0 }}"),
        ("charts/sub/Chart.yaml", "apiVersion: v2\nname: sub\nversion: 1.2.0\n"),
        ("charts/sub/values.yaml", "enabled: true\n"),
        ("charts/sub/templates/a.yaml", "sub: {{ .Chart.Name }}"),
        ("charts/crds/Chart.yaml", "apiVersion: v2\nname: crds\nversion: 1.0.0\n"),
        ("charts/crds/templates/a.yaml", "crds: 1"),
    ]);
    let r = render(&c, &known(), &Limits::default());
    assert_eq!(
        sources(&r),
        [
            ("top/charts/op/templates/a.yaml", "sub: op"),
            ("top/templates/a.yaml", "deps: 1 true"),
        ]
    );
}

#[test]
fn a_subchart_outside_the_version_constraint_is_not_aliased() {
    // Helm's IsCompatibleRange: `alpha` (1.0.0) and `beta` (no version) do
    // not match sub 2.0.3, so only `gamma` takes it; with gamma gone, sub
    // stays under its own name and the aliases' conditions do not touch it.
    let with = |deps: &str, values: &str| {
        let yaml = format!("apiVersion: v2\nname: top\nversion: 0.1.0\ndependencies:\n{deps}");
        files(&[
            ("Chart.yaml", yaml.as_str()),
            ("values.yaml", values),
            (
                "charts/sub/Chart.yaml",
                "apiVersion: v2\nname: sub\nversion: 2.0.3\n",
            ),
            ("charts/sub/values.yaml", "enabled: true\n"),
            (
                "charts/sub/templates/cm.yaml",
                "{{ .Chart.Name }}: {{ .Values.enabled }}",
            ),
        ])
    };
    let alpha = "- {name: sub, alias: alpha, version: 1.0.0, condition: alpha.enabled}\n";
    let beta = "- {name: sub, alias: beta, condition: beta.enabled}\n";
    let gamma = "- {name: sub, alias: gamma, version: \"~2.0\", condition: gamma.enabled}\n";
    let r = render(
        &with(&format!("{alpha}{beta}{gamma}"), "{}"),
        &known(),
        &Limits::default(),
    );
    assert_eq!(
        sources(&r),
        [("top/charts/gamma/templates/cm.yaml", "gamma: true")]
    );
    let c = with(
        &format!("{alpha}{beta}"),
        "alpha: {enabled: false}\nsub: {enabled: false}\n",
    );
    let r = render(&c, &known(), &Limits::default());
    assert_eq!(
        sources(&r),
        [("top/charts/sub/templates/cm.yaml", "sub: false")]
    );
}

#[test]
fn a_null_default_stays_a_key() {
    // cilium tests `hasKey .Values "policyCIDRMatchMode"`, whose default is
    // null: Helm keeps the key; a null given over a default removes it.
    let release = Release {
        values: vec![ValuesLayer::Yaml {
            file: "u.yaml".into(),
            text: "b: null\nm: {q: null}\n".into(),
        }],
        ..known()
    };
    let r = one(
        "a: null\nb: 1\nm: {x: null}\n",
        "{{ hasKey .Values \"a\" }} {{ hasKey .Values \"b\" }} {{ hasKey .Values.m \"x\" }} {{ hasKey .Values.m \"q\" }}",
        &release,
    );
    assert_eq!(text(&r), "true false true true");
}

#[test]
fn values_as_map_is_the_values() {
    // Helm's `.Values` is a chartutil.Values, whose AsMap method comes
    // before a key of that name; a plain map has no such method.
    let r = one(
        "a: {b: 1}\nAsMap: 5\n",
        "{{ dig \"a\" \"b\" 0 .Values.AsMap }} {{ len $.Values.AsMap }} {{ .Values.a.AsMap }}",
        &known(),
    );
    assert_eq!(text(&r), "1 2 ");
}

#[test]
fn set_values_follow_helm_order() {
    let release = Release {
        values: vec![
            ValuesLayer::Yaml {
                file: "a.yaml".into(),
                text: "a: 1\nm: {p: 1, q: 2}\n".into(),
            },
            ValuesLayer::Yaml {
                file: "b.yaml".into(),
                text: "a: 2\nm: {q: 3}\n".into(),
            },
        ],
        set: vec![
            SetValue {
                expr: "a=3,d=null".into(),
                string: false,
            },
            SetValue {
                expr: "s=007".into(),
                string: true,
            },
        ],
        ..known()
    };
    let r = one(
        "a: 0\nd: default\nkeep: k\nm: {z: 0}\n",
        "{{ toJson .Values }}",
        &release,
    );
    assert_eq!(
        text(&r),
        r#"{"a":3,"keep":"k","m":{"p":1,"q":3,"z":0},"s":"007"}"#
    );
}

#[test]
fn values_errors_are_reported() {
    let release = Release {
        values: vec![ValuesLayer::Yaml {
            file: "bad.yaml".into(),
            text: "a: [1\n".into(),
        }],
        ..known()
    };
    let r = one("", "x: 1", &release);
    assert_eq!(r.errors[0].kind, RenderErrorKind::Values);
    assert_eq!(r.errors[0].template, "bad.yaml");
}

fn limit_of(r: &Rendered) -> Option<&'static str> {
    r.errors.iter().find_map(|e| match e.kind {
        RenderErrorKind::Limit(l) => Some(l),
        _ => None,
    })
}

#[test]
fn recursive_include_is_bounded() {
    let c = chart(
        "",
        &[
            (
                "_h.tpl",
                "{{ define \"loop\" }}{{ include \"loop\" . }}{{ end }}",
            ),
            ("a.yaml", "{{ include \"loop\" . }}"),
        ],
    );
    let r = render(&c, &known(), &Limits::default());
    assert_eq!(limit_of(&r), Some("max-include-depth"));
}

#[test]
fn tpl_of_itself_is_bounded() {
    let r = one(
        "x: \"{{ tpl .Values.x . }}\"\n",
        "{{ tpl .Values.x . }}",
        &known(),
    );
    assert_eq!(limit_of(&r), Some("max-include-depth"));
}

#[test]
fn repeat_and_until_are_bounded() {
    let r = one("", "{{ repeat 100000000 \"abcdefgh\" }}", &known());
    assert_eq!(limit_of(&r), Some("max-string-bytes"));
    let r = one("", "{{ until 100000000 | len }}", &known());
    assert_eq!(limit_of(&r), Some("max-list-items"));
    let r = one("", "{{ untilStep 0 2000000000 1 | len }}", &known());
    assert_eq!(limit_of(&r), Some("max-list-items"));
}

#[test]
fn steps_and_output_are_bounded() {
    let limits = Limits {
        max_steps: 10_000,
        ..Limits::default()
    };
    let c = chart(
        "",
        &[(
            "a.yaml",
            "{{ range until 1000 }}{{ range until 1000 }}x{{ end }}{{ end }}",
        )],
    );
    let r = render(&c, &known(), &limits);
    assert_eq!(limit_of(&r), Some("max-steps"));
    let limits = Limits {
        max_output_bytes: 1000,
        ..Limits::default()
    };
    let r = render(&c, &known(), &limits);
    assert_eq!(limit_of(&r), Some("max-output-bytes"));
}

#[test]
fn deep_values_are_an_error() {
    let deep = format!("{}1{}", "[".repeat(5000), "]".repeat(5000));
    let release = Release {
        values: vec![ValuesLayer::Yaml {
            file: "deep.yaml".into(),
            text: format!("a: {deep}\n"),
        }],
        ..known()
    };
    let r = one("", "x: 1", &release);
    assert_eq!(r.errors[0].kind, RenderErrorKind::Values);
    let files = vec![
        ChartFile {
            path: "Chart.yaml".into(),
            data: b"name: t\nversion: 1.0.0\n".to_vec(),
        },
        ChartFile {
            path: "values.yaml".into(),
            data: format!("a: {deep}\n").into_bytes(),
        },
    ];
    assert!(Chart::from_files(files, &Limits::default(), 0).is_err());
}

#[test]
fn self_referencing_dict_does_not_overflow() {
    let r = one(
        "",
        "{{ $d := dict }}{{ $_ := set $d \"me\" $d }}{{ toYaml $d | len }} {{ toJson $d }}",
        &known(),
    );
    assert!(r.errors.is_empty() || r.errors.iter().all(|e| e.kind == RenderErrorKind::Template));
}

/// A gzip of `n` zero bytes wrapped as a tar member, made without a crate.
fn gzip_stored(data: &[u8]) -> Vec<u8> {
    let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
    out.extend(miniz_compress(data));
    out.extend_from_slice(&[0; 4]);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out
}

fn miniz_compress(data: &[u8]) -> Vec<u8> {
    // Stored (uncompressed) deflate blocks: enough for tests of the reader.
    let mut out = Vec::new();
    let chunks: Vec<&[u8]> = data.chunks(65535).collect();
    if chunks.is_empty() {
        out.extend_from_slice(&[1, 0, 0, 0xff, 0xff]);
    }
    for (i, c) in chunks.iter().enumerate() {
        out.push(u8::from(i + 1 == chunks.len()));
        let len = c.len() as u16;
        out.extend_from_slice(&len.to_le_bytes());
        out.extend_from_slice(&(!len).to_le_bytes());
        out.extend_from_slice(c);
    }
    out
}

fn tar_entry(path: &str, data: &[u8]) -> Vec<u8> {
    let mut h = [0u8; 512];
    h[..path.len()].copy_from_slice(path.as_bytes());
    h[100..107].copy_from_slice(b"0000644");
    let size = format!("{:011o}", data.len());
    h[124..135].copy_from_slice(size.as_bytes());
    h[156] = b'0';
    h[257..262].copy_from_slice(b"ustar");
    let mut out = h.to_vec();
    out.extend_from_slice(data);
    out.resize(out.len().div_ceil(512) * 512, 0);
    out
}

#[test]
fn archive_loads_and_a_bomb_is_an_error() {
    let mut tar = tar_entry("web/Chart.yaml", b"name: web\nversion: 0.1.0\n");
    tar.extend(tar_entry(
        "web/templates/cm.yaml",
        b"kind: ConfigMap\nname: {{ .Chart.Name }}\n",
    ));
    tar.extend([0u8; 1024]);
    let c = Chart::load_archive(&gzip_stored(&tar), &Limits::default()).unwrap();
    let r = render(&c, &known(), &Limits::default());
    assert_eq!(text(&r), "kind: ConfigMap\nname: web\n");

    let mut tar = tar_entry("web/Chart.yaml", b"name: web\nversion: 0.1.0\n");
    tar.extend(tar_entry("web/big", &vec![0u8; 4 << 20]));
    let limits = Limits {
        max_chart_bytes: 1 << 20,
        ..Limits::default()
    };
    let e = Chart::load_archive(&gzip_stored(&tar), &limits).unwrap_err();
    assert_eq!(e.limit, Some("max-chart-bytes"));
    assert!(Chart::load_archive(b"not gzip", &limits).is_err());
    assert!(Chart::load_archive(&gzip_stored(b"short tar"), &limits).is_err());
}

#[test]
fn parse_errors_have_spans() {
    let r = one("", "a: 1\n{{ if .X }}\nnever closed", &known());
    assert_eq!(r.errors[0].kind, RenderErrorKind::Parse);
    // A pipe right before `}}` is accepted, as by Go; two in a row are not.
    let r = one("", "a: {{ .X | | }}", &known());
    assert_eq!(r.errors[0].kind, RenderErrorKind::Parse);
}

/// The hand-written oracle charts, rendered as `helm template` prints them.
#[test]
fn oracle_charts_snapshot() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/charts");
    let mut names: Vec<_> = std::fs::read_dir(&dir)
        .unwrap()
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    for name in names {
        let c = Chart::load_dir(&dir.join(&name), &Limits::default()).unwrap();
        let release = Release {
            name: Some("release-name".into()),
            namespace: Some("default".into()),
            ..Release::default()
        };
        let r = render(&c, &release, &Limits::default());
        assert!(r.errors.is_empty(), "{name}: {:?}", r.errors);
        insta::assert_snapshot!(name.clone(), to_helm_output(&r));
    }
}

#[test]
fn value_origins_follow_the_layers() {
    use fplint_helm::{value_origin, ValueOrigin};
    let c = chart(
        "image:\n  tag: v1\nreplicas: 1\ntolerations:\n  - key: a\n",
        &[("a.yaml", "x: 1")],
    );
    let release = Release {
        values: vec![ValuesLayer::Yaml {
            file: "prod.yaml".into(),
            text: "replicas: 3\n".into(),
        }],
        set: vec![SetValue {
            expr: "image.tag=v2".into(),
            string: false,
        }],
        ..known()
    };
    let l = Limits::default();
    assert_eq!(
        value_origin(&c, &release, "image.tag", &l),
        Some(ValueOrigin::Set { index: 0 })
    );
    assert_eq!(
        value_origin(&c, &release, "replicas", &l),
        Some(ValueOrigin::File {
            file: "prod.yaml".into(),
            range: 10..11
        })
    );
    let Some(ValueOrigin::File { file, range }) =
        value_origin(&c, &release, "tolerations[0].key", &l)
    else {
        panic!("no origin");
    };
    assert_eq!(file, "values.yaml");
    assert_eq!(
        &"image:\n  tag: v1\nreplicas: 1\ntolerations:\n  - key: a\n"[range],
        "a"
    );
    assert_eq!(value_origin(&c, &release, "missing", &l), None);
}
