//! `fplint server`: fplint's findings in any editor that speaks the Language
//! Server Protocol, over stdio.
//!
//! Built on `lsp-server` and `lsp-types`, as ruff and rust-analyzer are:
//! a synchronous message loop over crossbeam channels fits a linter whose
//! work is one CPU-bound check on its own thread, without an async runtime;
//! and both crates are maintained with rust-analyzer, which keeps them
//! current with the protocol.
//!
//! The reader thread (this crate's [`run`]) only routes messages: it keeps
//! the open documents' texts, answers hover and code actions from the last
//! published findings, and hands every change to one worker thread. The
//! worker waits for the typing to pause (`debounceMs`), checks each
//! workspace folder with the open documents' texts in their files' place,
//! drops a check that newer changes made stale, and publishes the findings
//! of every file whose findings changed, clearing files that became clean.
//!
//! A file that does not parse shows FP000 at the error; its other findings
//! return when it parses again.

mod convert;
mod engine;
mod text;
mod worker;

use convert::{doc_url, FileItems, Item};
use crossbeam_channel::Sender;
use fplint::core::Applicability;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    CodeAction, CodeActionKind, CodeActionOptions, CodeActionOrCommand, CodeActionParams,
    CodeActionProviderCapability, Hover, HoverContents, HoverParams, HoverProviderCapability,
    InitializeParams, InitializeResult, MarkupContent, MarkupKind, ServerCapabilities, ServerInfo,
    TextDocumentSyncCapability, TextDocumentSyncKind, TextDocumentSyncOptions,
    TextDocumentSyncSaveOptions, Url, WorkspaceEdit,
};
use serde::Deserialize;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use text::Encoding;
use worker::{Job, Published, Worker};

/// Why the server stopped other than by `shutdown` and `exit`.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The client broke the protocol (or hung up before `initialize`).
    #[error("protocol error: {0}")]
    Protocol(#[from] lsp_server::ProtocolError),
    /// Writing to or reading from the client failed.
    #[error("i/o error: {0}")]
    Io(#[from] std::io::Error),
}

/// Settings a client passes as `initializationOptions`, and again in
/// `workspace/didChangeConfiguration` when the user changes them.
#[derive(Debug, Clone, Deserialize, PartialEq)]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    /// Quiet time after the last change before a check, in milliseconds.
    pub debounce_ms: u64,
    /// The configuration file to use instead of the nearest `fplint.toml`;
    /// a relative path is taken from each workspace folder.
    pub config: Option<PathBuf>,
    /// Rule codes or prefixes to run (default: all, or the config's).
    pub select: Option<Vec<String>>,
    /// Rule codes or prefixes to skip.
    pub ignore: Vec<String>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            debounce_ms: 75,
            config: None,
            select: None,
            ignore: Vec::new(),
        }
    }
}

impl Settings {
    /// The settings in a client's value: the object itself, or its `fplint`
    /// member (VS Code sends the whole `fplint` section under that name).
    /// `None` when the value holds no settings object or a malformed one.
    fn from_value(value: serde_json::Value) -> Option<Settings> {
        let mut value = value;
        if let Some(inner) = value.get_mut("fplint").filter(|v| v.is_object()) {
            value = inner.take();
        }
        if !value.is_object() {
            return None;
        }
        let mut settings: Settings = serde_json::from_value(value).ok()?;
        // An empty path or selection is the editor's way of saying "unset".
        settings.config = settings.config.filter(|p| !p.as_os_str().is_empty());
        settings.select = settings.select.filter(|s| !s.is_empty());
        Some(settings)
    }
}

/// Serve over stdin and stdout until the client says `exit` or hangs up.
pub fn run_stdio() -> Result<(), ServerError> {
    let (connection, io_threads) = Connection::stdio();
    run(connection)?;
    match io_threads.join() {
        // A client that hung up without `exit` is not our error.
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        other => Ok(other?),
    }
}

