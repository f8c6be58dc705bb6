//! The server driven by an in-memory client, message by message.

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, Exit, Initialized,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{CodeActionRequest, HoverRequest, Initialize, Shutdown};
use lsp_types::{
    CodeActionContext, CodeActionOrCommand, CodeActionParams, Diagnostic, DiagnosticSeverity,
    DiagnosticTag, DidChangeTextDocumentParams, DidCloseTextDocumentParams,
    DidOpenTextDocumentParams, HoverContents, HoverParams, InitializeParams, InitializeResult,
    NumberOrString, Position, PositionEncodingKind, PublishDiagnosticsParams, Range,
    TextDocumentContentChangeEvent, TextDocumentIdentifier, TextDocumentItem,
    TextDocumentPositionParams, Url, VersionedTextDocumentIdentifier,
};
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

struct Client {
    conn: Connection,
    server: Option<JoinHandle<Result<(), fplint_server::ServerError>>>,
    next_id: i32,
    init: InitializeResult,
}

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn uri(p: &Path) -> Url {
    Url::from_file_path(p.canonicalize().unwrap()).unwrap()
}

impl Client {
    fn start(root: &Path, encodings: Option<Vec<PositionEncodingKind>>) -> Client {
        Client::start_with(root, encodings, serde_json::json!({ "debounceMs": 10 }))
    }

    fn start_with(
        root: &Path,
        encodings: Option<Vec<PositionEncodingKind>>,
        options: serde_json::Value,
    ) -> Client {
        let (server, conn) = Connection::memory();
        let handle = std::thread::spawn(move || fplint_server::run(server));
        let mut c = Client {
            conn,
            server: Some(handle),
            next_id: 0,
            init: InitializeResult::default(),
        };
        let mut params = InitializeParams {
            workspace_folders: Some(vec![lsp_types::WorkspaceFolder {
                uri: uri(root),
                name: "root".into(),
            }]),
            initialization_options: Some(options),
            ..InitializeParams::default()
        };
        params.capabilities.general = Some(lsp_types::GeneralClientCapabilities {
            position_encodings: encodings,
            ..Default::default()
        });
        c.init = c.request::<Initialize>(params);
        c.notify::<Initialized>(lsp_types::InitializedParams {});
        c
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        let n = Notification::new(N::METHOD.into(), params);
        self.conn.sender.send(n.into()).unwrap();
    }

    fn request<R: lsp_types::request::Request>(&mut self, params: R::Params) -> R::Result {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let req = Request::new(id.clone(), R::METHOD.into(), params);
        self.conn.sender.send(req.into()).unwrap();
        loop {
            match self.recv() {
                Message::Response(r) if r.id == id => {
                    assert!(r.error.is_none(), "{:?}", r.error);
                    return serde_json::from_value(r.result.unwrap_or_default()).unwrap();
                }
                // Diagnostics that arrive meanwhile are not what this waits for.
                _ => {}
            }
        }
    }

    fn recv(&self) -> Message {
        self.conn
            .receiver
            .recv_timeout(Duration::from_secs(20))
            .expect("the server answers")
    }

    /// The next diagnostics published for `uri`.
    fn diagnostics(&self, uri: &Url) -> Vec<Diagnostic> {
        self.publish(uri).diagnostics
    }

    fn publish(&self, uri: &Url) -> PublishDiagnosticsParams {
        loop {
            if let Message::Notification(n) = self.recv() {
                if n.method == PublishDiagnostics::METHOD {
                    let p: PublishDiagnosticsParams = serde_json::from_value(n.params).unwrap();
                    if &p.uri == uri {
                        return p;
                    }
                }
            }
        }
    }

    fn open(&self, uri: &Url, text: &str) {
        self.notify::<DidOpenTextDocument>(DidOpenTextDocumentParams {
            text_document: TextDocumentItem::new(uri.clone(), "yaml".into(), 1, text.into()),
        });
    }

