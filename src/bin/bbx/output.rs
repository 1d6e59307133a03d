//! What `bbx` prints: settings named as flags, JSON, the error object of
//! `--json`, and the output itself.

use std::io::Write;

use bbx::control::Ended;
use bbx::setting::{Job, Setting};

use crate::exit::Status;

/// How the command line names the library's settings, as its flags, and
/// the work a message advises, as the command to run.
pub struct Flags;

impl bbx::setting::Naming for Flags {
    fn job(&self, job: &Job) -> String {
        let db = self.name(Setting::Db);
        let or_any = |c: &Option<String>| c.clone().unwrap_or_else(|| "…".into());
        let command = match job {
            Job::Explore(c, file) => format!("explore {} {db} {file}", or_any(c)),
            Job::StoreGroups(c, file) => {
                let store = self.name(Setting::StoreGroups);
                format!("stats {} {store} {db} {file}", or_any(c))
            }
            Job::VerifyStored(c, file) => {
                format!("verify {c} {} {db} {file}", self.name(Setting::Ambiguous))
            }
            Job::Census(c) => format!("stats {c}"),
            Job::ReadTables(c, file) => format!("stats {c} {db} {file}"),
            Job::Solve => "solve".into(),
            Job::Trace => "trace".into(),
            Job::Puzzles => return "`bbx puzzles` lists them".into(),
            other => return other.words(),
        };
        format!("run `bbx {command}`")
    }

    fn name(&self, setting: Setting) -> String {
        // The flags whose name is not the setting's key: one name for one
        // thing across the commands (the guide lists the old names, which
        // still work).
        let flag = match setting {
            Setting::Boards => "max-boards",
            Setting::PlanMax => "max-plan",
            other => other.key(),
        };
        format!("--{flag}")
    }
}

/// `value` as pretty JSON, with a final newline; the settings its prose
/// mentions are named as flags.
pub fn json<T: serde::Serialize>(value: &T) -> bbx::Result<String> {
    let mut s = bbx::setting::serialising_with(&Flags, || serde_json::to_string_pretty(value))?;
    s.push('\n');
    Ok(s)
}

/// The commands that take `--json`.
const JSON_COMMANDS: [&str; 9] = [
    "trace", "solve", "explore", "show", "stats", "verify", "suggest", "strategy", "generate",
];

/// Whether the command line asks for JSON: a command that takes `--json`,
/// and `--json` among its arguments (before a `--` that ends the options).
/// Read from the raw arguments, so that it is known even when they do not
/// parse.
pub fn json_mode() -> bool {
    let args: Vec<String> = std::env::args().skip(1).collect();
    args.first()
        .is_some_and(|c| JSON_COMMANDS.contains(&c.as_str()))
        && args
            .iter()
            .take_while(|a| a.as_str() != "--")
            .any(|a| a == "--json")
}

/// The object a command prints instead of its own when it fails or stops
/// with nothing to report in `--json` mode (docs/json.md, Errors):
/// `{"error": {"kind", "message", "status"}}`.
pub fn json_error(kind: &str, message: &str, status: Status) -> String {
    let status = status as u8;
    let failed = serde_json::json!({"error": {"kind": kind, "message": message, "status": status}});
    // An object of strings and a number always serialises.
    json(&failed).unwrap_or_default()
}

/// The kind of an error, as `--json` names it: the variant of
/// [`bbx::Error`], in snake case.
pub fn error_kind(error: &bbx::Error) -> &'static str {
    error.into()
}

/// A command that stops with nothing to report (interrupted, or out of
/// time): the sentence saying why goes to standard error and, in `--json`
/// mode, into the error object printed (of kind `kind`).
pub fn stopped(as_json: bool, kind: &str, message: &str, status: Status) -> (String, Status) {
    eprintln!("{message}");
    if as_json {
        (json_error(kind, message, status), status)
    } else {
        (String::new(), status)
    }
}

/// A command interrupted by Ctrl-C with nothing more to report than
/// `message` (exit status 130).
pub fn interrupted(as_json: bool, message: &str) -> (String, Status) {
    stopped(as_json, "interrupted", message, Status::Interrupted)
}

/// A command stopped by Ctrl-C or a time limit (`ended`) with nothing more
/// to report than `message` (exit status 130 or 4).
pub fn stopped_by(as_json: bool, ended: Ended, message: &bbx::setting::Text) -> (String, Status) {
    let message = message.show(&Flags);
    if ended == Ended::Cancelled {
        stopped(as_json, "interrupted", &message, Status::Interrupted)
    } else {
        stopped(as_json, "time_limit", &message, Status::Incomplete)
    }
}

/// A search stopped by a limit before it found anything (exit status 4),
/// as every command reports it: `message` on standard error and, in
/// `--json` mode, the error object, of kind `memory_limit` when the memory
/// bound stopped it and `time_limit` otherwise.
pub fn nothing_found(as_json: bool, ended: bbx::control::Ended, message: &str) -> (String, Status) {
    let kind = match ended {
        bbx::control::Ended::OverMemory => "memory_limit",
        _ => "time_limit",
    };
    stopped(as_json, kind, message, Status::Incomplete)
}

/// Prints `text`; a closed pipe (`bbx … | head`) is not an error.
pub fn emit(text: &str) -> Result<(), Status> {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|_| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => Ok(()),
        Err(e) => {
            eprintln!("error: cannot write the output: {e}");
            Err(Status::Failure)
        }
    }
}
