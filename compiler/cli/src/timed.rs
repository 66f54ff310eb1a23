//! What `btvm bench` says around its figures: the machine, several runs of each engine with
//! their spread, whether the checksums agreed, and a progress bar while it runs.
//!
//! This module only measures and describes; it never chooses what to time.

use btvm_benches::measure::BenchRow;

/// One engine on one thread count, timed `runs` times.
#[derive(Clone, Debug)]
pub struct Timed {
    /// The median run (its figures are the row's).
    pub row: BenchRow,
    /// ns per agent-tick of every run, sorted.
    pub ns: Vec<f64>,
}

impl Timed {
    /// Collects the runs of one engine and thread count; `None` if there are none. The row
    /// is the median run's (the lower middle one for an even count).
    pub fn of(mut runs: Vec<BenchRow>) -> Option<Timed> {
        runs.sort_by(|a, b| a.ns_per_agent_tick.total_cmp(&b.ns_per_agent_tick));
        let ns: Vec<f64> = runs.iter().map(|r| r.ns_per_agent_tick).collect();
        let mid = runs.len().checked_sub(1)? / 2;
        Some(Timed {
            row: runs.swap_remove(mid),
            ns,
        })
    }

    /// The fastest run.
    pub fn min(&self) -> f64 {
        self.ns.first().copied().unwrap_or(0.0)
    }

    /// The slowest run.
    pub fn max(&self) -> f64 {
        self.ns.last().copied().unwrap_or(0.0)
    }

    /// `min–max` with one decimal, or `-` for a single run.
    pub fn spread(&self) -> String {
        match self.ns.len() {
            0 | 1 => "-".to_string(),
            _ => format!("{:.1}–{:.1}", self.min(), self.max()),
        }
    }
}

/// This machine: its CPU model (Linux's `/proc/cpuinfo`; "unknown CPU" elsewhere) and the
/// number of cores the process may use.
pub fn machine() -> String {
    let model = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|info| {
            info.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, m)| m.trim().to_string())
        })
        .unwrap_or_else(|| "unknown CPU".to_string());
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let plural = if cores == 1 { "" } else { "s" };
    format!("{model}, {cores} core{plural}")
}

/// The line saying the checksums agreed, or `None` when they differ (or nothing ran).
pub fn agreement(rows: &[Timed], runs: usize) -> Option<String> {
    let first = rows.first()?.row.checksum;
    rows.iter().all(|t| t.row.checksum == first).then(|| {
        format!(
            "checksums agree: {} engine runs ({runs} each) all gave {first:016x}",
            rows.len() * runs
        )
    })
}

/// A progress bar on standard error, drawn only when it is a terminal: `total` runs.
pub fn progress(total: usize) -> indicatif::ProgressBar {
    let bar = indicatif::ProgressBar::new(total as u64);
    if let Ok(style) = indicatif::ProgressStyle::with_template("{bar:30} {pos}/{len} {msg}") {
        bar.set_style(style);
    }
    bar
}

#[cfg(test)]
mod tests {
    use super::*;
    use btvm_benches::measure::BenchEngine;

    fn row(ns: f64, checksum: u64) -> BenchRow {
        BenchRow {
            engine: BenchEngine::Vm,
            threads: 1,
            ns_per_agent_tick: ns,
            agent_ticks_per_sec: 1e9 / ns,
            state_bytes_per_agent: 8,
            checksum,
            tick_ns_per_agent_tick: None,
        }
    }

    #[test]
    fn the_median_run_stands_for_the_runs_and_the_spread_is_min_to_max() {
        let t = Timed::of(vec![row(30.0, 1), row(10.0, 1), row(20.0, 1)]).unwrap();
        assert_eq!(t.row.ns_per_agent_tick, 20.0);
        assert_eq!(t.spread(), "10.0–30.0");
        let one = Timed::of(vec![row(5.0, 1)]).unwrap();
        assert_eq!(one.spread(), "-");
        assert!(Timed::of(Vec::new()).is_none());
    }

    #[test]
    fn agreement_is_stated_only_when_every_checksum_is_the_same() {
        let a = Timed::of(vec![row(1.0, 7)]).unwrap();
        let b = Timed::of(vec![row(2.0, 7)]).unwrap();
        let c = Timed::of(vec![row(2.0, 8)]).unwrap();
        let same = agreement(&[a.clone(), b], 3).unwrap();
        assert_eq!(
            same,
            "checksums agree: 6 engine runs (3 each) all gave 0000000000000007"
        );
        assert_eq!(agreement(&[a, c], 3), None);
        assert!(machine().contains("core"));
    }
}
