//! Drawing the game with ratatui, on any backend: the board in J. Forget's
//! display, the side panel (score, cursor, coach, verdict), the message and
//! key lines, and the windows over them (help, questions, the list of
//! molecules). Everything drawn is the game middle's [`Scene`]; this module
//! lays it out and gives each meaning its colour. It never needs colour to
//! be read (`NO_COLOR`): the cursor stands between brackets (`[O]`), and a
//! ray the guess does not explain has a `/` before its mark.
//!
//! The board is laid out exactly as `bbx trace` prints it: one character every
//! two columns, border marks around the cells ([`crate::play::marks`] says
//! what each mark means). An 80×24 terminal shows every screen whole.
//! Narrower or lower, the screen gives up, in this order: the second board
//! of the verdict ("your molecule"; your atoms stay drawn on the hidden one),
//! the side panel beside the board (it goes below the board when there is
//! room, else the score and atoms go in the board's frame), the help's second
//! column (it then scrolls), and last the board itself (a message says how
//! large the terminal must be).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Clear, Padding, Paragraph, Wrap};

use crate::play::marks::{Board, Look};
use crate::play::scene::{Lines, Scene, Tone};
use crate::play::words;
use crate::render::side_by_side;
use crate::rules::config::Shape;

/// Narrowest the side panel gets beside the board.
const PANEL_WIDTH: u16 = 36;
/// Widest the side panel gets.
const PANEL_MAX_WIDTH: u16 = 64;
/// Height of the side panel (at least the board's).
const PANEL_HEIGHT: u16 = 20;
/// Height the side panel needs below the board when stacked.
const PANEL_MIN_HEIGHT: u16 = 12;
/// Height of the smallest side panel below the board: the coach's lines
/// alone, the score and atoms in the board's frame.
const PANEL_SMALL_HEIGHT: u16 = 4;

/// The size of the board's frame: its text (2w+5 by h+2: a mark every two
/// columns, and the cursor's closing bracket after the last) with a border
/// and a column of padding on each side.
fn board_frame(p: Shape) -> (u16, u16) {
    let w = (2 * p.width + 5 + 4).min(u16::MAX as usize) as u16;
    let h = (p.height + 2 + 2).min(u16::MAX as usize) as u16;
    (w, h)
}

/// The smallest terminal that shows the board of a box of `shape` (a width
/// alone is a square), with the title, message and key lines.
pub fn minimum_size(shape: impl Into<Shape>) -> (u16, u16) {
    let (w, h) = board_frame(shape.into());
    (w, h.saturating_add(3))
}

/// Where each part of the screen goes.
struct Plan {
    header: Rect,
    main: Rect,
    message: Rect,
    keys: Rect,
    board: Rect,
    guess: Option<Rect>,
    panel: Option<Rect>,
    /// The boards' horizontal padding (none when two boards barely fit).
    pad: u16,
}

/// Lays the screen out on `area`; `None` when it is too small for the board.
fn plan(scene: &Scene, area: Rect) -> Option<Plan> {
    let p = scene.board.shape();
    let (bw, bh) = board_frame(p);
    let (min_w, min_h) = minimum_size(p);
    if area.width < min_w || area.height < min_h {
        return None;
    }
    let long = scene
        .message
        .as_ref()
        .is_some_and(|(m, _)| m.chars().count() + 1 > usize::from(area.width));
    let message_height = if long && area.height > min_h { 2 } else { 1 };
    let [header, main, message, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(message_height),
        Constraint::Length(1),
    ])
    .areas(area);
    let second = scene.guess.is_some();
    let wide = main.width >= bw + PANEL_WIDTH && main.height >= bh;
    // The verdict's two boards lose their padding before the second goes.
    let tight = second
        && wide
        && main.width < 2 * bw + PANEL_WIDTH
        && main.width >= 2 * (bw - 2) + PANEL_WIDTH;
    let bw = if tight { bw - 2 } else { bw };
    let board = Rect::new(main.x, main.y, bw, bh.min(main.height));
    let (board, guess, panel) = if wide {
        let show_guess = second && main.width >= 2 * bw + PANEL_WIDTH;
        let guess = show_guess.then(|| Rect::new(main.x + bw, main.y, bw, bh));
        let used = if show_guess { 2 * bw } else { bw };
        let width = (main.width - used).min(PANEL_MAX_WIDTH);
        let panel = Rect::new(main.x + used, main.y, width, main.height);
        (board, guess, Some(panel))
    } else if main.height >= bh + PANEL_SMALL_HEIGHT {
        let height = (main.height - bh).min(PANEL_HEIGHT);
        let width = main.width.min(PANEL_MAX_WIDTH);
        let panel = Rect::new(main.x, main.y + bh, width, height);
        (board, None, Some(panel))
    } else {
        (board, None, None)
    };
    Some(Plan {
        header,
        main,
        message,
        keys,
        board,
        guess,
        panel,
        pad: if tight { 0 } else { 1 },
    })
}

