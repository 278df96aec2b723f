//! Text for a terminal.

/// `m` with its control characters (but for line breaks) escaped, so that nothing a user or a board
/// wrote reaches the terminal raw.
pub fn escape_controls(m: &str) -> String {
    m.chars()
        .map(|ch| match ch {
            '\n' => "\n".to_string(),
            ch if ch.is_control() => ch.escape_default().to_string(),
            ch => ch.to_string(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn controls_are_escaped_and_line_breaks_kept() {
        assert_eq!(escape_controls("a\x1b[2Jb\nc\td"), "a\\u{1b}[2Jb\nc\\td");
        assert_eq!(escape_controls("plain µs"), "plain µs");
    }
}
