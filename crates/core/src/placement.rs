//! Which Fargate profile a pod lands on, whether two selectors can match one
//! pod, and what Fargate bills for a pod's requests.

use crate::glob;
use crate::model::{Cluster, FargateProfile, Known, Selector};

/// The label that pins a pod to one of the profiles that match it.
pub const PIN_LABEL: &str = "eks.amazonaws.com/fargate-profile";

/// Does `sel` match a pod in `namespace` with `labels` (`None`: labels unknown)?
pub fn selector_matches(
    sel: &Selector,
    namespace: &str,
    labels: Option<&[(&str, &str)]>,
) -> Known<bool> {
    let Some(pattern) = sel.namespace.known() else {
        return Known::Unknown;
    };
    if pattern.is_empty() || !glob::matches(pattern, namespace) {
        return Known::Known(false);
    }
    let Some(wanted) = sel.known_labels() else {
        return Known::Unknown;
    };
    if wanted.is_empty() {
        return Known::Known(true);
    }
    let Some(have) = labels else {
        return Known::Unknown;
    };
    Known::Known(wanted.iter().all(|(wk, wv)| {
        have.iter()
            .any(|(hk, hv)| glob::matches(wk, hk) && glob::matches(wv, hv))
    }))
}

/// One selector of one profile that matches the pod.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Match {
    /// Index into the cluster's Fargate profiles.
    pub profile: usize,
    /// Index into the profile's selectors.
    pub selector: usize,
}

/// Where a pod lands: the selectors that match it and the profile chosen.
#[derive(Clone, Debug, Default)]
pub struct Placement {
    /// Selectors that certainly match.
    pub matches: Vec<Match>,
    /// Some selector (or profile list) could not be evaluated.
    pub uncertain: bool,
    /// The profile Fargate uses: `Known(None)` means no profile (Pending on a
    /// Fargate-only cluster), `Unknown` when it cannot be told.
    pub chosen: Known<Option<usize>>,
}

impl Placement {
    /// The profiles with a matching selector, in order, without repeats.
    pub fn matched_profiles(&self) -> Vec<usize> {
        let mut p: Vec<usize> = self.matches.iter().map(|m| m.profile).collect();
        p.dedup();
        p
    }
}

/// Place a pod. `namespace` unknown makes the whole placement unknown.
pub fn place(
    cluster: &Cluster,
    namespace: Option<&str>,
    labels: Option<&[(&str, &str)]>,
) -> Placement {
    let Some(ns) = namespace else {
        return Placement {
            uncertain: true,
            chosen: Known::Unknown,
            ..Placement::default()
        };
    };
    let mut out = Placement {
        uncertain: cluster.profiles_incomplete,
        ..Placement::default()
    };
    let mut maybe: Vec<usize> = Vec::new();
    for (pi, profile) in cluster.fargate_profiles.iter().enumerate() {
        let Some(selectors) = profile.selectors.known() else {
            out.uncertain = true;
            maybe.push(pi);
            continue;
        };
        for (si, sel) in selectors.iter().enumerate() {
            match selector_matches(sel, ns, labels) {
                Known::Known(true) => out.matches.push(Match {
                    profile: pi,
                    selector: si,
                }),
                Known::Known(false) => {}
                Known::Unknown => {
                    out.uncertain = true;
                    maybe.push(pi);
                }
            }
        }
    }
    out.chosen = choose(cluster, &out, &maybe, labels);
    out
}

fn profile_name(p: &FargateProfile) -> Option<&str> {
    p.name.known().map(String::as_str)
}

fn choose(
    cluster: &Cluster,
    placement: &Placement,
    maybe: &[usize],
    labels: Option<&[(&str, &str)]>,
) -> Known<Option<usize>> {
    let profiles = &cluster.fargate_profiles;
    let certain = placement.matched_profiles();
    // A pod label names the profile to use among those that match.
    if let Some(labels) = labels {
        if let Some((_, pin)) = labels.iter().find(|(k, _)| *k == PIN_LABEL) {
            if let Some(&p) = certain
                .iter()
                .find(|&&p| profile_name(&profiles[p]) == Some(pin))
            {
                return Known::Known(Some(p));
            }
        }
    }
    if cluster.profiles_incomplete && certain.is_empty() {
        return Known::Unknown;
    }
    // The only profile that can take the pod takes it, whatever its name.
    if let ([only], [], false) = (&certain[..], maybe, cluster.profiles_incomplete) {
        return Known::Known(Some(*only));
    }
    let mut names = Vec::new();
    for &p in &certain {
        match profile_name(&profiles[p]) {
            Some(n) => names.push((n, p)),
            None => return Known::Unknown,
        }
    }
    names.sort();
    let first = names.first().copied();
    // An uncertain profile that would sort first could take the pod.
    for &m in maybe {
        match (profile_name(&profiles[m]), first) {
            (Some(n), Some((f, _))) if n > f => {}
            _ => return Known::Unknown,
        }
    }
    if cluster.profiles_incomplete {
        return Known::Unknown;
    }
    Known::Known(first.map(|(_, p)| p))
}