/// Serve one client over `connection`: the handshake, then messages until
/// `exit` or until the client hangs up.
pub fn run(connection: Connection) -> Result<(), ServerError> {
    let (id, params) = connection.initialize_start()?;
    let params: InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let enc = Encoding::negotiate(
        params
            .capabilities
            .general
            .as_ref()
            .and_then(|g| g.position_encodings.as_deref()),
    );
    let settings = params
        .initialization_options
        .clone()
        .and_then(Settings::from_value)
        .unwrap_or_default();
    let result = InitializeResult {
        capabilities: capabilities(enc),
        server_info: Some(ServerInfo {
            name: "fplint".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    };
    connection.initialize_finish(id, serde_json::to_value(result).unwrap_or_default())?;

    let published: Published = Arc::new(Mutex::new(HashMap::new()));
    let (jobs, rx) = crossbeam_channel::unbounded();
    let roots = roots(&params);
    let worker = Worker::new(
        connection.sender.clone(),
        enc,
        settings,
        roots.clone(),
        published.clone(),
    );
    let handle = std::thread::Builder::new()
        .name("fplint-check".into())
        .spawn(move || worker.run(rx))?;
    let mut server = Server {
        enc,
        roots,
        docs: HashMap::new(),
        jobs,
        published,
        out: connection.sender.clone(),
    };
    let outcome = server.serve(&connection);
    // The worker ends when its channel closes, after the check under way.
    drop(server);
    let _ = handle.join();
    outcome
}

fn capabilities(enc: Encoding) -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(enc.kind()),
        text_document_sync: Some(TextDocumentSyncCapability::Options(
            TextDocumentSyncOptions {
                open_close: Some(true),
                change: Some(TextDocumentSyncKind::INCREMENTAL),
                save: Some(TextDocumentSyncSaveOptions::Supported(true)),
                ..TextDocumentSyncOptions::default()
            },
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        workspace: Some(lsp_types::WorkspaceServerCapabilities {
            workspace_folders: Some(lsp_types::WorkspaceFoldersServerCapabilities {
                supported: Some(true),
                change_notifications: Some(lsp_types::OneOf::Left(true)),
            }),
            file_operations: None,
        }),
        ..ServerCapabilities::default()
    }
}

/// The workspace folders, or the root URI of an older client.
fn roots(params: &InitializeParams) -> Vec<PathBuf> {
    let folders: Vec<PathBuf> = params
        .workspace_folders
        .iter()
        .flatten()
        .filter_map(|f| f.uri.to_file_path().ok())
        .collect();
    if !folders.is_empty() {
        return folders;
    }
    #[allow(deprecated)]
    params
        .root_uri
        .as_ref()
        .and_then(|u| u.to_file_path().ok())
        .into_iter()
        .collect()
}

/// An open document as the client has it.
struct Doc {
    text: String,
    version: i32,
    path: Option<PathBuf>,
}

/// The reader thread's state.
struct Server {
    enc: Encoding,
    roots: Vec<PathBuf>,
    docs: HashMap<Url, Doc>,
    jobs: Sender<Job>,
    published: Published,
    out: crossbeam_channel::Sender<Message>,
}

impl Server {
    fn serve(&mut self, connection: &Connection) -> Result<(), ServerError> {
        for msg in &connection.receiver {
            match msg {
                Message::Request(req) => {
                    if connection.handle_shutdown(&req)? {
                        return Ok(());
                    }
                    let response = self.request(req);
                    if self.out.send(response.into()).is_err() {
                        return Ok(());
                    }
                }
                Message::Notification(n) if n.method == "exit" => return Ok(()),
                Message::Notification(n) => self.notification(n),
                Message::Response(_) => {}
            }
        }
        // The client hung up.
        Ok(())
    }

    fn request(&self, req: Request) -> Response {
        let id = req.id.clone();
        match req.method.as_str() {
            lsp_types::request::HoverRequest::METHOD => match serde_json::from_value(req.params) {
                Ok(p) => ok(id, &self.hover(p)),
                Err(e) => invalid(id, &e),
            },
            lsp_types::request::CodeActionRequest::METHOD => {
                match serde_json::from_value(req.params) {
                    Ok(p) => ok(id, &self.code_actions(p)),
                    Err(e) => invalid(id, &e),
                }
            }
            _ => Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("fplint does not answer {}", req.method),
            ),
        }
    }

    fn notification(&mut self, n: Notification) {
        use lsp_types::notification as n_;
        match n.method.as_str() {
            n_::DidOpenTextDocument::METHOD => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(n.params)
                else {
                    return;
                };
                let d = p.text_document;
                let path = d.uri.to_file_path().ok().map(|p| worker::canonical(&p));
                self.docs.insert(
                    d.uri.clone(),
                    Doc {
                        text: d.text,
                        version: d.version,
                        path,
                    },
                );
                self.send_update(&d.uri, true);
            }
            n_::DidChangeTextDocument::METHOD => {
                let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(n.params)
                else {
                    return;
                };
                let uri = p.text_document.uri;
                let Some(doc) = self.docs.get_mut(&uri) else {
                    return;
                };
                for change in p.content_changes {
                    text::apply_change(&mut doc.text, change, self.enc);
                }
                doc.version = p.text_document.version;
                self.send_update(&uri, false);
            }
            n_::DidSaveTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidSaveTextDocumentParams>(n.params)
                {
                    let path = self
                        .docs
                        .get(&p.text_document.uri)
                        .and_then(|d| d.path.clone());
                    let _ = self.jobs.send(Job::Saved { path });
                }
            }
            n_::DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(n.params)
                {
                    let uri = p.text_document.uri;
                    if let Some(doc) = self.docs.remove(&uri) {
                        let _ = self.jobs.send(Job::Close {
                            uri,
                            path: doc.path,
                        });
                    }
                }
            }
            n_::DidChangeWatchedFiles::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeWatchedFilesParams>(n.params)
                {
                    let paths = p
                        .changes
                        .iter()
                        .filter_map(|c| c.uri.to_file_path().ok())
                        .map(|p| worker::canonical(&p))
                        .collect();
                    let rescan = p
                        .changes
                        .iter()
                        .any(|c| c.typ != lsp_types::FileChangeType::CHANGED);
                    let _ = self.jobs.send(Job::DiskChanged { paths, rescan });
                }
            }
            n_::DidChangeConfiguration::METHOD => {
                // A client that only signals a change (null settings) keeps
                // what it gave at the start.
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeConfigurationParams>(n.params)
                {
                    if let Some(settings) = Settings::from_value(p.settings) {
                        let _ = self.jobs.send(Job::Settings(settings));
                    }
                }
            }
            n_::DidChangeWorkspaceFolders::METHOD => {
                if let Ok(p) =
                    serde_json::from_value::<lsp_types::DidChangeWorkspaceFoldersParams>(n.params)
                {
                    let gone: Vec<PathBuf> = p
                        .event
                        .removed
                        .iter()
                        .filter_map(|f| f.uri.to_file_path().ok())
                        .collect();
                    self.roots.retain(|r| !gone.contains(r));
                    self.roots.extend(
                        p.event
                            .added
                            .iter()
                            .filter_map(|f| f.uri.to_file_path().ok()),
                    );
                    let _ = self.jobs.send(Job::Roots(self.roots.clone()));
                }
            }
            _ => {}
        }
    }

    fn send_update(&self, uri: &Url, opened: bool) {
        if let Some(doc) = self.docs.get(uri) {
            let _ = self.jobs.send(Job::Update {
                uri: uri.clone(),
                path: doc.path.clone(),
                version: doc.version,
                text: Arc::from(doc.text.as_str()),
                opened,
            });
        }
    }

    /// The findings of a document as the client sees it now: none while
    /// they describe an older version.
    fn current(&self, uri: &Url) -> Vec<Item> {
        let published = self.published.lock().unwrap_or_else(|e| e.into_inner());
        let Some(FileItems { version, items }) = published.get(uri) else {
            return Vec::new();
        };
        let now = self.docs.get(uri).map(|d| d.version);
        if version.is_some() && *version != now {
            return Vec::new();
        }
        items.clone()
    }

    fn hover(&self, p: HoverParams) -> Option<Hover> {
        let uri = &p.text_document_position_params.text_document.uri;
        let pos = p.text_document_position_params.position;
        let items = self.current(uri);
        let hits: Vec<&Item> = items
            .iter()
            .filter(|i| text::contains(&i.diagnostic.range, pos))
            .collect();
        let first = hits.first()?;
        let value = hits
            .iter()
            .map(|i| hover_text(i))
            .collect::<Vec<_>>()
            .join("\n\n---\n\n");
        Some(Hover {
            contents: HoverContents::Markup(MarkupContent {
                kind: MarkupKind::Markdown,
                value,
            }),
            range: Some(first.diagnostic.range),
        })
    }

    fn code_actions(&self, p: CodeActionParams) -> Vec<CodeActionOrCommand> {
        let uri = &p.text_document.uri;
        let mut out = Vec::new();
        for item in self.current(uri) {
            if !text::overlaps(&item.diagnostic.range, &p.range) {
                continue;
            }
            if let Some((title, applicability, edit)) = &item.fix {
                let safe = *applicability == Applicability::Safe;
                out.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: if safe {
                        format!("{}: {title}", item.code)
                    } else {
                        format!(
                            "{}: {title} (unsafe: changes what gets deployed)",
                            item.code
                        )
                    },
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![item.diagnostic.clone()]),
                    edit: Some(edit.clone()),
                    is_preferred: Some(safe),
                    ..CodeAction::default()
                }));
            }
            if let Some(edit) = &item.suppress {
                let changes = HashMap::from([(uri.clone(), vec![edit.clone()])]);
                out.push(CodeActionOrCommand::CodeAction(CodeAction {
                    title: format!("Suppress {} on this line", item.code),
                    kind: Some(CodeActionKind::QUICKFIX),
                    diagnostics: Some(vec![item.diagnostic.clone()]),
                    edit: Some(WorkspaceEdit::new(changes)),
                    ..CodeAction::default()
                }));
            }
        }
        out
    }
}

