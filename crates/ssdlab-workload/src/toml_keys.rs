//! Where in a TOML text an error is, and the error that says so: the dotted
//! key or table at a byte offset, for errors that name file, line and key
//! (configurations, profiles and trace format specs). The `toml` crate gives
//! a byte span; serde's messages name a field without its table.

use crate::error::Error;

pub(crate) fn backticked_after<'a>(msg: &'a str, prefix: &str) -> Option<&'a str> {
    let rest = &msg[msg.find(prefix)? + prefix.len()..];
    Some(&rest[..rest.find('`')?])
}

pub(crate) fn join_key(table: &str, key: &str) -> String {
    if table.is_empty() {
        key.to_string()
    } else {
        format!("{table}.{key}")
    }
}

/// The `[section]` in force at byte `pos` and the inline tables open there,
/// as a dotted path (no key of its own).
pub(crate) fn table_path(text: &str, pos: usize) -> String {
    let (section, keys, _) = scan_keys(text, pos);
    let mut parts: Vec<&str> = section.into_iter().collect();
    parts.extend(keys);
    parts.join(".")
}

/// The dotted key whose key or value contains byte `pos`.
pub(crate) fn key_path(text: &str, pos: usize) -> String {
    let (section, mut keys, current) = scan_keys(text, pos);
    let pos = char_floor(text, pos);
    let line_start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let on_header = text[line_start..]
        .lines()
        .next()
        .and_then(section_name)
        .is_some();
    match current {
        Some(k) => keys.push(k),
        None if on_header => {}
        None => {
            // `pos` is on a key itself
            let rest = &text[pos.min(text.len())..];
            let end = rest.find(|c: char| !is_key_char(c)).unwrap_or(rest.len());
            if end > 0 {
                keys.push(&rest[..end]);
            }
        }
    }
    let mut parts: Vec<&str> = section.into_iter().collect();
    parts.extend(keys);
    parts.join(".")
}

/// `x.y` for a `[x.y]` or `[[x.y]]` header line.
pub(crate) fn section_name(line: &str) -> Option<&str> {
    let l = line.trim();
    if !l.starts_with('[') {
        return None;
    }
    let l = l.split('#').next().unwrap_or("").trim();
    Some(l.trim_start_matches('[').trim_end_matches(']').trim())
}

pub(crate) fn is_key_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.'
}

/// `pos` clamped to `text` and moved back to a character boundary: a
/// parser's error span may point inside a multi-byte character.
pub(crate) fn char_floor(text: &str, pos: usize) -> usize {
    let mut pos = pos.min(text.len());
    while !text.is_char_boundary(pos) {
        pos -= 1;
    }
    pos
}

/// Scan the line holding `pos` up to `pos`: the section header in force, the
/// keys of the inline tables open at `pos`, and the key whose value `pos` is
/// in, if any.
pub(crate) fn scan_keys(text: &str, pos: usize) -> (Option<&str>, Vec<&str>, Option<&str>) {
    let pos = char_floor(text, pos);
    let start = text[..pos].rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    // the section in force: the header at or above this line (an error in
    // a table that serde buffers, such as a tagged enum, points at its header)
    let section = text[..end].lines().rev().find_map(section_name);
    if section_name(&text[start..end]).is_some() {
        return (section, Vec::new(), None);
    }
    let line = &text[start..pos];
    let mut open: Vec<&str> = Vec::new();
    let mut current: Option<&str> = None;
    let mut token_start: Option<usize> = None;
    let mut last_token: Option<&str> = None;
    let mut in_string: Option<char> = None;
    for (i, c) in line.char_indices() {
        if let Some(q) = in_string {
            if c == q {
                in_string = None;
            }
            continue;
        }
        if is_key_char(c) {
            token_start.get_or_insert(i);
            continue;
        }
        if let Some(s) = token_start.take() {
            last_token = Some(&line[s..i]);
        }
        match c {
            '"' | '\'' => in_string = Some(c),
            '=' => current = last_token,
            '{' => {
                if let Some(k) = current.take() {
                    open.push(k);
                }
            }
            '}' => {
                open.pop();
                current = None;
            }
            ',' if !open.is_empty() => current = None,
            '#' => break,
            _ => {}
        }
    }
    (section, open, current)
}