/// Whether some string matches both patterns (`*`, `?` wildcards).
pub fn patterns_intersect(a: &str, b: &str) -> bool {
    // The search table is |a|·|b|: two 100 kB "namespaces" would ask for
    // 10 GB. Real ones are at most 63 characters; huge ones compare as text.
    if a.len().saturating_mul(b.len()) > crate::glob::MAX_WORK {
        return a == b;
    }
    // Without wildcards (most namespaces) each matches itself alone.
    let wild = |p: &str| p.bytes().any(|c| c == b'*' || c == b'?');
    if !wild(a) && !wild(b) {
        return a == b;
    }
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    let (n, m) = (a.len(), b.len());
    let mut seen = vec![false; (n + 1) * (m + 1)];
    let mut stack = vec![(0usize, 0usize)];
    let compatible = |x: char, y: char| x == '*' || x == '?' || y == '*' || y == '?' || x == y;
    while let Some((i, j)) = stack.pop() {
        let idx = i * (m + 1) + j;
        if seen[idx] {
            continue;
        }
        seen[idx] = true;
        if i == n && j == m {
            return true;
        }
        // `*` may match nothing.
        if i < n && a[i] == '*' {
            stack.push((i + 1, j));
        }
        if j < m && b[j] == '*' {
            stack.push((i, j + 1));
        }
        // Both consume one character; a `*` stays where it is.
        if i < n && j < m && compatible(a[i], b[j]) {
            let ni = if a[i] == '*' { i } else { i + 1 };
            let nj = if b[j] == '*' { j } else { j + 1 };
            if (ni, nj) != (i, j) {
                stack.push((ni, nj));
            } else {
                // `*` against `*`: any character keeps both; equivalent to
                // letting either advance, which the epsilon moves cover.
                stack.push((i + 1, j));
                stack.push((i, j + 1));
            }
        }
    }
    false
}

/// Whether every string `p` matches is matched by `q` as well. Sound, not
/// complete: `true` is certain, `false` may hide an inclusion that only
/// reordering wildcards shows (`?*` within `*?`).
pub fn pattern_within(p: &str, q: &str) -> bool {
    if p == q {
        return true;
    }
    if p.len().saturating_mul(q.len()) > crate::glob::MAX_WORK {
        return false;
    }
    let p: Vec<char> = p.chars().collect();
    let q: Vec<char> = q.chars().collect();
    let m = p.len();
    // row[j]: q's first i symbols cover p's first j symbols, where a `*` of
    // q covers any run of p's symbols, a `?` one that is not `*`, and a
    // literal only itself.
    let mut row = vec![false; m + 1];
    row[0] = true;
    for &c in &q {
        let mut next = vec![false; m + 1];
        for j in 0..=m {
            next[j] = match c {
                '*' => row[j] || (j > 0 && next[j - 1]),
                '?' => j > 0 && p[j - 1] != '*' && row[j - 1],
                c => j > 0 && p[j - 1] == c && row[j - 1],
            };
        }
        row = next;
    }
    row[m]
}

/// How two selectors' sets of pods relate.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Overlap {
    /// No pod matches both.
    Disjoint,
    /// A pod matches both only if it carries labels of both that neither
    /// selector implies (`tier: web` and `team: checkout`).
    Possible,
    /// Every pod one selector takes in a namespace both select is taken by
    /// the other as well: its labels ask for at least the other's.
    Certain,
}

/// Two label requirements no single pod can meet: one literal key with
/// values that no string matches both ways.
fn contradict(a: (&str, &str), b: (&str, &str)) -> bool {
    a.0 == b.0 && !glob::is_pattern(a.0) && !patterns_intersect(a.1, b.1)
}

/// Whether a pod that meets every requirement of `strong` meets every one of
/// `weak` as well.
fn implies(strong: &[(&str, &str)], weak: &[(&str, &str)]) -> bool {
    weak.iter().all(|(wk, wv)| {
        strong
            .iter()
            .any(|(sk, sv)| pattern_within(sk, wk) && pattern_within(sv, wv))
    })
}

