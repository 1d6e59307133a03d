//! Drawing the game with ratatui: the board in J. Forget's display, the side
//! panel (score, cursor, coach, verdict), the message and key lines, and the
//! windows over them (help, questions, the list of molecules).
//!
//! The board is laid out exactly as `bbx trace` prints it: one character every
//! two columns, border marks around the cells. Each mark has its own glyph, so
//! that the screen reads without colour (`NO_COLOR`): in the game `O` your
//! atom, `:` a cell you marked empty, `-` a cell not known; the coach's `*`
//! certain atom, `.` certain empty, `!` your atom on a cell certainly empty,
//! digits for chances, and the best ray as an arrow into the box on the border
//! (`>` `<` `v` `^`); on the reveal `O` your atom where one is hidden, `x` your
//! atom where none is (`X` where the ray at the cursor crosses it), `#` a
//! hidden atom you missed, `+` the path of the ray at the cursor.
//!
//! An 80×24 terminal shows every screen whole. Narrower or lower, the screen
//! gives up, in this order: the second board of the verdict ("your
//! molecule"; your atoms stay drawn on the hidden one), the side panel beside
//! the board (it goes below the board when there is room, else the score and
//! atoms go in the board's frame), the help's second column (its last lines
//! are then cut when the terminal is lower than they need), and last the
//! board itself (a message says how large the terminal must be).

use ratatui::Frame;
use ratatui::layout::{Constraint, Layout, Rect};
use ratatui::style::{Color, Modifier, Style};
use ratatui::text::{Line, Span, Text};
use ratatui::widgets::{Block, Clear, Padding, Paragraph, Wrap};

use crate::assistant::strategy::REVIEW_AVERAGE_LIMIT;
use crate::play::app::{App, Mode, Tone, atoms_are, outcome_words, plural};
use crate::play::coach::ReviewState;
use crate::play::game::ray_path;
use crate::play::input::{KEYS, Target};
use crate::play::referee::{Judge, WRONG_ATOM_PENALTY};
use crate::render::{grid, position_name, side_by_side};
use crate::rules::board::{Molecule, Side, position_at};
use crate::rules::ray::Outcome;
use crate::solver::Certainty;

/// Narrowest the side panel gets beside the board.
const PANEL_WIDTH: u16 = 36;
/// Widest the side panel gets.
const PANEL_MAX_WIDTH: u16 = 64;
/// Height of the side panel (at least the board's).
const PANEL_HEIGHT: u16 = 20;
/// Height the side panel needs below the board when stacked.
const PANEL_MIN_HEIGHT: u16 = 12;
/// Most molecules the list after the game draws.
const MOLECULES_LISTED: usize = 500;

/// The size of the board's frame: its text (2p+4 by p+2) with a border and a
/// column of padding on each side.
fn board_frame(p: usize) -> (u16, u16) {
    let w = (2 * p + 4 + 4).min(u16::MAX as usize) as u16;
    let h = (p + 2 + 2).min(u16::MAX as usize) as u16;
    (w, h)
}

/// The smallest terminal that shows the board of a `p`-wide box (with the
/// title, message and key lines).
pub fn minimum_size(p: usize) -> (u16, u16) {
    let (w, h) = board_frame(p);
    (w, h.saturating_add(3))
}

fn style_of(tone: Tone) -> Style {
    match tone {
        Tone::Info => Style::new(),
        Tone::Good => Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
        Tone::Bad => Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
    }
}

const PAIR_COLOURS: [Color; 6] = [
    Color::Cyan,
    Color::Magenta,
    Color::Yellow,
    Color::Green,
    Color::LightBlue,
    Color::LightRed,
];

/// Draws `app`'s screen on `f`, and tells `app` where the board's text
/// starts (so that a mouse click finds its cell).
pub fn draw(app: &mut App, f: &mut Frame) {
    let origin = draw_screen(app, f);
    app.set_board_origin(origin);
}

