use anyhow::Context as _;
use clap::{Parser, Subcommand, ValueEnum};
use fplint_cli::config::ConfigError;
use fplint_cli::lint::{self, ConfigChoice, Options};
use fplint_cli::render;
use fplint_core::Severity;
use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "fplint",
    version,
    about = "A fast, precise linter for AWS EKS Fargate mistakes in eksctl, CloudFormation and Terraform"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lint files and folders (default: .)
    Check(CheckArgs),
    /// Print one rule's documentation (Markdown)
    Rule {
        /// Rule code, e.g. FP001
        code: String,
    },
    /// List every rule: code, name, default severity, formats
    Rules {
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
    /// Show which workload lands on which Fargate profile, at what billed size
    Placement {
        /// Files or folders to read (default: .)
        #[arg(default_value = ".")]
        paths: Vec<PathBuf>,
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
        /// Use this config file instead of looking for fplint.toml
        #[arg(long, conflicts_with = "no_config")]
        config: Option<PathBuf>,
        /// Ignore config files
        #[arg(long)]
        no_config: bool,
    },
    /// Print a shell completion script
    Completions {
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Copy, Clone, ValueEnum)]
enum ListFormat {
    Text,
    Json,
}

#[derive(Copy, Clone, ValueEnum, PartialEq, Eq)]
enum OutputFormat {
    Human,
    Json,
    Sarif,
    Github,
    Concise,
}

#[derive(Copy, Clone, ValueEnum, PartialEq, Eq)]
enum ColorChoice {
    Auto,
    Always,
    Never,
}

#[derive(Copy, Clone, ValueEnum)]
enum Level {
    Error,
    Warning,
    Info,
}

impl From<Level> for Severity {
    fn from(l: Level) -> Severity {
        match l {
            Level::Error => Severity::Error,
            Level::Warning => Severity::Warning,
            Level::Info => Severity::Info,
        }
    }
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Files or folders to lint
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    format: OutputFormat,
    /// Rules to run, by code or prefix (FP001,FP00)
    #[arg(long, value_delimiter = ',')]
    select: Option<Vec<String>>,
    /// Rules to skip, by code or prefix
    #[arg(long, value_delimiter = ',')]
    ignore: Vec<String>,
    /// Lowest severity that makes the exit code 1
    #[arg(long, value_enum)]
    fail_on: Option<Level>,
    /// Use this config file instead of looking for fplint.toml
    #[arg(long, conflicts_with = "no_config")]
    config: Option<PathBuf>,
    /// Ignore config files
    #[arg(long)]
    no_config: bool,
    /// Write the report to a file instead of stdout
    #[arg(long)]
    output: Option<PathBuf>,
    /// Print diagnostics only, no summary line
    #[arg(long, short)]
    quiet: bool,
    /// When to colour human output
    #[arg(long, value_enum, default_value_t = ColorChoice::Auto)]
    color: ColorChoice,
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(2)
        }
    }
}

fn run(cli: Cli) -> anyhow::Result<ExitCode> {
    match cli.command {
        Command::Check(args) => check(args),
        Command::Rule { code } => match fplint_rules::find(&code) {
            Some(r) => {
                emit(r.doc.as_bytes());
                Ok(ExitCode::SUCCESS)
            }
            None => {
                eprintln!("error: unknown rule `{code}`; `fplint rules` lists them");
                Ok(ExitCode::from(2))
            }
        },
        Command::Rules { format } => {
            emit(list_rules(format).as_bytes());
            Ok(ExitCode::SUCCESS)
        }
        Command::Placement {
            paths,
            format,
            config,
            no_config,
        } => {
            let choice = match (no_config, config) {
                (true, _) => ConfigChoice::Disabled,
                (false, Some(f)) => ConfigChoice::File(f),
                (false, None) => ConfigChoice::Discover,
            };
            let cfg = match lint::resolve_config(&paths, &choice) {
                Ok(c) => c,
                Err(e) => {
                    eprint!("{}", render_config_error(&e));
                    return Ok(ExitCode::from(2));
                }
            };
            let loaded = lint::load(&paths, &Options::default(), &cfg);
            let tables = fplint_cli::placement::tables(&loaded);
            let text = match format {
                ListFormat::Text => fplint_cli::placement::render_text(&tables),
                ListFormat::Json => {
                    let mut s = serde_json::to_string_pretty(&tables).unwrap_or_default();
                    s.push('\n');
                    s
                }
            };
            emit(text.as_bytes());
            Ok(ExitCode::SUCCESS)
        }
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "fplint", &mut buf);
            emit(&buf);
            Ok(ExitCode::SUCCESS)
        }
    }
}

