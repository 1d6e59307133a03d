//! Text output fitted to the terminal's columns.

use std::io::IsTerminal;

/// The width text output is fitted to: the terminal's when standard output
/// is one, else `COLUMNS` when set; none for a file or a pipe, which get one
/// line per item, for the tools that read them.
pub fn columns() -> Option<usize> {
    if std::io::stdout().is_terminal()
        && let Ok((width, _)) = crossterm::terminal::size()
        && width > 0
    {
        return Some(width.into());
    }
    let width: usize = std::env::var("COLUMNS").ok()?.trim().parse().ok()?;
    (width >= 20).then_some(width)
}

/// `text` with its long lines of words wrapped to [`columns`]: a line is
/// broken at spaces, its continuation indented under the text that follows
/// a label (`luck   16 games…`) or two spaces deeper than the line. Board
/// rows (single characters between spaces) and words longer than the width
/// (a molecule, a spectrum) are left whole.
pub fn fit(text: &str) -> String {
    match columns() {
        Some(width) => fit_to(text, width),
        None => text.to_string(),
    }
}

/// [`fit`] to `width` columns.
pub fn fit_to(text: &str, width: usize) -> String {
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let (body, end) = match line.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (line, ""),
        };
        let board_row = body.split(' ').all(|word| word.chars().count() <= 1);
        if body.chars().count() <= width || board_row {
            out.push_str(line);
            continue;
        }
        let indent = body.len() - body.trim_start().len();
        // The column after a label's gap (`first  ray 2…`), else two deeper.
        let label = body[indent..]
            .find("  ")
            .map(|at| {
                indent + at + body[indent + at..].len() - body[indent + at..].trim_start().len()
            })
            .filter(|&column| column <= 16 && column < width / 2);
        let hang = label.unwrap_or(indent + 2);
        let mut rest = body;
        let mut first = true;
        while !rest.is_empty() {
            let room = if first {
                width
            } else {
                width.saturating_sub(hang).max(20)
            };
            let piece = if rest.chars().count() <= room {
                rest
            } else {
                // After the last comma that keeps the piece within the room
                // and fills half of it, else at the last space, else at the
                // first space after it (a word longer than the room).
                let limit = rest
                    .char_indices()
                    .nth(room)
                    .map_or(rest.len(), |(at, _)| at);
                let skip = if first { indent } else { 0 };
                let comma = rest[..limit]
                    .rfind(", ")
                    .map(|at| at + 1)
                    .filter(|&at| at > room / 2);
                match comma.or_else(|| rest[..limit].rfind(' ').filter(|&at| at > skip)) {
                    Some(at) => &rest[..at],
                    None => rest[limit..]
                        .find(' ')
                        .map_or(rest, |at| &rest[..limit + at]),
                }
            };
            if !first {
                out.extend(std::iter::repeat_n(' ', hang));
            }
            out.push_str(piece.trim_end());
            rest = rest[piece.len()..].trim_start();
            if !rest.is_empty() {
                out.push('\n');
            }
            first = false;
        }
        out.push_str(end);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn long_lines_of_words_fit_and_boards_stay_whole() {
        let list = "ray 11 would split them as reflected: 5, absorbed: 3, out at 26: 2, out at 3: 1, out at 5: 1, out at 6: 1\n";
        let fitted = fit_to(list, 40);
        assert!(fitted.lines().all(|l| l.chars().count() <= 40), "{fitted}");
        // Broken after commas, the words kept in order.
        assert!(fitted.lines().all(|l| !l.ends_with(" out at")), "{fitted}");
        let joined: Vec<&str> = fitted.split_whitespace().collect();
        assert_eq!(joined, list.split_whitespace().collect::<Vec<_>>());
        // A label's text goes on under the text, not under the label.
        let labelled = fit_to(
            "luck   16 games end with molecules no ray tells apart at all\n",
            30,
        );
        assert!(
            labelled
                .lines()
                .skip(1)
                .all(|l| l.starts_with("       ") && !l.starts_with("        ")),
            "{labelled}"
        );
        // A board row and a word longer than the width are left whole.
        let board = format!(" a {} a\n", vec!["-"; 40].join(" "));
        assert_eq!(fit_to(&board, 40), board);
        let molecule = format!("molecule 1: {}\n", "-".repeat(64));
        let fitted = fit_to(&molecule, 40);
        assert_eq!(fitted, format!("molecule 1:\n  {}\n", "-".repeat(64)));
        // Short lines, and text without a final newline, as they were.
        assert_eq!(fit_to("short\nlines", 40), "short\nlines");
    }
}
