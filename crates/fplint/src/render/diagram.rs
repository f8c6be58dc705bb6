//! `fplint placement --format mermaid|dot`: the placement view as a picture.
//! Each cluster is a box holding its Fargate profiles (with their selectors),
//! its other capacity, and its workloads with an arrow to where they land.
//! A workload known to land nowhere is red; one whose landing cannot be told
//! is grey and dashed, never red.

use crate::placement::{tables_of, ClusterTable, Row};
use fplint_core::model::{Capacity, Cluster, Project};
use fplint_core::sources::Sources;
use fplint_core::workload::Workload;

/// What a picture shows, in drawing order.
struct Picture {
    clusters: Vec<ClusterPic>,
    /// Workloads that no cluster could be given (several clusters, no hint).
    homeless: Vec<Box_>,
}

struct ClusterPic {
    title: Vec<String>,
    profiles: Vec<Box_>,
    /// EC2 capacity, when the cluster has some or it cannot be told.
    nodes: Option<Box_>,
    workloads: Vec<Box_>,
    edges: Vec<Edge>,
    /// A note shown when the cluster has no workload.
    empty: Option<String>,
}

/// One node: its lines of text and how it looks.
struct Box_ {
    lines: Vec<String>,
    style: Style,
}

#[derive(Copy, Clone, PartialEq, Eq)]
enum Style {
    Profile,
    Nodes,
    /// Capacity or landing that cannot be told.
    Unknown,
    Workload,
    /// Known to land nowhere: Pending forever.
    Nowhere,
}

enum Target {
    Profile(usize),
    Nodes,
}

struct Edge {
    workload: usize,
    target: Target,
    /// One of several candidates, or capacity that cannot be told.
    maybe: bool,
}

fn num(v: f64) -> String {
    format!("{v}")
}

fn selector_lines(c: &Cluster, profile: usize) -> Vec<String> {
    let Some(p) = c.fargate_profiles.get(profile) else {
        return Vec::new();
    };
    let Some(selectors) = p.selectors.known() else {
        return vec!["selectors unknown".into()];
    };
    if selectors.is_empty() {
        return vec!["no selectors".into()];
    }
    selectors
        .iter()
        .map(|s| {
            let ns = s
                .namespace
                .known()
                .map_or_else(|| "namespace unknown".to_string(), |n| format!("ns {n}"));
            match s.labels.known() {
                None => format!("{ns} + labels unknown"),
                Some(l) if l.is_empty() => ns,
                Some(l) => {
                    let pairs: Vec<String> = l
                        .iter()
                        .map(|l| {
                            format!(
                                "{}={}",
                                l.key.known().map_or("?", String::as_str),
                                l.value.known().map_or("?", String::as_str)
                            )
                        })
                        .collect();
                    format!("{ns} + {}", pairs.join(", "))
                }
            }
        })
        .collect()
}

/// The EC2 capacity box, when the cluster has some or it cannot be told.
fn nodes_box(c: &Cluster) -> Option<Box_> {
    let mut lines = Vec::new();
    let auto_mode =
        matches!(&c.capacity, Capacity::Declared(l) if l.path.starts_with("autoModeConfig"));
    if auto_mode {
        lines.push("EKS Auto Mode nodes".to_string());
    }
    for g in &c.node_groups {
        let kind = if g.managed {
            "managed node group"
        } else {
            "self-managed node group"
        };
        lines.push(format!(
            "{kind} {}",
            g.name.known().map_or("(name unknown)", String::as_str)
        ));
    }
    if c.karpenter().known() == Some(&true) {
        lines.push("Karpenter nodes".into());
    }
    match (c.fargate_only().known(), lines.is_empty()) {
        (_, false) => {}
        (Some(false), true) => lines.push("EC2 nodes".into()),
        (Some(true), true) if c.karpenter().known() == Some(&false) => return None,
        _ => {
            return Some(Box_ {
                lines: vec!["other capacity unknown".into()],
                style: Style::Unknown,
            })
        }
    }
    Some(Box_ {
        lines,
        style: Style::Nodes,
    })
}

