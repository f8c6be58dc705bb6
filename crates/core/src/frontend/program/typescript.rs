//! TypeScript and JavaScript programs (CDK, Pulumi) read with oxc's parser
//! and lowered to [`syntax`](super::syntax). Each syntax error is an FP000
//! at its place; when oxc cannot recover from one, the line it is on is
//! blanked and the file parsed again, so the statements around it are still
//! read. The innermost expression or statement that held the blanked line
//! is unknown (`Other` between statements), never a node without it.
//!
//! TypeScript specifics the lowering settles, so the evaluator need not:
//! - `const x = require('m')` and `import x = require('m')` are namespace
//!   imports; `const { a, b: c } = require('m')` named ones. Type-only
//!   imports bind nothing at run time and are left out.
//! - Destructuring binds each name to a member (`const { a } = o` is
//!   `a = o.a`) or index (`const [a] = xs` is `a = xs[0]`) of the value,
//!   written once per name. A default, a rest or a computed key makes the
//!   declarator `Other`. A destructured parameter keeps its pattern's text
//!   as its name, and its names are bound the same way at the start of the
//!   body.
//! - Constructor parameter properties (`private readonly x: T`) stay
//!   parameters, and the constructor assigns them (`this.x = x`) after its
//!   `super(…)` call, followed by the class's property initialisers
//!   (`readonly x = …` as `this.x = …`), in TypeScript's order. A class with
//!   initialisers and no constructor gets one (`constructor(...args) {
//!   super(...args); … }` when it extends another class).
//! - `super` is the name `super`; `a?.b` is `a.b`; `obj['k']` is an index.
//! - `export { a }` marks the top-level `a` exported.
//! - What an async function or generator returns is unknown (a promise or
//!   an iterator, not its `return` value); its statements are read.

use super::syntax::{
    Arg, Expr, ExprKind, Function, Imported, Item, Name, Param, Prop, Stmt, TemplatePart,
};
use super::Parsed;
use crate::diagnostic::Diagnostic;
use crate::source::{FileId, Span};
use crate::tree::Limits;
use oxc_allocator::Allocator;
use oxc_ast::ast;
use oxc_parser::{ParseOptions, Parser};
use oxc_span::{GetSpan, SourceType};

/// Syntax errors reported per file; past that many the file is noise.
const MAX_ERRORS: usize = 20;

/// oxc's parser recurses as deep as the program nests; past this many
/// levels (estimated before parsing) it could exhaust even a large stack,
/// so the file is not parsed.
const PARSER_DEPTH: usize = 8_000;

/// Parse and lower one TypeScript or JavaScript file; `path` picks the
/// dialect (`.ts`, `.tsx`, `.js`, `.mjs`, `.cjs`, …; TypeScript when
/// unknown). The parser and the lowering recurse as deep as the program
/// nests, so they run on a large stack.
pub fn parse(text: &str, file: FileId, path: &str, limits: &Limits) -> Parsed {
    crate::stack::with_large_stack(|| parse_here(text, file, path, limits))
}

/// The dialect a path names.
fn source_type(path: &str) -> SourceType {
    let lower = path.to_ascii_lowercase();
    match SourceType::from_path(&lower) {
        // CommonJS or an ES module: `import`/`export` tell.
        Ok(st) if lower.ends_with(".js") => st.with_unambiguous(true),
        Ok(st) => st,
        Err(_) => SourceType::ts(),
    }
}

fn parse_here(text: &str, file: FileId, path: &str, limits: &Limits) -> Parsed {
    let mut out = Parsed::default();
    let st = source_type(path);
    // Every level takes a byte at least: a shorter file cannot exceed it.
    let max = PARSER_DEPTH.max(limits.max_depth);
    let deep = if text.len() > max {
        nesting_exceeds(text, max)
    } else {
        None
    };
    if let Some(at) = deep {
        let span = Span::new(file, at, (at + 1).min(text.len()));
        out.diagnostics.push(super::too_deep(limits, span));
        return out;
    }
    let options = ParseOptions {
        preserve_parens: false,
        allow_return_outside_function: true,
        ..ParseOptions::default()
    };
    let language = if st.is_typescript() {
        "TypeScript"
    } else {
        "JavaScript"
    };
    let help = "fix the syntax error; fplint reads the rest of the program as written";
    let mut seen: Vec<(u32, String)> = Vec::new();
    let mut current = std::borrow::Cow::Borrowed(text);
    let mut lower = Lower {
        text,
        file,
        max_depth: limits.max_depth,
        depth: 0,
        too_deep: None,
        blanked: Vec::new(),
    };
    for attempt in 0.. {
        let allocator = Allocator::default();
        let ret = Parser::new(&allocator, &current, st)
            .with_options(options)
            .parse();
        let mut first = None;
        for e in &ret.errors {
            let label = e.labels.as_ref().and_then(|l| l.first());
            let (start, len) = label.map_or((0, 0), |l| (l.offset(), l.len()));
            let start = start.min(text.len());
            let end = (start + len.max(1)).min(text.len());
            first.get_or_insert(start);
            let message = format!("invalid {language}: {}", e.message);
            let key = (u32::try_from(start).unwrap_or(u32::MAX), message);
            if seen.contains(&key) || seen.len() >= MAX_ERRORS {
                continue;
            }
            let label = label
                .and_then(|l| l.label())
                .filter(|l| !l.is_empty())
                .unwrap_or("here")
                .to_string();
            out.diagnostics.push(
                Diagnostic::parse_error(key.1.clone(), Span::new(file, start, end))
                    .with_label(label)
                    .with_help(help),
            );
            seen.push(key);
        }
        let blank = match first {
            Some(at) if ret.panicked && attempt < MAX_ERRORS => blank_line(&current, at),
            _ => None,
        };
        match blank {
            Some((next, range)) => {
                drop(ret);
                current = std::borrow::Cow::Owned(next);
                lower.blanked.push(range);
            }
            None => {
                let mut body = Vec::new();
                lower.stmts(&ret.program.body, true, text.len(), &mut body);
                mark_exports(&ret.program.body, &mut body);
                out.module.body = body;
                break;
            }
        }
    }
    if let Some(span) = lower.too_deep {
        out.diagnostics.push(super::too_deep(limits, span));
    }
    out
}