/// Draws the screen; returns where the board's text starts.
fn draw_screen(app: &App, f: &mut Frame) -> Option<(u16, u16)> {
    let area = f.area();
    let p = app.game().width();
    let (bw, bh) = board_frame(p);
    let (min_w, min_h) = minimum_size(p);
    if area.width < min_w || area.height < min_h {
        too_small(f, area, p, min_w, min_h);
        return None;
    }
    let long = app
        .message()
        .is_some_and(|(m, _)| m.chars().count() + 1 > usize::from(area.width));
    let message_height = if long && area.height > min_h { 2 } else { 1 };
    let [header, main, message, keys] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Min(0),
        Constraint::Length(message_height),
        Constraint::Length(1),
    ])
    .areas(area);
    draw_header(app, f, header);
    draw_message(app, f, message);
    draw_keys(app, f, keys);

    if let Mode::Molecules { scroll } = app.mode() {
        draw_molecules(app, f, main, *scroll);
        return None;
    }

    let over = app.game().is_over();
    let second = over
        && app
            .game()
            .verdict()
            .is_some_and(|v| !v.exact && !v.resigned);
    let wide = main.width >= bw + PANEL_WIDTH && main.height >= bh;
    // The verdict's two boards lose their padding before the second goes.
    let tight = second
        && wide
        && main.width < 2 * bw + PANEL_WIDTH
        && main.width >= 2 * (bw - 2) + PANEL_WIDTH;
    let bw = if tight { bw - 2 } else { bw };
    let (board_area, guess_area, panel_area) = if wide {
        let show_guess = second && main.width >= 2 * bw + PANEL_WIDTH;
        let board = Rect::new(main.x, main.y, bw, bh);
        let guess = show_guess.then(|| Rect::new(main.x + bw, main.y, bw, bh));
        let used = if show_guess { 2 * bw } else { bw };
        let width = (main.width - used).min(PANEL_MAX_WIDTH);
        let height = main.height;
        let panel = Rect::new(main.x + used, main.y, width, height);
        (board, guess, Some(panel))
    } else if main.height >= bh + PANEL_MIN_HEIGHT {
        let board = Rect::new(main.x, main.y, bw, bh);
        let height = (main.height - bh).min(PANEL_HEIGHT);
        let width = main.width.min(PANEL_MAX_WIDTH);
        let panel = Rect::new(main.x, main.y + bh, width, height);
        (board, None, Some(panel))
    } else {
        (
            Rect::new(main.x, main.y, bw, bh.min(main.height)),
            None,
            None,
        )
    };

    let title = if over {
        " the hidden molecule "
    } else {
        " the box "
    };
    let lines = if over {
        reveal_lines(app)
    } else {
        play_lines(app)
    };
    let pad = if tight { 0 } else { 1 };
    let mut frame = Block::bordered()
        .title(title)
        .padding(Padding::horizontal(pad));
    if panel_area.is_none() {
        // No room for the panel: the score and atoms under the board.
        let g = app.game();
        let status = match g.verdict() {
            Some(v) => format!(
                " {} · score {} ",
                if v.won { "won" } else { "lost" },
                v.score
            ),
            None => format!(
                " score {} · atoms {}/{} ",
                g.ray_score(),
                g.placed(),
                g.atoms()
            ),
        };
        frame = frame.title_bottom(status);
    }
    f.render_widget(Paragraph::new(lines).block(frame), board_area);
    if let Some(g) = guess_area {
        f.render_widget(
            Paragraph::new(guess_lines(app)).block(
                Block::bordered()
                    .title(" your molecule ")
                    .padding(Padding::horizontal(pad)),
            ),
            g,
        );
    }
    if let Some(mut panel) = panel_area {
        let text = if over {
            verdict_text(app)
        } else {
            game_text(app)
        };
        // As tall as its text needs once wrapped, and at least the board's
        // height; blank lines go first when the text is taller than the room.
        let inner = usize::from(panel.width.saturating_sub(2 + 2 * pad)).max(1);
        let wrapped =
            |t: &Text| -> usize { t.lines.iter().map(|l| wrapped_height(l, inner)).sum() };
        let room = usize::from(panel.height.saturating_sub(2));
        let text = if wrapped(&text) > room {
            Text::from(
                text.lines
                    .into_iter()
                    .filter(|l| l.width() > 0)
                    .collect::<Vec<_>>(),
            )
        } else {
            text
        };
        let needed = wrapped(&text);
        let height = u16::try_from(needed)
            .unwrap_or(u16::MAX)
            .saturating_add(2)
            .max(bh);
        panel.height = panel.height.min(height);
        f.render_widget(
            Paragraph::new(text)
                .wrap(Wrap { trim: false })
                .block(Block::bordered().padding(Padding::horizontal(pad))),
            panel,
        );
    }

    match app.mode() {
        Mode::Help => draw_help(app, f, area),
        Mode::ConfirmQuit => {
            let saved = match app.saved_to() {
                Some(p) => format!("(last saved to {p})"),
                None => "(not saved)".to_string(),
            };
            popup(
                f,
                area,
                " quit? ",
                vec![
                    Line::from("The game is not finished. Quit?"),
                    Line::from(saved),
                    Line::from(""),
                    Line::from("y quits · s saves first · any other key goes back"),
                ],
            );
        }
        Mode::SavePrompt { input } => popup(
            f,
            area,
            " save the game ",
            vec![
                Line::from("Save to (type a file name):"),
                Line::from(vec![
                    Span::styled(input.clone(), Style::new().add_modifier(Modifier::BOLD)),
                    Span::styled(" ", Style::new().add_modifier(Modifier::REVERSED)),
                ]),
                Line::from(""),
                Line::from("Enter saves · Esc cancels"),
                Line::from("bbx solve reads the file; bbx play resumes it."),
            ],
        ),
        Mode::ConfirmResign => popup(
            f,
            area,
            " resign? ",
            vec![
                Line::from("Give up? The hidden molecule is shown and the game"),
                Line::from(format!(
                    "is lost: your rays' {} points + {WRONG_ATOM_PENALTY} per atom.",
                    app.game().ray_score()
                )),
                Line::from(""),
                Line::from("y resigns · any other key goes back"),
            ],
        ),
        Mode::WrongGuess { verdict } => {
            let p = app.game().width();
            let mut lines = vec![
                Line::from(Span::styled("Your guess is wrong.", style_of(Tone::Bad))),
                Line::from(""),
            ];
            match verdict.evidence {
                Some(e) if e.shot => {
                    lines.push(Line::from(format!(
                        "p or Enter plays on: ray {} ({}), which you shot,",
                        e.position,
                        position_name(p, e.position)
                    )));
                    lines.push(Line::from("does not fit your guess; fix it and press g."));
                }
                Some(e) => {
                    lines.push(Line::from(format!(
                        "p or Enter plays on: ray {} ({}) tells it apart;",
                        e.position,
                        position_name(p, e.position)
                    )));
                    lines.push(Line::from(
                        "it is shot for you and counted. Fix it, then g.",
                    ));
                }
                None => lines.push(Line::from("p or Enter plays on.")),
            }
            lines.push(Line::from(format!(
                "e ends the game: the answer is shown, score {}.",
                verdict.score
            )));
            popup(f, area, " wrong ", lines);
        }
        Mode::ConfirmOverwrite { path } => popup(
            f,
            area,
            " replace? ",
            vec![
                Line::from(format!("{path} exists. Replace it?")),
                Line::from(""),
                Line::from("y replaces · any other key goes back"),
            ],
        ),
        Mode::Board | Mode::Molecules { .. } => {}
    }
    Some((board_area.x + 1 + pad, board_area.y + 1))
}