/// How two selectors overlap; unknown parts are unknown.
pub fn selectors_overlap(a: &Selector, b: &Selector) -> Known<Overlap> {
    let (Some(na), Some(nb)) = (a.namespace.known(), b.namespace.known()) else {
        return Known::Unknown;
    };
    if na.is_empty() || nb.is_empty() || !patterns_intersect(na, nb) {
        return Known::Known(Overlap::Disjoint);
    }
    let (Some(la), Some(lb)) = (a.known_labels(), b.known_labels()) else {
        return Known::Unknown;
    };
    let all: Vec<(&str, &str)> = la.iter().chain(lb.iter()).copied().collect();
    for (i, x) in all.iter().enumerate() {
        if all[i + 1..].iter().any(|y| contradict(*x, *y)) {
            return Known::Known(Overlap::Disjoint);
        }
    }
    if implies(&la, &lb) || implies(&lb, &la) {
        Known::Known(Overlap::Certain)
    } else {
        Known::Known(Overlap::Possible)
    }
}

/// Fargate's CPU (millicores) and memory (MiB) combinations.
fn combinations() -> impl Iterator<Item = (u64, u64)> {
    let gib = |g: u64| g * 1024;
    let quarter = [512, 1024, 2048].into_iter().map(|m| (250, m));
    let half = (1..=4).map(move |g| (500, gib(g)));
    let one = (2..=8).map(move |g| (1000, gib(g)));
    let two = (4..=16).map(move |g| (2000, gib(g)));
    let four = (8..=30).map(move |g| (4000, gib(g)));
    let eight = (16..=60).step_by(4).map(move |g| (8000, gib(g)));
    let sixteen = (32..=120).step_by(8).map(move |g| (16000, gib(g)));
    quarter
        .chain(half)
        .chain(one)
        .chain(two)
        .chain(four)
        .chain(eight)
        .chain(sixteen)
}

/// The overhead Fargate adds to every pod for the kubelet and friends.
pub const OVERHEAD_MIB: u64 = 256;

/// The smallest combination that fits `cpu_m` millicores and `memory` bytes
/// once the overhead is added; `None` when no combination is large enough.
pub fn billed_size(cpu_m: u64, memory: u64) -> Option<(u64, u64)> {
    let mib = memory.div_ceil(1024 * 1024) + OVERHEAD_MIB;
    combinations().find(|&(c, m)| c >= cpu_m && m >= mib)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::glob::matches;

    #[test]
    fn billing_rounds_up() {
        // 1 vCPU + 8 GB requested is billed as 2 vCPU + 9 GB (8 GB + 256 MB).
        assert_eq!(
            billed_size(1000, 8 * 1024 * 1024 * 1024),
            Some((2000, 9 * 1024))
        );
        assert_eq!(billed_size(0, 0), Some((250, 512)));
        assert_eq!(billed_size(250, 256 * 1024 * 1024), Some((250, 512)));
        assert_eq!(billed_size(250, 257 * 1024 * 1024), Some((250, 1024)));
        assert_eq!(billed_size(16000, 120 * 1024 * 1024 * 1024), None);
        assert_eq!(billed_size(17000, 0), None);
    }

    /// Every string over `alphabet` up to `len` characters.
    fn strings(alphabet: &[char], len: usize) -> Vec<String> {
        let mut all = vec![String::new()];
        let mut frontier = vec![String::new()];
        for _ in 0..len {
            let mut next = Vec::new();
            for s in &frontier {
                for c in alphabet {
                    let mut t = s.clone();
                    t.push(*c);
                    next.push(t);
                }
            }
            all.extend(next.iter().cloned());
            frontier = next;
        }
        all
    }

    #[test]
    fn intersection_agrees_with_brute_force() {
        let patterns = strings(&['a', 'b', '*', '?'], 3);
        let words = strings(&['a', 'b', 'c'], 6);
        for p in &patterns {
            for q in &patterns {
                let brute = words.iter().any(|w| matches(p, w) && matches(q, w));
                assert_eq!(patterns_intersect(p, q), brute, "{p:?} vs {q:?}");
            }
        }
    }

    #[test]
    fn within_is_sound() {
        let patterns = strings(&['a', 'b', '*', '?'], 3);
        let words = strings(&['a', 'b', 'c'], 6);
        for p in &patterns {
            for q in &patterns {
                if pattern_within(p, q) {
                    let bad = words.iter().find(|w| matches(p, w) && !matches(q, w));
                    assert!(bad.is_none(), "{p:?} within {q:?}, but {bad:?}");
                }
            }
        }
        assert!(pattern_within("web", "web*"));
        assert!(pattern_within("web-?", "web*"));
        assert!(pattern_within("a*b", "*"));
        assert!(pattern_within("a*b*", "a*"));
        assert!(!pattern_within("web*", "web"));
        assert!(!pattern_within("web*", "web-?"));
        assert!(!pattern_within("*", "?*"));
    }
}

