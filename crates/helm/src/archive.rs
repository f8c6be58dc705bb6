//! Bounded reading of `.tgz` chart archives: gzip through miniz_oxide with an
//! output cap, and a small ustar reader. A compression bomb is an error.

use crate::chart::ChartError;
use crate::Limits;

fn limit_err(path: &str, max: usize) -> ChartError {
    ChartError {
        path: path.to_string(),
        message: format!("archive expands beyond {max} bytes"),
        offset: None,
        limit: Some("max-chart-bytes"),
    }
}

fn bad(message: impl Into<String>) -> ChartError {
    ChartError {
        path: String::new(),
        message: message.into(),
        offset: None,
        limit: None,
    }
}

/// Decompresses gzip members (concatenated members are read in turn).
pub fn gunzip(data: &[u8], max: usize) -> Result<Vec<u8>, ChartError> {
    let mut out = Vec::new();
    let mut rest = data;
    while !rest.is_empty() {
        if rest.len() < 18 || rest[0] != 0x1f || rest[1] != 0x8b || rest[2] != 8 {
            if out.is_empty() {
                return Err(bad("not a gzip archive"));
            }
            break;
        }
        let flags = rest[3];
        let mut p = 10;
        if flags & 4 != 0 {
            let xlen = u16::from_le_bytes([rest[p], *rest.get(p + 1).unwrap_or(&0)]) as usize;
            p += 2 + xlen;
        }
        for bit in [8u8, 16] {
            if flags & bit != 0 {
                while p < rest.len() && rest[p] != 0 {
                    p += 1;
                }
                p += 1;
            }
        }
        if flags & 2 != 0 {
            p += 2;
        }
        if p >= rest.len() {
            return Err(bad("truncated gzip header"));
        }
        let remaining = max.saturating_sub(out.len());
        let mut inflater =
            miniz_oxide::inflate::stream::InflateState::new_boxed(miniz_oxide::DataFormat::Raw);
        let mut buf = vec![0u8; 64 * 1024];
        let mut input = &rest[p..];
        let mut produced = 0usize;
        loop {
            let r = miniz_oxide::inflate::stream::inflate(
                &mut inflater,
                input,
                &mut buf,
                miniz_oxide::MZFlush::None,
            );
            input = &input[r.bytes_consumed..];
            produced += r.bytes_written;
            if produced > remaining {
                return Err(limit_err("", max));
            }
            out.extend_from_slice(&buf[..r.bytes_written]);
            match r.status {
                Ok(miniz_oxide::MZStatus::StreamEnd) => break,
                Ok(_) => {
                    if r.bytes_consumed == 0 && r.bytes_written == 0 {
                        return Err(bad("truncated gzip data"));
                    }
                }
                Err(miniz_oxide::MZError::Buf) if r.bytes_written > 0 || r.bytes_consumed > 0 => {}
                Err(e) => return Err(bad(format!("invalid gzip data: {e:?}"))),
            }
        }
        // Skip CRC32 and size.
        let used = rest.len() - input.len();
        rest = rest.get(used + 8..).unwrap_or(&[]);
    }
    Ok(out)
}

/// Regular files of a tar stream, with their paths.
pub fn untar(data: &[u8], limits: &Limits) -> Result<Vec<(String, Vec<u8>)>, ChartError> {
    let mut out = Vec::new();
    let mut p = 0;
    let mut long_name: Option<String> = None;
    let mut pax_path: Option<String> = None;
    while p + 512 <= data.len() {
        let h = &data[p..p + 512];
        if h.iter().all(|&b| b == 0) {
            break;
        }
        let field = |a: usize, b: usize| -> String {
            let f = &h[a..b];
            let end = f.iter().position(|&c| c == 0).unwrap_or(f.len());
            String::from_utf8_lossy(&f[..end]).into_owned()
        };
        let size_text = field(124, 136);
        let size =
            usize::from_str_radix(size_text.trim(), 8).map_err(|_| bad("invalid tar header"))?;
        let typ = h[156];
        let mut name = field(0, 100);
        if &h[257..262] == b"ustar" {
            let prefix = field(345, 500);
            if !prefix.is_empty() {
                name = format!("{prefix}/{name}");
            }
        }
        let body_start = p + 512;
        let body_end = body_start
            .checked_add(size)
            .ok_or_else(|| bad("invalid tar size"))?;
        if body_end > data.len() {
            return Err(bad("truncated tar archive"));
        }
        if out.len() > limits.max_chart_files {
            return Err(ChartError {
                path: name,
                message: format!("archive holds more than {} files", limits.max_chart_files),
                offset: None,
                limit: Some("max-chart-files"),
            });
        }
        let body = &data[body_start..body_end];
        match typ {
            b'L' => {
                long_name = Some(
                    String::from_utf8_lossy(body)
                        .trim_end_matches('\0')
                        .to_string(),
                )
            }
            b'x' => {
                for rec in String::from_utf8_lossy(body).lines() {
                    if let Some((_, kv)) = rec.split_once(' ') {
                        if let Some(v) = kv.strip_prefix("path=") {
                            pax_path = Some(v.to_string());
                        }
                    }
                }
            }
            b'0' | 0 => {
                let path = pax_path.take().or(long_name.take()).unwrap_or(name);
                let path = path.trim_start_matches("./").to_string();
                if !path.split('/').any(|s| s == "..") {
                    out.push((path, body.to_vec()));
                }
            }
            _ => {
                long_name = None;
                pax_path = None;
            }
        }
        p = body_start + size.div_ceil(512) * 512;
    }
    Ok(out)
}