fn size_line(r: &Row) -> String {
    match (r.billed_vcpu, r.billed_memory_gb) {
        (Some(c), Some(m)) => format!("billed {} vCPU / {} GB", num(c), num(m)),
        _ => "unknown size".into(),
    }
}

fn workload_title(r: &Row) -> String {
    crate::placement::workload_title(r)
}

fn cluster_pic(c: &Cluster, t: &ClusterTable) -> ClusterPic {
    let kind = t.capacity();
    let mut title = vec![
        format!("cluster {} · {kind}", t.cluster),
        t.defined_at.clone(),
    ];
    if let Some(m) = &t.module {
        title.push(m.clone());
    }
    if let Some(r) = &t.run_by {
        title.push(format!("run by {r}"));
    }
    let profiles: Vec<Box_> = (0..c.fargate_profiles.len())
        .map(|i| {
            let mut lines = vec![format!(
                "Fargate profile {}",
                c.fargate_profiles[i].display_name()
            )];
            lines.extend(selector_lines(c, i));
            Box_ {
                lines,
                style: Style::Profile,
            }
        })
        .collect();
    let index = |name: &str| {
        c.fargate_profiles
            .iter()
            .position(|p| p.display_name() == name)
    };
    let nodes = nodes_box(c);
    let nodes_known = nodes.as_ref().map(|n| n.style == Style::Nodes);
    let mut workloads = Vec::new();
    let mut edges = Vec::new();
    for (wi, r) in t.rows.iter().enumerate() {
        let mut lines = vec![workload_title(r)];
        lines.push(
            r.namespace
                .as_ref()
                .map_or_else(|| "namespace unknown".into(), |n| format!("ns {n}")),
        );
        let mut style = Style::Workload;
        match r.chosen.as_deref() {
            Some("") => match nodes_known {
                Some(known) => {
                    lines.push("not on Fargate".into());
                    edges.push(Edge {
                        workload: wi,
                        target: Target::Nodes,
                        maybe: !known,
                    });
                }
                None => {
                    lines.push(if r.workload.starts_with("DaemonSet/") {
                        "lands nowhere: no node for a DaemonSet".into()
                    } else {
                        "lands nowhere: Pending".into()
                    });
                    style = Style::Nowhere;
                }
            },
            Some(name) => {
                lines.push(size_line(r));
                let chosen = index(name);
                if let Some(p) = chosen {
                    edges.push(Edge {
                        workload: wi,
                        target: Target::Profile(p),
                        maybe: false,
                    });
                }
                // The others that match: a pin label or a rename moves the pod.
                let mut seen = Vec::new();
                for p in r.matched.iter().filter_map(|m| index(m)) {
                    if Some(p) != chosen && !seen.contains(&p) {
                        seen.push(p);
                        edges.push(Edge {
                            workload: wi,
                            target: Target::Profile(p),
                            maybe: true,
                        });
                    }
                }
            }
            None if !r.matched.is_empty() => {
                lines.push("one of several profiles".into());
                lines.push(size_line(r));
                let mut seen = Vec::new();
                for p in r.matched.iter().filter_map(|m| index(m)) {
                    if !seen.contains(&p) {
                        seen.push(p);
                        edges.push(Edge {
                            workload: wi,
                            target: Target::Profile(p),
                            maybe: true,
                        });
                    }
                }
            }
            None => {
                lines.push("placement unknown".into());
                style = Style::Unknown;
            }
        }
        workloads.push(Box_ { lines, style });
    }
    // An unknown-capacity box with nothing pointing at it says nothing.
    let nodes = nodes.filter(|n| {
        n.style == Style::Nodes || edges.iter().any(|e| matches!(e.target, Target::Nodes))
    });
    let empty = (t.rows.is_empty()).then(|| "no workloads found for this cluster".to_string());
    ClusterPic {
        title,
        profiles,
        nodes,
        workloads,
        edges,
        empty,
    }
}

