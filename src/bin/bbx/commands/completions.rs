//! `bbx completions`.

use clap_complete::Shell;

use crate::exit::Status;

#[derive(clap::Args)]
#[command(
    after_help = "Install (then open a new shell):\n  bash  bbx completions bash > ~/.local/share/bash-completion/completions/bbx\n  zsh   bbx completions zsh > ~/.zfunc/_bbx\n        (with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc)\n  fish  bbx completions fish > ~/.config/fish/completions/bbx.fish\n\nExamples:\n  bbx completions bash\n  source <(bbx completions bash)"
)]
pub struct Args {
    /// The shell to complete for.
    #[arg(value_name = "SHELL")]
    shell: Shell,
}

/// The completion script of `command` (the whole `bbx` command line) for the
/// chosen shell.
pub fn run(args: Args, mut command: clap::Command) -> bbx::Result<(String, Status)> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, "bbx", &mut script);
    let text = String::from_utf8(script)
        .map_err(|e| bbx::Error::invalid(format!("the completion script is not UTF-8: {e}")))?;
    Ok((text, Status::Done))
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    /// Every hidden spelling of the command line: hidden options, and the
    /// hidden aliases of options (old names), as they would be typed.
    fn hidden(command: &clap::Command, out: &mut Vec<String>) {
        for arg in command.get_arguments() {
            let visible: Vec<&str> = arg.get_visible_aliases().unwrap_or_default();
            for alias in arg.get_all_aliases().unwrap_or_default() {
                if !visible.contains(&alias) {
                    out.push(format!("--{alias}"));
                }
            }
            if arg.is_hide_set()
                && let Some(long) = arg.get_long()
            {
                out.push(format!("--{long}"));
            }
        }
        for sub in command.get_subcommands() {
            hidden(sub, out);
        }
    }

    #[test]
    fn no_completion_script_nor_manual_page_offers_a_hidden_spelling() {
        let mut names = Vec::new();
        hidden(&crate::Cli::command(), &mut names);
        // The old names of renamed options are hidden aliases.
        assert!(names.contains(&"--top".to_string()), "{names:?}");
        let mut texts = Vec::new();
        for shell in [
            clap_complete::Shell::Bash,
            clap_complete::Shell::Zsh,
            clap_complete::Shell::Fish,
            clap_complete::Shell::Elvish,
            clap_complete::Shell::PowerShell,
        ] {
            let args = super::Args { shell };
            texts.push(super::run(args, crate::Cli::command()).unwrap().0);
        }
        let man = crate::manual::tests::pages();
        texts.extend(man);
        for text in &texts {
            for name in &names {
                // As typed, and as roff escapes it.
                let escaped = name.replace('-', "\\-");
                for spelt in [name.as_str(), escaped.as_str()] {
                    let shown = text.match_indices(spelt).any(|(at, _)| {
                        let next = text[at + spelt.len()..].chars().next();
                        !next.is_some_and(|c| c.is_ascii_alphanumeric() || c == '-' || c == '\\')
                    });
                    assert!(!shown, "{name} is offered:\n{text}");
                }
            }
        }
    }
}
