use clap::{Parser, Subcommand, ValueEnum};
use fplint::{render, select, ConfigChoice, Linter, Options, Severity};
use std::io::{IsTerminal, Read, Write};
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(Parser)]
#[command(
    name = "fplint",
    version,
    about = "A fast, precise linter for AWS EKS Fargate mistakes in eksctl, CloudFormation, Terraform and Kubernetes manifests"
)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Lint files and folders
    #[command(after_long_help = render::help::CHECK)]
    Check(CheckArgs),
    /// Print one rule's documentation (Markdown)
    Rule {
        /// Rule code or name, e.g. FP001 or coredns-selector-labels
        code: String,
    },
    /// List every rule: code, name, default severity, formats, summary
    Rules {
        /// Output format: a table, or a JSON array
        #[arg(long, value_enum, default_value_t = ListFormat::Text)]
        format: ListFormat,
    },
    /// Show which workload lands on which Fargate profile, at what billed size
    Placement {
        /// Files or folders to read
        #[arg(default_value = ".")]
        paths: Vec<PathBuf>,
        /// Output format
        #[arg(long, value_enum, default_value_t = PlacementFormat::Text)]
        format: PlacementFormat,
        /// Compare with the placement at this git revision (read from git's objects)
        #[arg(long, value_name = "REV")]
        diff: Option<String>,
        /// Use this config file instead of looking for fplint.toml
        #[arg(long, conflicts_with = "no_config", value_name = "FILE")]
        config: Option<PathBuf>,
        /// Ignore config files
        #[arg(long)]
        no_config: bool,
    },
    /// Print the manifests fplint builds: a chart rendered, a kustomization built, the releases a file declares
    #[command(after_long_help = render::help::RENDER)]
    Render {
        /// A chart folder, a kustomization folder, or a file or folder that declares releases of local charts
        path: PathBuf,
        /// Release name for a chart folder (unknown when not given)
        #[arg(long, value_name = "NAME")]
        release: Option<String>,
        /// Namespace for a chart folder (unknown when not given)
        #[arg(long, short = 'n', value_name = "NS")]
        namespace: Option<String>,
        /// Values file for a chart folder, merged in order (repeatable)
        #[arg(long = "values", short = 'f', value_name = "VALUES")]
        values: Vec<PathBuf>,
        /// A value for a chart folder, as helm's --set takes it (repeatable)
        #[arg(long, value_name = "KEY=VALUE")]
        set: Vec<String>,
        /// A string value for a chart folder, as helm's --set-string takes it (repeatable)
        #[arg(long, value_name = "KEY=VALUE")]
        set_string: Vec<String>,
        /// Kubernetes version the chart sees (.Capabilities.KubeVersion)
        #[arg(long, value_name = "V")]
        kube_version: Option<String>,
        /// Use this config file instead of looking for fplint.toml
        #[arg(long, conflicts_with = "no_config", value_name = "FILE")]
        config: Option<PathBuf>,
        /// Ignore config files
        #[arg(long)]
        no_config: bool,
    },
    /// Run the language server on stdin/stdout, for editors
    Server,
    /// Print a shell completion script
    Completions {
        /// The shell to complete for
        #[arg(value_enum)]
        shell: clap_complete::Shell,
    },
}

#[derive(Copy, Clone, ValueEnum)]
enum ListFormat {
    /// Aligned columns for people
    Text,
    /// JSON for programs
    Json,
}

#[derive(Copy, Clone, ValueEnum)]
enum PlacementFormat {
    /// One table per cluster
    Text,
    /// The tables as JSON
    Json,
    /// A Mermaid flowchart: clusters, profiles, workloads and where they land
    Mermaid,
    /// The same picture as a Graphviz digraph (`dot -Tpng`)
    Dot,
    /// Markdown for a pull-request comment or job summary (with --diff)
    Summary,
}

#[derive(Copy, Clone, ValueEnum, PartialEq, Eq)]
enum OutputFormat {
    /// Code frames with the lines at fault, help and fixes, then a summary
    Human,
    /// One JSON object: every finding with its place, help, related places and fix
    Json,
    /// SARIF 2.1.0, for GitHub code scanning and other SARIF viewers
    Sarif,
    /// GitHub Actions workflow commands, shown as annotations on pull requests
    Github,
    /// One line per finding: file:line:column: code [severity] message
    Concise,
    /// Markdown for a GitHub job summary: findings per rule, linked, and the placement diagram
    Summary,
}

#[derive(Copy, Clone, ValueEnum, PartialEq, Eq)]
enum ColorChoice {
    /// Colour on a terminal, unless NO_COLOR is set or TERM=dumb
    Auto,
    /// Colour, also when piped or written to a file
    Always,
    /// No colour
    Never,
}