fn list_rules(format: ListFormat) -> String {
    let rules = fplint_rules::REGISTRY;
    match format {
        ListFormat::Json => {
            let list: Vec<serde_json::Value> = rules
                .iter()
                .map(|r| {
                    serde_json::json!({
                        "code": r.code,
                        "name": r.name,
                        "default_severity": r.default_severity.as_str(),
                        "formats": r.formats.iter().map(|f| f.as_str()).collect::<Vec<_>>(),
                        "summary": r.summary,
                    })
                })
                .collect();
            let mut s = serde_json::to_string_pretty(&list).unwrap_or_default();
            s.push('\n');
            s
        }
        ListFormat::Text => {
            let mut s = String::new();
            for r in rules {
                let formats: Vec<&str> = r.formats.iter().map(|f| f.as_str()).collect();
                s.push_str(&format!(
                    "{:<6} {:<34} {:<8} {}\n",
                    r.code,
                    r.name,
                    r.default_severity.as_str(),
                    formats.join(", ")
                ));
            }
            s
        }
    }
}

fn check(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let started = std::time::Instant::now();
    for code in args.select.iter().flatten().chain(&args.ignore) {
        if !fplint_cli::config::is_known_selector(code) {
            eprintln!("error: unknown rule code or prefix `{code}`; `fplint rules` lists them");
            return Ok(ExitCode::from(2));
        }
    }
    let opts = Options {
        select: args
            .select
            .map(|v| v.iter().map(|s| s.to_ascii_uppercase()).collect()),
        ignore: args.ignore.iter().map(|s| s.to_ascii_uppercase()).collect(),
        fail_on: args.fail_on.map(Severity::from),
        config: match (args.no_config, args.config) {
            (true, _) => ConfigChoice::Disabled,
            (false, Some(f)) => ConfigChoice::File(f),
            (false, None) => ConfigChoice::Discover,
        },
        ..Options::default()
    };
    let outcome = match lint::run(&args.paths, &opts) {
        Ok(o) => o,
        Err(e) => {
            eprint!("{}", render_config_error(&e));
            return Ok(ExitCode::from(2));
        }
    };
    for e in &outcome.errors {
        eprintln!("error: {e}");
    }
    let to_terminal = args.output.is_none() && std::io::stdout().is_terminal();
    let color = match args.color {
        ColorChoice::Always => true,
        ColorChoice::Never => false,
        ColorChoice::Auto => {
            to_terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty())
        }
    };
    let text = match args.format {
        OutputFormat::Json => render::json::render(&outcome),
        OutputFormat::Concise => render::concise::render(&outcome),
        OutputFormat::Sarif => render::sarif::render(&outcome),
        OutputFormat::Github => render::github::render(&outcome),
        OutputFormat::Human => {
            let mut s =
                render::human::render(&outcome, &render::human::HumanOptions { color, width: 100 });
            if !args.quiet {
                s.push_str(&render::human::summary(&outcome, started.elapsed()));
            }
            s
        }
    };
    match &args.output {
        Some(path) => std::fs::write(path, text)
            .with_context(|| format!("cannot write {}", path.display()))?,
        None => emit(text.as_bytes()),
    }
    let code = u8::try_from(outcome.exit_code()).unwrap_or(2);
    // The process ends here: the system frees the model faster than
    // dropping it item by item would.
    std::mem::forget(outcome);
    Ok(ExitCode::from(code))
}

/// Write to stdout; a closed pipe (`fplint rules | head`) is not an error worth a panic.
fn emit(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(bytes);
    let _ = out.flush();
}

fn render_config_error(e: &ConfigError) -> String {
    use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, NamedSource};
    let name = e.path.display().to_string();
    let mut report = miette::MietteDiagnostic::new(format!("invalid config: {}", e.message));
    if let Some(span) = &e.span {
        report = report.with_label(LabeledSpan::at(span.clone(), "here"));
    }
    let report =
        miette::Report::new(report).with_source_code(NamedSource::new(name, e.text.clone()));
    let mut out = String::new();
    let handler = GraphicalReportHandler::new_themed(GraphicalTheme::unicode_nocolor());
    if handler.render_report(&mut out, report.as_ref()).is_err() {
        out = format!(
            "error: invalid config {}: {}\n",
            e.path.display(),
            e.message
        );
    }
    out
}

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;