/// A finding's hover: the rule, what is wrong, what to do, and the doc's
/// "How to fix".
fn hover_text(item: &Item) -> String {
    let mut s = String::new();
    match fplint::rules::find(item.code) {
        Some(rule) => {
            s.push_str(&format!(
                "**{}** `{}`: {}\n\n",
                rule.code, rule.name, rule.summary
            ));
        }
        None => s.push_str(&format!("**{}**\n\n", item.code)),
    }
    s.push_str(&item.diagnostic.message);
    s.push_str("\n\n");
    if let Some(help) = &item.help {
        s.push_str(&format!("help: {help}\n\n"));
    }
    if let Some(fix) = fplint::rules::find(item.code).and_then(|r| section(r.doc, "How to fix")) {
        s.push_str("**How to fix**\n\n");
        s.push_str(fix);
        s.push_str("\n\n");
    }
    if let Some(url) = doc_url(item.code) {
        s.push_str(&format!("[{} documentation]({url})", item.code));
    }
    s
}

/// The body of a `## heading` section of a rule doc.
fn section<'a>(doc: &'a str, heading: &str) -> Option<&'a str> {
    let start = doc.find(&format!("\n## {heading}\n"))? + heading.len() + 5;
    let body = doc.get(start..)?;
    let end = body.find("\n## ").unwrap_or(body.len());
    Some(body[..end].trim())
}

fn ok<T: serde::Serialize>(id: RequestId, result: &T) -> Response {
    Response::new_ok(id, serde_json::to_value(result).unwrap_or_default())
}

fn invalid(id: RequestId, e: &serde_json::Error) -> Response {
    Response::new_err(id, ErrorCode::InvalidParams as i32, e.to_string())
}