    fn change(&self, uri: &Url, version: i32, changes: Vec<TextDocumentContentChangeEvent>) {
        self.notify::<DidChangeTextDocument>(DidChangeTextDocumentParams {
            text_document: VersionedTextDocumentIdentifier::new(uri.clone(), version),
            content_changes: changes,
        });
    }

    fn shutdown(mut self) {
        self.request::<Shutdown>(());
        self.notify::<Exit>(());
        let result = self.server.take().unwrap().join().unwrap();
        assert!(result.is_ok(), "{result:?}");
    }
}

fn full(text: &str) -> TextDocumentContentChangeEvent {
    TextDocumentContentChangeEvent {
        range: None,
        range_length: None,
        text: text.into(),
    }
}

fn edit(l1: u32, c1: u32, l2: u32, c2: u32, text: &str) -> TextDocumentContentChangeEvent {
    TextDocumentContentChangeEvent {
        range: Some(Range::new(Position::new(l1, c1), Position::new(l2, c2))),
        range_length: None,
        text: text.into(),
    }
}

fn code(d: &Diagnostic) -> &str {
    match &d.code {
        Some(NumberOrString::String(s)) => s,
        _ => "",
    }
}

fn range(l1: u32, c1: u32, l2: u32, c2: u32) -> Range {
    Range::new(Position::new(l1, c1), Position::new(l2, c2))
}

#[test]
fn example_problem_then_fixed() {
    let dir = repo().join("examples/eksctl/problem");
    let file = dir.join("cluster.yaml");
    let text = std::fs::read_to_string(&file).unwrap();
    let fixed = std::fs::read_to_string(repo().join("examples/eksctl/fixed/cluster.yaml")).unwrap();
    let u = uri(&file);
    let mut c = Client::start(&dir, None);
    let caps = &c.init.capabilities;
    assert_eq!(caps.position_encoding, Some(PositionEncodingKind::UTF16));
    assert_eq!(
        serde_json::to_value(&caps.text_document_sync).unwrap()["change"],
        2,
        "incremental sync"
    );

    c.open(&u, &text);
    let ds = c.diagnostics(&u);
    let codes: Vec<&str> = ds.iter().map(code).collect();
    assert_eq!(codes, ["FP001", "FP004"]);
    let d = &ds[0];
    assert_eq!(d.range, range(36, 8, 37, 27));
    assert_eq!(d.severity, Some(DiagnosticSeverity::ERROR));
    assert_eq!(d.source.as_deref(), Some("fplint"));
    assert_eq!(
        d.code_description.as_ref().map(|c| c.href.as_str()),
        Some("https://github.com/fplint/fplint/blob/main/rules/FP001.md")
    );
    let related = d.related_information.as_ref().unwrap();
    assert_eq!(related.len(), 1);
    assert_eq!(related[0].location.uri, u);
    assert_eq!(related[0].location.range, range(10, 8, 10, 17));

    let at = |line, character| TextDocumentPositionParams {
        text_document: TextDocumentIdentifier::new(u.clone()),
        position: Position::new(line, character),
    };
    let hover = c
        .request::<HoverRequest>(HoverParams {
            text_document_position_params: at(36, 12),
            work_done_progress_params: Default::default(),
        })
        .expect("a hover on the finding");
    let HoverContents::Markup(m) = hover.contents else {
        panic!("markdown hover")
    };
    assert!(m.value.starts_with("**FP001** `"), "{}", m.value);
    assert!(m.value.contains("**How to fix**"), "{}", m.value);
    assert_eq!(hover.range, Some(range(36, 8, 37, 27)));
    let off = c.request::<HoverRequest>(HoverParams {
        text_document_position_params: at(0, 0),
        work_done_progress_params: Default::default(),
    });
    assert!(off.is_none());

    let actions = c
        .request::<CodeActionRequest>(CodeActionParams {
            text_document: TextDocumentIdentifier::new(u.clone()),
            range: range(36, 10, 36, 10),
            context: CodeActionContext::default(),
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        })
        .unwrap_or_default();
    let titles: Vec<String> = actions
        .iter()
        .filter_map(|a| match a {
            CodeActionOrCommand::CodeAction(a) => Some(a.title.clone()),
            CodeActionOrCommand::Command(_) => None,
        })
        .collect();
    assert_eq!(
        titles,
        [
            "FP001: remove the labels from the `kube-system` selector (unsafe: changes what gets deployed)",
            "Suppress FP001 on this line"
        ]
    );
    let CodeActionOrCommand::CodeAction(unsafe_fix) = &actions[0] else {
        panic!()
    };
    assert_eq!(unsafe_fix.is_preferred, Some(false));
    let CodeActionOrCommand::CodeAction(suppress) = &actions[1] else {
        panic!()
    };
    let edits = &suppress.edit.as_ref().unwrap().changes.as_ref().unwrap()[&u];
    assert_eq!(edits.len(), 1);
    assert_eq!(edits[0].new_text, " # fplint: ignore[FP001]");
    let line_36_len = text.lines().nth(36).unwrap().len() as u32;
    assert_eq!(edits[0].range, range(36, line_36_len, 36, line_36_len));

    c.change(&u, 2, vec![full(&fixed)]);
    let p = c.publish(&u);
    assert_eq!(p.diagnostics, []);
    assert_eq!(p.version, Some(2));
    c.shutdown();
}