fn homeless_box(sources: &Sources, w: &Workload) -> Box_ {
    let at = sources
        .get(w.loc.span.file)
        .map(|f| format!("{}:{}", f.path, f.line_col(w.loc.span.start as usize).line))
        .unwrap_or_default();
    let mut title = format!(
        "{}/{}",
        w.kind.as_str(),
        w.name.known().map_or("?", String::as_str)
    );
    if let Some(v) = &w.variant {
        use fplint_core::workload::VariantKind;
        match &v.kind {
            VariantKind::Overlay => title.push_str(&format!(" ({})", v.name)),
            VariantKind::Release { chart } => {
                title.push_str(&format!(" (release {} of chart {chart})", v.name))
            }
            VariantKind::ChartDefaults { chart } => {
                title.push_str(&format!(" (chart {chart}, any release)"))
            }
        }
    }
    Box_ {
        lines: vec![
            title,
            w.namespace
                .known()
                .map_or_else(|| "namespace unknown".into(), |n| format!("ns {n}")),
            at,
        ],
        style: Style::Unknown,
    }
}

fn picture(project: &Project, sources: &Sources) -> Picture {
    let tables = tables_of(project, sources);
    let clusters = project
        .clusters
        .iter()
        .zip(&tables)
        .map(|(c, t)| cluster_pic(c, t))
        .collect();
    let homeless = project
        .workloads
        .iter()
        .filter(|w| w.cluster_key.is_none())
        .map(|w| homeless_box(sources, w))
        .collect();
    Picture { clusters, homeless }
}

const HOMELESS_TITLE: &str = "workloads of no known cluster";

/// Characters of a label line drawn whole: names come from the files and
/// may be any length; longer ones are cut in the middle.
const LABEL_MAX: usize = 140;

fn clip(s: &str) -> std::borrow::Cow<'_, str> {
    let n = s.chars().count();
    if n <= LABEL_MAX {
        return std::borrow::Cow::Borrowed(s);
    }
    let mut out: String = s.chars().take(LABEL_MAX - 31).collect();
    out.push('\u{2026}');
    out.extend(s.chars().skip(n - 30));
    std::borrow::Cow::Owned(out)
}

/// Text for a Mermaid label inside `"…"`: entity codes for what Mermaid or
/// HTML would read as syntax.
fn mermaid_text(s: &str) -> String {
    let s = clip(s);
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '"' => out.push_str("#34;"),
            '#' => out.push_str("#35;"),
            '&' => out.push_str("#38;"),
            '<' => out.push_str("#60;"),
            '>' => out.push_str("#62;"),
            '`' => out.push_str("#96;"),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn mermaid_label(lines: &[String]) -> String {
    let lines: Vec<String> = lines.iter().map(|l| mermaid_text(l)).collect();
    format!("\"{}\"", lines.join("<br/>"))
}

fn mermaid_class(style: Style) -> &'static str {
    match style {
        Style::Profile => "profile",
        Style::Nodes => "nodes",
        Style::Unknown => "unknown",
        Style::Workload => "workload",
        Style::Nowhere => "nowhere",
    }
}

/// The placement of every cluster as a Mermaid flowchart.
pub fn mermaid(project: &Project, sources: &Sources) -> String {
    crate::render::escape_controls(&mermaid_unescaped(project, sources)).into_owned()
}

