//! The compact field tables under `crates/core/schemas/`.
//!
//! ```text
//! @FargateProfile          an object type; `@Name open` accepts any key too
//!   name str               a field and its type
//!   selectors [@Selector]  a list of objects
//!   tags {str}             a map with free keys
//!   selector block @Sel    Terraform: a nested block, not an argument
//! ```
//! Leaf types (`str`, `bool`, `num`, `any`) are not checked by key.

use rustc_hash::FxHashMap as HashMap;

/// A field's coarse type: enough to tell a nested object from a leaf.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Ty {
    /// A scalar of this type (`string`, `boolean`, ...).
    Leaf(String),
    /// A nested object of this name.
    Obj(String),
    /// A list of these.
    List(Box<Ty>),
    /// A map from any key to these.
    Map(Box<Ty>),
    /// A Terraform block of this name.
    Block(String),
}

impl Ty {
    fn parse(s: &str) -> Option<Ty> {
        let s = s.trim();
        if let Some(rest) = s.strip_prefix("block ") {
            return Some(Ty::Block(rest.trim().strip_prefix('@')?.to_string()));
        }
        if let Some(inner) = s.strip_prefix('[').and_then(|r| r.strip_suffix(']')) {
            return Some(Ty::List(Box::new(Ty::parse(inner)?)));
        }
        if let Some(inner) = s.strip_prefix('{').and_then(|r| r.strip_suffix('}')) {
            return Some(Ty::Map(Box::new(Ty::parse(inner)?)));
        }
        if let Some(name) = s.strip_prefix('@') {
            return Some(Ty::Obj(name.to_string()));
        }
        matches!(s, "str" | "bool" | "num" | "any").then(|| Ty::Leaf(s.to_string()))
    }

    /// The object types this type names.
    pub fn objects(&self) -> Vec<&str> {
        match self {
            Ty::Leaf(_) => Vec::new(),
            Ty::Obj(n) | Ty::Block(n) => vec![n.as_str()],
            Ty::List(t) | Ty::Map(t) => t.objects(),
        }
    }
}

impl std::fmt::Display for Ty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Ty::Leaf(s) => write!(f, "{s}"),
            Ty::Obj(n) => write!(f, "@{n}"),
            Ty::List(t) => write!(f, "[{t}]"),
            Ty::Map(t) => write!(f, "{{{t}}}"),
            Ty::Block(n) => write!(f, "block @{n}"),
        }
    }
}

/// One field of an object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Field {
    /// The field's name as the format spells it.
    pub name: String,
    /// Its type.
    pub ty: Ty,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    pub fields: Vec<Field>,
    /// Keys outside `fields` are allowed too.
    pub open: bool,
    /// Where each field is in `fields`: every key of every checked
    /// document is looked up here.
    index: HashMap<String, usize>,
}

impl Object {
    /// The field named `key`; fields are kept sorted by name.
    pub fn get(&self, key: &str) -> Option<&Field> {
        self.fields.get(*self.index.get(key)?)
    }
}

/// The objects of one schema, by name.
#[derive(Clone, Debug, Default)]
pub struct Table {
    /// Every object, by name.
    pub objects: HashMap<String, Object>,
    /// Object names in the order written, for printing back.
    pub order: Vec<String>,
    /// Lines that could not be read (the consistency test wants none).
    pub bad_lines: Vec<usize>,
}

impl Table {
    /// Read a table from its text form (one object or field a line).
    pub fn parse(text: &str) -> Table {
        let mut t = Table::default();
        let mut cur: Option<String> = None;
        for (i, line) in text.lines().enumerate() {
            let trimmed = line.trim();
            if trimmed.is_empty() || trimmed.starts_with('#') {
                continue;
            }
            if let Some(head) = trimmed.strip_prefix('@') {
                let (name, open) = match head.split_once(' ') {
                    Some((n, "open")) => (n, true),
                    Some(_) => {
                        t.bad_lines.push(i + 1);
                        continue;
                    }
                    None => (head, false),
                };
                t.order.push(name.to_string());
                t.objects.insert(
                    name.to_string(),
                    Object {
                        fields: Vec::new(),
                        open,
                        index: HashMap::default(),
                    },
                );
                cur = Some(name.to_string());
                continue;
            }
            let parsed = trimmed
                .split_once(' ')
                .and_then(|(n, ty)| Some((n, Ty::parse(ty)?)));
            match (parsed, cur.as_ref().and_then(|c| t.objects.get_mut(c))) {
                (Some((name, ty)), Some(obj)) => obj.fields.push(Field {
                    name: name.to_string(),
                    ty,
                }),
                _ => t.bad_lines.push(i + 1),
            }
        }
        for o in t.objects.values_mut() {
            o.fields.sort_by(|a, b| a.name.cmp(&b.name));
            // The first of a name twice, as a search of the sorted list
            // might find either (the consistency test wants none).
            for (i, f) in o.fields.iter().enumerate().rev() {
                o.index.insert(f.name.clone(), i);
            }
        }
        t
    }

    /// The object of this name.
    pub fn object(&self, name: &str) -> Option<&Object> {
        self.objects.get(name)
    }

    /// The field `key` of object `object`.
    pub fn field(&self, object: &str, key: &str) -> Option<&Field> {
        self.objects.get(object)?.get(key)
    }

    /// Named object types that no object defines, and objects defined twice
    /// or with a field twice: what the consistency test checks.
    pub fn problems(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .bad_lines
            .iter()
            .map(|l| format!("line {l} cannot be read"))
            .collect();
        if self.order.len() != self.objects.len() {
            out.push("an object is defined twice".into());
        }
        for name in &self.order {
            let Some(o) = self.objects.get(name) else {
                continue;
            };
            for (i, f) in o.fields.iter().enumerate() {
                if i > 0 && o.fields[i - 1].name == f.name {
                    out.push(format!("{name}.{} is listed twice", f.name));
                }
                for r in f.ty.objects() {
                    if !self.objects.contains_key(r) {
                        out.push(format!("{name}.{} names the undefined @{r}", f.name));
                    }
                }
            }
        }
        out
    }

    /// The table written back in its own syntax.
    pub fn render(&self) -> String {
        let mut s = String::new();
        for name in &self.order {
            let Some(o) = self.objects.get(name) else {
                continue;
            };
            s.push('@');
            s.push_str(name);
            if o.open {
                s.push_str(" open");
            }
            s.push('\n');
            for f in &o.fields {
                s.push_str(&format!("  {} {}\n", f.name, f.ty));
            }
        }
        s
    }
}
