//! The server's `Host`: how the sheep's trees call the pasture.
//!
//! Binding happens once per program, not per host: [`Vocabulary::bind`] asks the program to
//! bind its imports against the names this server knows, and records which import is which.
//! Every tick then makes one cheap [`ShardHost`] per shard of `Batch::par_tick`: it reads the
//! world (shared, immutable during the tick) and collects the intents of its shard's sheep,
//! which the server applies after the tick.

use btvm::{Call, Host, Import, ImportId, Phase, Program, Status, Value, VmError};

use crate::world::{Intent, World};

/// The game calls this server offers (the same names its profile declares).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verb {
    Graze,
    Flee,
    Wander,
    Hunger,
    WolfDistance,
    Grass,
}

impl Verb {
    fn named(name: &str) -> Option<Verb> {
        Some(match name {
            "graze" => Verb::Graze,
            "flee" => Verb::Flee,
            "wander" => Verb::Wander,
            "hunger" => Verb::Hunger,
            "wolfDistance" => Verb::WolfDistance,
            "grass" => Verb::Grass,
            _ => return None,
        })
    }
}

/// Which import of a program is which game call: made once by [`Vocabulary::bind`].
#[derive(Clone, Debug, Default)]
pub struct Vocabulary {
    verbs: Vec<Option<Verb>>,
}

impl Vocabulary {
    /// Binds `program`'s imports to this server's calls; an import the server lacks is an
    /// error naming it.
    pub fn bind(program: &Program) -> Result<Vocabulary, VmError> {
        let mut vocabulary = Vocabulary::default();
        program.bind(&mut vocabulary)?;
        Ok(vocabulary)
    }

    fn verb(&self, id: ImportId) -> Option<Verb> {
        self.verbs.get(id.0 as usize).copied().flatten()
    }
}

/// Binding records the verb of each import.
impl Host for Vocabulary {
    fn bind_import(&mut self, id: ImportId, import: &Import) -> bool {
        let i = id.0 as usize;
        if self.verbs.len() <= i {
            self.verbs.resize(i + 1, None);
        }
        self.verbs[i] = Verb::named(&import.name);
        self.verbs[i].is_some()
    }
    fn action(&mut self, _: &Call<'_>) -> Status {
        Status::Failure
    }
    fn function(&mut self, _: &Call<'_>) -> Value {
        Value::Int(0)
    }
}

/// The host of one shard for one tick.
pub struct ShardHost<'w> {
    world: &'w World,
    vocabulary: &'w Vocabulary,
    /// The shard's sheep's intents, in tick order.
    pub intents: Vec<(btvm::AgentId, Intent)>,
    /// Actions called (a readout for the server's log).
    pub calls: u64,
}

impl<'w> ShardHost<'w> {
    /// A host reading `world`.
    pub fn new(world: &'w World, vocabulary: &'w Vocabulary) -> Self {
        ShardHost {
            world,
            vocabulary,
            intents: Vec::new(),
            calls: 0,
        }
    }
}

fn int_arg(call: &Call<'_>, i: usize, default: i64) -> i64 {
    match call.args.get(i) {
        Some(Value::Int(v)) => *v,
        Some(Value::Float(v)) => *v as i64,
        _ => default,
    }
}

impl Host for ShardHost<'_> {
    fn action(&mut self, call: &Call<'_>) -> Status {
        self.calls += 1;
        let id = call.agent;
        let sheep = self.world.sheep(id);
        match self.vocabulary.verb(call.import) {
            // Grazing runs until the sheep is full or the cell is bare.
            Some(Verb::Graze) => {
                if sheep.hunger <= 10 {
                    return Status::Success;
                }
                if self.world.grass_here(id) == 0 {
                    return Status::Failure;
                }
                self.intents.push((id, Intent::Graze));
                Status::Running
            }
            // Fleeing runs while a wolf is within the given distance.
            Some(Verb::Flee) => {
                if i64::from(self.world.wolf_distance(id)) > int_arg(call, 0, 6) {
                    return Status::Success;
                }
                self.intents.push((id, Intent::Flee));
                Status::Running
            }
            // Wandering picks a goal when it starts and runs until the sheep gets there.
            Some(Verb::Wander) => {
                let goal = match (call.phase, sheep.goal) {
                    (Phase::Continue, Some(goal)) => goal,
                    _ => self
                        .world
                        .wander_goal(id, int_arg(call, 0, 4) as i32, call.now),
                };
                if (sheep.x, sheep.y) == goal {
                    return Status::Success;
                }
                self.intents.push((id, Intent::Walk(goal)));
                Status::Running
            }
            _ => Status::Failure,
        }
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        let id = call.agent;
        match self.vocabulary.verb(call.import) {
            Some(Verb::Hunger) => Value::Int(i64::from(self.world.sheep(id).hunger)),
            Some(Verb::WolfDistance) => Value::Int(i64::from(self.world.wolf_distance(id))),
            Some(Verb::Grass) => Value::Int(i64::from(self.world.grass_here(id))),
            _ => Value::Int(0),
        }
    }
}
