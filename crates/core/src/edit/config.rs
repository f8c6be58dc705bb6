//! Add-on configuration values (the FP006 fix lands in the next commit).

use super::*;

pub(super) fn set_value(
    _text: &str,
    _syntax: Syntax,
    _file: FileId,
    _at: Span,
    _key: &str,
    _value: &str,
) -> Result<Vec<TextEdit>, EditError> {
    Err(EditError::UnsupportedShape)
}

pub(super) fn add_values(
    _text: &str,
    _syntax: Syntax,
    _file: FileId,
    _addon: Span,
    _key: &str,
    _value: &str,
) -> Result<Vec<TextEdit>, EditError> {
    Err(EditError::UnsupportedShape)
}
