//! `lab lesson check FILE…`: each lesson file's problems (`lab_state::lesson_check`), or "ok".

use std::path::PathBuf;

#[derive(clap::Args)]
pub struct LessonArgs {
    #[command(subcommand)]
    command: LessonCommand,
}

#[derive(clap::Subcommand)]
enum LessonCommand {
    /// Checks lesson files before a class sees them: their fields, each section's link (no
    /// notice from its lab), the metrics it reads (published by its lab), its choices (no overlap,
    /// no gap) and their whys
    Check {
        /// Lesson files (`public/lessons/<id>.json`)
        #[arg(required = true, value_name = "FILE")]
        files: Vec<PathBuf>,
    },
}

pub fn run(a: &LessonArgs) -> anyhow::Result<()> {
    let LessonCommand::Check { files } = &a.command;
    let mut failed = 0;
    for file in files {
        let problems = match std::fs::read_to_string(file) {
            Ok(text) => lab_state::lesson_check::check(&text),
            Err(e) => vec![format!("cannot be read: {e}")],
        };
        if problems.is_empty() {
            println!("{}: ok", file.display());
        } else {
            failed += 1;
            println!("{}: {} problem(s)", file.display(), problems.len());
            for p in problems {
                println!("  - {p}");
            }
        }
    }
    if failed > 0 {
        anyhow::bail!("{failed} of {} lesson file(s) have problems", files.len());
    }
    Ok(())
}