fn too_small(f: &mut Frame, area: Rect, p: usize, w: u16, h: u16) {
    let text = format!(
        "The {p}×{p} board needs a terminal of at least {w}×{h}; this one is {}×{}. Enlarge it, or press q to quit.",
        area.width, area.height
    );
    f.render_widget(
        Paragraph::new(text)
            .style(Style::new().add_modifier(Modifier::BOLD))
            .wrap(Wrap { trim: true }),
        area,
    );
}

/// The lines a line of text takes once wrapped at `width` columns, word by
/// word as ratatui wraps it (a word longer than the width is cut).
fn wrapped_height(line: &Line, width: usize) -> usize {
    let text: String = line.spans.iter().map(|s| s.content.as_ref()).collect();
    let mut lines = 1;
    let mut used = 0;
    for word in text.split(' ') {
        let w = word.chars().count();
        let need = if used == 0 { w } else { used + 1 + w };
        if need <= width {
            used = need;
        } else {
            lines += 1;
            used = w;
            while used > width {
                lines += 1;
                used -= width;
            }
        }
    }
    lines
}

fn draw_header(app: &App, f: &mut Frame, area: Rect) {
    let mut title = format!(" bbx play · {}", app.started().title());
    let help = "? help ";
    let room = usize::from(area.width).saturating_sub(help.len() + 1);
    // A long file name is shortened from its start, so that the rest (the
    // seed above all) stays.
    if title.chars().count() > room
        && let Some(name) = app.started().file_name()
    {
        let over = title.chars().count() - room;
        let keep = name.chars().count().saturating_sub(over + 1);
        if keep >= 4 {
            let tail: String = name.chars().skip(name.chars().count() - keep).collect();
            title = title.replacen(&name, &format!("…{tail}"), 1);
        }
    }
    let mut t: String = if title.chars().count() > room {
        let mut cut: String = title.chars().take(room.saturating_sub(1)).collect();
        cut.push('…');
        cut
    } else {
        title
    };
    let pad = usize::from(area.width).saturating_sub(t.chars().count() + help.len());
    t.push_str(&" ".repeat(pad));
    f.render_widget(
        Paragraph::new(Line::from(vec![
            Span::styled(t, Style::new().add_modifier(Modifier::BOLD)),
            Span::styled(help, Style::new().fg(Color::DarkGray)),
        ])),
        area,
    );
}

fn draw_message(app: &App, f: &mut Frame, area: Rect) {
    if let Some((m, tone)) = app.message() {
        f.render_widget(
            Paragraph::new(Span::styled(format!(" {m}"), style_of(tone)))
                .wrap(Wrap { trim: false }),
            area,
        );
    }
}

fn draw_keys(app: &App, f: &mut Frame, area: Rect) {
    let keys = match app.mode() {
        Mode::Board if app.game().is_over() => {
            " ←↓↑→ ray paths · a every molecule · n new game · s save · ? help · q quit"
        }
        Mode::Board => {
            " ←↓↑→ move · Enter shoot/atom · m empty · u undo · g guess · ? help · q quit"
        }
        Mode::Help => " any key closes the help",
        Mode::ConfirmQuit => " y quit · s save · any other key: back",
        Mode::ConfirmResign => " y resign · any other key: back",
        Mode::WrongGuess { .. } => " p or Enter play on · e end the game",
        Mode::SavePrompt { .. } => " Enter save · Esc cancel",
        Mode::ConfirmOverwrite { .. } => " y replace · any other key: back",
        Mode::Molecules { .. } => " ↑↓ PgUp PgDn scroll · any other key: back to the board",
    };
    f.render_widget(
        Paragraph::new(Span::styled(keys, Style::new().fg(Color::DarkGray))),
        area,
    );
}

/// The board's lines: `cell(i)` and `mark(pos)` give each character and its
/// style; the cursor's character is drawn reversed.
fn board_lines(
    p: usize,
    cell: impl Fn(usize) -> (char, Style),
    mark: impl Fn(usize) -> (char, Style),
    cursor: (usize, usize),
) -> Vec<Line<'static>> {
    (0..p + 2)
        .map(|r| {
            let mut spans = Vec::with_capacity(2 * (p + 2));
            for c in 0..p + 2 {
                let (ch, mut style) = if (1..=p).contains(&r) && (1..=p).contains(&c) {
                    cell(p * (r - 1) + c - 1)
                } else if let Some(q) = position_at(p, r, c) {
                    mark(q)
                } else {
                    (' ', Style::new())
                };
                if (r, c) == cursor {
                    style = style.add_modifier(Modifier::REVERSED);
                }
                spans.push(Span::raw(" "));
                spans.push(Span::styled(ch.to_string(), style));
            }
            Line::from(spans)
        })
        .collect()
}