/// `text` with the line holding byte `at` blanked (same length, so spans
/// still point into the original) and the line's range, or `None` when it
/// holds only blanks.
fn blank_line(text: &str, at: usize) -> Option<(String, Blanked)> {
    let bytes = text.as_bytes();
    let at = at.min(bytes.len());
    let start = bytes[..at]
        .iter()
        .rposition(|b| *b == b'\n')
        .map_or(0, |i| i + 1);
    let end = bytes[at..]
        .iter()
        .position(|b| *b == b'\n')
        .map_or(bytes.len(), |i| at + i);
    if bytes[start..end].iter().all(u8::is_ascii_whitespace) {
        return None;
    }
    let mut out = Vec::with_capacity(bytes.len());
    out.extend_from_slice(&bytes[..start]);
    out.extend(std::iter::repeat_n(b' ', end - start));
    out.extend_from_slice(&bytes[end..]);
    // Whole characters were replaced by ASCII blanks.
    let text = String::from_utf8(out).ok()?;
    Some((
        text,
        Blanked {
            start,
            end,
            claimed: false,
        },
    ))
}

/// A line blanked to get past a syntax error. The innermost node that
/// held it is lowered as unknown (an expression) or `Other` (a statement),
/// and a line between statements becomes an `Other` there: what was on it
/// is not known, and unknown never fires.
struct Blanked {
    start: usize,
    end: usize,
    /// Already stood for by a node.
    claimed: bool,
}

/// Keywords that nest what follows them (`if (a) if (b) …`, `new new X`,
/// `typeof typeof x`, `keyof keyof T`).
const NESTING_WORDS: &[&[u8]] = &[
    b"if",
    b"else",
    b"new",
    b"typeof",
    b"void",
    b"await",
    b"delete",
    b"yield",
    b"while",
    b"for",
    b"do",
    b"with",
    b"keyof",
    b"readonly",
    b"infer",
    b"unique",
    b"async",
];

/// Operators that nest what follows them (`a = b = …`, `a ? b : c ? …`,
/// `!!…`, `- -…`, `x => y => …`, `A<B<…>>`, decorators).
fn nesting_operator(b: u8) -> bool {
    matches!(
        b,
        b'=' | b'?' | b'!' | b'~' | b':' | b'-' | b'+' | b'<' | b'@'
    )
}

/// Operators that only continue an expression (`a.b`, `a * b`, `a > b`).
fn continuing_operator(b: u8) -> bool {
    matches!(b, b'.' | b'*' | b'/' | b'%' | b'&' | b'|' | b'^' | b'>')
}

fn word_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'$' || b >= 0x80
}

/// One open bracket of [`nesting_exceeds`].
struct Level {
    /// Nesting operators and keywords counted at this level since the
    /// chain last ended.
    chain: usize,
    /// A template's `${`: its `}` returns to the template's text, whose
    /// bracket depth so far is `text_depth`.
    template: bool,
    text_depth: usize,
}

/// Where the program's nesting, estimated before parsing, passes `max`:
/// brackets and template interpolations, plus the operators and keywords
/// that nest without brackets, counted until a `;`, `,`, a statement
/// keyword or a line break between two complete tokens ends the chain.
/// Brackets inside strings and template text count while the string lasts:
/// a quote in a regex (`/'/`) may start what the scan takes for a string,
/// and what follows must not escape the count.
fn nesting_exceeds(text: &str, max: usize) -> Option<usize> {
    #[derive(PartialEq)]
    enum Mode {
        Code,
        Str(u8),
        Template,
    }
    let mut levels = vec![Level {
        chain: 0,
        template: false,
        text_depth: 0,
    }];
    let mut total = 0usize; // open levels plus their chains
    let mut text_depth = 0usize; // brackets open in the current string
    let mut mode = Mode::Code;
    // The last token ends an operand (a name, literal or closing bracket)
    // rather than an operator or nesting keyword.
    let mut complete = false;
    let bytes = text.as_bytes();
    let mut i = 0;
    let reset = |levels: &mut Vec<Level>, total: &mut usize| {
        if let Some(level) = levels.last_mut() {
            *total -= level.chain;
            level.chain = 0;
        }
    };
    while i < bytes.len() {
        let b = bytes[i];
        if mode != Mode::Code {
            match b {
                b'\\' => i += 1,
                b'(' | b'[' | b'{' => text_depth += 1,
                b')' | b']' | b'}' => text_depth = text_depth.saturating_sub(1),
                b'`' if mode == Mode::Template => {
                    mode = Mode::Code;
                    text_depth = 0;
                    complete = true;
                }
                b'$' if mode == Mode::Template && bytes.get(i + 1) == Some(&b'{') => {
                    mode = Mode::Code;
                    complete = false;
                    i += 1;
                    levels.push(Level {
                        chain: 0,
                        template: true,
                        text_depth,
                    });
                    text_depth = 0;
                    total += 1;
                }
                // A quoted string ends at its quote or, unterminated, at
                // the line's end.
                b'\n' if mode != Mode::Template => {
                    mode = Mode::Code;
                    text_depth = 0;
                    continue;
                }
                q if mode == Mode::Str(q) => {
                    mode = Mode::Code;
                    text_depth = 0;
                    complete = true;
                }
                _ => {}
            }
            i += 1;
            if total + text_depth > max {
                return Some(i.min(bytes.len()));
            }
            continue;
        }
        match b {
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
                continue;
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    i += 1;
                }
                i += 2;
                continue;
            }
            b'\n' => {
                // A line that ends an operand, followed by one that starts
                // with a name that nests nothing: a new statement.
                let mut j = i + 1;
                while j < bytes.len() && bytes[j].is_ascii_whitespace() {
                    j += 1;
                }
                let word_end = bytes[j..]
                    .iter()
                    .position(|c| !word_byte(*c))
                    .map_or(bytes.len(), |k| j + k);
                let word = &bytes[j..word_end];
                let starts_operand = word_end > j && !NESTING_WORDS.contains(&word)
                    || matches!(bytes.get(j), Some(b'\'' | b'"'));
                if complete && starts_operand {
                    reset(&mut levels, &mut total);
                }
            }
            b'\'' | b'"' => mode = Mode::Str(b),
            b'`' => mode = Mode::Template,
            b'(' | b'[' | b'{' => {
                levels.push(Level {
                    chain: 0,
                    template: false,
                    text_depth: 0,
                });
                total += 1;
                complete = false;
            }
            b')' | b']' | b'}' => {
                if levels.len() > 1 {
                    if let Some(level) = levels.pop() {
                        total -= level.chain + 1;
                        if level.template && b == b'}' {
                            mode = Mode::Template;
                            text_depth = level.text_depth;
                        }
                    }
                }
                complete = true;
            }
            b';' | b',' => {
                reset(&mut levels, &mut total);
                complete = false;
            }
            c if nesting_operator(c) => {
                if let Some(level) = levels.last_mut() {
                    level.chain += 1;
                    total += 1;
                }
                complete = false;
            }
            c if continuing_operator(c) => complete = false,
            c if word_byte(c) => {
                let start = i;
                while i < bytes.len() && word_byte(bytes[i]) {
                    i += 1;
                }
                let word = &bytes[start..i];
                complete = true;
                match word {
                    b"const" | b"let" | b"var" | b"export" | b"return" => {
                        reset(&mut levels, &mut total);
                        complete = false;
                    }
                    w if NESTING_WORDS.contains(&w) => {
                        if let Some(level) = levels.last_mut() {
                            level.chain += 1;
                            total += 1;
                        }
                        complete = false;
                    }
                    _ => {}
                }
                if total > max {
                    return Some(start);
                }
                continue;
            }
            _ => {}
        }
        if total > max {
            return Some(i.min(bytes.len()));
        }
        i += 1;
    }
    None
}