/// The board's padded row and column under the screen point (`column`,
/// `row`) when `scene` is drawn on `area`: what a mouse click there is on.
pub fn board_at(scene: &Scene, area: Rect, column: u16, row: u16) -> Option<(usize, usize)> {
    if scene.list_open || scene.help.is_some() || scene.dialog.is_some() {
        return None;
    }
    let plan = plan(scene, area)?;
    let (x0, y0) = (plan.board.x + 1 + plan.pad, plan.board.y + 1);
    (column >= x0 && row >= y0).then(|| (usize::from(row - y0), usize::from((column - x0) / 2)))
}

/// The style of a tone.
fn style(tone: Tone) -> Style {
    match tone {
        Tone::Info => Style::new(),
        Tone::Good => bold().fg(Color::Green),
        Tone::Bad => bold().fg(Color::Red),
        Tone::Dim => Style::new().fg(Color::DarkGray),
        Tone::Heading => Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
        Tone::Verdict(won) => {
            style(if won { Tone::Good } else { Tone::Bad }).add_modifier(Modifier::UNDERLINED)
        }
        Tone::Input => bold(),
    }
}

fn bold() -> Style {
    Style::new().add_modifier(Modifier::BOLD)
}

/// Lines with their tones' styles (text being typed with a cursor after it).
fn text(lines: &Lines) -> Vec<Line<'static>> {
    lines
        .iter()
        .map(|(s, tone)| {
            let mut spans = vec![Span::styled(s.clone(), style(*tone))];
            if *tone == Tone::Input {
                spans.push(Span::styled(
                    " ",
                    Style::new().add_modifier(Modifier::REVERSED),
                ));
            }
            Line::from(spans)
        })
        .collect()
}

const PAIR_COLOURS: [Color; 6] = [
    Color::Cyan,
    Color::Magenta,
    Color::Yellow,
    Color::Green,
    Color::LightBlue,
    Color::LightRed,
];

/// The style of a board mark's meaning.
fn look(look: Look) -> Style {
    let fg = |c: Color| Style::new().fg(c);
    let bold = |c: Color| fg(c).add_modifier(Modifier::BOLD);
    match look {
        Look::Plain => Style::new(),
        Look::Guess => bold(Color::Cyan),
        Look::Wrong => bold(Color::Red),
        Look::MarkedEmpty => fg(Color::Blue),
        Look::CertainAtom | Look::Right => bold(Color::Green),
        Look::CertainEmpty | Look::Chance(0..=2) => fg(Color::DarkGray),
        Look::Chance(3..=5) => fg(Color::Yellow),
        Look::Chance(_) => bold(Color::LightRed),
        Look::Missed => bold(Color::Yellow),
        Look::Path => fg(Color::Magenta),
        Look::Absorbed => bold(Color::Red),
        Look::Reflected => bold(Color::LightBlue),
        Look::Miss => bold(Color::DarkGray),
        Look::Pair(i) => bold(PAIR_COLOURS[i % PAIR_COLOURS.len()]),
        Look::Best => bold(Color::Yellow),
        Look::Telling => bold(Color::Magenta).add_modifier(Modifier::UNDERLINED),
        Look::Traced => bold(Color::Magenta),
    }
}

