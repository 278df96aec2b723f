//! The simulator's random numbers: SplitMix64, one independent stream per purpose, so that adding a flow
//! does not change the draws of another.

/// SplitMix64 (Steele, Lea, Flood 2014): fast, full period, good enough for traffic generation.
#[derive(Clone, Debug)]
pub struct SimRng {
    state: u64,
}

const GOLDEN_GAMMA: u64 = 0x9E37_79B9_7F4A_7C15;

fn mix(z: u64) -> u64 {
    let z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

impl SimRng {
    /// The stream `stream` of the run seeded with `seed`.
    pub fn new(seed: u64, stream: u64) -> SimRng {
        SimRng {
            state: mix(seed.wrapping_mul(GOLDEN_GAMMA) ^ mix(stream.wrapping_add(GOLDEN_GAMMA))),
        }
    }

    pub fn next_u64(&mut self) -> u64 {
        self.state = self.state.wrapping_add(GOLDEN_GAMMA);
        mix(self.state)
    }

    /// Uniform in [0, 1), 53 bits.
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
    }

    /// Uniform in [lo, hi).
    pub fn range(&mut self, lo: f64, hi: f64) -> f64 {
        lo + (hi - lo) * self.uniform()
    }

    /// Exponential with the given mean.
    pub fn exponential(&mut self, mean: f64) -> f64 {
        -mean * (1.0 - self.uniform()).ln()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn streams_are_reproducible_and_independent() {
        let a: Vec<u64> = (0..4).map(|_| SimRng::new(1, 0).next_u64()).collect();
        assert!(a.windows(2).all(|w| w[0] == w[1]));
        assert_ne!(SimRng::new(1, 0).next_u64(), SimRng::new(1, 1).next_u64());
        assert_ne!(SimRng::new(1, 0).next_u64(), SimRng::new(2, 0).next_u64());
    }

    #[test]
    fn exponential_has_the_requested_mean() {
        let mut r = SimRng::new(3, 0);
        let n = 100_000;
        let mean = (0..n).map(|_| r.exponential(0.25)).sum::<f64>() / n as f64;
        assert!((mean - 0.25).abs() < 0.005, "{mean}");
    }
}