fn cluster(namespaces: &[&str]) -> String {
    let mut s = String::from(
        "apiVersion: eksctl.io/v1alpha5\nkind: ClusterConfig\nmetadata:\n  name: shop\n  region: eu-west-1\niam:\n  withOIDC: true\nfargateProfiles:\n  - name: fp\n    selectors:\n",
    );
    for n in namespaces {
        s.push_str(&format!("      - namespace: {n}\n"));
    }
    s
}

const WEB: &str = "apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  namespace: web
spec:
  selector:
    matchLabels: {app: web}
  template:
    metadata:
      labels: {app: web}
    spec:
      containers:
        - name: web
          image: nginx
          resources:
            requests: {cpu: 250m, memory: 256Mi}
";

#[test]
fn a_manifest_follows_the_cluster_file_being_edited() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cluster.yaml"), cluster(&["kube-system"])).unwrap();
    std::fs::write(dir.path().join("web.yaml"), WEB).unwrap();
    let (cu, wu) = (
        uri(&dir.path().join("cluster.yaml")),
        uri(&dir.path().join("web.yaml")),
    );
    let c = Client::start(dir.path(), Some(vec![PositionEncodingKind::UTF8]));
    assert_eq!(
        c.init.capabilities.position_encoding,
        Some(PositionEncodingKind::UTF8)
    );
    c.open(&wu, WEB);
    let ds = c.diagnostics(&wu);
    assert_eq!(ds.iter().map(code).collect::<Vec<_>>(), ["FP011"]);
    assert_eq!(ds[0].range, range(4, 13, 4, 16));
    assert!(
        ds[0].message.starts_with(
            "Deployment `web` in namespace `web` matches no Fargate profile of cluster `shop`"
        ),
        "{}",
        ds[0].message
    );

    // Unsaved: the cluster file's buffer, not the disk, is the context.
    c.open(&cu, &cluster(&["kube-system"]));
    c.change(&cu, 2, vec![edit(10, 0, 10, 0, "      - namespace: web\n")]);
    let p = c.publish(&wu);
    assert_eq!(p.diagnostics, [], "cleared once the cluster selects `web`");
    assert_eq!(p.version, Some(1));

    // Closed without saving: the disk counts again.
    c.notify::<DidCloseTextDocument>(DidCloseTextDocumentParams {
        text_document: TextDocumentIdentifier::new(cu.clone()),
    });
    let ds = c.diagnostics(&wu);
    assert_eq!(ds.iter().map(code).collect::<Vec<_>>(), ["FP011"]);
    c.shutdown();
}

