//! The server: one program, its agents and the world, in one struct with no lifetimes.
//!
//! Each tick: the batch ticks every sheep in parallel shards (one [`ShardHost`] per shard,
//! reading the world), the server applies the intents in shard order (deterministic whatever
//! the number of threads), the wolves hunt, eaten sheep are despawned and new ones spawned.

use std::error::Error;
use std::hash::{Hash, Hasher};
use std::path::Path;

use btvm::{AgentId, Batch, EngineKind, Limits, ParTick, Program, Snapshot};

use crate::host::{ShardHost, Vocabulary};
use crate::world::World;

/// Milliseconds per tick.
const TICK_MS: i64 = 100;

/// The whole server.
pub struct Server {
    program: Program,
    vocabulary: Vocabulary,
    batch: Batch,
    world: World,
    /// Ticks so far.
    ticks: u64,
    /// The population the server keeps up by births.
    target: u32,
    /// Sheep born so far (seeds the births).
    born: u64,
}

/// A saved server: the agents' snapshot bytes and the world as it was.
pub struct Saved {
    /// The agents, in btvm's snapshot format.
    pub bytes: Vec<u8>,
    world: World,
    ticks: u64,
    born: u64,
}

impl Server {
    /// Loads `tree` against `profile`, compiles it, and starts `agents` sheep.
    pub fn start(tree: &Path, profile: &Path, agents: u32) -> Result<Server, Box<dyn Error>> {
        let program = crate::load::program(tree, profile)?;
        let vocabulary = Vocabulary::bind(&program)?;
        let batch = Batch::with_engine(&program, 0, EngineKind::Native)?;
        let mut server = Server {
            program,
            vocabulary,
            batch,
            world: World::new(6),
            ticks: 0,
            target: agents,
            born: 0,
        };
        for _ in 0..agents {
            server.birth()?;
        }
        Ok(server)
    }

    /// One line about the program and the engine.
    pub fn describe(&self) -> String {
        let why = match self.batch.fallback() {
            Some(f) => format!(" ({f})"),
            None => String::new(),
        };
        format!(
            "loaded sheep.bt: {} nodes, {} bytes of state per agent, {} sheep on the {} engine{why}",
            self.program.nodes().nodes.len(),
            self.program.state_size(),
            self.batch.len(),
            self.batch.engine(),
        )
    }

    fn birth(&mut self) -> Result<AgentId, Box<dyn Error>> {
        let id = self.batch.spawn()?;
        self.born += 1;
        self.world.birth(id, self.born);
        Ok(id)
    }

    /// Ticks every sheep once, then lets the world move on.
    pub fn tick(&mut self, pool: &rayon::ThreadPool) -> Result<(), Box<dyn Error>> {
        let now = self.ticks as i64 * TICK_MS;
        let (world, vocabulary) = (&self.world, &self.vocabulary);
        let hosts = self
            .batch
            .par_tick(&ParTick::new().pool(pool), now, |_shard| {
                ShardHost::new(world, vocabulary)
            });
        let intents: Vec<_> = hosts.into_iter().flat_map(|h| h.intents).collect();
        self.world.apply(&intents, self.ticks as i64);
        let eaten = self.world.hunt(now);
        let mut host = ShardHost::new(&self.world, &self.vocabulary);
        for id in eaten {
            // The dialect's stop calls (none for `.bt` trees), then the agent is gone.
            self.batch.despawn(id, &mut host, now)?;
        }
        if self.ticks % 5 == 4 {
            while (self.batch.len() as u32) < self.target {
                self.birth()?;
            }
        }
        self.ticks += 1;
        Ok(())
    }

    /// Ticks so far.
    pub fn ticks(&self) -> u64 {
        self.ticks
    }

    /// Living sheep.
    pub fn population(&self) -> usize {
        self.batch.len()
    }

    /// Every 25 ticks, a line on the flock.
    pub fn report(&self) -> Option<String> {
        if !self.ticks.is_multiple_of(25) {
            return None;
        }
        let running = self
            .batch
            .statuses()
            .iter()
            .filter(|s| **s == btvm::Status::Running)
            .count();
        Some(format!(
            "tick {:4}: {} sheep ({} running), {} eaten so far",
            self.ticks,
            self.batch.len(),
            running,
            self.world.eaten
        ))
    }

    /// Saves the agents (btvm's snapshot) and the world (the server's own business).
    pub fn save(&self) -> Saved {
        let mut snapshot = Snapshot::new(&self.program);
        for (id, status, state) in self.batch.iter() {
            snapshot.push(id, status, state);
        }
        Saved {
            bytes: snapshot.encode(),
            world: self.world.clone(),
            ticks: self.ticks,
            born: self.born,
        }
    }

    /// Goes back to a saved server: the snapshot is checked against the program (another
    /// program's or damaged bytes are an error) and becomes a new batch.
    pub fn restore(&mut self, saved: &Saved) -> Result<(), Box<dyn Error>> {
        let snapshot = Snapshot::decode(&saved.bytes, &self.program, &Limits::default())?;
        let records = snapshot
            .agents
            .iter()
            .map(|a| (a.id, a.status, &a.state[..]));
        self.batch = Batch::from_records(&self.program, self.batch.engine(), records)?;
        self.world = saved.world.clone();
        self.ticks = saved.ticks;
        self.born = saved.born;
        Ok(())
    }

    /// Hot reload: loads a new version of the tree and moves every sheep to it between ticks.
    /// Running nodes still in the tree keep running (a sheep grazing goes on grazing); what
    /// cannot be carried starts fresh (`.bt` trees make no stop calls). One line on what the
    /// flock kept.
    pub fn reload(&mut self, tree: &Path, profile: &Path) -> Result<String, Box<dyn Error>> {
        let program = crate::load::program(tree, profile)?;
        let vocabulary = Vocabulary::bind(&program)?;
        let now = self.ticks as i64 * TICK_MS;
        let mut host = ShardHost::new(&self.world, &vocabulary);
        let report = self.batch.reload(&program, &mut host, now)?;
        let kept: usize = report.iter().map(|(_, c)| c.kept.len()).sum();
        let reset: usize = report.iter().map(|(_, c)| c.reset.len()).sum();
        let name = tree
            .file_name()
            .map_or(String::new(), |n| n.to_string_lossy().into_owned());
        self.program = program;
        self.vocabulary = vocabulary;
        Ok(format!(
            "reloaded {name} at tick {}: {} sheep, {kept} running nodes kept, {reset} reset",
            self.ticks,
            report.len()
        ))
    }

    /// A hash of the world and every agent's status and state.
    pub fn checksum(&self) -> u64 {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        self.world.hash(&mut h);
        for (id, status, state) in self.batch.iter() {
            (id.0, status as u8, state).hash(&mut h);
        }
        h.finish()
    }

    /// What the first `n` sheep are running, one line each.
    pub fn active_paths(&self, n: usize) -> Vec<String> {
        self.batch
            .iter()
            .take(n)
            .map(|(id, _, state)| {
                let path: Vec<String> = self
                    .program
                    .active_path(state)
                    .iter()
                    .map(|node| node.to_string())
                    .collect();
                format!("sheep {}: {}", id.0, path.join(" > "))
            })
            .collect()
    }

    /// The last line.
    pub fn summary(&self) -> String {
        format!(
            "done: {} ticks, {} sheep, {} eaten, checksum {:016x}",
            self.ticks,
            self.batch.len(),
            self.world.eaten,
            self.checksum()
        )
    }
}
