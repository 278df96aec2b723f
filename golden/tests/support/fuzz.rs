//! What the fuzz tests of the workspace's parsers share (included by path from each crate's fuzz tests,
//! so it is not a crate of its own): the case budget, and structured mutations of valid inputs.
//!
//! The budget is short in the test suite (`cases`, a few hundred at most); `AQM_FUZZ_CASES` raises it
//! for every fuzz test at once (`scripts/fuzz`).
#![allow(dead_code)]

use proptest::prelude::*;

/// `default` cases, or `AQM_FUZZ_CASES` if set; failures are shrunk and reported, not written to files
/// (a case that failed is kept as a regular regression test instead).
pub fn config(default: u32) -> ProptestConfig {
    let cases = std::env::var("AQM_FUZZ_CASES")
        .ok()
        .and_then(|s| s.trim().parse().ok())
        .unwrap_or(default);
    ProptestConfig {
        failure_persistence: None,
        ..ProptestConfig::with_cases(cases)
    }
}

/// One edit of a byte string; positions are taken modulo the length.
#[derive(Clone, Debug)]
pub enum ByteEdit {
    /// Flip one bit.
    Flip {
        at: usize,
        bit: u8,
    },
    /// Overwrite one byte.
    Set {
        at: usize,
        byte: u8,
    },
    Insert {
        at: usize,
        bytes: Vec<u8>,
    },
    Delete {
        at: usize,
        len: usize,
    },
    /// Copy a range and insert the copy right after it.
    Duplicate {
        at: usize,
        len: usize,
    },
    /// Cut the input short.
    Truncate {
        at: usize,
    },
}

/// Edits of a byte string, `inserts` the bytes an insertion picks from (besides arbitrary ones).
pub fn byte_edits(
    max: usize,
    inserts: &'static [&'static [u8]],
) -> impl Strategy<Value = Vec<ByteEdit>> {
    let insert = prop_oneof![
        prop::collection::vec(any::<u8>(), 1..4),
        prop::sample::select(inserts).prop_map(<[u8]>::to_vec),
    ];
    let edit = prop_oneof![
        (any::<usize>(), 0u8..8).prop_map(|(at, bit)| ByteEdit::Flip { at, bit }),
        (any::<usize>(), any::<u8>()).prop_map(|(at, byte)| ByteEdit::Set { at, byte }),
        (any::<usize>(), insert).prop_map(|(at, bytes)| ByteEdit::Insert { at, bytes }),
        (any::<usize>(), 1usize..8).prop_map(|(at, len)| ByteEdit::Delete { at, len }),
        (any::<usize>(), 1usize..16).prop_map(|(at, len)| ByteEdit::Duplicate { at, len }),
        any::<usize>().prop_map(|at| ByteEdit::Truncate { at }),
    ];
    prop::collection::vec(edit, 1..=max)
}

/// `base` with `edits` applied in order.
pub fn apply_bytes(base: &[u8], edits: &[ByteEdit]) -> Vec<u8> {
    let mut v = base.to_vec();
    for e in edits {
        let n = v.len();
        let pos = |at: usize| if n == 0 { 0 } else { at % n };
        match e {
            ByteEdit::Flip { at, bit } if n > 0 => v[pos(*at)] ^= 1 << bit,
            ByteEdit::Set { at, byte } if n > 0 => v[pos(*at)] = *byte,
            ByteEdit::Insert { at, bytes } => {
                let p = if n == 0 { 0 } else { at % (n + 1) };
                v.splice(p..p, bytes.iter().copied());
            }
            ByteEdit::Delete { at, len } if n > 0 => {
                let p = pos(*at);
                v.drain(p..(p + len).min(n));
            }
            ByteEdit::Duplicate { at, len } if n > 0 => {
                let p = pos(*at);
                let end = (p + len).min(n);
                let copy = v[p..end].to_vec();
                v.splice(end..end, copy);
            }
            ByteEdit::Truncate { at } => v.truncate(if n == 0 { 0 } else { at % (n + 1) }),
            _ => {}
        }
    }
    v
}