/// The style of a border mark: hits, reflections, misses and each exit pair
/// in its own colour; the pair under the cursor underlined at both ends.
fn mark_style(app: &App, q: usize) -> Style {
    let g = app.game();
    let base = match g.observation().get(q) {
        Some(Outcome::Absorbed) => Style::new().fg(Color::Red),
        Some(Outcome::Reflected) => Style::new().fg(Color::LightBlue),
        Some(Outcome::Miss) => Style::new().fg(Color::DarkGray),
        Some(Outcome::Exit(_)) => {
            let i = g.pair_index(q).unwrap_or(0);
            Style::new().fg(PAIR_COLOURS[i % PAIR_COLOURS.len()])
        }
        None => Style::new(),
    }
    .add_modifier(Modifier::BOLD);
    if let Some(Target::Border(c)) = app.cursor().target()
        && let Some(Outcome::Exit(k)) = g.observation().get(c)
        && k == q
    {
        return base.add_modifier(Modifier::UNDERLINED | Modifier::REVERSED);
    }
    base
}

/// A cell's chance of an atom as one character: `.` never, `*` always, else
/// the tenths (`7` is 70 to 79%), brighter the likelier.
fn chance_mark(q: f64) -> (char, Style) {
    if q < 0.0005 {
        ('.', Style::new().fg(Color::DarkGray))
    } else if q > 0.9995 {
        (
            '*',
            Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
        )
    } else {
        let tenths = ((q * 10.0) as u32).min(9);
        let style = match tenths {
            0..=2 => Style::new().fg(Color::DarkGray),
            3..=5 => Style::new().fg(Color::Yellow),
            _ => Style::new()
                .fg(Color::LightRed)
                .add_modifier(Modifier::BOLD),
        };
        (char::from_digit(tenths, 10).unwrap_or('?'), style)
    }
}

fn play_lines(app: &App) -> Vec<Line<'static>> {
    let g = app.game();
    let p = g.width();
    let (marks, _) = g.marks_in(app.notation());
    let answer = app.coach().answer_for(g.observation());
    let certainty = app
        .panels()
        .certain
        .then(|| answer.and_then(|a| a.certainty()))
        .flatten();
    let best = app
        .panels()
        .best
        .then(|| answer.and_then(|a| a.best()).map(|s| s.position))
        .flatten();
    // The best ray: an arrow into the box.
    let arrow = |q: usize| match crate::rules::board::port(p, q).side {
        Side::Left => '>',
        Side::Bottom => '^',
        Side::Right => '<',
        Side::Top => 'v',
    };
    let chances = app
        .panels()
        .chance
        .then(|| answer.and_then(|a| a.chances()))
        .flatten();
    board_lines(
        p,
        |i| {
            let c = certainty.map(|c| c[i]);
            if g.is_marked_empty(i) && !g.is_guessed(i) {
                return (':', Style::new().fg(Color::Blue));
            }
            if let Some(ch) = chances.filter(|_| !g.is_guessed(i)) {
                return chance_mark(ch[i]);
            }
            if g.is_guessed(i) {
                if c == Some(Certainty::Empty) {
                    (
                        '!',
                        Style::new().fg(Color::Red).add_modifier(Modifier::BOLD),
                    )
                } else {
                    (
                        'O',
                        Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                    )
                }
            } else {
                match c {
                    Some(Certainty::Atom) => (
                        '*',
                        Style::new().fg(Color::Green).add_modifier(Modifier::BOLD),
                    ),
                    Some(Certainty::Empty) => ('.', Style::new().fg(Color::DarkGray)),
                    _ => ('-', Style::new()),
                }
            }
        },
        |q| {
            if g.observation().get(q).is_some() {
                (marks[q - 1], mark_style(app, q))
            } else if best == Some(q) {
                (
                    arrow(q),
                    Style::new().fg(Color::Yellow).add_modifier(Modifier::BOLD),
                )
            } else {
                (' ', Style::new())
            }
        },
        app.cursor().row_col(),
    )
}

/// The ray the reveal draws: the one at the cursor.
fn selected_ray(app: &App) -> Option<usize> {
    match app.cursor().target() {
        Some(Target::Border(q)) => Some(q),
        _ => None,
    }
}

/// The mark of a ray the player did not shoot but the referee shows (the ray
/// that tells a wrong guess apart).
fn evidence_mark(app: &App) -> Option<(usize, Option<usize>, char)> {
    let g = app.game();
    let e = g.verdict()?.evidence?;
    if e.shot {
        return None;
    }
    let (_, used) = g.marks_in(app.notation());
    let next = g.pair_order().len();
    let (ch, other) = match e.hidden {
        Outcome::Absorbed => (used.hit(), None),
        Outcome::Reflected => (used.reflection(), None),
        Outcome::Miss => ('~', None),
        Outcome::Exit(k) => (used.pair(next).unwrap_or('+'), Some(k)),
    };
    Some((e.position, other, ch))
}