/// `export { a, b }` marks the top-level `a` and `b` exported.
fn mark_exports(program: &[ast::Statement], body: &mut [Stmt]) {
    let mut names = Vec::new();
    for s in program {
        if let ast::Statement::ExportNamedDeclaration(e) = s {
            if e.declaration.is_none() && e.source.is_none() && !e.export_kind.is_type() {
                for spec in &e.specifiers {
                    let local = spec.local.name();
                    if local == spec.exported.name() {
                        names.push(local.to_string());
                    }
                }
            }
        }
    }
    if names.is_empty() {
        return;
    }
    for s in body {
        match s {
            Stmt::Let { name, exported, .. } | Stmt::Class { name, exported, .. }
                if names.contains(&name.text) =>
            {
                *exported = true;
            }
            _ => {}
        }
    }
}

/// The text of a template chunk, or `None` when it has an invalid escape.
fn cooked(q: &ast::TemplateElement) -> Option<String> {
    if q.lone_surrogates {
        return None;
    }
    q.value.cooked.as_ref().map(|c| c.to_string())
}

/// A numeric key as JavaScript names it (`1` and `1.0` are `"1"`).
fn number_key(value: f64) -> Option<String> {
    let max = 9_007_199_254_740_992.0; // 2^53
    (value.fract() == 0.0 && value.abs() < max).then(|| format!("{}", value as i64))
}

struct Lower<'a> {
    text: &'a str,
    file: FileId,
    max_depth: usize,
    depth: usize,
    /// Where nesting first passed the limit.
    too_deep: Option<Span>,
    /// Lines blanked to get past syntax errors.
    blanked: Vec<Blanked>,
}