#[test]
fn half_written_yaml_shows_fp000_and_recovers() {
    let dir = tempfile::tempdir().unwrap();
    let text = cluster(&["kube-system"]);
    std::fs::write(dir.path().join("cluster.yaml"), &text).unwrap();
    let u = uri(&dir.path().join("cluster.yaml"));
    let c = Client::start(dir.path(), None);
    c.open(&u, &text);
    assert_eq!(c.diagnostics(&u), []);
    // An unclosed flow mapping, as while typing one.
    c.change(&u, 2, vec![edit(10, 0, 10, 0, "      - labels: {a: b\n")]);
    let ds = c.diagnostics(&u);
    assert_eq!(ds.iter().map(code).collect::<Vec<_>>(), ["FP000"]);
    c.change(&u, 3, vec![edit(10, 0, 11, 0, "")]);
    assert_eq!(c.diagnostics(&u), []);
    c.shutdown();
}

#[test]
fn bad_input_is_survived() {
    let dir = tempfile::tempdir().unwrap();
    let text = cluster(&["kube-system"]);
    std::fs::write(dir.path().join("cluster.yaml"), &text).unwrap();
    // Not UTF-8 on disk.
    std::fs::write(dir.path().join("bad.yaml"), b"kind: \xff\xfe\n").unwrap();
    let u = uri(&dir.path().join("cluster.yaml"));
    let mut c = Client::start(dir.path(), None);
    // A change to a document never opened, and one with positions past the end.
    let stranger = Url::parse("file:///nowhere/at/all.yaml").unwrap();
    c.change(&stranger, 2, vec![edit(0, 0, 0, 0, "x")]);
    c.open(&u, &text);
    c.change(
        &u,
        2,
        vec![
            edit(900, 900, 901, 3, "# tail\n"),
            edit(0, 999, 0, 999, " "),
        ],
    );
    let ds = c.diagnostics(&u);
    assert_eq!(ds, []);
    // Hover and code actions on unknown documents answer nothing.
    let none = c.request::<HoverRequest>(HoverParams {
        text_document_position_params: TextDocumentPositionParams {
            text_document: TextDocumentIdentifier::new(stranger.clone()),
            position: Position::new(u32::MAX, u32::MAX),
        },
        work_done_progress_params: Default::default(),
    });
    assert!(none.is_none());
    // A document outside the workspace, and one with no file at all.
    let outside = tempfile::tempdir().unwrap();
    let ou = Url::from_file_path(outside.path().canonicalize().unwrap().join("c.yaml")).unwrap();
    let problem =
        std::fs::read_to_string(repo().join("examples/eksctl/problem/cluster.yaml")).unwrap();
    c.open(&ou, &problem);
    assert_eq!(
        c.diagnostics(&ou).iter().map(code).collect::<Vec<_>>(),
        ["FP001", "FP004"]
    );
    let untitled = Url::parse("untitled:Untitled-1").unwrap();
    c.open(&untitled, &problem);
    assert_eq!(
        c.diagnostics(&untitled)
            .iter()
            .map(code)
            .collect::<Vec<_>>(),
        ["FP001", "FP004"]
    );
    c.shutdown();
}

