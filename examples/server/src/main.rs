//! An example game server on btvm: sheep on a pasture, each thinking with a behavior tree.
//!
//! It is the library tour (README, "A server on btvm"): it loads a `.bt` tree against its own
//! vocabulary profile (`pasture.toml`), compiles it once, keeps the program and a population
//! of agents in its own struct, spawns and despawns agents as sheep are born and eaten, ticks
//! them in parallel shards on its own thread pool, saves a snapshot and replays from it,
//! reloads a new version of the tree under the running flock, and prints what an agent is
//! running.
//!
//! `btvm-example-server [--agents N] [--ticks T] [--threads K]`

mod host;
mod load;
mod server;
mod world;

use std::error::Error;
use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use server::Server;

/// The command line: three numbers, each with a default.
struct Args {
    agents: u32,
    ticks: u32,
    threads: usize,
}

impl Args {
    fn parse() -> Result<Args, String> {
        let mut args = Args {
            agents: 2_000,
            ticks: 200,
            threads: 2,
        };
        let mut it = std::env::args().skip(1);
        while let Some(flag) = it.next() {
            let value = it.next().ok_or_else(|| format!("`{flag}` needs a value"))?;
            let bad = |_| format!("`{flag}` takes a number, not `{value}`");
            match flag.as_str() {
                "--agents" => args.agents = value.parse().map_err(bad)?,
                "--ticks" => args.ticks = value.parse().map_err(bad)?,
                "--threads" => args.threads = value.parse().map_err(bad)?,
                _ => {
                    return Err(format!(
                        "unknown option `{flag}` (--agents, --ticks, --threads)"
                    ))
                }
            }
        }
        if args.threads == 0 || args.ticks < 20 {
            return Err("--threads must be at least 1 and --ticks at least 20".into());
        }
        Ok(args)
    }
}

/// The tree and profile, next to this crate's manifest.
fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(name)
}

fn run(args: &Args, out: &mut impl Write) -> Result<(), Box<dyn Error>> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.threads)
        .build()?;
    let mut server = Server::start(&data("sheep.bt"), &data("pasture.toml"), args.agents)?;
    writeln!(out, "{}", server.describe())?;
    let save_at = args.ticks / 2;
    for _ in 0..save_at {
        server.tick(&pool)?;
        if let Some(line) = server.report() {
            writeln!(out, "{line}")?;
        }
    }
    // A snapshot: the agents' states (and the server's own world, which it saves itself).
    let saved = server.save();
    writeln!(
        out,
        "snapshot at tick {}: {} agents, {} bytes",
        server.ticks(),
        server.population(),
        saved.bytes.len()
    )?;
    let replay = 10.min(args.ticks - save_at);
    for _ in 0..replay {
        server.tick(&pool)?;
    }
    let ahead = server.checksum();
    server.restore(&saved)?;
    for _ in 0..replay {
        server.tick(&pool)?;
    }
    let again = server.checksum();
    writeln!(
        out,
        "restored and replayed {replay} ticks: {} (checksum {again:016x})",
        if again == ahead {
            "identical"
        } else {
            "DIFFERENT"
        }
    )?;
    if again != ahead {
        return Err("the replay from the snapshot differs".into());
    }
    // Three quarters in, version 2 of the tree arrives: every sheep moves to it mid-run.
    let reload_at = u64::from(args.ticks) * 3 / 4;
    while server.ticks() < u64::from(args.ticks) {
        if server.ticks() == reload_at {
            let line = server.reload(&data("sheep_v2.bt"), &data("pasture.toml"))?;
            writeln!(out, "{line}")?;
        }
        server.tick(&pool)?;
        if let Some(line) = server.report() {
            writeln!(out, "{line}")?;
        }
    }
    for line in server.active_paths(3) {
        writeln!(out, "{line}")?;
    }
    writeln!(out, "{}", server.summary())?;
    out.flush()?;
    Ok(())
}

fn main() -> ExitCode {
    let args = match Args::parse() {
        Ok(args) => args,
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&args, &mut std::io::stdout().lock()) {
        Ok(()) => ExitCode::SUCCESS,
        // A reader that stopped reading (`| head`) ends the run quietly.
        Err(e)
            if e.downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe) =>
        {
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::FAILURE
        }
    }
}
