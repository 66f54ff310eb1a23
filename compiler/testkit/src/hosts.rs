//! Hosts for tests, fuzz targets and benchmarks: games that answer anything, so that any
//! program runs. Never for judging a trace against a game's (the scenario's scripted host does
//! that).

use btvm::{Call, Host, Status, StrId, Value};

/// A host that binds every import and answers from a linear congruential generator with every
/// kind of value, including NaN, infinities, `i64::MIN` and strings the program does not have.
/// [`Permissive::new`] also reports about one import in four unavailable at times
/// ([`Host::available`]); [`Permissive::always`] never does.
#[derive(Clone, Debug)]
pub struct Permissive {
    state: u64,
    unavailable: bool,
}

impl Permissive {
    /// A host whose answers, and which imports it says are unavailable, are determined by
    /// `seed`.
    pub fn new(seed: u64) -> Permissive {
        Permissive {
            state: seed,
            unavailable: true,
        }
    }

    /// A host whose answers are determined by `seed`, with every import always available.
    pub fn always(seed: u64) -> Permissive {
        Permissive {
            state: seed,
            unavailable: false,
        }
    }

    fn next(&mut self) -> u64 {
        self.state = self
            .state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.state >> 33
    }
}

impl Host for Permissive {
    fn action(&mut self, call: &Call<'_>) -> Status {
        for a in call.args {
            let _ = a.display(call.strings).to_string();
        }
        match self.next() % 3 {
            0 => Status::Success,
            1 => Status::Failure,
            _ => Status::Running,
        }
    }

    fn function(&mut self, call: &Call<'_>) -> Value {
        for a in call.args {
            let _ = a.display(call.strings).to_string();
        }
        let r = self.next();
        match r % 7 {
            0 => Value::Bool(r & 8 != 0),
            1 => Value::Int((r as i64 >> 3) - 1000),
            2 => Value::Float((r % 1000) as f64 / 100.0 - 5.0),
            3 => Value::Str(StrId((r >> 3) as u32 % 8)),
            4 => Value::Float(f64::NAN),
            5 => Value::Int(i64::MIN),
            _ => Value::Float(f64::INFINITY),
        }
    }

    fn available(&mut self, _id: btvm::ImportId) -> bool {
        !self.unavailable || !self.next().is_multiple_of(4)
    }
}