impl Lower<'_> {
    /// Claim the unclaimed blanked lines that `test` accepts; whether any was.
    fn claim(&mut self, test: impl Fn(&Blanked) -> bool) -> bool {
        let mut any = false;
        for b in &mut self.blanked {
            if !b.claimed && test(b) {
                b.claimed = true;
                any = true;
            }
        }
        any
    }

    /// Blanked lines before `end` not yet stood for: an `Other` each.
    fn blanked_before(&mut self, end: usize, out: &mut Vec<Stmt>) {
        if self.blanked.is_empty() {
            return;
        }
        for b in &mut self.blanked {
            if !b.claimed && b.start < end {
                b.claimed = true;
                out.push(Stmt::Other {
                    span: Span::new(self.file, b.start, b.end),
                });
            }
        }
    }

    fn span(&self, s: oxc_span::Span) -> Span {
        Span::new(self.file, s.start as usize, s.end as usize)
    }

    fn src(&self, s: oxc_span::Span) -> &str {
        self.text
            .get(s.start as usize..s.end as usize)
            .unwrap_or("")
    }

    fn name(&self, text: &str, s: oxc_span::Span) -> Name {
        Name {
            text: text.to_string(),
            span: self.span(s),
        }
    }

    fn unknown(&self, s: oxc_span::Span) -> Expr {
        Expr {
            kind: ExprKind::Unknown,
            span: self.span(s),
        }
    }

    /// One more level of nesting, or `false` (and the place noted) past the limit.
    fn enter(&mut self, s: oxc_span::Span) -> bool {
        if self.depth >= self.max_depth {
            if self.too_deep.is_none() {
                self.too_deep = Some(self.span(s));
            }
            return false;
        }
        self.depth += 1;
        true
    }

    /// The statements of a list that ends at byte `end`.
    fn stmts(&mut self, body: &[ast::Statement], top: bool, end: usize, out: &mut Vec<Stmt>) {
        for s in body {
            self.blanked_before(s.span().start as usize, out);
            self.stmt(s, top, false, out);
        }
        self.blanked_before(end, out);
    }

    /// A statement's body as a list (a block's statements, or the one).
    fn body(&mut self, s: &ast::Statement, top: bool) -> Vec<Stmt> {
        let mut out = Vec::new();
        match s {
            ast::Statement::BlockStatement(b) => {
                if self.enter(b.span) {
                    self.stmts(&b.body, top, b.span.end as usize, &mut out);
                    self.depth -= 1;
                } else {
                    out.push(Stmt::Other {
                        span: self.span(b.span),
                    });
                }
            }
            other => self.stmt(other, top, false, &mut out),
        }
        out
    }

    /// `top`: at the top of the module (a declaration there may be
    /// exported); `exported`: under `export`.
    fn stmt(&mut self, s: &ast::Statement, top: bool, exported: bool, out: &mut Vec<Stmt>) {
        let span = s.span();
        if !self.enter(span) {
            out.push(Stmt::Other {
                span: self.span(span),
            });
            return;
        }
        let before = out.len();
        self.stmt_inner(s, top, exported, out);
        self.depth -= 1;
        let (start, end) = (span.start as usize, span.end as usize);
        if !self.blanked.is_empty() && self.claim(|b| b.start < end && b.end > start) {
            out.truncate(before);
            out.push(Stmt::Other {
                span: self.span(span),
            });
        }
    }

    fn stmt_inner(&mut self, s: &ast::Statement, top: bool, exported: bool, out: &mut Vec<Stmt>) {
        use ast::Statement as S;
        let span = self.span(s.span());
        match s {
            S::ImportDeclaration(d) => self.import(d, out),
            S::TSImportEqualsDeclaration(d) => match &d.module_reference {
                ast::TSModuleReference::ExternalModuleReference(r) if !d.import_kind.is_type() => {
                    out.push(Stmt::Import {
                        from: r.expression.value.to_string(),
                        names: vec![Imported::Namespace {
                            local: self.name(&d.id.name, d.id.span),
                        }],
                        span,
                    });
                }
                _ => out.push(Stmt::Other { span }),
            },
            S::ExportNamedDeclaration(e) => match &e.declaration {
                Some(d) if !e.export_kind.is_type() => self.declaration(d, true, span, out),
                _ => out.push(Stmt::Other { span }),
            },
            // `export default X`: also bound as `default`, which a default
            // import reads.
            S::ExportDefaultDeclaration(e) => {
                let named = match &e.declaration {
                    ast::ExportDefaultDeclarationKind::FunctionDeclaration(f) => {
                        let id = f.id.as_ref().map(|i| (i.name.to_string(), i.span));
                        out.push(Stmt::Function(self.function(f, None)));
                        id
                    }
                    ast::ExportDefaultDeclarationKind::ClassDeclaration(c) => {
                        let id = c.id.as_ref().map(|i| (i.name.to_string(), i.span));
                        out.push(self.class(c, true));
                        id
                    }
                    kind => match kind.as_expression() {
                        Some(x) => {
                            let value = self.expr(x);
                            out.push(Stmt::Let {
                                name: Name {
                                    text: "default".into(),
                                    span,
                                },
                                value: Some(value),
                                exported: true,
                                span,
                            });
                            None
                        }
                        None => {
                            out.push(Stmt::Other { span });
                            None
                        }
                    },
                };
                if let Some((text, at)) = named {
                    let at = self.span(at);
                    out.push(Stmt::Let {
                        name: Name {
                            text: "default".into(),
                            span: at,
                        },
                        value: Some(Expr {
                            kind: ExprKind::Name(text),
                            span: at,
                        }),
                        exported: true,
                        span,
                    });
                }
            }
            S::VariableDeclaration(_)
            | S::FunctionDeclaration(_)
            | S::ClassDeclaration(_)
            | S::TSTypeAliasDeclaration(_)
            | S::TSInterfaceDeclaration(_)
            | S::TSEnumDeclaration(_)
            | S::TSModuleDeclaration(_) => match s.as_declaration() {
                Some(d) => self.declaration(d, exported, span, out),
                None => out.push(Stmt::Other { span }),
            },
            S::ExpressionStatement(e) => self.expression_stmt(&e.expression, span, out),
            S::BlockStatement(b) => {
                let mut body = Vec::new();
                self.stmts(&b.body, top, b.span.end as usize, &mut body);
                out.push(Stmt::Block { body, span });
            }
            S::IfStatement(i) => {
                let test = self.expr(&i.test);
                let then = self.body(&i.consequent, top);
                let otherwise = match &i.alternate {
                    Some(a) => self.body(a, top),
                    None => Vec::new(),
                };
                out.push(Stmt::If {
                    test,
                    then,
                    otherwise,
                    span,
                });
            }
            S::ForOfStatement(f) if !f.r#await => {
                let binding = match &f.left {
                    ast::ForStatementLeft::VariableDeclaration(d) => {
                        match d.declarations.as_slice() {
                            [one] => match &one.id.kind {
                                ast::BindingPatternKind::BindingIdentifier(id) => {
                                    Some(self.name(&id.name, id.span))
                                }
                                _ => None,
                            },
                            _ => None,
                        }
                    }
                    ast::ForStatementLeft::AssignmentTargetIdentifier(id) => {
                        Some(self.name(&id.name, id.span))
                    }
                    _ => None,
                };
                match binding {
                    Some(binding) => {
                        let iter = self.expr(&f.right);
                        let body = self.body(&f.body, top);
                        out.push(Stmt::For {
                            binding,
                            iter,
                            body,
                            span,
                        });
                    }
                    None => out.push(Stmt::Other { span }),
                }
            }
            S::TryStatement(t) => {
                // What runs when nothing throws: the block and `finally`.
                let mut body = Vec::new();
                self.stmts(&t.block.body, top, t.block.span.end as usize, &mut body);
                if let Some(f) = &t.finalizer {
                    self.stmts(&f.body, top, f.span.end as usize, &mut body);
                }
                out.push(Stmt::Block { body, span });
            }
            S::ReturnStatement(r) => {
                let value = r.argument.as_ref().map(|v| self.expr(v));
                out.push(Stmt::Return { value, span });
            }
            S::EmptyStatement(_) => {}
            _ => out.push(Stmt::Other { span }),
        }
    }

    fn declaration(
        &mut self,
        d: &ast::Declaration,
        exported: bool,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        match d {
            ast::Declaration::VariableDeclaration(v) if !v.declare => {
                for decl in &v.declarations {
                    self.declarator(decl, exported, span, out);
                }
            }
            ast::Declaration::FunctionDeclaration(f) if f.body.is_some() => {
                out.push(Stmt::Function(self.function(f, None)));
            }
            ast::Declaration::ClassDeclaration(c) if !c.declare => {
                out.push(self.class(c, exported));
            }
            _ => out.push(Stmt::Other { span }),
        }
    }

    fn import(&mut self, d: &ast::ImportDeclaration, out: &mut Vec<Stmt>) {
        let span = self.span(d.span);
        if d.import_kind.is_type() {
            out.push(Stmt::Other { span });
            return;
        }
        let mut names = Vec::new();
        for spec in d.specifiers.iter().flatten() {
            match spec {
                ast::ImportDeclarationSpecifier::ImportSpecifier(s) => {
                    if s.import_kind.is_type() {
                        continue;
                    }
                    names.push(Imported::Named {
                        name: s.imported.name().to_string(),
                        local: self.name(&s.local.name, s.local.span),
                    });
                }
                ast::ImportDeclarationSpecifier::ImportDefaultSpecifier(s) => {
                    names.push(Imported::Default {
                        local: self.name(&s.local.name, s.local.span),
                    });
                }
                ast::ImportDeclarationSpecifier::ImportNamespaceSpecifier(s) => {
                    names.push(Imported::Namespace {
                        local: self.name(&s.local.name, s.local.span),
                    });
                }
            }
        }
        out.push(Stmt::Import {
            from: d.source.value.to_string(),
            names,
            span,
        });
    }

    /// The module of `require('m')`.
    fn required<'e>(&self, e: &'e ast::Expression) -> Option<&'e str> {
        let ast::Expression::CallExpression(c) = strip(e) else {
            return None;
        };
        let ast::Expression::Identifier(id) = &c.callee else {
            return None;
        };
        match c.arguments.as_slice() {
            [ast::Argument::StringLiteral(s)] if id.name == "require" => Some(s.value.as_str()),
            _ => None,
        }
    }

    fn declarator(
        &mut self,
        d: &ast::VariableDeclarator,
        exported: bool,
        span: Span,
        out: &mut Vec<Stmt>,
    ) {
        if let Some(from) = d.init.as_ref().and_then(|i| self.required(i)) {
            let from = from.to_string();
            match &d.id.kind {
                ast::BindingPatternKind::BindingIdentifier(id) => {
                    out.push(Stmt::Import {
                        from,
                        names: vec![Imported::Namespace {
                            local: self.name(&id.name, id.span),
                        }],
                        span,
                    });
                    return;
                }
                ast::BindingPatternKind::ObjectPattern(p) if p.rest.is_none() => {
                    let mut names = Vec::new();
                    for prop in &p.properties {
                        let key = self.static_key(&prop.key);
                        match (key, &prop.value.kind, prop.computed) {
                            (Some(k), ast::BindingPatternKind::BindingIdentifier(id), false) => {
                                names.push(Imported::Named {
                                    name: k.text,
                                    local: self.name(&id.name, id.span),
                                });
                            }
                            _ => {
                                names.clear();
                                break;
                            }
                        }
                    }
                    if !names.is_empty() {
                        out.push(Stmt::Import { from, names, span });
                        return;
                    }
                }
                _ => {}
            }
        }
        match &d.id.kind {
            ast::BindingPatternKind::BindingIdentifier(id) => {
                let value = d.init.as_ref().map(|v| self.expr(v));
                out.push(Stmt::Let {
                    name: self.name(&id.name, id.span),
                    value,
                    exported,
                    span,
                });
            }
            _ => match &d.init {
                Some(init) => {
                    let value = self.expr(init);
                    let mut lets = Vec::new();
                    if self.pattern(&d.id, value, exported, span, &mut lets) {
                        out.extend(lets);
                    } else {
                        out.push(Stmt::Other { span });
                    }
                }
                None => out.push(Stmt::Other { span }),
            },
        }
    }

    /// One `Let` per name of a destructuring pattern, each bound to the
    /// member or index of `value` it takes; `false` when the pattern has a
    /// default, a rest or a computed key.
    fn pattern(
        &mut self,
        p: &ast::BindingPattern,
        value: Expr,
        exported: bool,
        span: Span,
        out: &mut Vec<Stmt>,
    ) -> bool {
        if !self.enter(p.span()) {
            return false;
        }
        let ok = match &p.kind {
            ast::BindingPatternKind::BindingIdentifier(id) => {
                out.push(Stmt::Let {
                    name: self.name(&id.name, id.span),
                    value: Some(value),
                    exported,
                    span,
                });
                true
            }
            ast::BindingPatternKind::ObjectPattern(o) if o.rest.is_none() => {
                let mut ok = true;
                for prop in &o.properties {
                    let key = if prop.computed {
                        None
                    } else {
                        self.static_key(&prop.key)
                    };
                    let Some(key) = key else {
                        ok = false;
                        break;
                    };
                    let member = Expr {
                        kind: ExprKind::Member {
                            object: Box::new(value.clone()),
                            name: key,
                        },
                        span: self.span(prop.span),
                    };
                    if !self.pattern(&prop.value, member, exported, span, out) {
                        ok = false;
                        break;
                    }
                }
                ok
            }
            ast::BindingPatternKind::ArrayPattern(a) if a.rest.is_none() => {
                let mut ok = true;
                for (i, el) in a.elements.iter().enumerate() {
                    let Some(el) = el else { continue };
                    let item_span = self.span(el.span());
                    let index = Expr {
                        kind: ExprKind::Index {
                            object: Box::new(value.clone()),
                            index: Box::new(Expr {
                                kind: ExprKind::Num(i.to_string()),
                                span: item_span,
                            }),
                        },
                        span: item_span,
                    };
                    if !self.pattern(el, index, exported, span, out) {
                        ok = false;
                        break;
                    }
                }
                ok
            }
            _ => false,
        };
        self.depth -= 1;
        ok
    }

    /// A property key written as a name, string or number.
    fn static_key(&self, key: &ast::PropertyKey) -> Option<Name> {
        match key {
            ast::PropertyKey::StaticIdentifier(id) => Some(self.name(&id.name, id.span)),
            ast::PropertyKey::StringLiteral(s) => Some(self.name(&s.value, s.span)),
            ast::PropertyKey::NumericLiteral(n) => {
                number_key(n.value).map(|k| self.name(&k, n.span))
            }
            ast::PropertyKey::TemplateLiteral(t) if t.expressions.is_empty() => {
                let text = t.quasis.first().and_then(cooked)?;
                Some(self.name(&text, t.span))
            }
            _ => None,
        }
    }

    fn expression_stmt(&mut self, e: &ast::Expression, span: Span, out: &mut Vec<Stmt>) {
        let ast::Expression::AssignmentExpression(a) = strip(e) else {
            out.push(Stmt::Expr(self.expr(e)));
            return;
        };
        // `a = b = v`: every target gets `v`.
        let mut targets = Vec::new();
        let mut at = a;
        let value = loop {
            if !at.operator.is_assign() {
                out.push(Stmt::Other { span });
                return;
            }
            targets.push(&at.left);
            match strip(&at.right) {
                ast::Expression::AssignmentExpression(next) => at = next,
                _ => break self.expr(&at.right),
            }
        };
        for target in targets {
            let target = match target {
                ast::AssignmentTarget::AssignmentTargetIdentifier(id) => Expr {
                    kind: ExprKind::Name(id.name.to_string()),
                    span: self.span(id.span),
                },
                ast::AssignmentTarget::StaticMemberExpression(m) => self.static_member(m),
                ast::AssignmentTarget::ComputedMemberExpression(m) => self.computed_member(m),
                ast::AssignmentTarget::PrivateFieldExpression(m) => self.private_field(m),
                _ => {
                    out.push(Stmt::Other { span });
                    continue;
                }
            };
            out.push(Stmt::Assign {
                target,
                value: value.clone(),
                span,
            });
        }
    }

    /// A parameter list; destructured parameters also bind their names
    /// into `prologue`.
    fn params(&mut self, p: &ast::FormalParameters, prologue: &mut Vec<Stmt>) -> Vec<Param> {
        let mut out = Vec::new();
        for item in &p.items {
            out.push(self.param(&item.pattern, false, prologue));
        }
        if let Some(rest) = &p.rest {
            out.push(self.param(&rest.argument, true, prologue));
        }
        out
    }

    fn param(&mut self, p: &ast::BindingPattern, rest: bool, prologue: &mut Vec<Stmt>) -> Param {
        let (target, default) = match &p.kind {
            ast::BindingPatternKind::AssignmentPattern(a) => (&a.left, Some(self.expr(&a.right))),
            _ => (p, None),
        };
        let name = match &target.kind {
            ast::BindingPatternKind::BindingIdentifier(id) => self.name(&id.name, id.span),
            kind => {
                // The pattern's text (its type left out) names the
                // argument; its names are members of it.
                let mut s = kind.span();
                if let Some(t) = &target.type_annotation {
                    s.end = s.end.min(t.span.start).max(s.start);
                }
                let text = self.src(s).trim_end();
                let text = text.strip_suffix(':').unwrap_or(text).trim_end();
                s.end = s.start + u32::try_from(text.len()).unwrap_or(0);
                let name = self.name(text, s);
                let value = Expr {
                    kind: ExprKind::Name(name.text.clone()),
                    span: name.span,
                };
                let mut lets = Vec::new();
                if self.pattern(target, value, false, name.span, &mut lets) {
                    prologue.extend(lets);
                } else {
                    prologue.push(Stmt::Other { span: name.span });
                }
                name
            }
        };
        Param {
            name,
            default,
            rest,
            keywords: false,
        }
    }

    fn function(&mut self, f: &ast::Function, name: Option<Name>) -> Function {
        let name = name.or_else(|| f.id.as_ref().map(|id| self.name(&id.name, id.span)));
        let mut body = Vec::new();
        let params = self.params(&f.params, &mut body);
        if let Some(b) = &f.body {
            self.stmts(&b.statements, false, b.span.end as usize, &mut body);
        }
        if f.r#async || f.generator {
            opaque_returns(&mut body);
        }
        Function {
            name,
            params,
            body,
            span: self.span(f.span),
        }
    }

    fn arrow(&mut self, f: &ast::ArrowFunctionExpression) -> Function {
        let mut body = Vec::new();
        let params = self.params(&f.params, &mut body);
        match (f.expression, f.body.statements.as_slice()) {
            (true, [ast::Statement::ExpressionStatement(e)]) => body.push(Stmt::Return {
                value: Some(self.expr(&e.expression)),
                span: self.span(e.span),
            }),
            _ => self.stmts(
                &f.body.statements,
                false,
                f.body.span.end as usize,
                &mut body,
            ),
        }
        if f.r#async {
            opaque_returns(&mut body);
        }
        Function {
            name: None,
            params,
            body,
            span: self.span(f.span),
        }
    }

    fn class(&mut self, c: &ast::Class, exported: bool) -> Stmt {
        let span = self.span(c.span);
        let Some(id) = &c.id else {
            return Stmt::Other { span };
        };
        let name = self.name(&id.name, id.span);
        let extends = c.super_class.as_ref().map(|e| self.expr(e));
        let mut members = Vec::new();
        // Property initialisers, run by the constructor after `super(…)`.
        let mut fields = Vec::new();
        for element in &c.body.body {
            match element {
                ast::ClassElement::MethodDefinition(m)
                    if !m.r#static
                        && matches!(
                            m.kind,
                            ast::MethodDefinitionKind::Method
                                | ast::MethodDefinitionKind::Constructor
                        ) =>
                {
                    let key = match m.kind {
                        ast::MethodDefinitionKind::Constructor => {
                            Some(self.name("constructor", m.key.span()))
                        }
                        _ if m.computed => None,
                        _ => self.method_key(&m.key),
                    };
                    let Some(key) = key else { continue };
                    if m.value.body.is_none() || !self.enter(m.span) {
                        continue;
                    }
                    members.push(self.function(&m.value, Some(key)));
                    self.depth -= 1;
                }
                ast::ClassElement::PropertyDefinition(p) if !p.r#static && !p.declare => {
                    let (Some(value), Some(key)) = (&p.value, self.method_key(&p.key)) else {
                        continue;
                    };
                    if p.computed {
                        continue;
                    }
                    let value = self.expr(value);
                    fields.push(self.this_assign(key, value, self.span(p.span)));
                }
                _ => {}
            }
        }
        let position = members
            .iter()
            .position(|m| m.name.as_ref().is_some_and(|n| n.text == "constructor"));
        let ctor = position.and_then(|_| {
            c.body.body.iter().find_map(|e| match e {
                ast::ClassElement::MethodDefinition(m)
                    if m.kind == ast::MethodDefinitionKind::Constructor =>
                {
                    Some(m)
                }
                _ => None,
            })
        });
        // Parameter properties are assigned before the initialisers.
        let mut inits = Vec::new();
        if let Some(m) = ctor {
            for item in &m.value.params.items {
                if item.accessibility.is_none() && !item.readonly && !item.r#override {
                    continue;
                }
                let target = match &item.pattern.kind {
                    ast::BindingPatternKind::AssignmentPattern(a) => &a.left,
                    _ => &item.pattern,
                };
                if let ast::BindingPatternKind::BindingIdentifier(id) = &target.kind {
                    let key = self.name(&id.name, id.span);
                    let value = Expr {
                        kind: ExprKind::Name(id.name.to_string()),
                        span: key.span,
                    };
                    inits.push(self.this_assign(key, value, self.span(item.span)));
                }
            }
        }
        inits.extend(fields);
        if !inits.is_empty() {
            match position.and_then(|i| members.get_mut(i)) {
                Some(ctor) => {
                    let at = ctor
                        .body
                        .iter()
                        .position(is_super_call)
                        .map_or(0, |i| i + 1);
                    ctor.body.splice(at..at, inits);
                }
                None => {
                    let body_span = self.span(c.body.span);
                    let mut params = Vec::new();
                    let mut body = Vec::new();
                    if c.super_class.is_some() {
                        let args = Name {
                            text: "args".to_string(),
                            span: body_span,
                        };
                        params.push(Param {
                            name: args.clone(),
                            default: None,
                            rest: true,
                            keywords: false,
                        });
                        body.push(Stmt::Expr(Expr {
                            kind: ExprKind::Call {
                                callee: Box::new(Expr {
                                    kind: ExprKind::Name("super".to_string()),
                                    span: body_span,
                                }),
                                args: vec![Arg::Spread(Expr {
                                    kind: ExprKind::Name(args.text),
                                    span: body_span,
                                })],
                            },
                            span: body_span,
                        }));
                    }
                    body.extend(inits);
                    members.push(Function {
                        name: Some(Name {
                            text: "constructor".to_string(),
                            span: body_span,
                        }),
                        params,
                        body,
                        span: body_span,
                    });
                }
            }
        }
        Stmt::Class {
            name,
            extends,
            members,
            exported,
            span,
        }
    }

    /// A method or property name (`#x` keeps its `#`).
    fn method_key(&self, key: &ast::PropertyKey) -> Option<Name> {
        match key {
            ast::PropertyKey::PrivateIdentifier(p) => {
                Some(self.name(&format!("#{}", p.name), p.span))
            }
            other => self.static_key(other),
        }
    }

    /// `this.key = value`.
    fn this_assign(&self, key: Name, value: Expr, span: Span) -> Stmt {
        let target = Expr {
            kind: ExprKind::Member {
                object: Box::new(Expr {
                    kind: ExprKind::This,
                    span: key.span,
                }),
                name: key,
            },
            span,
        };
        Stmt::Assign {
            target,
            value,
            span,
        }
    }

    fn expr(&mut self, e: &ast::Expression) -> Expr {
        let span = e.span();
        if !self.enter(span) {
            return self.unknown(span);
        }
        let mut out = self.expr_inner(e);
        self.depth -= 1;
        let (start, end) = (span.start as usize, span.end as usize);
        if !self.blanked.is_empty() && self.claim(|b| b.start >= start && b.end <= end) {
            out.kind = ExprKind::Unknown;
        }
        out
    }

    fn boxed(&mut self, e: &ast::Expression) -> Box<Expr> {
        Box::new(self.expr(e))
    }

    fn static_member(&mut self, m: &ast::StaticMemberExpression) -> Expr {
        Expr {
            kind: ExprKind::Member {
                object: self.boxed(&m.object),
                name: self.name(&m.property.name, m.property.span),
            },
            span: self.span(m.span),
        }
    }

    fn computed_member(&mut self, m: &ast::ComputedMemberExpression) -> Expr {
        Expr {
            kind: ExprKind::Index {
                object: self.boxed(&m.object),
                index: self.boxed(&m.expression),
            },
            span: self.span(m.span),
        }
    }

    fn private_field(&mut self, m: &ast::PrivateFieldExpression) -> Expr {
        Expr {
            kind: ExprKind::Member {
                object: self.boxed(&m.object),
                name: self.name(&format!("#{}", m.field.name), m.field.span),
            },
            span: self.span(m.span),
        }
    }

    fn call(&mut self, c: &ast::CallExpression) -> Expr {
        Expr {
            kind: ExprKind::Call {
                callee: self.boxed(&c.callee),
                args: self.args(&c.arguments),
            },
            span: self.span(c.span),
        }
    }

    fn args(&mut self, args: &[ast::Argument]) -> Vec<Arg> {
        let mut out = Vec::with_capacity(args.len());
        for a in args {
            out.push(match a {
                ast::Argument::SpreadElement(s) => Arg::Spread(self.expr(&s.argument)),
                other => match other.as_expression() {
                    Some(e) => Arg::Positional(self.expr(e)),
                    None => Arg::Positional(self.unknown(other.span())),
                },
            });
        }
        out
    }

    fn expr_inner(&mut self, e: &ast::Expression) -> Expr {
        use ast::Expression as E;
        let span = self.span(e.span());
        let kind = match e {
            E::StringLiteral(s) if !s.lone_surrogates => ExprKind::Str(s.value.to_string()),
            E::NumericLiteral(n) => ExprKind::Num(self.src(n.span).to_string()),
            E::BooleanLiteral(b) => ExprKind::Bool(b.value),
            E::NullLiteral(_) => ExprKind::Null,
            E::TemplateLiteral(t) => self.template(t),
            // `tag`a${x}b``: the tag called with the expressions
            // (`pulumi.interpolate` keeps what its values depend on).
            E::TaggedTemplateExpression(t) => ExprKind::Call {
                callee: self.boxed(&t.tag),
                args: t
                    .quasi
                    .expressions
                    .iter()
                    .map(|e| Arg::Positional(self.expr(e)))
                    .collect(),
            },
            E::Identifier(id) => match id.name.as_str() {
                "undefined" => ExprKind::Undefined,
                name => ExprKind::Name(name.to_string()),
            },
            E::ThisExpression(_) => ExprKind::This,
            E::Super(_) => ExprKind::Name("super".to_string()),
            E::StaticMemberExpression(m) => return self.static_member(m),
            E::ComputedMemberExpression(m) => return self.computed_member(m),
            E::PrivateFieldExpression(m) => return self.private_field(m),
            E::CallExpression(c) => return self.call(c),
            E::ChainExpression(c) => match &c.expression {
                ast::ChainElement::CallExpression(call) => return self.call(call),
                ast::ChainElement::TSNonNullExpression(n) => return self.expr(&n.expression),
                ast::ChainElement::StaticMemberExpression(m) => return self.static_member(m),
                ast::ChainElement::ComputedMemberExpression(m) => return self.computed_member(m),
                ast::ChainElement::PrivateFieldExpression(m) => return self.private_field(m),
            },
            E::NewExpression(n) => ExprKind::New {
                callee: self.boxed(&n.callee),
                args: self.args(&n.arguments),
            },
            E::ObjectExpression(o) => {
                let mut props = Vec::with_capacity(o.properties.len());
                for p in &o.properties {
                    match p {
                        ast::ObjectPropertyKind::ObjectProperty(p) => {
                            let key = if p.computed {
                                match p.key.as_expression().map(strip) {
                                    Some(E::StringLiteral(s)) => Some(self.name(&s.value, s.span)),
                                    Some(E::NumericLiteral(n)) => {
                                        number_key(n.value).map(|k| self.name(&k, n.span))
                                    }
                                    _ => None,
                                }
                            } else {
                                self.static_key(&p.key)
                            };
                            let value = match p.kind {
                                ast::PropertyKind::Init => self.expr(&p.value),
                                // A getter's value is what it returns when read.
                                _ => self.unknown(p.span),
                            };
                            props.push(Prop::KeyValue { key, value });
                        }
                        ast::ObjectPropertyKind::SpreadProperty(s) => {
                            props.push(Prop::Spread(self.expr(&s.argument)));
                        }
                    }
                }
                ExprKind::Object(props)
            }
            E::ArrayExpression(a) => {
                let mut items = Vec::with_capacity(a.elements.len());
                for el in &a.elements {
                    items.push(match el {
                        ast::ArrayExpressionElement::SpreadElement(s) => {
                            Item::Spread(self.expr(&s.argument))
                        }
                        // A hole reads as `undefined`.
                        ast::ArrayExpressionElement::Elision(h) => Item::Expr(Expr {
                            kind: ExprKind::Undefined,
                            span: self.span(h.span),
                        }),
                        other => match other.as_expression() {
                            Some(e) => Item::Expr(self.expr(e)),
                            None => Item::Expr(self.unknown(other.span())),
                        },
                    });
                }
                ExprKind::Array(items)
            }
            E::ArrowFunctionExpression(f) => ExprKind::Function(Box::new(self.arrow(f))),
            E::FunctionExpression(f) if f.body.is_some() => {
                ExprKind::Function(Box::new(self.function(f, None)))
            }
            E::BinaryExpression(b) => ExprKind::Binary {
                op: b.operator.as_str().to_string(),
                left: self.boxed(&b.left),
                right: self.boxed(&b.right),
            },
            E::LogicalExpression(b) => ExprKind::Binary {
                op: b.operator.as_str().to_string(),
                left: self.boxed(&b.left),
                right: self.boxed(&b.right),
            },
            E::UnaryExpression(u) => ExprKind::Unary {
                op: u.operator.as_str().to_string(),
                operand: self.boxed(&u.argument),
            },
            E::ConditionalExpression(c) => ExprKind::Conditional {
                test: self.boxed(&c.test),
                then: self.boxed(&c.consequent),
                otherwise: self.boxed(&c.alternate),
            },
            E::ParenthesizedExpression(p) => return self.expr(&p.expression),
            E::TSAsExpression(t) => return self.expr(&t.expression),
            E::TSSatisfiesExpression(t) => return self.expr(&t.expression),
            E::TSTypeAssertion(t) => return self.expr(&t.expression),
            E::TSNonNullExpression(t) => return self.expr(&t.expression),
            E::TSInstantiationExpression(t) => return self.expr(&t.expression),
            _ => ExprKind::Unknown,
        };
        Expr { kind, span }
    }

    fn template(&mut self, t: &ast::TemplateLiteral) -> ExprKind {
        let mut parts = Vec::new();
        for (i, q) in t.quasis.iter().enumerate() {
            let Some(text) = cooked(q) else {
                return ExprKind::Unknown;
            };
            if !text.is_empty() {
                parts.push(TemplatePart::Text(text));
            }
            if let Some(e) = t.expressions.get(i) {
                parts.push(TemplatePart::Expr(self.expr(e)));
            }
        }
        super::template_or_str(parts)
    }
}

