//! Source files, byte spans and the line index used only when rendering.

use std::sync::{Arc, OnceLock};

/// Index of a file in a [`SourceMap`].
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FileId(pub u32);

/// A byte range in one file. Lines and columns are computed only when rendering.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct Span {
    /// The file.
    pub file: FileId,
    /// First byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// A span of `start..end` (clamped so that `end >= start`).
    pub fn new(file: FileId, start: usize, end: usize) -> Span {
        let start = u32::try_from(start).unwrap_or(u32::MAX);
        let end = u32::try_from(end).unwrap_or(u32::MAX).max(start);
        Span { file, start, end }
    }

    /// The smallest span covering both (same file assumed).
    pub fn cover(self, other: Span) -> Span {
        Span {
            file: self.file,
            start: self.start.min(other.start),
            end: self.end.max(other.end),
        }
    }

    /// The byte range, to slice the file's text.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// One-based line and column; the column counts Unicode scalar values.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct LineCol {
    /// Line, from 1.
    pub line: usize,
    /// Column, from 1.
    pub column: usize,
}

/// Byte offsets of line starts, built once per file on first use.
#[derive(Debug)]
pub struct LineIndex {
    starts: Vec<u32>,
}

impl LineIndex {
    /// Index the line starts of `text`.
    pub fn new(text: &str) -> LineIndex {
        let mut starts = vec![0u32];
        for (i, b) in text.bytes().enumerate() {
            if b == b'\n' {
                starts.push(u32::try_from(i + 1).unwrap_or(u32::MAX));
            }
        }
        LineIndex { starts }
    }

    /// Zero-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        let off = u32::try_from(offset).unwrap_or(u32::MAX);
        match self.starts.binary_search(&off) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        }
    }

    /// The byte offset where `line` (from 0) starts.
    pub fn line_start(&self, line: usize) -> usize {
        self.starts.get(line).copied().unwrap_or(0) as usize
    }

    /// How many lines there are.
    pub fn line_count(&self) -> usize {
        self.starts.len()
    }
}

/// A file that was read, with the path as reached from the arguments.
#[derive(Debug)]
pub struct SourceFile {
    /// Its id in the run.
    pub id: FileId,
    /// Display path, `/`-separated, relative when the argument was relative.
    pub path: String,
    /// Empty while [`SourceFile::is_released`]: see [`crate::sources::Sources::release_text`].
    pub text: Arc<str>,
    lines: OnceLock<LineIndex>,
    released: Option<Fingerprint>,
}

/// What a released file's text was, to tell whether reading it again gives
/// back the same text the spans point into.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub struct Fingerprint {
    /// Length in bytes.
    pub len: usize,
    /// A hash of the bytes.
    pub digest: u64,
}

impl Fingerprint {
    /// The fingerprint of `text`.
    pub fn of(text: &str) -> Fingerprint {
        // Not cryptographic: it catches a file edited during the run.
        let mut h: u64 = 0xcbf2_9ce4_8422_2325;
        let mut chunks = text.as_bytes().chunks_exact(8);
        for c in &mut chunks {
            let mut w = [0u8; 8];
            w.copy_from_slice(c);
            h = (h.rotate_left(5) ^ u64::from_le_bytes(w)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
        for &b in chunks.remainder() {
            h = (h.rotate_left(5) ^ u64::from(b)).wrapping_mul(0x517c_c1b7_2722_0a95);
        }
        Fingerprint {
            len: text.len(),
            digest: h,
        }
    }
}

impl SourceFile {
    /// A file with its text.
    pub fn new(id: FileId, path: impl Into<String>, text: impl Into<Arc<str>>) -> SourceFile {
        SourceFile {
            id,
            path: path.into(),
            text: text.into(),
            lines: OnceLock::new(),
            released: None,
        }
    }

    /// The same file without its text, which can be read again and checked.
    pub fn released(&self) -> SourceFile {
        SourceFile {
            id: self.id,
            path: self.path.clone(),
            text: Arc::from(""),
            lines: OnceLock::new(),
            released: Some(self.released.unwrap_or_else(|| Fingerprint::of(&self.text))),
        }
    }

    /// The same file, shown under another path.
    pub fn renamed(&self, path: impl Into<String>) -> SourceFile {
        SourceFile {
            id: self.id,
            path: path.into(),
            text: self.text.clone(),
            lines: OnceLock::new(),
            released: self.released,
        }
    }

    /// Whether the text was dropped to save memory.
    pub fn is_released(&self) -> bool {
        self.released.is_some()
    }

    /// What the text was, if it was released.
    pub fn fingerprint(&self) -> Option<Fingerprint> {
        self.released
    }

    /// The line index, built on first use.
    pub fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(&self.text))
    }

    /// Clamp an offset into the text and onto a char boundary.
    pub fn clamp(&self, offset: usize) -> usize {
        let mut o = offset.min(self.text.len());
        while o > 0 && !self.text.is_char_boundary(o) {
            o -= 1;
        }
        o
    }

    /// The line and column of a byte offset.
    pub fn line_col(&self, offset: usize) -> LineCol {
        let offset = self.clamp(offset);
        let lines = self.lines();
        let line = lines.line_of(offset);
        let start = lines.line_start(line);
        let column = self.text[start..offset].chars().count() + 1;
        LineCol {
            line: line + 1,
            column,
        }
    }

    /// Column in UTF-16 code units (SARIF's default unit), one-based.
    pub fn utf16_column(&self, offset: usize) -> usize {
        let offset = self.clamp(offset);
        let lines = self.lines();
        let start = lines.line_start(lines.line_of(offset));
        self.text[start..offset].encode_utf16().count() + 1
    }

    /// The text a span covers (empty if out of range).
    pub fn slice(&self, span: Span) -> &str {
        let s = self.clamp(span.start as usize);
        let e = self.clamp(span.end as usize).max(s);
        &self.text[s..e]
    }
}

/// All files of one run, addressed by [`FileId`].
#[derive(Debug, Default)]
pub struct SourceMap {
    files: Vec<Arc<SourceFile>>,
}

impl SourceMap {
    /// An empty map.
    pub fn new() -> SourceMap {
        SourceMap::default()
    }

    /// Add a file and return its id.
    pub fn add(&mut self, path: impl Into<String>, text: impl Into<Arc<str>>) -> FileId {
        let id = FileId(u32::try_from(self.files.len()).unwrap_or(u32::MAX));
        self.files.push(Arc::new(SourceFile::new(id, path, text)));
        id
    }

    /// Add a file made elsewhere; its id must be the next one.
    pub fn push(&mut self, file: Arc<SourceFile>) {
        self.files.push(file);
    }

    /// The file with this id.
    pub fn get(&self, id: FileId) -> Option<&Arc<SourceFile>> {
        self.files.get(id.0 as usize)
    }

    /// Every file, by id.
    pub fn files(&self) -> &[Arc<SourceFile>] {
        &self.files
    }

    /// How many files there are.
    pub fn len(&self) -> usize {
        self.files.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.files.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_col_counts_chars() {
        let f = SourceFile::new(FileId(0), "a.yaml", "a: 1\nbé: x\n");
        assert_eq!(f.line_col(0), LineCol { line: 1, column: 1 });
        // 'x' is at byte 10 (b=5, é=6..8, :=8, space=9)
        assert_eq!(f.line_col(10), LineCol { line: 2, column: 5 });
        assert_eq!(f.utf16_column(10), 5);
        assert_eq!(f.line_col(1000), LineCol { line: 3, column: 1 });
    }
}