fn reveal_lines(app: &App) -> Vec<Line<'static>> {
    let g = app.game();
    let p = g.width();
    let (marks, _) = g.marks_in(app.notation());
    let hidden = g.hidden().cells();
    let path = selected_ray(app).map(|q| ray_path(g.hidden(), g.rules(), q).1);
    let extra = evidence_mark(app);
    board_lines(
        p,
        |i| {
            let bold = |c: Color| Style::new().fg(c).add_modifier(Modifier::BOLD);
            let on_path = path.as_ref().is_some_and(|c| c[i]);
            match (hidden[i], g.is_guessed(i)) {
                (true, true) => ('O', bold(Color::Green)),
                // Your wrong atom does not hide the ray's path.
                (false, true) if on_path => ('X', bold(Color::Red)),
                (false, true) => ('x', bold(Color::Red)),
                (true, false) => ('#', bold(Color::Yellow)),
                (false, false) if on_path => ('+', Style::new().fg(Color::Magenta)),
                _ => ('-', Style::new()),
            }
        },
        |q| {
            if g.observation().get(q).is_some() {
                return (marks[q - 1], mark_style(app, q));
            }
            match extra {
                Some((a, b, ch)) if a == q || b == Some(q) => (
                    ch,
                    Style::new()
                        .fg(Color::Magenta)
                        .add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
                ),
                _ => (' ', Style::new()),
            }
        },
        app.cursor().row_col(),
    )
}

/// The player's molecule with the path the selected ray would take in it.
fn guess_lines(app: &App) -> Vec<Line<'static>> {
    let g = app.game();
    let p = g.width();
    let Some(v) = g.verdict() else {
        return Vec::new();
    };
    let guess = v.guess.clone();
    let cells = guess.cells();
    let ray = selected_ray(app);
    let traced = ray.map(|q| (q, ray_path(&guess, g.rules(), q)));
    let path = traced.as_ref().map(|(_, (_, cells))| cells.clone());
    let outcome = traced.map(|(q, (o, _))| (q, o));
    board_lines(
        p,
        |i| {
            if cells[i] {
                (
                    'O',
                    Style::new().fg(Color::Cyan).add_modifier(Modifier::BOLD),
                )
            } else if path.as_ref().is_some_and(|c| c[i]) {
                ('+', Style::new().fg(Color::Magenta))
            } else {
                ('-', Style::new())
            }
        },
        |q| {
            let style = Style::new().fg(Color::Magenta).add_modifier(Modifier::BOLD);
            let used = g.marks_in(app.notation()).1;
            match outcome {
                Some((a, o)) if a == q => match o {
                    Outcome::Absorbed => (used.hit(), style),
                    Outcome::Reflected => (used.reflection(), style),
                    Outcome::Miss => ('~', style),
                    Outcome::Exit(_) => ('+', style),
                },
                Some((_, Outcome::Exit(k))) if k == q => ('+', style),
                _ => (' ', Style::new()),
            }
        },
        app.cursor().row_col(),
    )
}

/// The arrow drawn on the border for the best ray at `q`, in words.
fn arrow_of(p: usize, q: usize) -> &'static str {
    match crate::rules::board::port(p, q).side {
        Side::Left => "the >",
        Side::Bottom => "the ^",
        Side::Right => "the <",
        Side::Top => "the v",
    }
}

fn heading(s: &str) -> Line<'static> {
    Line::from(Span::styled(
        s.to_string(),
        Style::new().add_modifier(Modifier::BOLD | Modifier::UNDERLINED),
    ))
}

fn dim(s: String) -> Line<'static> {
    Line::from(Span::styled(s, Style::new().fg(Color::DarkGray)))
}

/// What the cursor is on, in words (two lines).
fn cursor_lines(app: &App) -> Vec<Line<'static>> {
    let g = app.game();
    let p = g.width();
    match app.cursor().target() {
        Some(Target::Border(q)) => {
            let what = match g.observation().get(q) {
                None if g.is_over() => "not shot".to_string(),
                None => "not shot yet: Enter shoots it".to_string(),
                Some(o) => {
                    let free = if g.is_free(q) {
                        " (given by the puzzle)"
                    } else {
                        ""
                    };
                    format!("{}{free}", outcome_words(p, o))
                }
            };
            vec![
                Line::from(format!("cursor  ray {q} ({})", position_name(p, q))),
                Line::from(format!("        {what}")),
            ]
        }
        Some(Target::Cell(i)) => {
            let what = match (g.is_guessed(i), g.is_over()) {
                (true, true) => "your atom",
                (true, false) => "your atom: Enter removes it",
                (false, true) => "empty in your guess",
                (false, false) if g.is_marked_empty(i) => "marked empty: m unmarks it",
                (false, false) => "Enter puts an atom here, m marks it empty",
            };
            vec![
                Line::from(format!("cursor  row {}, column {}", i / p + 1, i % p + 1)),
                Line::from(format!("        {what}")),
            ]
        }
        None => Vec::new(),
    }
}

