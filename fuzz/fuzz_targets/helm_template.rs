//! The Helm engine: the input is a template, then (after a NUL byte) a
//! values file; both render in a small chart with tight limits. No panic,
//! no hang, bounded memory, and every span inside its file.
#![no_main]

use fplint_helm::{render, Chart, ChartFile, Limits, Release, ValuesLayer};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let (template, values) = text.split_once('\0').unwrap_or((text, ""));
    let limits = Limits {
        max_steps: 200_000,
        max_output_bytes: 1 << 20,
        max_string_bytes: 1 << 20,
        max_list_items: 100_000,
        ..Limits::default()
    };
    let files = vec![
        ChartFile { path: "Chart.yaml".into(), data: b"name: fuzz\nversion: 0.1.0\n".to_vec() },
        ChartFile {
            path: "templates/_helpers.tpl".into(),
            data: b"{{ define \"h\" }}{{ toYaml . }}{{ end }}".to_vec(),
        },
        ChartFile { path: "templates/t.yaml".into(), data: template.as_bytes().to_vec() },
    ];
    let Ok(chart) = Chart::from_files(files, &limits, 0) else {
        return;
    };
    let release = Release {
        name: if template.len() % 2 == 0 { Some("r".into()) } else { None },
        values: vec![ValuesLayer::Yaml { file: "v.yaml".into(), text: values.to_string() }],
        ..Release::default()
    };
    let out = render(&chart, &release, &limits);
    for m in &out.manifests {
        for s in &m.spans {
            assert!(s.output.end <= m.text.len());
            if s.template == "fuzz/templates/t.yaml" {
                assert!(s.source.end <= template.len());
            }
        }
        for u in &m.unknown {
            assert!(u.end <= m.text.len());
        }
    }
    for e in &out.errors {
        if e.template == "fuzz/templates/t.yaml" {
            assert!(e.span.end <= template.len(), "error span out of range: {e:?}");
        }
    }
});
