//! `bbx strategy`.

use std::time::Duration;

use bbx::assistant::strategy::{Policy, StrategyOptions, play_all, play_one};
use bbx::{Config, Rules};

use crate::cli::{Quiet, Status, ctrl_c, deadline, json, parse_timeout, spinner, stopped};

#[derive(clap::Args)]
#[command(after_help = "\
Plays a policy against every molecule of the configuration, one game each \
(the hidden molecule chosen uniformly): the rays shot until no ray can tell \
the molecules left apart (one end of an exit pair shows the other), the score \
of the original game (1 per ray absorbed or reflected, 2 per ray that comes \
out, 5 per hidden atom missed by atoms placed where they most often are), \
the same games by Tatham's rule, the distribution, the hardest games and \
the policy's first rays. Ties between rays go to the lowest position.

Examples:
  bbx strategy A3_B5
  bbx strategy A4_B8 --policy entropy
  bbx strategy A4_B8 --molecule 868
  bbx strategy A4_B6 --policy score --json")]
pub struct Args {
    /// The configuration, e.g. A4_B8.
    config: Config,
    /// greedy (fewest molecules expected left), entropy (most bits), or
    /// score (cheapest expected score one step ahead, stopping early when
    /// placing the atoms is cheaper).
    #[arg(long, default_value = "greedy", value_name = "greedy|entropy|score")]
    policy: Policy,
    /// Play one game only, against molecule N, and show its rays.
    #[arg(long, value_name = "N")]
    molecule: Option<u64>,
    /// Ray rules.
    #[arg(long, default_value = "standard", value_name = "standard|edge-miss")]
    rules: Rules,
    /// Give up after this many seconds.
    #[arg(long, value_name = "SECONDS", value_parser = parse_timeout, allow_negative_numbers = true)]
    timeout: Option<Duration>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    json: bool,
    #[command(flatten)]
    quiet: Quiet,
}

pub fn run(args: Args) -> bbx::Result<(String, Status)> {
    let options = StrategyOptions {
        policy: args.policy,
        rules: args.rules,
        deadline: deadline(args.timeout),
        stop: Some(ctrl_c()),
    };
    if let Some(n) = args.molecule {
        let game = play_one(args.config, &options, n)?;
        let text = if args.json {
            /// One game, with what it was played under.
            #[derive(serde::Serialize)]
            struct OneGame<'a> {
                config: String,
                rules: Rules,
                policy: Policy,
                #[serde(flatten)]
                game: &'a bbx::assistant::strategy::Game,
            }
            json(&OneGame {
                config: args.config.to_string(),
                rules: args.rules,
                policy: args.policy,
                game: &game,
            })?
        } else {
            bbx::render::game_text(&game)
        };
        return Ok((text, Status::Done));
    }
    let spinner = spinner(
        args.quiet.quiet,
        format!(
            "strategy {}: every game, {} policy",
            args.config, args.policy
        ),
    );
    let report = play_all(args.config, &options);
    spinner.finish_and_clear();
    let Some(report) = report? else {
        if ctrl_c().load(std::sync::atomic::Ordering::Relaxed) {
            return Ok(stopped(
                args.json,
                "interrupted",
                "interrupted before every game was played: nothing to report",
                Status::Interrupted,
            ));
        }
        return Ok(stopped(
            args.json,
            "time_limit",
            "the time limit passed before every game was played: nothing to report (--timeout raises it)",
            Status::Incomplete,
        ));
    };
    let text = if args.json {
        json(&report)?
    } else {
        bbx::render::strategy_text(&report)
    };
    Ok((text, Status::Done))
}