#[derive(Copy, Clone, ValueEnum, PartialEq, Eq)]
enum Level {
    /// Errors fail the run
    Error,
    /// Errors and warnings fail the run
    Warning,
    /// Every finding fails the run
    Info,
    /// Findings never fail the run (as --exit-zero)
    Never,
}

#[derive(clap::Args)]
struct CheckArgs {
    /// Files or folders to lint; `-` reads one file from stdin
    #[arg(default_value = ".")]
    paths: Vec<PathBuf>,
    /// Output format
    #[arg(long, value_enum, default_value_t = OutputFormat::Human)]
    format: OutputFormat,
    /// Rules to run, by code, prefix or name, comma-separated (FP001,FP01) [default: all]
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    select: Option<Vec<String>>,
    /// Rules to skip, by code, prefix or name, comma-separated
    #[arg(long, value_delimiter = ',', value_name = "RULES")]
    ignore: Vec<String>,
    /// Lowest severity that makes the exit code 1 [default: warning, or fail-on in fplint.toml]
    #[arg(long, value_enum, value_name = "SEVERITY")]
    fail_on: Option<Level>,
    /// Exit 0 even with findings (2 still means fplint could not do its job)
    #[arg(long)]
    exit_zero: bool,
    /// Print one line per rule with its count of findings, instead of the findings
    #[arg(long)]
    statistics: bool,
    /// With `-` as the path: the file name stdin stands for, which decides its format and project
    #[arg(long, value_name = "NAME")]
    stdin_filename: Option<String>,
    /// Use this config file instead of looking for fplint.toml
    #[arg(long, conflicts_with = "no_config", value_name = "FILE")]
    config: Option<PathBuf>,
    /// Ignore config files
    #[arg(long)]
    no_config: bool,
    /// Also walk hidden files and folders (names starting with `.`), as ripgrep's --hidden; `.git` stays out
    #[arg(long)]
    hidden: bool,
    /// Write the report to a file instead of stdout
    #[arg(long, value_name = "FILE")]
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
    /// Report only findings not in this baseline file [default: baseline in fplint.toml]
    #[arg(long, value_name = "FILE", conflicts_with = "write_baseline")]
    baseline: Option<PathBuf>,
    /// Write every current finding to this baseline file, then exit
    #[arg(long, value_name = "FILE", conflicts_with_all = ["fix", "diff"])]
    write_baseline: Option<PathBuf>,
}

fn main() -> ExitCode {
    #[cfg(feature = "mimalloc")]
    fplint::allocator::return_memory_sooner();
    run(Cli::parse())
}