/// A board's lines: each mark after a space, the cursor's between
/// brackets and reversed, a ray the guess does not explain crossed out with
/// a `/` before it, so that both read without colour.
fn board_lines(board: &Board, cursor: (usize, usize)) -> Vec<Line<'static>> {
    let rows = board.rows();
    rows.iter()
        .enumerate()
        .map(|(r, row)| {
            let mut spans = Vec::with_capacity(2 * row.len() + 1);
            for (c, m) in row.iter().enumerate() {
                let mut st = look(m.look);
                if m.lit {
                    st = st.add_modifier(Modifier::UNDERLINED | Modifier::REVERSED);
                }
                let crossed = m.explained == Some(false);
                if crossed {
                    st = st.add_modifier(Modifier::CROSSED_OUT | Modifier::DIM);
                }
                let here = (r, c) == cursor;
                let after_cursor = c > 0 && (r, c - 1) == cursor;
                let before = if here {
                    "["
                } else if after_cursor {
                    "]"
                } else if crossed {
                    "/"
                } else {
                    " "
                };
                if here {
                    st = st.add_modifier(Modifier::REVERSED);
                }
                spans.push(Span::styled(before, bold()));
                spans.push(Span::styled(m.ch.to_string(), st));
            }
            let end = if (r, row.len().saturating_sub(1)) == cursor {
                "]"
            } else {
                " "
            };
            spans.push(Span::styled(end, bold()));
            Line::from(spans)
        })
        .collect()
}

/// Draws `scene` on `f`.
pub fn draw(scene: &Scene, f: &mut Frame) {
    let area = f.area();
    let p = scene.board.shape();
    let Some(plan) = plan(scene, area) else {
        let text = words::too_small(p, minimum_size(p), (area.width, area.height));
        let text = Paragraph::new(text).style(bold()).wrap(Wrap { trim: true });
        return f.render_widget(text, area);
    };
    draw_header(scene, f, plan.header);
    if let Some((m, tone)) = &scene.message {
        let m = Span::styled(format!(" {m}"), style(*tone));
        f.render_widget(Paragraph::new(m).wrap(Wrap { trim: false }), plan.message);
    }
    let hint = Span::styled(fit_keys(&scene.keys, area.width), style(Tone::Dim));
    f.render_widget(Paragraph::new(hint), plan.keys);
    if scene.list_open {
        return draw_molecules(scene, f, plan.main);
    }
    let cursor = scene.cursor;
    let frame = |title: &'static str| {
        Block::bordered()
            .title(title)
            .padding(Padding::horizontal(plan.pad))
    };
    let title = if scene.over {
        " the hidden molecule "
    } else {
        " the box "
    };
    let mut box_frame = frame(title);
    if plan.panel.is_none_or(|p| p.height < PANEL_MIN_HEIGHT) {
        // No room for the whole panel: the score and atoms under the board.
        box_frame = box_frame.title_bottom(scene.status.clone());
    }
    let lines = board_lines(&scene.board, cursor);
    f.render_widget(Paragraph::new(lines).block(box_frame), plan.board);
    if let (Some(area), Some(guess)) = (plan.guess, &scene.guess) {
        let lines = board_lines(guess, cursor);
        f.render_widget(Paragraph::new(lines).block(frame(" your molecule ")), area);
    }
    if let Some(panel) = plan.panel {
        draw_panel(f, panel, plan.pad, plan.board.height, &scene.side);
    }
    if let Some(help) = &scene.help {
        return draw_help(help, f, area);
    }
    if let Some(d) = &scene.dialog {
        popup(f, area, &d.title, text(&d.lines), 0);
    }
}

/// The key line cut to `width` columns between its keys (at a `·`), never
/// in the middle of one.
fn fit_keys(keys: &str, width: u16) -> String {
    let width = usize::from(width);
    if keys.chars().count() <= width {
        return keys.to_string();
    }
    let mut out = String::new();
    for (i, part) in keys.split(" · ").enumerate() {
        let next = if i == 0 {
            part.to_string()
        } else {
            format!(" · {part}")
        };
        if out.chars().count() + next.chars().count() > width {
            break;
        }
        out.push_str(&next);
    }
    out
}