/// What a pod asks for, as Fargate reads it: the larger of the largest init
/// container and the sum of the regular containers, per resource, each
/// container's effective requests (limits stand in for requests not set).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct PodRequest {
    pub cpu_m: u64,
    pub memory: u64,
    /// Some container sets a CPU or memory request.
    pub any_set: bool,
}

pub fn pod_request(pod: &crate::workload::PodTemplate) -> Known<PodRequest> {
    let (Some(init), Some(regular)) = (pod.init_containers.known(), pod.containers.known()) else {
        return Known::Unknown;
    };
    let mut any_set = false;
    let mut read = |c: &crate::workload::Container| -> Option<(u64, u64)> {
        let req = c.effective_requests();
        let cpu = *req.cpu.known()?;
        let mem = *req.memory.known()?;
        any_set |= cpu.is_some() || mem.is_some();
        Some((cpu.unwrap_or(0), mem.unwrap_or(0)))
    };
    let mut sum = (0u64, 0u64);
    for c in regular {
        let Some((cpu, mem)) = read(c) else {
            return Known::Unknown;
        };
        sum = (sum.0.saturating_add(cpu), sum.1.saturating_add(mem));
    }
    let mut largest = (0u64, 0u64);
    for c in init {
        let Some((cpu, mem)) = read(c) else {
            return Known::Unknown;
        };
        largest = (largest.0.max(cpu), largest.1.max(mem));
    }
    Known::Known(PodRequest {
        cpu_m: sum.0.max(largest.0),
        memory: sum.1.max(largest.1),
        any_set,
    })
}

#[cfg(test)]
mod properties {
    use super::*;
    use crate::model::{Known, Label, Loc, Located};

    use crate::test_rng::Rng;

