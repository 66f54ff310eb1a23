//! A stateless host for benchmarking trees the simulated world does not know.
//!
//! Every answer is a hash of (agent, import, now): actions mostly succeed, sometimes fail and
//! sometimes run; functions return numbers in `[0, 100)`. Cheap, deterministic, and the same
//! for every engine.

use btvm::{Call, Host, Status, Value};

/// Answers every import from a hash of the call.
#[derive(Clone, Copy, Debug, Default)]
pub struct SyntheticHost;

fn mix(call: &Call<'_>) -> u64 {
    let mut z = u64::from(call.agent.0) << 32 ^ u64::from(call.import.0) ^ (call.now as u64) << 7;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl Host for SyntheticHost {
    fn action(&mut self, call: &Call<'_>) -> Status {
        match mix(call) % 8 {
            0 => Status::Failure,
            1..=2 => Status::Running,
            _ => Status::Success,
        }
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        Value::Float((mix(call) % 10_000) as f64 / 100.0)
    }
}
