//! Positions: LSP counts columns in the negotiated encoding's code units,
//! fplint in bytes. Every conversion clamps, so a client's out-of-range
//! position lands at the nearest end instead of failing.

use lsp_types::{Position, PositionEncodingKind, Range, TextDocumentContentChangeEvent};

/// The unit of an LSP column.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Encoding {
    /// Bytes: fplint's own unit, chosen when the client offers it.
    Utf8,
    /// UTF-16 code units: what LSP requires when nothing else is agreed.
    Utf16,
}

impl Encoding {
    /// UTF-8 if the client offers it, else UTF-16 (the protocol's default).
    pub fn negotiate(offered: Option<&[PositionEncodingKind]>) -> Encoding {
        match offered {
            Some(kinds) if kinds.contains(&PositionEncodingKind::UTF8) => Encoding::Utf8,
            _ => Encoding::Utf16,
        }
    }

    /// The kind announced to the client.
    pub fn kind(self) -> PositionEncodingKind {
        match self {
            Encoding::Utf8 => PositionEncodingKind::UTF8,
            Encoding::Utf16 => PositionEncodingKind::UTF16,
        }
    }
}

/// Byte offsets of line starts.
pub struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    /// Index `text`.
    pub fn new(text: &str) -> Lines {
        let mut starts = vec![0];
        starts.extend(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i + 1),
        );
        Lines { starts }
    }

    /// The position of a byte offset (clamped into the text, onto a char).
    pub fn position(&self, text: &str, offset: usize, enc: Encoding) -> Position {
        let mut offset = offset.min(text.len());
        while !text.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = match self.starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.starts.get(line).copied().unwrap_or(0);
        let before = text.get(start..offset).unwrap_or("");
        let column = match enc {
            Encoding::Utf8 => before.len(),
            Encoding::Utf16 => before.encode_utf16().count(),
        };
        Position::new(to_u32(line), to_u32(column))
    }

    /// The byte offset of a position: a line past the end is the end of
    /// the text, a column past the end of its line is the line's end, and a
    /// column inside a character moves to the character's end.
    pub fn offset(&self, text: &str, pos: Position, enc: Encoding) -> usize {
        let Some(&start) = self.starts.get(pos.line as usize) else {
            return text.len();
        };
        let rest = text.get(start..).unwrap_or("");
        let line = rest.split('\n').next().unwrap_or("");
        let line = line.strip_suffix('\r').unwrap_or(line);
        let want = pos.character as usize;
        let mut units = 0;
        for (i, c) in line.char_indices() {
            if units >= want {
                return start + i;
            }
            units += match enc {
                Encoding::Utf8 => c.len_utf8(),
                Encoding::Utf16 => c.len_utf16(),
            };
        }
        start + line.len()
    }

    /// The range of a byte range.
    pub fn range(&self, text: &str, start: usize, end: usize, enc: Encoding) -> Range {
        Range::new(
            self.position(text, start, enc),
            self.position(text, end.max(start), enc),
        )
    }
}

fn to_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Apply one change a client sent: the whole text, or a range replaced.
pub fn apply_change(text: &mut String, change: TextDocumentContentChangeEvent, enc: Encoding) {
    match change.range {
        None => *text = change.text,
        Some(range) => {
            let lines = Lines::new(text);
            let start = lines.offset(text, range.start, enc);
            let end = lines.offset(text, range.end, enc).max(start);
            text.replace_range(start..end, &change.text);
        }
    }
}

/// Whether `pos` lies in `range` (ends included: a cursor just after a
/// finding's last character still points at it).
pub fn contains(range: &Range, pos: Position) -> bool {
    range.start <= pos && pos <= range.end
}

/// Whether two ranges share a position.
pub fn overlaps(a: &Range, b: &Range) -> bool {
    a.start <= b.end && b.start <= a.end
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_count_surrogate_pairs() {
        let text = "a: \"😀é\"\nb: 1\n";
        let lines = Lines::new(text);
        // The emoji is 4 bytes and 2 UTF-16 units; é is 2 bytes and 1 unit.
        let after_e = text.find("\"\n").unwrap_or(0);
        assert_eq!(
            lines.position(text, after_e, Encoding::Utf16),
            Position::new(0, 7)
        );
        assert_eq!(
            lines.position(text, after_e, Encoding::Utf8),
            Position::new(0, 10)
        );
        assert_eq!(
            lines.offset(text, Position::new(0, 7), Encoding::Utf16),
            after_e
        );
        // Inside the surrogate pair: the end of the character.
        assert_eq!(lines.offset(text, Position::new(0, 5), Encoding::Utf16), 8);
    }

    #[test]
    fn out_of_range_positions_clamp() {
        let text = "ab\r\ncd";
        let lines = Lines::new(text);
        assert_eq!(lines.offset(text, Position::new(0, 99), Encoding::Utf16), 2);
        assert_eq!(lines.offset(text, Position::new(7, 0), Encoding::Utf16), 6);
        assert_eq!(
            lines.position(text, 999, Encoding::Utf8),
            Position::new(1, 2)
        );
    }

    #[test]
    fn incremental_changes_apply_in_order() {
        let mut text = String::from("kind: Pod\nname: x\n");
        let change = |l1, c1, l2, c2, t: &str| TextDocumentContentChangeEvent {
            range: Some(Range::new(Position::new(l1, c1), Position::new(l2, c2))),
            range_length: None,
            text: t.into(),
        };
        apply_change(&mut text, change(1, 6, 1, 7, "y"), Encoding::Utf16);
        apply_change(&mut text, change(0, 0, 0, 0, "# c\n"), Encoding::Utf16);
        // A reversed range is read as empty rather than refused.
        apply_change(&mut text, change(2, 7, 2, 3, "!"), Encoding::Utf16);
        assert_eq!(text, "# c\nkind: Pod\nname: y!\n");
    }
}