fn game_text(app: &App) -> Text<'static> {
    let g = app.game();
    let p = g.width();
    let mut lines = vec![heading("game")];
    let given = g.free_positions().len();
    lines.push(Line::from(format!(
        "rays shot  {:<4} score {}",
        g.rays_shot(),
        g.ray_score()
    )));
    if given > 0 {
        lines.push(dim(format!(
            "           {given} border marks given by the puzzle, free"
        )));
    }
    lines.push(Line::from(format!(
        "atoms      {} of {} placed",
        g.placed(),
        g.atoms()
    )));
    if g.wrong_guesses() > 0 {
        lines.push(Line::from(format!(
            "           {} played on",
            plural(g.wrong_guesses(), "wrong guess", "wrong guesses")
        )));
    }
    lines.push(Line::from(""));
    lines.extend(cursor_lines(app));
    lines.push(Line::from(""));
    lines.push(heading("coach"));
    let panels = app.panels();
    if !panels.count && !panels.certain && !panels.best && !panels.chance {
        lines.push(dim(
            "off: c counts the molecules that fit, x shows certain cells, b the best ray, p the chances"
                .to_string(),
        ));
        return Text::from(lines);
    }
    let answer = app.coach().answer_for(g.observation());
    let Some(a) = answer else {
        if let Some(why) = app.coach().failure() {
            lines.push(Line::from(Span::styled(
                format!("the coach failed: {why}"),
                style_of(Tone::Bad),
            )));
        } else {
            let (found, t) = app.coach().progress().unwrap_or_default();
            lines.push(dim(format!(
                "thinking… {found} molecules so far ({:.1} s)",
                t.as_secs_f64()
            )));
        }
        return Text::from(lines);
    };
    if panels.count {
        lines.push(Line::from(a.count_sentence("the rays shot")));
    }
    if panels.certain {
        match a.certainty() {
            Some(c) => {
                let atoms = c.iter().filter(|x| **x == Certainty::Atom).count();
                let empty = c.iter().filter(|x| **x == Certainty::Empty).count();
                lines.push(Line::from(format!(
                    "certain: {} (*), {} (.)",
                    plural(atoms, "atom", "atoms"),
                    plural(empty, "empty cell", "empty cells")
                )));
                let wrong = (0..p * p)
                    .filter(|&i| g.is_guessed(i) && c[i] == Certainty::Empty)
                    .count();
                if wrong > 0 {
                    lines.push(Line::from(Span::styled(
                        format!(
                            "{} on a cell certainly empty (!)",
                            plural(wrong, "of your atoms is", "of your atoms are")
                        ),
                        style_of(Tone::Bad),
                    )));
                }
            }
            None => lines.push(dim(
                "certain cells: not known, the search stopped at its time limit".to_string(),
            )),
        }
    }
    if panels.chance {
        match a.chances() {
            Some(ch) => {
                lines.push(Line::from(
                    "chance of an atom: digits in tenths, . none, * sure".to_string(),
                ));
                let open = ch
                    .iter()
                    .enumerate()
                    .filter(|&(i, &q)| q <= 0.9995 && !g.is_guessed(i))
                    .max_by(|a, b| a.1.total_cmp(b.1).then(b.0.cmp(&a.0)));
                if let Some((i, &q)) = open.filter(|(_, q)| **q >= 0.0005) {
                    lines.push(Line::from(format!(
                        "likeliest open cell: row {}, column {} ({:.0}%)",
                        i / p + 1,
                        i % p + 1,
                        100.0 * q
                    )));
                }
            }
            None => lines.push(dim(
                "chances: not known, too many molecules to count in the time".to_string(),
            )),
        }
    }
    if panels.best {
        let partial = if a.all_listed() || a.report.splits_exact {
            String::new()
        } else if let Some(sm) = &a.report.sample {
            format!(" (ranked on a random sample of {})", sm.molecules)
        } else {
            format!(
                " (ranked on the first {} found only, not a sample)",
                a.report.listed
            )
        };
        match a.best() {
            Some(s) => {
                lines.push(Line::from(format!(
                    "best ray {} ({}, {}): {:.2} molecules expected left{partial}",
                    s.position,
                    position_name(p, s.position),
                    arrow_of(p, s.position),
                    s.expected_remaining
                )));
                for s in a.report.splits.iter().skip(1).take(2) {
                    lines.push(dim(format!(
                        "  then ray {} ({:.2})",
                        s.position, s.expected_remaining
                    )));
                }
            }
            None if a.report.count == 1 => lines.push(Line::from(
                "best ray: none needed, one molecule fits".to_string(),
            )),
            None => lines.push(Line::from(
                "best ray: none, no ray left tells the molecules apart".to_string(),
            )),
        }
    }
    Text::from(lines)
}