#[test]
fn the_unused_suppression_is_tagged_unnecessary_and_offers_its_fix() {
    let dir = tempfile::tempdir().unwrap();
    let text = cluster(&["kube-system # fplint: ignore[FP011]"]);
    std::fs::write(dir.path().join("cluster.yaml"), &text).unwrap();
    let u = uri(&dir.path().join("cluster.yaml"));
    let mut c = Client::start(dir.path(), None);
    c.open(&u, &text);
    let ds = c.diagnostics(&u);
    assert_eq!(ds.iter().map(code).collect::<Vec<_>>(), ["FP100"]);
    assert_eq!(ds[0].tags, Some(vec![DiagnosticTag::UNNECESSARY]));
    let actions = c
        .request::<CodeActionRequest>(CodeActionParams {
            text_document: TextDocumentIdentifier::new(u.clone()),
            range: ds[0].range,
            context: CodeActionContext::default(),
            work_done_progress_params: Default::default(),
            partial_result_params: Default::default(),
        })
        .unwrap_or_default();
    let actions: Vec<_> = actions
        .into_iter()
        .filter_map(|a| match a {
            CodeActionOrCommand::CodeAction(a) => Some(a),
            CodeActionOrCommand::Command(_) => None,
        })
        .collect();
    assert_eq!(actions.len(), 1, "the fix; no suppression of a suppression");
    assert_eq!(actions[0].is_preferred, Some(true));
    let edits: HashMap<_, _> = actions[0].edit.clone().unwrap().changes.unwrap();
    let mut fixed = text.clone();
    let mut e = edits[&u].clone();
    e.sort_by_key(|e| std::cmp::Reverse(e.range.start));
    for edit in e {
        let lines: Vec<usize> = std::iter::once(0)
            .chain(fixed.match_indices('\n').map(|(i, _)| i + 1))
            .collect();
        let at = |p: Position| lines[p.line as usize] + p.character as usize;
        fixed.replace_range(at(edit.range.start)..at(edit.range.end), &edit.new_text);
    }
    assert_eq!(fixed, cluster(&["kube-system"]));
    c.shutdown();
}

#[test]
fn a_client_that_hangs_up_stops_the_server() {
    let dir = tempfile::tempdir().unwrap();
    let c = Client::start(dir.path(), None);
    let Client { conn, server, .. } = c;
    drop(conn);
    let started = Instant::now();
    let result = server.unwrap().join().unwrap();
    assert!(result.is_ok(), "{result:?}");
    assert!(started.elapsed() < Duration::from_secs(5));
}

#[test]
fn files_changed_on_disk_and_a_new_config_are_read_again() {
    use lsp_types::notification::DidChangeWatchedFiles;
    use lsp_types::{DidChangeWatchedFilesParams, FileChangeType, FileEvent};
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cluster.yaml"), cluster(&["kube-system"])).unwrap();
    std::fs::write(dir.path().join("web.yaml"), WEB).unwrap();
    let wu = uri(&dir.path().join("web.yaml"));
    let c = Client::start(dir.path(), None);
    c.open(&wu, WEB);
    assert_eq!(
        c.diagnostics(&wu).iter().map(code).collect::<Vec<_>>(),
        ["FP011"]
    );
    let changed = |name: &str, typ| {
        c.notify::<DidChangeWatchedFiles>(DidChangeWatchedFilesParams {
            changes: vec![FileEvent::new(uri(&dir.path().join(name)), typ)],
        })
    };
    // The cluster file, edited in another program.
    std::fs::write(
        dir.path().join("cluster.yaml"),
        cluster(&["kube-system", "web"]),
    )
    .unwrap();
    changed("cluster.yaml", FileChangeType::CHANGED);
    assert_eq!(c.diagnostics(&wu), []);
    std::fs::write(dir.path().join("cluster.yaml"), cluster(&["kube-system"])).unwrap();
    changed("cluster.yaml", FileChangeType::CHANGED);
    assert_eq!(
        c.diagnostics(&wu).iter().map(code).collect::<Vec<_>>(),
        ["FP011"]
    );
    // A configuration that ignores the rule.
    std::fs::write(dir.path().join("fplint.toml"), "ignore = [\"FP011\"]\n").unwrap();
    changed("fplint.toml", FileChangeType::CREATED);
    assert_eq!(c.diagnostics(&wu), []);
    c.shutdown();
}