    /// Turn a concrete value into a pattern that still matches it.
    fn generalise(rng: &mut Rng, s: &str) -> String {
        let mut out = String::new();
        let chars: Vec<char> = s.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            match rng.next() % 5 {
                0 => {
                    out.push('?');
                    i += 1;
                }
                1 => {
                    out.push('*');
                    i += (rng.next() % 3) as usize;
                }
                _ => {
                    out.push(chars[i]);
                    i += 1;
                }
            }
        }
        out
    }

    fn selector(ns: String, labels: Vec<(String, String)>) -> Selector {
        Selector {
            loc: Loc::default(),
            namespace: Located::new(Known::Known(ns), Loc::default()),
            labels: Known::Known(
                labels
                    .into_iter()
                    .map(|(k, v)| Label {
                        key: Known::Known(k),
                        value: Known::Known(v),
                        loc: Loc::default(),
                    })
                    .collect(),
            ),
            labels_loc: None,
        }
    }

    fn profile(name: Option<&str>, namespaces: &[&str]) -> crate::model::FargateProfile {
        crate::model::FargateProfile {
            name: Located::new(
                name.map(str::to_string).into(),
                Loc::new(Default::default(), "aws_eks_fargate_profile.this"),
            ),
            loc: Loc::new(Default::default(), "aws_eks_fargate_profile.this"),
            selectors: Known::Known(
                namespaces
                    .iter()
                    .map(|n| selector(n.to_string(), Vec::new()))
                    .collect(),
            ),
            selectors_loc: Loc::default(),
            subnets: Known::Known(Vec::new()),
            pod_execution_role: None,
            role_ref: None,
            resource: None,
            created_concurrently: false,
        }
    }

    #[test]
    fn a_profile_without_a_known_name_still_takes_its_pods() {
        let mut c = Cluster::new(
            Located::new(Known::Known("shop".into()), Loc::default()),
            "shop".into(),
            Loc::default(),
            crate::model::Provisioner::Terraform,
        );
        c.fargate_profiles = vec![
            profile(None, &["apps", "shared"]),
            profile(Some("b"), &["shared"]),
        ];
        // Only the unnamed profile matches: it takes the pod.
        assert_eq!(
            place(&c, Some("apps"), Some(&[])).chosen,
            Known::Known(Some(0))
        );
        assert_eq!(
            c.fargate_profiles[0].display_name(),
            "aws_eks_fargate_profile.this"
        );
        // Two match, and the one Fargate picks depends on the unknown name.
        assert_eq!(place(&c, Some("shared"), Some(&[])).chosen, Known::Unknown);
        // None matches.
        assert_eq!(
            place(&c, Some("jobs"), Some(&[])).chosen,
            Known::Known(None)
        );
        // A profile that may match (unknown selectors) could take it instead.
        c.fargate_profiles[1].selectors = Known::Unknown;
        assert_eq!(place(&c, Some("apps"), Some(&[])).chosen, Known::Unknown);
    }

    #[test]
    fn a_pod_built_to_match_always_matches() {
        let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
        for _ in 0..5_000 {
            let ns = rng.word();
            let mut pod: Vec<(String, String)> = (0..rng.next() % 4)
                .map(|_| (rng.word(), rng.word()))
                .collect();
            // A pod has one value per label key.
            pod.sort();
            pod.dedup_by(|a, b| a.0 == b.0);
            // The selector asks for a subset of the pod's labels, generalised.
            let mut wanted = Vec::new();
            for (k, v) in &pod {
                if rng.next().is_multiple_of(2) {
                    wanted.push((generalise(&mut rng, k), generalise(&mut rng, v)));
                }
            }
            let sel = selector(generalise(&mut rng, &ns), wanted);
            let labels: Vec<(&str, &str)> =
                pod.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
            assert_eq!(
                selector_matches(&sel, &ns, Some(&labels)),
                Known::Known(true),
                "{:?} {:?} vs {ns} {labels:?}",
                sel.namespace.known(),
                sel.known_labels()
            );
            // And a selector that overlaps itself overlaps.
            assert_eq!(
                selectors_overlap(&sel, &sel),
                Known::Known(Overlap::Certain)
            );
        }
    }

    #[test]
    fn matching_agrees_with_a_naive_reference() {
        let mut rng = Rng(0x2545_f491_4f6c_dd1d);
        for _ in 0..5_000 {
            let base = rng.word();
            let pat = generalise(&mut rng, &base);
            let ns = rng.word();
            let sel = selector(pat.clone(), Vec::new());
            let naive = naive_match(
                &pat.chars().collect::<Vec<_>>(),
                &ns.chars().collect::<Vec<_>>(),
            );
            assert_eq!(
                selector_matches(&sel, &ns, None),
                Known::Known(naive),
                "{pat} vs {ns}"
            );
        }
    }

    #[test]
    fn overlap_is_certain_only_when_one_selector_implies_the_other() {
        let sel = |ns: &str, labels: &[(&str, &str)]| {
            selector(
                ns.to_string(),
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            )
        };
        let cases: &[(Selector, Selector, Overlap)] = &[
            (sel("shop", &[]), sel("shop", &[]), Overlap::Certain),
            (
                sel("shop", &[]),
                sel("sh*", &[("tier", "web")]),
                Overlap::Certain,
            ),
            (
                sel("shop", &[("tier", "web")]),
                sel("shop", &[("tier", "web"), ("team", "a")]),
                Overlap::Certain,
            ),
            (
                sel("shop", &[("tier", "web*")]),
                sel("shop", &[("tier", "web-1")]),
                Overlap::Certain,
            ),
            (
                sel("shop", &[("tier", "web")]),
                sel("shop", &[("team", "a")]),
                Overlap::Possible,
            ),
            (
                sel("shop", &[("tier", "web*")]),
                sel("shop", &[("tier", "*-1")]),
                Overlap::Possible,
            ),
            (
                sel("shop", &[("tier", "web")]),
                sel("shop", &[("tier", "batch")]),
                Overlap::Disjoint,
            ),
            (sel("shop", &[]), sel("kube-system", &[]), Overlap::Disjoint),
        ];
        for (a, b, want) in cases {
            assert_eq!(selectors_overlap(a, b), Known::Known(*want), "{a:?} {b:?}");
            assert_eq!(selectors_overlap(b, a), Known::Known(*want), "{b:?} {a:?}");
        }
    }

    /// Exponential but obviously right.
    fn naive_match(p: &[char], t: &[char]) -> bool {
        match (p.first(), t.first()) {
            (None, None) => true,
            (None, Some(_)) => false,
            (Some('*'), _) => naive_match(&p[1..], t) || (!t.is_empty() && naive_match(p, &t[1..])),
            (Some('?'), Some(_)) => naive_match(&p[1..], &t[1..]),
            (Some(c), Some(d)) if c == d => naive_match(&p[1..], &t[1..]),
            _ => false,
        }
    }
}