/// The side panel: as tall as its text needs once wrapped, and at least the
/// board's height; blank lines go first when the text is taller than the
/// room. The lines are wrapped here, so that the height is the one drawn.
fn draw_panel(f: &mut Frame, mut panel: Rect, pad: u16, board_height: u16, side: &Lines) {
    let inner = usize::from(panel.width.saturating_sub(2 + 2 * pad)).max(1);
    let room = usize::from(panel.height.saturating_sub(2));
    let mut lines = wrap(side, inner);
    if lines.len() > room {
        let kept: Lines = side.iter().filter(|l| !l.0.is_empty()).cloned().collect();
        lines = wrap(&kept, inner);
    }
    if lines.len() > room {
        // Too low for the whole panel: the coach's lines first (the score
        // and atoms are in the board's frame), cut with an ellipsis.
        if let Some(at) = lines
            .iter()
            .position(|l| l.1 == Tone::Heading && l.0 == "coach")
        {
            lines.drain(..=at);
        }
        if lines.len() > room {
            lines.truncate(room.saturating_sub(1));
            lines.push(("…".to_string(), Tone::Dim));
        }
    }
    let height = u16::try_from(lines.len())
        .unwrap_or(u16::MAX)
        .saturating_add(2)
        .max(board_height);
    panel.height = panel.height.min(height);
    let block = Block::bordered().padding(Padding::horizontal(pad));
    let text = Paragraph::new(Text::from(text(&lines)));
    f.render_widget(text.block(block), panel);
}

/// Lines wrapped word by word at `width` columns, each keeping its tone and
/// the blanks between its words; a line's leading blanks indent the lines it
/// wraps into too (up to half the width), and a word longer than the width
/// is cut.
fn wrap(lines: &Lines, width: usize) -> Lines {
    let mut out = Lines::new();
    for (s, tone) in lines {
        let indent = s.chars().take_while(|c| *c == ' ').count();
        let hang = " ".repeat(indent.min(width / 2));
        // Each word with the blanks before it.
        let mut words: Vec<(usize, String)> = Vec::new();
        let mut blanks = 0;
        for part in s.split(' ') {
            if part.is_empty() {
                blanks += 1;
            } else {
                words.push((blanks, part.to_string()));
                blanks = 1;
            }
        }
        let mut current = " ".repeat(indent.min(width));
        let mut fresh = true;
        for (i, (gap, word)) in words.iter().enumerate() {
            let gap = if i == 0 { 0 } else { *gap };
            let n = word.chars().count();
            let used = current.chars().count();
            if used + gap + n <= width || (fresh && used + n <= width) {
                if !fresh {
                    current.push_str(&" ".repeat(gap));
                }
                current.push_str(word);
                fresh = false;
                continue;
            }
            if !fresh {
                out.push((std::mem::replace(&mut current, hang.clone()), *tone));
            }
            let mut rest: Vec<char> = word.chars().collect();
            let free = width.saturating_sub(current.chars().count()).max(1);
            while rest.len() > free {
                let head: String = rest.drain(..free).collect();
                current.push_str(&head);
                out.push((std::mem::replace(&mut current, hang.clone()), *tone));
            }
            current.extend(rest);
            fresh = false;
        }
        out.push((current, *tone));
    }
    out
}

fn draw_header(scene: &Scene, f: &mut Frame, area: Rect) {
    let help = "? help ";
    let room = usize::from(area.width).saturating_sub(help.len() + 1);
    // Narrow, the title loses the program's name, then the rules when they
    // are the standard ones, before it is cut: the seed stays.
    let mut title = [
        format!(" bbx play · {}", scene.title),
        format!(" {}", scene.title),
        format!(" {}", scene.short_title),
    ]
    .into_iter()
    .find(|t| t.chars().count() <= room)
    .unwrap_or_else(|| format!(" {}", scene.short_title));
    // A long file name is shortened from its start, so that the rest (the
    // seed above all) stays.
    if title.chars().count() > room
        && let Some((name, _)) = scene.short_title.split_once(": ")
    {
        let over = title.chars().count() - room;
        let keep = name.chars().count().saturating_sub(over + 1);
        if keep >= 4 {
            let tail: String = name.chars().skip(name.chars().count() - keep).collect();
            title = title.replacen(name, &format!("…{tail}"), 1);
        }
    }
    if title.chars().count() > room {
        title = title.chars().take(room.saturating_sub(1)).collect();
        title.push('…');
    }
    let pad = usize::from(area.width).saturating_sub(title.chars().count() + help.len());
    title.push_str(&" ".repeat(pad));
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(title, bold()),
            Span::styled(help, style(Tone::Dim)),
        ])),
        area,
    );
}