/// A folder whose `web.yaml` is FP011 (no profile selects `web`), and a
/// configuration beside it, under another name, that ignores FP011.
fn fp011_project() -> (tempfile::TempDir, Url) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("cluster.yaml"), cluster(&["kube-system"])).unwrap();
    std::fs::write(dir.path().join("web.yaml"), WEB).unwrap();
    std::fs::create_dir(dir.path().join("lint")).unwrap();
    std::fs::write(dir.path().join("lint/quiet.toml"), "ignore = [\"FP011\"]\n").unwrap();
    let wu = uri(&dir.path().join("web.yaml"));
    (dir, wu)
}

fn codes(ds: &[Diagnostic]) -> Vec<&str> {
    ds.iter().map(code).collect()
}

#[test]
fn initialization_options_choose_the_rules_and_the_config() {
    let (dir, wu) = fp011_project();
    let cases = [
        (serde_json::json!({}), vec!["FP011"]),
        (serde_json::json!({ "ignore": ["FP011"] }), vec![]),
        (serde_json::json!({ "select": ["FP001"] }), vec![]),
        // An empty selection is the editor's unset list: every rule.
        (
            serde_json::json!({ "select": [], "ignore": [] }),
            vec!["FP011"],
        ),
        // Relative to the workspace folder, instead of the nearest fplint.toml.
        (serde_json::json!({ "config": "lint/quiet.toml" }), vec![]),
        // VS Code's shape: the `fplint` section.
        (
            serde_json::json!({ "fplint": { "ignore": ["FP011"] } }),
            vec![],
        ),
        // An empty path is no path.
        (serde_json::json!({ "config": "" }), vec!["FP011"]),
    ];
    for (mut options, want) in cases {
        if options.get("fplint").is_some() {
            options["fplint"]["debounceMs"] = 10.into();
        } else {
            options["debounceMs"] = 10.into();
        }
        let c = Client::start_with(dir.path(), None, options.clone());
        c.open(&wu, WEB);
        assert_eq!(codes(&c.diagnostics(&wu)), want, "{options}");
        c.shutdown();
    }
}

#[test]
fn a_settings_change_checks_the_open_documents_again() {
    use lsp_types::notification::DidChangeConfiguration;
    use lsp_types::DidChangeConfigurationParams;
    let (dir, wu) = fp011_project();
    let c = Client::start(dir.path(), None);
    c.open(&wu, WEB);
    assert_eq!(codes(&c.diagnostics(&wu)), ["FP011"]);
    let set = |settings: serde_json::Value| {
        c.notify::<DidChangeConfiguration>(DidChangeConfigurationParams { settings });
    };
    // As VS Code sends them: the whole section, other keys and all.
    set(serde_json::json!({ "fplint": {
        "path": "fplint", "args": ["server"], "trace": { "server": "off" },
        "config": "", "select": [], "ignore": ["FP011"], "debounceMs": 10,
    }}));
    assert_eq!(c.diagnostics(&wu), []);
    set(serde_json::json!({ "fplint": { "ignore": [], "debounceMs": 10 } }));
    assert_eq!(codes(&c.diagnostics(&wu)), ["FP011"]);
    // A signal with no settings keeps the last ones.
    set(serde_json::Value::Null);
    let config = dir.path().join("lint/quiet.toml");
    set(serde_json::json!({ "config": config, "debounceMs": 10 }));
    assert_eq!(c.diagnostics(&wu), []);
    // The configured file is watched as fplint.toml is.
    std::fs::write(&config, "ignore = []\n").unwrap();
    c.notify::<lsp_types::notification::DidChangeWatchedFiles>(
        lsp_types::DidChangeWatchedFilesParams {
            changes: vec![lsp_types::FileEvent::new(
                uri(&config),
                lsp_types::FileChangeType::CHANGED,
            )],
        },
    );
    assert_eq!(codes(&c.diagnostics(&wu)), ["FP011"]);
    c.shutdown();
}