/// The expression inside parentheses and type assertions.
fn strip<'e, 'a>(mut e: &'e ast::Expression<'a>) -> &'e ast::Expression<'a> {
    loop {
        e = match e {
            ast::Expression::ParenthesizedExpression(p) => &p.expression,
            ast::Expression::TSAsExpression(t) => &t.expression,
            ast::Expression::TSSatisfiesExpression(t) => &t.expression,
            ast::Expression::TSTypeAssertion(t) => &t.expression,
            ast::Expression::TSNonNullExpression(t) => &t.expression,
            _ => return e,
        };
    }
}

/// An async function returns a promise and a generator an iterator, not
/// the value of its `return`: what they return is unknown.
fn opaque_returns(body: &mut [Stmt]) {
    for s in body {
        match s {
            Stmt::Return { value: Some(v), .. } => v.kind = ExprKind::Unknown,
            Stmt::If {
                then, otherwise, ..
            } => {
                opaque_returns(then);
                opaque_returns(otherwise);
            }
            Stmt::For { body, .. } | Stmt::Block { body, .. } => opaque_returns(body),
            _ => {}
        }
    }
}

/// `super(…);` as lowered.
fn is_super_call(s: &Stmt) -> bool {
    matches!(
        s,
        Stmt::Expr(Expr { kind: ExprKind::Call { callee, .. }, .. })
            if matches!(&callee.kind, ExprKind::Name(n) if n == "super")
    )
}

#[cfg(test)]
#[path = "typescript_tests.rs"]
mod tests;
