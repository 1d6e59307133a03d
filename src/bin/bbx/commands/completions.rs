//! `bbx completions`.

use clap_complete::Shell;

use crate::cli::Status;

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