/// The placement of every cluster as a Mermaid flowchart.
fn mermaid_unescaped(project: &Project, sources: &Sources) -> String {
    let pic = picture(project, sources);
    // Wider labels than the default 200 px keep a selector on one line;
    // clusters stack top to bottom, each drawn left to right.
    let mut out =
        String::from("---\nconfig:\n  flowchart:\n    wrappingWidth: 400\n---\nflowchart TB\n");
    let mut groups: Vec<String> = Vec::new();
    let mut classes: Vec<(&'static str, String)> = Vec::new();
    let node =
        |out: &mut String, classes: &mut Vec<_>, id: String, b: &Box_, shape: (&str, &str)| {
            out.push_str(&format!(
                "    {id}{}{}{}\n",
                shape.0,
                mermaid_label(&b.lines),
                shape.1
            ));
            classes.push((mermaid_class(b.style), id));
        };
    for (ci, c) in pic.clusters.iter().enumerate() {
        // Mermaid draws a title of several lines over the boxes below it.
        out.push_str(&format!(
            "  subgraph c{ci}[{}]\n",
            mermaid_label(&[c.title.join(" — ")])
        ));
        groups.push(format!("c{ci}"));
        out.push_str("    direction LR\n");
        for (pi, p) in c.profiles.iter().enumerate() {
            node(
                &mut out,
                &mut classes,
                format!("c{ci}p{pi}"),
                p,
                ("[[", "]]"),
            );
        }
        if let Some(n) = &c.nodes {
            node(&mut out, &mut classes, format!("c{ci}n"), n, ("[(", ")]"));
        }
        for (wi, w) in c.workloads.iter().enumerate() {
            node(&mut out, &mut classes, format!("c{ci}w{wi}"), w, ("(", ")"));
        }
        if let Some(e) = &c.empty {
            out.push_str(&format!(
                "    c{ci}e[{}]\n",
                mermaid_label(std::slice::from_ref(e))
            ));
            classes.push(("note", format!("c{ci}e")));
        }
        for e in &c.edges {
            let to = match e.target {
                Target::Profile(p) => format!("c{ci}p{p}"),
                Target::Nodes => format!("c{ci}n"),
            };
            let arrow = if e.maybe { "-.->" } else { "-->" };
            out.push_str(&format!("    c{ci}w{} {arrow} {to}\n", e.workload));
        }
        out.push_str("  end\n");
    }
    if !pic.homeless.is_empty() {
        out.push_str(&format!(
            "  subgraph u[{}]\n    direction LR\n",
            mermaid_label(&[HOMELESS_TITLE.to_string()])
        ));
        groups.push("u".into());
        for (i, w) in pic.homeless.iter().enumerate() {
            node(&mut out, &mut classes, format!("u{i}"), w, ("(", ")"));
        }
        out.push_str("  end\n");
    }
    // Invisible links keep the clusters in the order of the text.
    if groups.len() > 1 {
        out.push_str(&format!("  {}\n", groups.join(" ~~~ ")));
    }
    if pic.clusters.is_empty() && pic.homeless.is_empty() {
        out.push_str("  none[\"no clusters found\"]\n");
        classes.push(("note", "none".into()));
    }
    out.push_str(
        "  classDef profile fill:#fff4e5,stroke:#d9822b,color:#1a1a1a\n\
         \x20 classDef nodes fill:#e8f0fe,stroke:#1a73e8,color:#1a1a1a\n\
         \x20 classDef workload fill:#ffffff,stroke:#5f6368,color:#1a1a1a\n\
         \x20 classDef nowhere fill:#fde8e8,stroke:#c62828,stroke-width:2px,color:#b71c1c\n\
         \x20 classDef unknown fill:#f1f3f4,stroke:#80868b,stroke-dasharray:4 3,color:#3c4043\n\
         \x20 classDef note fill:none,stroke:none,color:#5f6368\n",
    );
    for class in ["profile", "nodes", "workload", "nowhere", "unknown", "note"] {
        let ids: Vec<&str> = classes
            .iter()
            .filter(|(c, _)| *c == class)
            .map(|(_, id)| id.as_str())
            .collect();
        if !ids.is_empty() {
            out.push_str(&format!("  class {} {class}\n", ids.join(",")));
        }
    }
    out
}

/// Text for a DOT double-quoted string.
fn dot_text(s: &str) -> String {
    let s = clip(s);
    let mut out = String::with_capacity(s.len());
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if c.is_control() => out.push(' '),
            c => out.push(c),
        }
    }
    out
}

fn dot_label(lines: &[String]) -> String {
    let lines: Vec<String> = lines.iter().map(|l| dot_text(l)).collect();
    format!("\"{}\"", lines.join("\\n"))
}

fn dot_attrs(style: Style) -> &'static str {
    match style {
        Style::Profile => r##"shape=box, style="filled", fillcolor="#fff4e5", color="#d9822b""##,
        Style::Nodes => r##"shape=cylinder, style="filled", fillcolor="#e8f0fe", color="#1a73e8""##,
        Style::Workload => r##"shape=box, style="rounded", color="#5f6368""##,
        Style::Nowhere => {
            r##"shape=box, style="rounded,filled,bold", fillcolor="#fde8e8", color="#c62828", fontcolor="#b71c1c""##
        }
        Style::Unknown => {
            r##"shape=box, style="rounded,filled,dashed", fillcolor="#f1f3f4", color="#80868b", fontcolor="#3c4043""##
        }
    }
}

