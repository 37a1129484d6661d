//! `stagger completions` and `stagger man`: what the shell and `man` need to
//! know about `stagger`, generated from the one command-line definition so
//! they can never disagree with it.

use std::path::PathBuf;

use anyhow::Context;
use clap::{Args, CommandFactory};
use clap_complete::Shell;

use crate::cli::Cli;
use crate::exit::{Exit, UsageError};

/// Options of `stagger completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: Shell,
}

/// Options of `stagger man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// The subcommand whose page to print (`run` gives stagger-run(1));
    /// without one, the page of `stagger` itself.
    pub command: Option<String>,
    /// Write every page (stagger.1, stagger-run.1, ...) into this directory,
    /// created if need be, instead of printing one.
    #[arg(long, value_name = "DIR", conflicts_with = "command")]
    pub out_dir: Option<PathBuf>,
}

/// Writes the completion script for `args.shell` to standard output.
pub fn completions(args: &CompletionsArgs) -> anyhow::Result<Exit> {
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut Cli::command(), "stagger", &mut script);
    write_stdout(&script)
}

/// Writes one man page to standard output, or all of them to a directory.
pub fn man(args: &ManArgs) -> anyhow::Result<Exit> {
    let mut command = Cli::command().disable_help_subcommand(true);
    command.build();
    if let Some(dir) = &args.out_dir {
        std::fs::create_dir_all(dir)
            .and_then(|()| clap_mangen::generate_to(command, dir))
            .with_context(|| format!("{}: cannot write man pages", dir.display()))?;
        return Ok(Exit::Success);
    }
    let page = match &args.command {
        None => command,
        Some(name) => match command.find_subcommand(name) {
            Some(sub) => sub.clone(),
            None => {
                let names: Vec<&str> = command.get_subcommands().map(|sub| sub.get_name()).collect();
                return Err(anyhow::anyhow!(
                    "stagger has no command '{name}'; pages exist for: {}",
                    names.join(", ")
                )
                .context(UsageError::option("[COMMAND]")));
            }
        },
    };
    let mut roff = Vec::new();
    clap_mangen::Man::new(page).render(&mut roff)?;
    write_stdout(&roff)
}

/// Prints generated text (both generators write UTF-8) the way every command does.
fn write_stdout(bytes: &[u8]) -> anyhow::Result<Exit> {
    crate::output::print(&String::from_utf8_lossy(bytes))?;
    Ok(Exit::Success)
}