#[test]
fn a_config_setting_that_cannot_be_read_is_shown_and_the_defaults_apply() {
    let (dir, wu) = fp011_project();
    let c = Client::start_with(
        dir.path(),
        None,
        serde_json::json!({ "config": "missing.toml", "debounceMs": 10 }),
    );
    c.open(&wu, WEB);
    let shown = loop {
        if let Message::Notification(n) = c.recv() {
            if n.method == lsp_types::notification::ShowMessage::METHOD {
                break serde_json::from_value::<lsp_types::ShowMessageParams>(n.params).unwrap();
            }
        }
    };
    assert_eq!(shown.typ, lsp_types::MessageType::ERROR);
    assert!(shown.message.contains("missing.toml"), "{}", shown.message);
    assert_eq!(codes(&c.diagnostics(&wu)), ["FP011"]);
    c.shutdown();
}

/// A Terragrunt unit that runs `src/fargate`, whose CoreDNS has no
/// Fargate profile and keeps the EC2 compute type.
fn terragrunt_project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join(".git")).unwrap();
    std::fs::create_dir_all(dir.path().join("envs/fargate")).unwrap();
    std::fs::create_dir_all(dir.path().join("src/fargate")).unwrap();
    std::fs::write(
        dir.path().join("envs/fargate/terragrunt.hcl"),
        "terraform {\n  source = \"../../src/fargate\"\n}\n\ninputs = {\n  cluster_name = \"beacon\"\n}\n",
    )
    .unwrap();
    std::fs::write(
        dir.path().join("src/fargate/main.tf"),
        "variable \"cluster_name\" {\n  type = string\n}\n\nmodule \"eks\" {\n  source  = \"terraform-aws-modules/eks/aws\"\n  version = \"~> 20.0\"\n\n  cluster_name    = var.cluster_name\n  cluster_version = \"1.30\"\n  vpc_id          = \"vpc-0abc\"\n  subnet_ids      = [\"subnet-0a1\", \"subnet-0b2\"]\n\n  cluster_addons = {\n    coredns = {}\n  }\n\n  fargate_profiles = {\n    apps = {\n      selectors = [{ namespace = \"apps\" }]\n    }\n  }\n}\n",
    )
    .unwrap();
    dir
}

#[test]
fn an_open_terragrunt_unit_gets_the_findings_check_gives() {
    // `fplint check .` reports FP005 and FP006 once each, in the module's
    // code, for cluster `beacon`; the editor with the unit open agrees,
    // whether its folder is the repository or the unit's own.
    let dir = terragrunt_project();
    let unit = dir.path().join("envs/fargate/terragrunt.hcl");
    let module = uri(&dir.path().join("src/fargate/main.tf"));
    let text = std::fs::read_to_string(&unit).unwrap();
    for root in [dir.path().to_path_buf(), dir.path().join("envs/fargate")] {
        let c = Client::start(&root, None);
        let uu = uri(&unit);
        c.notify::<DidOpenTextDocument>(DidOpenTextDocumentParams {
            text_document: TextDocumentItem::new(uu.clone(), "hcl".into(), 1, text.clone()),
        });
        let mut ds = c.diagnostics(&module);
        ds.sort_by_key(|d| d.range.start);
        let got: Vec<(&str, Range, &str)> = ds
            .iter()
            .map(|d| (code(d), d.range, d.message.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    "FP005",
                    range(8, 2, 8, 36),
                    "no Fargate selector of cluster `beacon` matches the CoreDNS pods, and the cluster has no nodes: DNS never comes up"
                ),
                (
                    "FP006",
                    range(14, 4, 14, 11),
                    "the CoreDNS add-on of cluster `beacon` does not set `computeType` to `Fargate`: the add-on schedules CoreDNS for EC2 nodes (annotation `eks.amazonaws.com/compute-type: ec2`), and the cluster has none"
                ),
            ],
            "{}",
            root.display()
        );
        c.shutdown();
    }
}
