//! The pasture: a small deterministic world of sheep, grass and wolves on a torus grid.
//!
//! The world is the server's own data. The trees never see it directly: they ask through the
//! host (`host.rs`), which reads the world during a tick and writes only *intents*; the
//! server applies the intents after the tick, on one thread. That is what lets many shards
//! tick in parallel over one immutable world.
//!
//! Sheep are indexed by their btvm agent id (ids are reused after a despawn, and a new sheep
//! takes the slot fresh). Nothing here reads a clock or a global random source: randomness is
//! a hash of (agent, time).

use btvm::AgentId;

/// Side of the square grid, in cells (it wraps around).
pub const SIDE: i32 = 64;

/// One sheep's body.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Sheep {
    /// Whether a sheep is alive under this id.
    pub alive: bool,
    /// Position.
    pub x: i32,
    /// Position.
    pub y: i32,
    /// 0 (full) to 100 (starving).
    pub hunger: i32,
    /// Where a wandering sheep is heading.
    pub goal: Option<(i32, i32)>,
}

/// What a sheep's tree decided this tick, applied after the tick.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intent {
    /// Eat the grass of its cell.
    Graze,
    /// Step away from the nearest wolf.
    Flee,
    /// Step towards the goal (chosen when the walk starts).
    Walk((i32, i32)),
}

/// The whole world.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct World {
    /// Sheep by agent id.
    pub sheep: Vec<Sheep>,
    /// Wolves' positions.
    pub wolves: Vec<(i32, i32)>,
    /// Grass per cell (0..=9).
    pub grass: Vec<u8>,
    /// Sheep eaten so far.
    pub eaten: u32,
}

/// A deterministic hash of two numbers.
pub fn mix(a: u64, b: u64) -> u64 {
    let mut z = a.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ b;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn wrap(v: i32) -> i32 {
    v.rem_euclid(SIDE)
}

/// Distance on the torus (Chebyshev: one step moves one cell in x and y).
pub fn distance(a: (i32, i32), b: (i32, i32)) -> i32 {
    let d = |p: i32, q: i32| {
        let d = (p - q).rem_euclid(SIDE);
        d.min(SIDE - d)
    };
    d(a.0, b.0).max(d(a.1, b.1))
}

/// One step from `from` towards `to` (or away from it with `sign` -1).
fn step(from: (i32, i32), to: (i32, i32), sign: i32) -> (i32, i32) {
    let dir = |p: i32, q: i32| {
        let d = (q - p).rem_euclid(SIDE);
        match d {
            0 => 0,
            d if d <= SIDE / 2 => 1,
            _ => -1,
        }
    };
    (
        wrap(from.0 + sign * dir(from.0, to.0)),
        wrap(from.1 + sign * dir(from.1, to.1)),
    )
}

impl World {
    /// A pasture with `wolves` wolves and full grass.
    pub fn new(wolves: usize) -> World {
        let wolves = (0..wolves as u64)
            .map(|w| {
                let h = mix(w, 7);
                (wrap(h as i32), wrap((h >> 32) as i32))
            })
            .collect();
        World {
            sheep: Vec::new(),
            wolves,
            grass: vec![9; (SIDE * SIDE) as usize],
            eaten: 0,
        }
    }

    /// The sheep of `id` (a dead default for an unknown id).
    pub fn sheep(&self, id: AgentId) -> Sheep {
        self.sheep.get(id.0 as usize).copied().unwrap_or_default()
    }

    /// A new sheep under `id`, at a place chosen from `seed`.
    pub fn birth(&mut self, id: AgentId, seed: u64) {
        let i = id.0 as usize;
        if self.sheep.len() <= i {
            self.sheep.resize(i + 1, Sheep::default());
        }
        let h = mix(u64::from(id.0), seed);
        self.sheep[i] = Sheep {
            alive: true,
            x: wrap(h as i32),
            y: wrap((h >> 32) as i32),
            hunger: (h % 50) as i32,
            goal: None,
        };
    }

    /// Distance from sheep `id` to the nearest wolf.
    pub fn wolf_distance(&self, id: AgentId) -> i32 {
        let s = self.sheep(id);
        self.wolves
            .iter()
            .map(|&w| distance((s.x, s.y), w))
            .min()
            .unwrap_or(SIDE)
    }

    /// Grass on sheep `id`'s cell.
    pub fn grass_here(&self, id: AgentId) -> u8 {
        let s = self.sheep(id);
        self.grass[(s.y * SIDE + s.x) as usize]
    }

    /// A wander goal within `radius` of sheep `id`, chosen from the time.
    pub fn wander_goal(&self, id: AgentId, radius: i32, now: i64) -> (i32, i32) {
        let s = self.sheep(id);
        let h = mix(u64::from(id.0), now as u64);
        let r = radius.max(1);
        let off = |v: u64| (v % (2 * r as u64 + 1)) as i32 - r;
        (wrap(s.x + off(h)), wrap(s.y + off(h >> 20)))
    }

    /// Applies one tick's intents, then lets hunger grow and grass regrow.
    pub fn apply(&mut self, intents: &[(AgentId, Intent)], now: i64) {
        for &(id, intent) in intents {
            let nearest = self.nearest_wolf(id);
            let grass = self.grass_here(id) as i32;
            let Some(s) = self.sheep.get_mut(id.0 as usize) else {
                continue;
            };
            match intent {
                Intent::Graze if grass > 0 => {
                    s.hunger = (s.hunger - 12).max(0);
                    let cell = (s.y * SIDE + s.x) as usize;
                    self.grass[cell] -= 1;
                }
                Intent::Graze => {}
                Intent::Flee => (s.x, s.y) = step((s.x, s.y), nearest, -1),
                Intent::Walk(goal) => {
                    s.goal = Some(goal);
                    (s.x, s.y) = step((s.x, s.y), goal, 1);
                }
            }
        }
        for s in self.sheep.iter_mut().filter(|s| s.alive) {
            s.hunger = (s.hunger + 2).min(100);
        }
        if now % 10 == 0 {
            for (i, g) in self.grass.iter_mut().enumerate() {
                if *g < 9 && mix(i as u64, now as u64).is_multiple_of(4) {
                    *g += 1;
                }
            }
        }
    }

    /// The nearest wolf to sheep `id`.
    fn nearest_wolf(&self, id: AgentId) -> (i32, i32) {
        let s = self.sheep(id);
        self.wolves
            .iter()
            .copied()
            .min_by_key(|&w| distance((s.x, s.y), w))
            .unwrap_or((s.x, s.y))
    }

    /// Wolves step towards the nearest sheep; a sheep on a wolf's cell is eaten. Returns the
    /// eaten sheep's ids (the server despawns their agents).
    pub fn hunt(&mut self, now: i64) -> Vec<AgentId> {
        let mut eaten = Vec::new();
        for w in 0..self.wolves.len() {
            let at = self.wolves[w];
            let prey = self
                .sheep
                .iter()
                .enumerate()
                .filter(|(_, s)| s.alive)
                .min_by_key(|(i, s)| (distance(at, (s.x, s.y)), *i));
            let Some((i, s)) = prey else { continue };
            // Wolves run two cells a tick but rest every third tick, so a sheep that sees
            // one coming early can get away, and one that does not is caught.
            if (now / 100 + w as i64) % 3 != 0 {
                let half = step(at, (s.x, s.y), 1);
                self.wolves[w] = step(half, (s.x, s.y), 1);
            }
            if self.wolves[w] == (s.x, s.y) {
                self.sheep[i].alive = false;
                self.eaten += 1;
                eaten.push(AgentId(i as u32));
            }
        }
        eaten
    }
}
