use clap::{Parser, Subcommand, ValueEnum};
use fplint::{render, ConfigChoice, Linter, Options, Severity};
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
    /// Run the language server on stdin/stdout, for editors
    Server,
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
    /// Apply safe fixes to the files, then report what remains
    #[arg(long)]
    fix: bool,
    /// Also apply unsafe fixes, which change what gets deployed (with --fix or --diff)
    #[arg(long)]
    unsafe_fixes: bool,
    /// Print the fixes as a unified diff and write nothing; exit 1 when there is something to fix
    #[arg(long, conflicts_with = "fix")]
    diff: bool,
    /// List each fix applied, by file
    #[arg(long)]
    show_fixes: bool,
}

fn main() -> ExitCode {
    run(Cli::parse())
}

fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Check(args) => check(args),
        Command::Rule { code } => match fplint::rules::find(&code) {
            Some(r) => {
                emit(r.doc.as_bytes());
                ExitCode::SUCCESS
            }
            None => {
                eprintln!("error: unknown rule `{code}`; `fplint rules` lists them");
                ExitCode::from(2)
            }
        },
        Command::Rules { format } => {
            let text = match format {
                ListFormat::Text => render::rules::text(),
                ListFormat::Json => render::rules::json(),
            };
            emit(text.as_bytes());
            ExitCode::SUCCESS
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
            let linter = match Linter::with_choice(&paths, &choice) {
                Ok(l) => l,
                Err(e) => {
                    eprint!("{}", render::config_error(&e));
                    return ExitCode::from(2);
                }
            };
            let linter = linter.with_options(Options {
                config: choice,
                project_context: true,
                ..Options::default()
            });
            let tables = fplint::placement::tables(&linter.load(&paths));
            let text = match format {
                ListFormat::Text => fplint::placement::render_text(&tables),
                ListFormat::Json => fplint::placement::render_json(&tables),
            };
            emit(text.as_bytes());
            ExitCode::SUCCESS
        }
        Command::Server => match fplint_server::run_stdio() {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::from(2)
            }
        },
        Command::Completions { shell } => {
            use clap::CommandFactory;
            let mut buf = Vec::new();
            clap_complete::generate(shell, &mut Cli::command(), "fplint", &mut buf);
            emit(&buf);
            ExitCode::SUCCESS
        }
    }
}

fn check(args: CheckArgs) -> ExitCode {
    let started = std::time::Instant::now();
    for code in args.select.iter().flatten().chain(&args.ignore) {
        if !fplint::config::is_known_selector(code) {
            eprintln!("error: unknown rule code or prefix `{code}`; `fplint rules` lists them");
            return ExitCode::from(2);
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
        project_context: true,
        ..Options::default()
    };
    let linter = match Linter::with_choice(&args.paths, &opts.config) {
        Ok(linter) => linter.with_options(opts),
        Err(e) => {
            eprint!("{}", render::config_error(&e));
            return ExitCode::from(2);
        }
    };
    let fix_opts = fplint::fix::FixOptions {
        unsafe_fixes: args.unsafe_fixes,
        dry_run: args.diff,
    };
    let (outcome, fixed) = if args.fix || args.diff {
        let f = linter.fix_paths(&args.paths, fix_opts);
        (f.report, Some((f.files, f.errors)))
    } else {
        (linter.check_paths(&args.paths), None)
    };
    // The human summary lists unreadable paths; other formats carry them in
    // the report. Fix errors are not in the report: always on stderr.
    let show_errors = args.quiet || args.format != OutputFormat::Human;
    for e in outcome.errors.iter().filter(|_| show_errors) {
        eprintln!("error: {e}");
    }
    for e in fixed.iter().flat_map(|(_, e)| e) {
        eprintln!("error: {e}");
    }
    let fix_failed = fixed.as_ref().is_some_and(|(_, e)| !e.is_empty());
    if args.diff {
        let files = fixed.map(|(f, _)| f).unwrap_or_default();
        let diff = fplint::fix::diff(&files);
        emit(diff.as_bytes());
        if args.show_fixes {
            eprint!("{}", fplint::fix::show(&files));
        }
        return ExitCode::from(match (fix_failed, files.is_empty()) {
            (true, _) => 2,
            (false, false) => 1,
            (false, true) => 0,
        });
    }
    let fixed_files = fixed.map(|(f, _)| f).unwrap_or_default();
    if args.show_fixes {
        let list = fplint::fix::show(&fixed_files);
        // Machine formats own stdout.
        match args.format {
            OutputFormat::Human | OutputFormat::Concise if args.output.is_none() => {
                emit(list.as_bytes())
            }
            _ => eprint!("{list}"),
        }
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
                let applied = fixed_files.iter().map(|f| f.applied.len()).sum();
                s.push_str(&render::human::summary(&outcome, started.elapsed()));
                s.push_str(&render::human::fix_summary(
                    &outcome,
                    applied,
                    args.unsafe_fixes,
                ));
            }
            s
        }
    };
    match &args.output {
        Some(path) => {
            if let Err(e) = fplint::fs::write_atomically(path, text.as_bytes()) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
        None => emit(text.as_bytes()),
    }
    let code = if fix_failed {
        2
    } else {
        u8::try_from(outcome.exit_code()).unwrap_or(2)
    };
    // The process ends here: the system frees the model faster than
    // dropping it item by item would.
    std::mem::forget(outcome);
    ExitCode::from(code)
}

/// Write to stdout; a closed pipe (`fplint rules | head`) is not an error worth a panic.
fn emit(bytes: &[u8]) {
    let mut out = std::io::stdout().lock();
    let _ = out.write_all(bytes);
    let _ = out.flush();
}

#[cfg(feature = "mimalloc")]
#[global_allocator]
static GLOBAL: fplint::allocator::Global = fplint::allocator::GLOBAL;