/// The placement of every cluster as a Graphviz DOT digraph.
pub fn dot(project: &Project, sources: &Sources) -> String {
    crate::render::escape_controls(&dot_unescaped(project, sources)).into_owned()
}

/// The placement of every cluster as a Graphviz DOT digraph.
fn dot_unescaped(project: &Project, sources: &Sources) -> String {
    let pic = picture(project, sources);
    let mut out = String::from(
        "digraph placement {\n  rankdir=LR;\n  fontname=\"Helvetica\";\n  node [fontname=\"Helvetica\", fontsize=11];\n  edge [color=\"#5f6368\"];\n",
    );
    let node = |out: &mut String, id: String, b: &Box_| {
        out.push_str(&format!(
            "    {id} [label={}, {}];\n",
            dot_label(&b.lines),
            dot_attrs(b.style)
        ));
    };
    let mut blocks = Vec::new();
    for (ci, c) in pic.clusters.iter().enumerate() {
        let mut out = String::new();
        out.push_str(&format!(
            "  subgraph cluster_c{ci} {{\n    label={};\n    style=\"rounded\";\n    color=\"#9aa0a6\";\n",
            dot_label(&c.title)
        ));
        for (pi, p) in c.profiles.iter().enumerate() {
            node(&mut out, format!("c{ci}p{pi}"), p);
        }
        if let Some(n) = &c.nodes {
            node(&mut out, format!("c{ci}n"), n);
        }
        for (wi, w) in c.workloads.iter().enumerate() {
            node(&mut out, format!("c{ci}w{wi}"), w);
        }
        if let Some(e) = &c.empty {
            out.push_str(&format!(
                "    c{ci}e [label={}, shape=plaintext, fontcolor=\"#5f6368\"];\n",
                dot_label(std::slice::from_ref(e))
            ));
        }
        for e in &c.edges {
            let to = match e.target {
                Target::Profile(p) => format!("c{ci}p{p}"),
                Target::Nodes => format!("c{ci}n"),
            };
            let style = if e.maybe { " [style=dashed]" } else { "" };
            out.push_str(&format!("    c{ci}w{} -> {to}{style};\n", e.workload));
        }
        out.push_str("  }\n");
        blocks.push(out);
    }
    if !pic.homeless.is_empty() {
        let mut out = String::new();
        out.push_str(&format!(
            "  subgraph cluster_u {{\n    label={};\n    style=\"rounded,dashed\";\n    color=\"#9aa0a6\";\n",
            dot_label(&[HOMELESS_TITLE.to_string()])
        ));
        for (i, w) in pic.homeless.iter().enumerate() {
            node(&mut out, format!("u{i}"), w);
        }
        out.push_str("  }\n");
        blocks.push(out);
    }
    // With rankdir=LR, dot stacks unconnected clusters bottom to top:
    // written last first, they read top to bottom in the order of the text.
    for b in blocks.iter().rev() {
        out.push_str(b);
    }
    if pic.clusters.is_empty() && pic.homeless.is_empty() {
        out.push_str("  none [label=\"no clusters found\", shape=plaintext];\n");
    }
    out.push_str("}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mermaid_escapes_syntax_and_keeps_unicode() {
        assert_eq!(
            mermaid_text(r#"a "b" <c> & #d `e` ünï"#),
            "a #34;b#34; #60;c#62; #38; #35;d #96;e#96; ünï"
        );
        assert_eq!(mermaid_text("a\nb"), "a b");
    }

    #[test]
    fn dot_escapes_quotes_and_backslashes() {
        assert_eq!(dot_text(r#"a "b" \n ü"#), r#"a \"b\" \\n ü"#);
        assert_eq!(dot_label(&["x".into(), "y\"".into()]), "\"x\\ny\\\"\"");
    }
}