/// The help: its keys in two columns when the terminal is 80 wide (else
/// one), scrolled as the player scrolled it when it is taller than the
/// terminal.
fn draw_help(help: &crate::play::scene::Help, f: &mut Frame, area: Rect) {
    let mut lines = text(&help.above);
    let cell = |(k, what): &(String, String)| {
        [
            Span::styled(format!("{k:>11} "), bold()),
            Span::raw(format!("{what:<25}")),
        ]
    };
    let keys = &help.keys;
    let rows = if area.width >= 80 {
        keys.len().div_ceil(2)
    } else {
        keys.len()
    };
    for (i, key) in keys.iter().take(rows).enumerate() {
        let mut spans = cell(key).to_vec();
        if let Some(k) = keys.get(rows + i).filter(|_| area.width >= 80) {
            spans.push(Span::raw("  "));
            spans.extend(cell(k));
        }
        lines.push(Line::from(spans));
    }
    lines.extend(text(&help.below));
    popup(f, area, " help ", lines, help.scroll);
}

/// A centred window over the screen.
fn popup(f: &mut Frame, area: Rect, title: &str, lines: Vec<Line<'static>>, scroll: u16) {
    let inner_w = lines.iter().map(|l| l.width()).max().unwrap_or(10) as u16;
    let w = (inner_w + 4).min(area.width);
    // Lines wrapped at the window's width, for its height.
    let inner = usize::from(w.saturating_sub(4)).max(1);
    let tall: usize = lines.iter().map(|l| l.width().div_ceil(inner).max(1)).sum();
    let h = (tall.min(usize::from(u16::MAX)) as u16 + 2).min(area.height);
    let room = h.saturating_sub(2);
    let scroll = scroll.min((tall as u16).saturating_sub(room));
    let title = if (tall as u16) > room {
        format!("{title}(↑↓ scroll) ")
    } else {
        title.to_string()
    };
    let r = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((scroll, 0))
            .block(
                Block::bordered()
                    .title(title)
                    .padding(Padding::horizontal(1)),
            ),
        r,
    );
}

fn draw_molecules(scene: &Scene, f: &mut Frame, area: Rect) {
    let block = Block::bordered()
        .title(words::MOLECULES)
        .padding(Padding::horizontal(1));
    let Some(list) = &scene.molecules else {
        return;
    };
    let heading = match &list.heading {
        Ok(h) => h.clone(),
        Err(waiting) => return f.render_widget(Paragraph::new(waiting.clone()).block(block), area),
    };
    let board_w = 2 * scene.board.width + 4;
    let per_row = (usize::from(area.width.saturating_sub(4)) / (board_w + 3)).max(1);
    let mut lines = vec![Line::from(heading), Line::from("")];
    let boards: Vec<String> = list
        .molecules
        .iter()
        .map(|m| format!("  {}\n{}", m.title, m.text))
        .collect();
    for row in boards.chunks(per_row) {
        let boards = side_by_side(row, 3);
        lines.extend(boards.lines().map(|l| Line::from(l.to_string())));
        lines.push(Line::from(""));
    }
    if let Some(cut) = &list.cut {
        lines.push(Line::from(Span::styled(cut.clone(), style(Tone::Dim))));
    }
    let max_scroll = (lines.len() as u16).saturating_sub(1);
    f.render_widget(
        Paragraph::new(lines)
            .wrap(Wrap { trim: false })
            .scroll((list.scroll.min(max_scroll), 0))
            .block(block),
        area,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plain(lines: &[&str]) -> Lines {
        lines.iter().map(|l| (l.to_string(), Tone::Info)).collect()
    }

    fn texts(lines: &Lines) -> Vec<&str> {
        lines.iter().map(|l| l.0.as_str()).collect()
    }

    #[test]
    fn lines_wrap_word_by_word_keeping_their_indent() {
        let wrapped = wrap(
            &plain(&[
                "cursor  ray 5 (bottom, column 1)",
                "        not shot yet: Enter shoots it",
                "",
            ]),
            20,
        );
        assert_eq!(
            texts(&wrapped),
            [
                "cursor  ray 5",
                "(bottom, column 1)",
                "        not shot",
                "        yet: Enter",
                "        shoots it",
                ""
            ]
        );
        assert!(wrapped.iter().all(|l| l.0.chars().count() <= 20));
        // A word longer than the width is cut.
        let long = wrap(&plain(&["abcdefghij"]), 4);
        assert_eq!(texts(&long), ["abcd", "efgh", "ij"]);
    }
}
