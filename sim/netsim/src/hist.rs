//! A log-linear histogram of ns values: bounded memory for any run length, exact below 64 ns and within
//! 1/64 (1.6 %) above; quantiles and CDFs from it are deterministic.

/// Sub-buckets per power of two: 2^6.
const SUB_BITS: u32 = 6;
const SUB: u64 = 1 << SUB_BITS;

#[derive(Clone, Debug, Default)]
pub struct Histogram {
    counts: Vec<u64>,
    n: u64,
    sum: u128,
}

fn index(v: u64) -> usize {
    if v < SUB {
        return v as usize;
    }
    let shift = 63 - v.leading_zeros() - SUB_BITS;
    ((u64::from(shift) + 1) * SUB + (v >> shift) - SUB) as usize
}

/// The lowest value and the width of bucket `i`.
fn bucket(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < SUB {
        return (i, 1);
    }
    let shift = i / SUB - 1;
    ((i % SUB + SUB) << shift, 1 << shift)
}

impl Histogram {
    pub fn record(&mut self, v: u64) {
        let i = index(v);
        if i >= self.counts.len() {
            self.counts.resize(i + 1, 0);
        }
        self.counts[i] += 1;
        self.n += 1;
        self.sum += u128::from(v);
    }

    pub fn count(&self) -> u64 {
        self.n
    }

    /// The mean, exact; None when empty.
    pub fn mean(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum as f64 / self.n as f64)
    }

    /// The q-quantile (0 < q <= 1) as the middle of its bucket; None when empty.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        let rank = ((q * self.n as f64).ceil() as u64).clamp(1, self.n);
        let mut seen = 0;
        for (i, &c) in self.counts.iter().enumerate() {
            seen += c;
            if seen >= rank {
                let (lo, width) = bucket(i);
                return Some(lo as f64 + (width - 1) as f64 / 2.0);
            }
        }
        None
    }

    /// Adds another histogram's samples.
    pub fn merge(&mut self, other: &Histogram) {
        if other.counts.len() > self.counts.len() {
            self.counts.resize(other.counts.len(), 0);
        }
        for (a, b) in self.counts.iter_mut().zip(&other.counts) {
            *a += b;
        }
        self.n += other.n;
        self.sum += other.sum;
    }

    /// The bucket counts, the number of samples and their sum: what [`Histogram::from_parts`] takes back
    /// (a run's result file stores a histogram this way).
    pub fn parts(&self) -> (&[u64], u64, u128) {
        (&self.counts, self.n, self.sum)
    }

    /// A histogram from [`Histogram::parts`]; None if the counts do not add up to `n`.
    pub fn from_parts(counts: Vec<u64>, n: u64, sum: u128) -> Option<Histogram> {
        let total = counts.iter().try_fold(0u64, |a, &c| a.checked_add(c))?;
        (total == n).then_some(Histogram { counts, n, sum })
    }

    /// The empirical CDF as (upper edge of a bucket in ns, fraction of samples at or below it), one point
    /// per non-empty bucket.
    pub fn cdf(&self) -> Vec<(f64, f64)> {
        let mut seen = 0;
        let mut out = Vec::new();
        for (i, &c) in self.counts.iter().enumerate() {
            if c > 0 {
                seen += c;
                let (lo, width) = bucket(i);
                out.push(((lo + width - 1) as f64, seen as f64 / self.n as f64));
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn buckets_tile_the_value_range_without_gaps() {
        let mut expect_lo = 0;
        for i in 0..2000 {
            let (lo, width) = bucket(i);
            assert_eq!(lo, expect_lo, "bucket {i}");
            assert_eq!(index(lo), i);
            assert_eq!(index(lo + width - 1), i);
            expect_lo = lo + width;
        }
        assert!(index(u64::MAX) < 4000);
    }

    #[test]
    fn quantiles_are_within_the_bucket_precision() {
        let mut h = Histogram::default();
        for v in 1..=100_000u64 {
            h.record(v * 1000);
        }
        let p50 = h.quantile(0.5).unwrap();
        let p99 = h.quantile(0.99).unwrap();
        assert!((p50 / 50_000_000.0 - 1.0).abs() < 0.016, "{p50}");
        assert!((p99 / 99_000_000.0 - 1.0).abs() < 0.016, "{p99}");
        assert_eq!(h.mean(), Some(50_000_500.0));
        assert_eq!(h.cdf().last().unwrap().1, 1.0);
        assert!(Histogram::default().quantile(0.5).is_none());
    }

    #[test]
    fn merging_adds_counts() {
        let (mut a, mut b) = (Histogram::default(), Histogram::default());
        a.record(5);
        b.record(5_000_000);
        a.merge(&b);
        assert_eq!(a.count(), 2);
        assert_eq!(a.quantile(1.0), b.quantile(1.0));
    }
}
