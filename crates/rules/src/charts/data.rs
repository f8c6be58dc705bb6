//! How the chart knowledge is written as data (`known.json`) and read
//! back. The model keeps `&'static` strings and slices, so rules borrow the
//! data as before; it is read once per process and kept for its life.
//! Versions are written `"1.13.0"`, and values the data quotes from a chart
//! (defaults, what it renders) as JSON of their own, byte for byte.

use serde::de::Error as _;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use super::Version;

fn leak(s: String) -> &'static str {
    s.leak()
}

pub(super) fn string<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
    Ok(leak(String::deserialize(d)?))
}

pub(super) fn opt_string<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<&'static str>, D::Error> {
    Ok(Option::<String>::deserialize(d)?.map(leak))
}

pub(super) fn strings<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<&'static [&'static str], D::Error> {
    let v: Vec<String> = Vec::deserialize(d)?;
    Ok(v.into_iter().map(leak).collect::<Vec<_>>().leak())
}

pub(super) fn slice<'de, D: Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<&'static [T], D::Error> {
    Ok(Vec::<T>::deserialize(d)?.leak())
}

pub(super) mod version {
    use super::*;

    pub fn serialize<S: Serializer>(v: &Version, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{}.{}.{}", v.0, v.1, v.2))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Version, D::Error> {
        let text = String::deserialize(d)?;
        let mut parts = text.split('.').map(str::parse::<u64>);
        match (parts.next(), parts.next(), parts.next(), parts.next()) {
            (Some(Ok(a)), Some(Ok(b)), Some(Ok(c)), None) => Ok((a, b, c)),
            _ => Err(D::Error::custom(format!("not a version: {text}"))),
        }
    }
}

/// A JSON text the data quotes: written as JSON, not as a string of it.
fn raw<E: serde::ser::Error>(text: &str) -> Result<Box<RawValue>, E> {
    RawValue::from_string(text.to_string()).map_err(E::custom)
}

pub(super) mod json_text {
    use super::*;

    pub fn serialize<S: Serializer>(v: &&'static str, s: S) -> Result<S::Ok, S::Error> {
        raw::<S::Error>(v)?.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
        let v: Box<RawValue> = Deserialize::deserialize(d)?;
        Ok(leak(v.get().to_string()))
    }
}

pub(super) mod json_texts {
    use super::*;

    pub fn serialize<S: Serializer>(v: &&'static [&'static str], s: S) -> Result<S::Ok, S::Error> {
        let raws = v
            .iter()
            .map(|t| raw::<S::Error>(t))
            .collect::<Result<Vec<_>, _>>()?;
        raws.serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(
        d: D,
    ) -> Result<&'static [&'static str], D::Error> {
        let v: Vec<Box<RawValue>> = Deserialize::deserialize(d)?;
        Ok(v.iter()
            .map(|r| leak(r.get().to_string()))
            .collect::<Vec<_>>()
            .leak())
    }
}