/// `base` with `edits` applied, as text (invalid UTF-8 replaced).
pub fn apply_text(base: &str, edits: &[ByteEdit]) -> String {
    String::from_utf8_lossy(&apply_bytes(base.as_bytes(), edits)).into_owned()
}

/// One edit of a text's tokens (runs of non-blanks, with the blanks between them kept).
#[derive(Clone, Debug)]
pub enum TokenEdit {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    /// Replace a token with a word of the dictionary.
    Replace(usize, usize),
    /// Insert a word of the dictionary before a token.
    Insert(usize, usize),
}

pub fn token_edits(max: usize) -> impl Strategy<Value = Vec<TokenEdit>> {
    let edit = prop_oneof![
        any::<usize>().prop_map(TokenEdit::Delete),
        any::<usize>().prop_map(TokenEdit::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| TokenEdit::Swap(a, b)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, w)| TokenEdit::Replace(a, w)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, w)| TokenEdit::Insert(a, w)),
    ];
    prop::collection::vec(edit, 1..=max)
}

/// The text's tokens and the blanks between them, alternating, starting with a (maybe empty) blank.
fn tokens(text: &str) -> Vec<String> {
    let mut out = vec![String::new()];
    let mut blank = true;
    for c in text.chars() {
        if c.is_whitespace() != blank {
            out.push(String::new());
            blank = !blank;
        }
        out.last_mut().expect("never empty").push(c);
    }
    out
}

/// `base` with its tokens edited; `dict` the words that replacements and insertions take.
pub fn apply_tokens(base: &str, edits: &[TokenEdit], dict: &[&str]) -> String {
    let parts = tokens(base);
    // Tokens with the blank that follows each.
    let mut toks: Vec<(String, String)> = parts[1..]
        .chunks(2)
        .map(|c| (c[0].clone(), c.get(1).cloned().unwrap_or_default()))
        .collect();
    let word = |w: usize| dict[w % dict.len()].to_string();
    for e in edits {
        let n = toks.len();
        match *e {
            TokenEdit::Delete(a) if n > 0 => {
                toks.remove(a % n);
            }
            TokenEdit::Duplicate(a) if n > 0 => {
                let t = toks[a % n].clone();
                toks.insert(a % n, t);
            }
            TokenEdit::Swap(a, b) if n > 0 => {
                let (a, b) = (a % n, b % n);
                let t = toks[a].0.clone();
                toks[a].0 = std::mem::replace(&mut toks[b].0, t);
            }
            TokenEdit::Replace(a, w) if n > 0 => toks[a % n].0 = word(w),
            TokenEdit::Insert(a, w) => {
                let at = if n == 0 { 0 } else { a % (n + 1) };
                toks.insert(at, (word(w), " ".into()));
            }
            _ => {}
        }
    }
    let mut s = parts[0].clone();
    for (t, blank) in toks {
        s.push_str(&t);
        s.push_str(if blank.is_empty() { " " } else { &blank });
    }
    s
}

/// Arbitrary text: any characters, with the ones parsers care about more likely.
pub fn arbitrary_text(max: usize) -> impl Strategy<Value = String> {
    prop_oneof![
        prop::collection::vec(any::<char>(), 0..max).prop_map(|v| v.into_iter().collect()),
        prop::collection::vec(
            prop::sample::select(
                "0123456789abcdefxX.%# =-+\n\t\"'[]{},:;_\u{0}\u{ff}\u{1F600}"
                    .chars()
                    .collect::<Vec<_>>()
            ),
            0..max
        )
        .prop_map(|v| v.into_iter().collect()),
        prop::collection::vec(any::<u8>(), 0..max)
            .prop_map(|v| String::from_utf8_lossy(&v).into_owned()),
    ]
}
