//! The drawing primitives every generator uses, on top of [`Unstructured`].
//!
//! Each primitive reads a few bytes and, once the input is exhausted, returns its *smallest*
//! outcome: the first of a weighted choice, "no" for a biased coin, the lower bound of a length.
//! Generators put their terminating choice first (a leaf before a composite, `None` before
//! `Some`), so an exhausted input always ends in a small value. No primitive panics: empty
//! ranges are clamped and empty choices fall back to the first outcome or an error.

use arbitrary::{Result, Unstructured};

/// A number in `0..n` (0 when `n` is 0 or 1, and when the input is exhausted).
///
/// Reads as few bytes as keep the draw close to uniform: exactly enough when `n` is a power of
/// two, else enough that the modulo bias stays under 1/64 of a value's chance. (A single byte
/// modulo 201, say, would make the first 55 values twice as likely as the others.)
fn below(u: &mut Unstructured<'_>, n: u128) -> Result<u128> {
    if n <= 1 {
        return Ok(0);
    }
    let bytes = if n.is_power_of_two() {
        (n.trailing_zeros() as usize).div_ceil(8)
    } else {
        let want = n.saturating_mul(64);
        (1..16).find(|k| want >> (8 * k) == 0).unwrap_or(16)
    };
    let mut x: u128 = 0;
    for &b in u.bytes(bytes.min(u.len()))? {
        x = (x << 8) | u128::from(b);
    }
    Ok(x % n)
}

/// The integer types [`range`] draws.
pub(super) trait Int: Copy + Ord {
    /// Widens losslessly.
    fn wide(self) -> i128;
    /// Narrows a value known to lie between two values of the type.
    fn narrow(x: i128) -> Self;
}

macro_rules! int {
    ($($t:ty),*) => {$(
        impl Int for $t {
            fn wide(self) -> i128 {
                self as i128
            }
            fn narrow(x: i128) -> Self {
                x as $t
            }
        }
    )*};
}

int!(u8, u16, u32, u64, usize, i32, i64);

/// An integer in `lo..=hi` (`lo` when `hi < lo`), uniformly; `lo` when the input is exhausted.
pub(super) fn range<T: Int>(u: &mut Unstructured<'_>, lo: T, hi: T) -> Result<T> {
    if hi <= lo {
        return Ok(lo);
    }
    let span = (hi.wide() - lo.wide()) as u128 + 1;
    Ok(T::narrow(lo.wide() + below(u, span)? as i128))
}

/// An index into `weights`, each chosen with probability proportional to its weight (zero
/// weights are never chosen); the first non-zero weight when the input is exhausted.
pub(super) fn weighted(u: &mut Unstructured<'_>, weights: &[u32]) -> Result<usize> {
    let total: u128 = weights.iter().map(|w| u128::from(*w)).sum();
    let mut x = below(u, total)?;
    for (i, &w) in weights.iter().enumerate() {
        if x < u128::from(w) {
            return Ok(i);
        }
        x -= u128::from(w);
    }
    Ok(0)
}

/// One of `n` outcomes, each equally likely (proptest's `prop_oneof!` without weights); 0 when
/// the input is exhausted or `n` is 0.
pub(super) fn one_of(u: &mut Unstructured<'_>, n: usize) -> Result<usize> {
    Ok(below(u, n as u128)? as usize)
}

/// `true` with probability `num / den` (proptest's `option::weighted`); `false` when the input
/// is exhausted (unless `num >= den`).
pub(super) fn chance(u: &mut Unstructured<'_>, num: u32, den: u32) -> Result<bool> {
    if num >= den {
        return Ok(true);
    }
    if num == 0 {
        return Ok(false);
    }
    Ok(below(u, u128::from(den))? >= u128::from(den - num))
}