fn verdict_text(app: &App) -> Text<'static> {
    let g = app.game();
    let p = g.width();
    let Some(v) = g.verdict() else {
        return Text::default();
    };
    let mut lines = Vec::new();
    if v.resigned {
        lines.push(Line::from(Span::styled(
            "YOU RESIGNED",
            style_of(Tone::Bad).add_modifier(Modifier::UNDERLINED),
        )));
    } else if v.won {
        lines.push(Line::from(Span::styled(
            "YOU WIN",
            style_of(Tone::Good).add_modifier(Modifier::UNDERLINED),
        )));
    } else {
        lines.push(Line::from(Span::styled(
            "NOT THIS TIME",
            style_of(Tone::Bad).add_modifier(Modifier::UNDERLINED),
        )));
    }
    let penalty = if v.resigned {
        format!(
            " + {} for resigning (×{WRONG_ATOM_PENALTY} per atom)",
            v.penalty
        )
    } else if v.penalty > 0 {
        format!(
            " + {} for {} (×{WRONG_ATOM_PENALTY})",
            v.penalty,
            plural(v.wrong, "misplaced atom", "misplaced atoms")
        )
    } else {
        String::new()
    };
    let after = if v.wrong_guesses > 0 {
        format!(
            ", after {} played on",
            plural(v.wrong_guesses, "wrong guess", "wrong guesses")
        )
    } else {
        String::new()
    };
    lines.push(Line::from(format!(
        "score {}: {} for rays{penalty}{after}",
        v.score, v.ray_score
    )));
    lines.push(Line::from(""));
    let differ = format!("{} atom{}", v.wrong, if v.wrong == 1 { "" } else { "s" });
    let explanation = if v.resigned {
        "You gave up: the hidden molecule is shown, your atoms on it.".to_string()
    } else if v.exact {
        "Your molecule is the hidden one.".to_string()
    } else if v.won && g.judge() == Judge::AllRays {
        format!(
            "Your molecule differs from the hidden one by {differ}, but every ray gives the same result in both: no ray can tell them apart, so it wins."
        )
    } else if v.won {
        let would = match v.evidence {
            Some(e) => format!(
                " (ray {}, not shot, would have told them apart)",
                e.position
            ),
            None => String::new(),
        };
        format!(
            "Your molecule differs from the hidden one by {differ}, but fits every ray you shot, so it wins{would}."
        )
    } else {
        match v.evidence {
            Some(e) if e.shot => format!(
                "Ray {} ({}) was {}, but in your molecule it would be {}.",
                e.position,
                position_name(p, e.position),
                outcome_words(p, e.hidden),
                outcome_words(p, e.guess)
            ),
            Some(e) => format!(
                "Your molecule fits every ray you shot, but ray {} ({}), not shot, tells it apart: {} for the hidden molecule, {} for yours (shown underlined).",
                e.position,
                position_name(p, e.position),
                outcome_words(p, e.hidden),
                outcome_words(p, e.guess)
            ),
            None => "Your molecule is not the hidden one.".to_string(),
        }
    };
    lines.push(Line::from(explanation));
    lines.push(Line::from(""));
    lines.extend(review_lines(app));
    lines.push(Line::from(""));
    lines.push(dim(
        "O right · x wrong (X: on the path) · # missed · + path".to_string(),
    ));
    lines.push(Line::from(""));
    lines.extend(cursor_lines(app));
    if app.coach_used() {
        lines.push(Line::from(""));
        lines.push(dim("(the coach helped in this game)".to_string()));
    }
    Text::from(lines)
}

/// The review of the game: the policy's game against the same molecule, its
/// average over every molecule, and the player's rays that told nothing new.
fn review_lines(app: &App) -> Vec<Line<'static>> {
    let policy = app.options().policy;
    let mut lines = Vec::new();
    match app.coach().review() {
        ReviewState::NotAsked => {}
        ReviewState::Working => {
            lines.push(dim(format!("the {policy} policy's game: working it out…")))
        }
        ReviewState::Unavailable(why) => {
            lines.push(dim(format!("the {policy} policy's game: {why}")))
        }
        ReviewState::Ready { review, complete } => {
            let g = &review.game;
            lines.push(Line::from(format!(
                "{policy} policy: {}, score {}",
                plural(g.shots.len(), "ray", "rays"),
                g.score
            )));
            lines.push(match (&review.average, complete) {
                (Some(a), _) => Line::from(format!(
                    "on average ({} molecules): {:.2} rays, score {:.2}",
                    a.molecules, a.rays_mean, a.score_mean
                )),
                (None, false) => dim("on average: computing…".to_string()),
                (None, true) => {
                    let hidden = app.game().hidden();
                    let config = format!("A{}_B{}", hidden.atoms().len(), hidden.width());
                    dim(format!(
                        "on average: not computed in play (more than {REVIEW_AVERAGE_LIMIT} molecules); bbx strategy {config} gives it"
                    ))
                }
            });
            let shots = app.game().shots().len();
            lines.push(Line::from(if shots == 0 {
                "you shot no ray".to_string()
            } else if review.idle.is_empty() {
                "your rays all told something new".to_string()
            } else {
                let list: Vec<String> = review.idle.iter().map(|q| q.to_string()).collect();
                format!(
                    "told nothing new: your ray{} {}",
                    if list.len() == 1 { "" } else { "s" },
                    list.join(", ")
                )
            }));
        }
    }
    lines
}

