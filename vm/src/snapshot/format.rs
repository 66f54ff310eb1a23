//! btvm's snapshot format: every agent's state, for every model, as one versioned byte string
//! (`spec/bytecode.md` §9 is the normative description).
//!
//! ```text
//! magic "BTVMSNAP" | version u16 | fingerprint u64 | state size u32 | count u32
//! count × (agent id u32 | status u8 | state block: state-size bytes)
//! check u64 (FNV-1a over every byte before it)
//! ```
//!
//! All integers are little-endian. Decoding checks, in order: the magic, the version, the
//! length the header implies (truncated or trailing bytes), the check (damaged), the
//! fingerprint (another program), the state size, the count against
//! [`Limits::max_agents`], then each record (a status byte, a unique id, a state block the
//! program's model accepts, [`Program::check_state`]). Nothing is allocated before the length
//! is known to match the input, so a hostile header cannot make the reader allocate more than
//! the input's own size. This module never panics on input and never ticks.

use super::SnapshotError;
use crate::program::fingerprint as fnv1a;
use crate::{AgentId, Limits, Program, Status};

/// The first bytes of every snapshot.
const MAGIC: &[u8; 8] = b"BTVMSNAP";
/// The snapshot format version this build reads and writes.
pub(super) const VERSION: u16 = 1;

/// Bytes before the first record: magic, version, fingerprint, state size, count.
const HEADER: usize = 8 + 2 + 8 + 4 + 4;
/// Bytes of the integrity check at the end.
const CHECK: usize = 8;
/// Bytes of a record before its state block: the agent id and the status.
const RECORD_HEAD: usize = 4 + 1;

/// One agent's saved state.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AgentRecord {
    /// The agent's id (the batch's or the host's; restored as it was saved).
    pub id: AgentId,
    /// The status of the agent's last tick.
    pub status: Status,
    /// The agent's whole state block ([`Program::state_size`] bytes).
    pub state: Vec<u8>,
}

/// The saved state of a set of agents of one program: btvm's own format for every model.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Snapshot {
    /// The fingerprint of the program the agents run ([`Program::fingerprint`]).
    pub fingerprint: u64,
    /// The program's state size ([`Program::state_size`]): the size of every record's state
    /// block, written in the header even when there are no records.
    pub state_size: u32,
    /// The agents, in the order they were saved.
    pub agents: Vec<AgentRecord>,
}

impl Snapshot {
    /// The first bytes of every snapshot.
    pub const MAGIC: &'static [u8; 8] = MAGIC;
    /// The snapshot format version this build reads and writes.
    pub const VERSION: u16 = VERSION;

    /// An empty snapshot of `program`'s agents.
    pub fn new(program: &Program) -> Snapshot {
        Snapshot {
            fingerprint: program.fingerprint(),
            state_size: len32(program.state_size()),
            agents: Vec::new(),
        }
    }

    /// Adds an agent: its id, its last status and a copy of its state block.
    pub fn push(&mut self, id: AgentId, status: Status, state: &[u8]) {
        self.agents.push(AgentRecord {
            id,
            status,
            state: state.to_vec(),
        });
    }

    /// The snapshot as bytes. The header carries [`Snapshot::state_size`] and every record's
    /// state block is written as it is; records whose blocks differ from that size cannot be
    /// decoded (a snapshot built with [`Snapshot::push`] from its program's blocks always can,
    /// with or without records).
    pub fn encode(&self) -> Vec<u8> {
        let size = self.state_size as usize;
        let mut out = Vec::with_capacity(
            HEADER + CHECK + self.agents.len().saturating_mul(RECORD_HEAD + size),
        );
        out.extend_from_slice(MAGIC);
        out.extend_from_slice(&VERSION.to_le_bytes());
        out.extend_from_slice(&self.fingerprint.to_le_bytes());
        out.extend_from_slice(&self.state_size.to_le_bytes());
        out.extend_from_slice(&len32(self.agents.len()).to_le_bytes());
        for a in &self.agents {
            out.extend_from_slice(&a.id.0.to_le_bytes());
            out.push(a.status as u8);
            out.extend_from_slice(&a.state);
        }
        let check = fnv1a(&out);
        out.extend_from_slice(&check.to_le_bytes());
        out
    }

