//! The per-agent pseudo-random generator every engine draws from.

/// A small, fast, deterministic PRNG (xorshift64* seeded through SplitMix64).
///
/// Its whole state is one `u64`, stored in the agent's state, so every engine draws the same
/// numbers for the same agent and the state can be snapshotted like any other slot.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Prng {
    state: u64,
}

impl Prng {
    /// The generator for an agent id (never the all-zero state).
    pub fn for_agent(agent: u32) -> Prng {
        let mut z = u64::from(agent).wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^= z >> 31;
        Prng {
            state: if z == 0 { 0x9E37_79B9_7F4A_7C15 } else { z },
        }
    }

    /// Rebuilds a generator from a saved state (a zero state is replaced by a fixed nonzero one).
    pub fn from_state(state: u64) -> Prng {
        Prng {
            state: if state == 0 {
                0x9E37_79B9_7F4A_7C15
            } else {
                state
            },
        }
    }

    /// The raw state, for snapshots.
    pub fn state(self) -> u64 {
        self.state
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.state;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.state = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A float uniformly drawn from `[0, 1)` (53 random bits).
    pub fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn deterministic_per_agent_and_in_range() {
        let mut a = Prng::for_agent(7);
        let mut b = Prng::for_agent(7);
        let mut c = Prng::for_agent(8);
        let xs: Vec<f64> = (0..1000).map(|_| a.next_f64()).collect();
        let ys: Vec<f64> = (0..1000).map(|_| b.next_f64()).collect();
        assert_eq!(xs, ys);
        assert_ne!(xs[0], c.next_f64());
        assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
        assert_ne!(Prng::from_state(0).state(), 0);
    }
}