fn draw_help(app: &App, f: &mut Frame, area: Rect) {
    let g = app.game();
    let mut lines = vec![
        Line::from(format!(
            "{} hidden in the {p}×{p} box. Shoot rays in from the border:",
            atoms_are(g.atoms()),
            p = g.width()
        )),
        Line::from("@ (H) absorbed, & (R) reflected, a letter (digit) at both ends of an exit."),
        Line::from("Place atoms where you think they are, then press g for the verdict."),
        Line::from(""),
    ];
    let bold = Style::new().add_modifier(Modifier::BOLD);
    let cell = |k: &str, what: &str| {
        vec![
            Span::styled(format!("{k:>11} "), bold),
            Span::raw(format!("{what:<25}")),
        ]
    };
    // Two columns when the terminal is 80 wide, else one.
    if area.width >= 80 {
        let half = KEYS.len().div_ceil(2);
        for (i, (k, what)) in KEYS.iter().enumerate().take(half) {
            let mut spans = cell(k, what);
            if let Some((k, what)) = KEYS.get(half + i) {
                spans.push(Span::raw("  "));
                spans.extend(cell(k, what));
            }
            lines.push(Line::from(spans));
        }
    } else {
        for (k, what) in KEYS {
            lines.push(Line::from(cell(k, what)));
        }
    }
    lines.push(Line::from(""));
    lines.push(Line::from(format!(
        "Score: 1 per hit or reflection, 2 per exit pair, {WRONG_ATOM_PENALTY} per misplaced atom."
    )));
    lines.push(Line::from(match g.judge() {
        Judge::AllRays => {
            "A guess wins if no ray can tell it from the hidden molecule (Tatham's rule)."
        }
        Judge::RaysShot => "A guess wins when it fits every ray you shot (none shot: every ray).",
    }));
    lines.push(Line::from(
        "Undone rays stay paid. A wrong guess: p plays on (its ray paid), e ends.",
    ));
    lines.push(Line::from(
        "Box: O your atom, : marked empty; coach * atom . empty ! your atom wrong",
    ));
    popup(f, area, " help ", lines);
}

/// A centred window over the screen.
fn popup(f: &mut Frame, area: Rect, title: &str, lines: Vec<Line<'static>>) {
    let inner_w = lines.iter().map(|l| l.width()).max().unwrap_or(10) as u16;
    let w = (inner_w + 4).min(area.width);
    let h = (lines.len() as u16 + 2).min(area.height);
    let r = Rect::new(
        area.x + (area.width - w) / 2,
        area.y + (area.height - h) / 2,
        w,
        h,
    );
    f.render_widget(Clear, r);
    f.render_widget(
        Paragraph::new(lines).wrap(Wrap { trim: false }).block(
            Block::bordered()
                .title(title.to_string())
                .padding(Padding::horizontal(1)),
        ),
        r,
    );
}

fn draw_molecules(app: &App, f: &mut Frame, area: Rect, scroll: u16) {
    let g = app.game();
    let p = g.width();
    let block = Block::bordered()
        .title(" every molecule the rays allowed ")
        .padding(Padding::horizontal(1));
    let Some(a) = app.coach().answer_for(g.observation()) else {
        let (found, t) = app.coach().progress().unwrap_or_default();
        let text = match app.coach().failure() {
            Some(why) => format!("The coach failed: {why}"),
            None => format!(
                "Listing the molecules… {found} so far ({:.1} s)",
                t.as_secs_f64()
            ),
        };
        f.render_widget(Paragraph::new(text).block(block), area);
        return;
    };
    let (marks, _) = g.marks_in(app.notation());
    let guess = g.verdict().map(|v| v.guess.clone());
    // The hidden molecule first, then the guess, then the others as found.
    let mut mols: Vec<&Molecule> = Vec::with_capacity(a.molecules().len());
    let first = |m: &Molecule| m == g.hidden() || guess.as_ref() == Some(m);
    mols.extend(a.molecules().iter().filter(|m| *m == g.hidden()));
    mols.extend(
        a.molecules()
            .iter()
            .filter(|m| guess.as_ref() == Some(*m) && *m != g.hidden()),
    );
    mols.extend(a.molecules().iter().filter(|m| !first(m)));
    let listed = mols.len().min(MOLECULES_LISTED);
    let board_w = 2 * p + 4;
    let per_row = (usize::from(area.width.saturating_sub(4)) / (board_w + 3)).max(1);
    let rays = g.observation().rays().len();
    let mut text = vec![
        Line::from(format!(
            "{}; each of them gives the same results on those rays.",
            a.count_sentence(&format!(
                "the {rays} ray{} shot",
                if rays == 1 { "" } else { "s" }
            ))
        )),
        Line::from(""),
    ];
    for chunk in mols[..listed].chunks(per_row).enumerate() {
        let (row, chunk) = chunk;
        let boards: Vec<String> = chunk
            .iter()
            .enumerate()
            .map(|(j, m)| {
                let n = row * per_row + j + 1;
                let mut tags = Vec::new();
                if *m == g.hidden() {
                    tags.push("hidden");
                }
                if guess.as_ref() == Some(*m) {
                    tags.push("yours");
                }
                let title = if tags.is_empty() {
                    format!("{n}")
                } else {
                    format!("{n}: {}", tags.join(", "))
                };
                let cells = m.cells();
                format!(
                    "  {title}\n{}",
                    grid(p, |i| if cells[i] { 'O' } else { '-' }, &marks)
                )
            })
            .collect();
        for l in side_by_side(&boards, 3).lines() {
            text.push(Line::from(l.to_string()));
        }
        text.push(Line::from(""));
    }
    if listed < mols.len() {
        text.push(dim(format!(
            "The first {listed} of the {} molecules listed are shown.",
            mols.len()
        )));
    } else if !a.all_listed() {
        text.push(dim(format!(
            "The list stops at {} molecules, within the coach's limits (--max, --timeout).",
            mols.len()
        )));
    }
    let max_scroll = (text.len() as u16).saturating_sub(1);
    f.render_widget(
        Paragraph::new(text)
            .wrap(Wrap { trim: false })
            .scroll((scroll.min(max_scroll), 0))
            .block(block),
        area,
    );
}