/// `Some(f(u))` with probability `num / den`, else `None` (always `None` once exhausted).
pub(super) fn maybe<T>(
    u: &mut Unstructured<'_>,
    num: u32,
    den: u32,
    f: impl FnOnce(&mut Unstructured<'_>) -> Result<T>,
) -> Result<Option<T>> {
    if chance(u, num, den)? {
        f(u).map(Some)
    } else {
        Ok(None)
    }
}

/// One element of a non-empty slice, uniformly; the first when exhausted. An empty slice is an
/// error ([`arbitrary::Error::EmptyChoose`]), never a panic.
pub(super) fn pick<T: Clone>(u: &mut Unstructured<'_>, items: &[T]) -> Result<T> {
    if items.is_empty() {
        return Err(arbitrary::Error::EmptyChoose);
    }
    Ok(items[one_of(u, items.len())?].clone())
}

/// Between `lo` and `hi` (inclusive) values from `f`, the count drawn uniformly; once the input
/// is exhausted no more than `lo` (so the loop ends however large the count was).
pub(super) fn repeat<T>(
    u: &mut Unstructured<'_>,
    lo: usize,
    hi: usize,
    mut f: impl FnMut(&mut Unstructured<'_>) -> Result<T>,
) -> Result<Vec<T>> {
    let n = range(u, lo, hi)?;
    let mut out = Vec::with_capacity(n.min(64));
    for i in 0..n {
        if i >= lo && u.is_empty() {
            break;
        }
        out.push(f(u)?);
    }
    Ok(out)
}

/// Shuffles `items` (Fisher–Yates); leaves them in order once exhausted.
pub(super) fn shuffle<T>(u: &mut Unstructured<'_>, items: &mut [T]) -> Result<()> {
    for i in 0..items.len().saturating_sub(1) {
        let j = range(u, i, items.len() - 1)?;
        items.swap(i, j);
    }
    Ok(())
}

/// A value of bounded recursive depth, drawn the way proptest's `prop_recursive(depth, size,
/// branch, …)` draws it: at level `l` (0 at the top) the value branches with probability
/// `min(0.9, size / (2·branch)^(l+1))` into a node whose children are drawn at level `l + 1`,
/// and otherwise is drawn as at level `l + 1` itself; at level `depth` it is a leaf.
#[derive(Clone, Copy, Debug)]
pub(super) struct Levels {
    depth: u32,
    size: u32,
    branch: u32,
}

impl Levels {
    /// The schedule of `prop_recursive(depth, size, branch, …)`, with `depth` at most
    /// [`MAX_DEPTH`](super::MAX_DEPTH).
    pub(super) fn new(depth: u32, size: u32, branch: u32) -> Levels {
        Levels {
            depth: depth.min(super::MAX_DEPTH),
            size,
            branch,
        }
    }

    /// The chance, in thousandths, to branch at `level`.
    fn per_mille(&self, level: u32) -> u32 {
        let k2 = (f64::from(self.branch) * 2.0).powi(level.saturating_add(1) as i32);
        let p = (f64::from(self.size) / k2).min(0.9);
        // `as` saturates (and maps NaN to 0).
        (p * 1000.0) as u32
    }

    /// Starting at `level`, the level at which the value branches (its children are then drawn
    /// at the next level), or `None` for a leaf. Always `None` once the input is exhausted.
    pub(super) fn branch(&self, u: &mut Unstructured<'_>, level: u32) -> Result<Option<u32>> {
        let mut l = level;
        while l < self.depth {
            let p = self.per_mille(l);
            if p == 0 {
                // Deeper levels only get less likely.
                return Ok(None);
            }
            if chance(u, p, 1000)? {
                return Ok(Some(l));
            }
            l += 1;
        }
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn exhausted_input_gives_the_smallest_outcomes() {
        let mut u = Unstructured::new(&[]);
        assert_eq!(range(&mut u, 3u32, 9).unwrap(), 3);
        assert_eq!(range(&mut u, 9u32, 3).unwrap(), 9);
        assert_eq!(weighted(&mut u, &[0, 2, 5]).unwrap(), 1);
        assert!(!chance(&mut u, 999, 1000).unwrap());
        assert_eq!(repeat(&mut u, 2, 1000, |_| Ok(())).unwrap().len(), 2);
        assert_eq!(Levels::new(8, 48, 3).branch(&mut u, 0).unwrap(), None);
        assert!(pick::<u8>(&mut u, &[]).is_err());
    }

    #[test]
    fn weights_are_honoured() {
        let bytes: Vec<u8> = (0..=255).collect();
        let mut u = Unstructured::new(&bytes);
        let mut counts = [0; 3];
        while !u.is_empty() {
            counts[weighted(&mut u, &[1, 0, 3]).unwrap()] += 1;
        }
        assert_eq!(counts, [64, 0, 192]);
    }

    #[test]
    fn draws_are_close_to_uniform() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let bytes: Vec<u8> = (0..400_000)
            .map(|_| {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                state as u8
            })
            .collect();
        let mut u = Unstructured::new(&bytes);
        let mut counts = [0u32; 3];
        for _ in 0..100_000 {
            counts[weighted(&mut u, &[150, 50, 1]).unwrap()] += 1;
        }
        // 74,627 / 24,876 / 498 expected.
        assert!((73_500..75_700).contains(&counts[0]), "{counts:?}");
        assert!((24_000..25_800).contains(&counts[1]), "{counts:?}");
        assert!((400..600).contains(&counts[2]), "{counts:?}");
        assert_eq!(range(&mut u, i64::MIN, i64::MAX).map(|_| ()), Ok(()));
        assert!((-3..=3).contains(&range(&mut u, -3i64, 3).unwrap()));
    }
}