fn run(cli: Cli) -> ExitCode {
    match cli.command {
        Command::Check(args) => check(args),
        Command::Rule { code } => match fplint::select::rule(&code) {
            Ok(r) => {
                emit(r.doc.as_bytes());
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {e}\n`fplint rules` lists every rule");
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
            diff,
            config,
            no_config,
        } => {
            let linter = match context_linter(&paths, no_config, config) {
                Ok(l) => l,
                Err(code) => return code,
            };
            use fplint::placement::Format;
            let format = match format {
                PlacementFormat::Text => Format::Text,
                PlacementFormat::Json => Format::Json,
                PlacementFormat::Mermaid => Format::Mermaid,
                PlacementFormat::Dot => Format::Dot,
                PlacementFormat::Summary => Format::Summary,
            };
            let text = match fplint::placement::print(&linter, &paths, diff.as_deref(), format) {
                Ok(t) => t,
                Err(e) => return fail(e),
            };
            emit(text.as_bytes());
            ExitCode::SUCCESS
        }
        Command::Render {
            path,
            release,
            namespace,
            values,
            set,
            set_string,
            kube_version,
            config,
            no_config,
        } => {
            let paths = [path.clone()];
            let linter = match context_linter(&paths, no_config, config) {
                Ok(l) => l,
                Err(code) => return code,
            };
            let req = fplint::charts::RenderRequest {
                release,
                namespace,
                values_files: values,
                set,
                set_string,
                kube_version,
            };
            match fplint::charts::render(&linter, &path, &req) {
                Ok(text) => {
                    emit(text.as_bytes());
                    ExitCode::SUCCESS
                }
                Err(e) => {
                    eprintln!("error: {e}");
                    ExitCode::from(2)
                }
            }
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
    let (select, ignore) = match select::select_and_ignore(args.select.as_deref(), &args.ignore) {
        Ok(both) => both,
        Err(e) => return fail(e),
    };
    let stdin = args.paths.iter().any(|p| p.as_os_str() == "-");
    if stdin && (args.paths.len() > 1 || args.fix || args.diff) {
        return fail("`-` (stdin) is linted alone, and cannot be fixed in place");
    }
    if args.stdin_filename.is_some() && !stdin {
        return fail("--stdin-filename names the text read from `-`; pass `-` as the path");
    }
    let fail_never = args.exit_zero || args.fail_on == Some(Level::Never);
    let opts = Options {
        select,
        ignore,
        // `never` is no severity.
        fail_on: args
            .fail_on
            .and_then(|l| Severity::parse(l.to_possible_value()?.get_name())),
        config: ConfigChoice::from_flags(args.no_config, args.config),
        project_context: true,
        hidden: args.hidden,
        ..Options::default()
    };
    let linter = match stdin {
        true => Linter::for_stdin(args.stdin_filename.as_deref(), &opts.config),
        false => Linter::with_choice(&args.paths, &opts.config),
    };
    let linter = match linter {
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
    let (outcome, fixed) = if stdin {
        let mut bytes = Vec::new();
        if let Err(e) = std::io::stdin().read_to_end(&mut bytes) {
            return fail(format!("cannot read stdin: {e}"));
        }
        match fplint::stdin::name_for(args.stdin_filename.as_deref(), &bytes) {
            Ok(name) => (linter.check_stdin(name, &bytes), None),
            Err(e) => return fail(e),
        }
    } else if args.fix || args.diff {
        let f = linter.fix_paths(&args.paths, fix_opts);
        (f.report, Some((f.files, f.errors)))
    } else {
        (linter.check_paths(&args.paths), None)
    };
    let mut outcome = outcome;
    let (write, given) = (args.write_baseline.as_deref(), args.baseline.as_deref());
    match linter.settle_baseline(&mut outcome, write, given) {
        Ok(None) => {}
        Ok(Some((said, code))) => {
            eprint!("{said}");
            return ExitCode::from(code);
        }
        Err(e) => return fail(e),
    }
    // The human summary lists unreadable paths; other formats carry them in
    // the report. Fix errors are not in the report: always on stderr.
    let show_errors = args.quiet || args.format != OutputFormat::Human;
    for e in outcome.errors.iter().filter(|_| show_errors) {
        eprintln!("error: {}", render::escape_controls(e));
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
        return ExitCode::from(fplint::fix::diff_exit_code(&files, fix_failed, fail_never));
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
        ColorChoice::Auto => render::human::auto_color(to_terminal),
    };
    let opts = render::ReportOptions {
        format: match args.format {
            OutputFormat::Human => render::Format::Human,
            OutputFormat::Json => render::Format::Json,
            OutputFormat::Sarif => render::Format::Sarif,
            OutputFormat::Github => render::Format::Github,
            OutputFormat::Concise => render::Format::Concise,
            OutputFormat::Summary => render::Format::Summary,
        },
        statistics: args.statistics,
        quiet: args.quiet,
        human: render::human::HumanOptions {
            color,
            width: render::human::terminal_width(to_terminal),
            ascii: render::human::ascii_terminal(),
        },
        summary_width: render::human::summary_width(to_terminal),
        elapsed: started.elapsed(),
        fixes_applied: fixed_files.iter().map(|f| f.applied.len()).sum(),
        unsafe_fixes: args.unsafe_fixes,
    };
    let text = render::report(&outcome, &opts);
    match &args.output {
        Some(path) => {
            if let Err(e) = fplint::fs::write_atomically(path, text.as_bytes()) {
                eprintln!("error: cannot write {}: {e}", path.display());
                return ExitCode::from(2);
            }
        }
        None => emit(text.as_bytes()),
    }
    let code = outcome.check_exit_code(fail_never, fix_failed);
    // The process ends here: the system frees the model faster than
    // dropping it item by item would.
    std::mem::forget(outcome);
    ExitCode::from(code)
}

/// A usage error or a failure to do the job: exit code 2.
fn fail(msg: impl std::fmt::Display) -> ExitCode {
    eprintln!("error: {msg}");
    ExitCode::from(2)
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

/// The linter `placement` and `render` read with: the configuration as
/// chosen, and the named paths' projects as context.
fn context_linter(
    paths: &[PathBuf],
    no_config: bool,
    config: Option<PathBuf>,
) -> Result<Linter, ExitCode> {
    let choice = ConfigChoice::from_flags(no_config, config);
    let linter = match Linter::with_choice(paths, &choice) {
        Ok(l) => l,
        Err(e) => {
            eprint!("{}", render::config_error(&e));
            return Err(ExitCode::from(2));
        }
    };
    Ok(linter.with_options(Options {
        config: choice,
        project_context: true,
        ..Options::default()
    }))
}
