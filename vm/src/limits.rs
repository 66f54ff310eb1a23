//! Resource limits shared by every stage of the pipeline.

/// Bounds on what btvm accepts. Every front-end, the checker and the engines read their limits
/// from one `Limits` value, so a server can tighten them for untrusted input in one place.
///
/// Exceeding a limit is always an error value with a position, never a panic or a hang.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Limits {
    /// Largest source file, in bytes (default 16 MiB).
    pub max_source_bytes: usize,
    /// Deepest node nesting in a tree, counted across includes (default 256).
    pub max_depth: u32,
    /// Deepest nesting inside one expression (default 256).
    pub max_expr_depth: u32,
    /// Most nodes in one tree, includes counted once (default 1,000,000).
    pub max_nodes: usize,
    /// Deepest chain of file includes (default 64).
    pub max_include_depth: u32,
    /// Most tokens produced by macro expansion for one file (default 4,000,000).
    pub max_expanded_tokens: usize,
    /// Most attributes on one XML element, namespace declarations included (default 256; the
    /// dialects' elements take at most a dozen). The XML parser's duplicate check costs the
    /// square of this per element.
    pub max_xml_attributes: usize,
    /// Largest program file, in bytes (default 256 MiB).
    pub max_program_bytes: usize,
    /// Most instructions in one program (default 16,000,000).
    pub max_program_instructions: usize,
    /// Most bytes of state per agent (default 1 MiB).
    pub max_state_bytes: usize,
    /// Deepest operand stack a program may need (default 4,096 values).
    pub max_stack: u32,
    /// Most instructions one tick may execute, proved by the verifier before a program runs
    /// (default 64,000,000).
    pub max_tick_instructions: u64,
    /// Most agents a scenario, or a `btvm run` or `btvm bench`, runs at once (default
    /// 1,000,000). Engines allocate every agent's state before the first tick.
    pub max_agents: u32,
    /// Most ticks a scenario runs (default 1,000,000).
    pub max_ticks: u32,
    /// Most agent-ticks (agents × ticks) a scenario runs (default 100,000,000): what bounds
    /// the time a scripted run may take. Its trace is streamed, so no bound on its size.
    pub max_agent_ticks: u64,
    /// Most files one load of a tree may read or try to read, the main file included; a file
    /// included twice counts twice (default 4,096; real trees read a few dozen).
    pub max_load_files: usize,
    /// Most source bytes one load of a tree may read, over all its files; a file included
    /// twice counts twice (default 64 MiB, four files at `max_source_bytes`; real trees are
    /// a few hundred KiB at most).
    pub max_load_bytes: u64,
    /// Most errors one load reports (default 100); past it the last one shown carries a
    /// "too many errors" note saying how many more were found.
    pub max_errors: usize,
    /// Most entries (actions, functions, symbols, node tags, over every dialect) one game
    /// profile file may declare (default 10,000; the built-in profiles hold a few hundred).
    pub max_profile_entries: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_source_bytes: 16 << 20,
            max_depth: 256,
            max_expr_depth: 256,
            max_nodes: 1_000_000,
            max_include_depth: 64,
            max_expanded_tokens: 4_000_000,
            max_xml_attributes: 256,
            max_program_bytes: 256 << 20,
            max_program_instructions: 16_000_000,
            max_state_bytes: 1 << 20,
            max_stack: 4096,
            max_tick_instructions: 64_000_000,
            max_agents: 1_000_000,
            max_ticks: 1_000_000,
            max_agent_ticks: 100_000_000,
            max_load_files: 4096,
            max_load_bytes: 64 << 20,
            max_errors: 100,
            max_profile_entries: 10_000,
        }
    }
}

impl Limits {
    /// The default limits.
    pub fn new() -> Self {
        Self::default()
    }
}