/// The dotted table that a span starting at `pos` is about: a `[section]`
/// header, or an inline table's `{`.
pub(crate) fn table_at(text: &str, pos: usize) -> String {
    let pos = char_floor(text, pos);
    if text[pos..].starts_with('{') {
        // the key whose value the `{` opens, inside its table
        let (section, mut keys, current) = scan_keys(text, pos + 1);
        keys.extend(current);
        let mut parts: Vec<&str> = section.into_iter().collect();
        parts.extend(keys);
        return parts.join(".");
    }
    table_path(text, pos)
}

/// A TOML error as an [`Error::Config`] naming the field (the dotted key) as
/// closely as the error allows, with the line and column, and for an unknown
/// field the nearest known one.
pub fn toml_error(text: &str, origin: &str, e: &toml::de::Error) -> Error {
    let msg = e.message().trim().replace('\n', " ");
    let span = e.span().map(|s| {
        let mut start = s.start.min(text.len());
        while !text.is_char_boundary(start) {
            start -= 1;
        }
        start..s.end
    });
    // serde names a missing or unknown field in the message; the span then
    // points at the table that lacks it or at the unknown key
    let named = ["missing field `", "unknown field `"]
        .iter()
        .find_map(|p| backticked_after(&msg, p));
    let field = match (named, &span) {
        (Some(f), Some(s)) => {
            // a span at an inline table's `{` is about that table
            let inside = if text[s.start..].starts_with('{') {
                s.start + 1
            } else {
                s.start
            };
            join_key(&table_path(text, inside), f)
        }
        (Some(f), None) => f.to_string(),
        (None, Some(s)) => key_path(text, s.start),
        (None, None) => String::new(),
    };
    let field = if field.is_empty() {
        "toml".to_string()
    } else {
        field
    };
    // our own conversion errors start with the dotted field they are about,
    // written for the table's usual key: `address.kind` is about
    // `read_address.kind` when the table is `read_address`
    let (field, msg) = match msg.split_once(": ") {
        Some((f, m)) if f.chars().all(is_key_char) => match f.split_once('.') {
            Some((head, rest)) if field == head || field.ends_with(&format!("_{head}")) => {
                (format!("{field}.{rest}"), m.to_string())
            }
            _ => (field, msg),
        },
        _ => (field, msg),
    };
    let at = match span {
        Some(s) => {
            let before = &text[..s.start.min(text.len())];
            let line = before.matches('\n').count() + 1;
            let col = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!(" (line {line}, column {col})")
        }
        None => String::new(),
    };
    // serde lists the expected fields: suggest the nearest to a misspelt one
    let hint = match backticked_after(&msg, "unknown field `") {
        Some(f) => {
            let known: Vec<&str> = msg
                .split_once("expected")
                .map(|(_, list)| list.split('`').skip(1).step_by(2).collect())
                .unwrap_or_default();
            crate::error::did_you_mean(f, known)
        }
        None => String::new(),
    };
    Error::config(origin, field, format!("{msg}{at}{hint}"))
}

/// The line (from 1) where the dotted key `key` is written in the TOML
/// `text`: `name = ...` under its `[table]` header, a dotted `a.b = ...`,
/// or the header of the table itself; else the header of the nearest table
/// above it that is written. None if neither is.
pub fn line_of_key(text: &str, key: &str) -> Option<usize> {
    let mut section = String::new();
    let mut nearest: Option<(usize, usize)> = None; // (depth matched, line)
    for (i, line) in text.lines().enumerate() {
        if let Some(name) = section_name(line) {
            section = name
                .trim_start_matches('[')
                .trim_end_matches(']')
                .to_string();
            if section == key {
                return Some(i + 1);
            }
            if key.starts_with(&format!("{section}.")) {
                let depth = section.split('.').count();
                if nearest.is_none_or(|(d, _)| depth > d) {
                    nearest = Some((depth, i + 1));
                }
            }
            continue;
        }
        let l = line.trim_start();
        let end = l.find(|c: char| !is_key_char(c)).unwrap_or(l.len());
        let (name, rest) = l.split_at(end);
        if name.is_empty() || !rest.trim_start().starts_with('=') {
            continue;
        }
        let full = join_key(&section, name);
        if full == key {
            return Some(i + 1);
        }
    }
    nearest.map(|(_, line)| line)
}
