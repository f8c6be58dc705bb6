//! The chart knowledge as data: `known.json` beside this file, written by
//! `cargo run -p xtask -- charts` (see CONTRIBUTING.md), never by hand.
//! The crate embeds it and reads it the first time a rule asks.

use std::sync::OnceLock;

use super::KnownChart;

/// The data as the crate embeds it.
pub const DATA: &str = include_str!("known.json");

/// Every known chart range, sorted by chart name then version. Empty if the
/// embedded data does not read (a test holds that it does).
pub fn charts() -> &'static [KnownChart] {
    static CHARTS: OnceLock<&'static [KnownChart]> = OnceLock::new();
    CHARTS.get_or_init(|| parse(DATA).unwrap_or_default())
}

/// Reads chart knowledge written as [`to_json`] writes it. What it reads is
/// kept for the life of the process.
pub fn parse(text: &'static str) -> Result<&'static [KnownChart], serde_json::Error> {
    let charts: Vec<KnownChart> = serde_json::from_str(text)?;
    Ok(charts.leak())
}

/// The data file's text for `charts`: one field a line, values the data
/// quotes from a chart as compact JSON, a newline at the end.
pub fn to_json(charts: &[KnownChart]) -> Result<String, serde_json::Error> {
    let mut text = serde_json::to_string_pretty(charts)?;
    text.push('\n');
    Ok(text)
}