    /// Reads a snapshot of `program`'s agents from `bytes` (see the module docs for every
    /// check). A snapshot of another program is [`SnapshotError::OtherProgram`]; one whose
    /// bytes changed is [`SnapshotError::Damaged`].
    pub fn decode(
        bytes: &[u8],
        program: &Program,
        limits: &Limits,
    ) -> Result<Snapshot, SnapshotError> {
        let (size, count) = header(bytes)?;
        let record = RECORD_HEAD + size;
        let expected = (count as usize)
            .checked_mul(record)
            .and_then(|n| n.checked_add(HEADER + CHECK))
            .unwrap_or(usize::MAX);
        if bytes.len() < expected {
            return Err(SnapshotError::Truncated {
                expected,
                found: bytes.len(),
            });
        }
        if bytes.len() > expected {
            return Err(SnapshotError::TrailingBytes {
                extra: bytes.len() - expected,
            });
        }
        let (body, check) = bytes.split_at(expected - CHECK);
        let stored = u64::from_le_bytes(array(check));
        let computed = fnv1a(body);
        if stored != computed {
            return Err(SnapshotError::Damaged { stored, computed });
        }
        let fingerprint = u64::from_le_bytes(array(&body[10..18]));
        if fingerprint != program.fingerprint() {
            return Err(SnapshotError::OtherProgram {
                snapshot: fingerprint,
                program: program.fingerprint(),
            });
        }
        if size != program.state_size() {
            return Err(SnapshotError::StateSize {
                expected: program.state_size(),
                found: size,
            });
        }
        if count > limits.max_agents {
            return Err(SnapshotError::TooManyAgents {
                count,
                limit: limits.max_agents,
            });
        }
        let agents = records(&body[HEADER..], record, program)?;
        Ok(Snapshot {
            fingerprint,
            state_size: len32(size),
            agents,
        })
    }
}

/// The state size and the agent count, after checking the magic and the version.
fn header(bytes: &[u8]) -> Result<(usize, u32), SnapshotError> {
    if bytes.len() < MAGIC.len() || &bytes[..MAGIC.len()] != MAGIC {
        return Err(SnapshotError::NotASnapshot);
    }
    if bytes.len() < HEADER + CHECK {
        return Err(SnapshotError::Truncated {
            expected: HEADER + CHECK,
            found: bytes.len(),
        });
    }
    let version = u16::from_le_bytes(array(&bytes[8..10]));
    if version != VERSION {
        return Err(SnapshotError::Version { found: version });
    }
    let size = u32::from_le_bytes(array(&bytes[18..22])) as usize;
    let count = u32::from_le_bytes(array(&bytes[22..26]));
    Ok((size, count))
}

/// The records of `body` (exactly `count` records of `record` bytes each, checked by the
/// caller), each validated.
fn records(
    body: &[u8],
    record: usize,
    program: &Program,
) -> Result<Vec<AgentRecord>, SnapshotError> {
    let mut agents = Vec::with_capacity(body.len() / record.max(1));
    for r in body.chunks_exact(record) {
        let id = AgentId(u32::from_le_bytes(array(&r[..4])));
        let status = Status::ALL
            .get(usize::from(r[4]))
            .copied()
            .ok_or(SnapshotError::BadStatus(r[4]))?;
        let state = &r[RECORD_HEAD..];
        program.check_state(state)?;
        agents.push(AgentRecord {
            id,
            status,
            state: state.to_vec(),
        });
    }
    let mut ids: Vec<u32> = agents.iter().map(|a| a.id.0).collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(SnapshotError::DuplicateAgent(AgentId(w[0])));
    }
    Ok(agents)
}

/// The first `N` bytes of `b` (callers pass at least `N`; fewer read as zeroes).
fn array<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut out = [0; N];
    for (o, i) in out.iter_mut().zip(b) {
        *o = *i;
    }
    out
}

/// A length as the format's `u32` (saturating: such a snapshot cannot be decoded).
fn len32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}
