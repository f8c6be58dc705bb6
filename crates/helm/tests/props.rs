//! Property tests: templates assembled from Go template pieces, with random
//! values, never panic, stay within limits, and keep spans in range.

use fplint_helm::{render, Chart, ChartFile, Limits, Release, ValuesLayer};
use proptest::prelude::*;

const PIECES: &[&str] = &[
    "{{ ",
    " }}",
    "{{- ",
    " -}}",
    "{{/* c */}}",
    "if ",
    "else ",
    "end",
    "range ",
    "with ",
    "define \"d\"",
    "template \"d\" .",
    "include \"d\" .",
    "tpl .Values.s .",
    ".Values",
    ".Values.a",
    ".Values.l",
    "$x := ",
    "$x",
    "$",
    "| ",
    "quote ",
    "toYaml ",
    "nindent 2 ",
    "default 1 ",
    "printf \"%s %d\" ",
    "(",
    ")",
    "\"s\"",
    "1",
    "-2",
    "1.5",
    "true",
    "nil",
    "eq ",
    "len ",
    "index ",
    "list ",
    "dict ",
    "set ",
    "until 3",
    "repeat 3 ",
    "break",
    "continue",
    "\n",
    "key: ",
    "- ",
    "  ",
    ".Release.Name",
    ".Capabilities.KubeVersion.Minor",
    "fromYaml ",
    "required \"r\" ",
    "fail \"f\"",
    "lookup ",
    "randAlphaNum 3",
    "semverCompare \">1\" ",
    "and ",
    "or ",
    "not ",
];

fn template() -> impl Strategy<Value = String> {
    prop::collection::vec(0..PIECES.len(), 0..40)
        .prop_map(|ix| ix.into_iter().map(|i| PIECES[i]).collect())
}

fn values() -> impl Strategy<Value = String> {
    prop_oneof![
        Just(String::new()),
        Just("a: 1\nl: [1, two, {k: v}]\ns: \"{{ .Values.a }}\"\n".to_string()),
        Just("s: \"{{ tpl .Values.s . }}\"\n".to_string()),
        "[a-z:{}\\[\\], \n-]{0,40}",
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]
    #[test]
    fn random_templates_do_not_panic(t in template(), v in values(), known in any::<bool>()) {
        let limits = Limits { max_steps: 50_000, max_output_bytes: 1 << 18, ..Limits::default() };
        let files = vec![
            ChartFile { path: "Chart.yaml".into(), data: b"name: p\nversion: 0.1.0\n".to_vec() },
            ChartFile { path: "templates/_d.tpl".into(), data: b"{{ define \"d\" }}d: {{ . | toJson }}{{ end }}".to_vec() },
            ChartFile { path: "templates/t.yaml".into(), data: t.clone().into_bytes() },
        ];
        let chart = Chart::from_files(files, &limits, 0).unwrap();
        let release = Release {
            name: known.then(|| "r".to_string()),
            values: vec![ValuesLayer::Yaml { file: "v.yaml".into(), text: v }],
            ..Release::default()
        };
        let out = render(&chart, &release, &limits);
        for m in &out.manifests {
            prop_assert!(m.text.len() <= limits.max_output_bytes + 64);
            for s in &m.spans {
                prop_assert!(s.output.end <= m.text.len());
                if s.template == "p/templates/t.yaml" {
                    prop_assert!(s.source.end <= t.len());
                }
            }
        }
        for e in &out.errors {
            if e.template == "p/templates/t.yaml" {
                prop_assert!(e.span.end <= t.len(), "{:?}", e);
            }
        }
    }
}
