//! Congestion control: the window rules of Reno (RFC 5681), CUBIC (RFC 9438) and a scalable, DCTCP/Prague
//! style response for L4S. Windows are in packets (f64, so that additive increase can add fractions).
//! The loss machinery that calls these lives in [`crate::tcp`].

use serde::{Deserialize, Serialize};

/// Which window rules a sender uses.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CcKind {
    Reno,
    Cubic,
    Scalable,
}

/// Initial window, packets (RFC 6928).
pub const INITIAL_WINDOW: f64 = 10.0;
/// The smallest window after a cut, packets.
const MIN_CWND: f64 = 2.0;
/// CUBIC's multiplicative decrease factor and scaling constant (RFC 9438 defaults).
const CUBIC_BETA: f64 = 0.7;
const CUBIC_C: f64 = 0.4;
/// The scalable sender's EWMA gain for the marked fraction (DCTCP's g).
pub const SCALABLE_GAIN: f64 = 1.0 / 16.0;

#[derive(Clone, Debug, Default)]
struct CubicState {
    /// Window before the last reduction, packets.
    w_max: f64,
    /// Start of the current congestion-avoidance epoch, ns.
    epoch_start_ns: Option<u64>,
    /// Time to reach w_max again, s.
    k_s: f64,
    /// The Reno-friendly estimate, packets.
    w_est: f64,
}

/// A sender's congestion window and the state of its rules.
#[derive(Clone, Debug)]
pub struct Cc {
    pub kind: CcKind,
    /// Congestion window, packets.
    pub cwnd: f64,
    /// Slow-start threshold, packets.
    pub ssthresh: f64,
    cubic: CubicState,
    /// Scalable: the EWMA of the marked fraction (starts at 1, as DCTCP does).
    pub alpha: f64,
}

impl Cc {
    pub fn new(kind: CcKind) -> Cc {
        Cc {
            kind,
            cwnd: INITIAL_WINDOW,
            ssthresh: f64::INFINITY,
            cubic: CubicState::default(),
            alpha: 1.0,
        }
    }

    /// The window as a whole number of packets (at least one).
    pub fn window(&self) -> u32 {
        self.cwnd.max(1.0) as u32
    }

    /// `acked` packets were newly delivered (ACKed or SACKed) outside loss recovery.
    pub fn on_ack(&mut self, acked: u32, now_ns: u64, srtt_ns: f64) {
        let acked = f64::from(acked);
        if self.cwnd < self.ssthresh {
            self.cwnd += acked;
            return;
        }
        match self.kind {
            CcKind::Reno | CcKind::Scalable => self.cwnd += acked / self.cwnd,
            CcKind::Cubic => self.cubic_increase(acked, now_ns, srtt_ns),
        }
    }

    /// RFC 9438 congestion avoidance: grow towards W_cubic(t + RTT), but never slower than Reno would.
    fn cubic_increase(&mut self, acked: f64, now_ns: u64, srtt_ns: f64) {
        let c = &mut self.cubic;
        let start = *c.epoch_start_ns.get_or_insert_with(|| {
            if self.cwnd < c.w_max {
                c.k_s = ((c.w_max - self.cwnd) / CUBIC_C).cbrt();
            } else {
                c.k_s = 0.0;
                c.w_max = self.cwnd;
            }
            c.w_est = self.cwnd;
            now_ns
        });
        let t = (now_ns - start) as f64 * 1e-9;
        let rtt = srtt_ns * 1e-9;
        let w_cubic = |t: f64| CUBIC_C * (t - c.k_s).powi(3) + c.w_max;
        let alpha = if c.w_est >= c.w_max {
            1.0
        } else {
            3.0 * (1.0 - CUBIC_BETA) / (1.0 + CUBIC_BETA)
        };
        c.w_est += alpha * acked / self.cwnd;
        if w_cubic(t) < c.w_est {
            self.cwnd = c.w_est;
        } else {
            let target = w_cubic(t + rtt).clamp(self.cwnd, 1.5 * self.cwnd);
            self.cwnd += (target - self.cwnd) / self.cwnd * acked;
        }
    }

    /// A window cut for a loss or a classic ECN mark (at most once per RTT; the caller decides when).
    pub fn on_congestion(&mut self) {
        match self.kind {
            CcKind::Reno | CcKind::Scalable => self.ssthresh = (self.cwnd / 2.0).max(MIN_CWND),
            CcKind::Cubic => {
                self.cubic_remember_w_max();
                self.ssthresh = (self.cwnd * CUBIC_BETA).max(MIN_CWND);
            }
        }
        self.cwnd = self.ssthresh;
    }

    /// A retransmission timeout: remember half the window, restart from one packet in slow start.
    pub fn on_timeout(&mut self) {
        self.on_congestion();
        self.cwnd = 1.0;
    }

    /// The scalable response to CE marks: cut by alpha/2 (once per RTT; the caller decides when).
    pub fn on_scalable_mark(&mut self) {
        self.cwnd = (self.cwnd * (1.0 - self.alpha / 2.0)).max(MIN_CWND);
        self.ssthresh = self.cwnd;
    }

    /// End of an observation window (about one RTT) of the scalable sender: fold the marked fraction into
    /// alpha.
    pub fn on_scalable_window(&mut self, acked: u32, marked: u32) {
        if acked > 0 {
            let frac = f64::from(marked) / f64::from(acked);
            self.alpha += SCALABLE_GAIN * (frac - self.alpha);
        }
    }

    /// Fast convergence: if the window did not regain its last maximum, release some of it to newer flows.
    fn cubic_remember_w_max(&mut self) {
        let c = &mut self.cubic;
        c.w_max = if self.cwnd < c.w_max {
            self.cwnd * (1.0 + CUBIC_BETA) / 2.0
        } else {
            self.cwnd
        };
        c.epoch_start_ns = None;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const RTT: f64 = 50e6;

    #[test]
    fn slow_start_doubles_the_window_each_round() {
        let mut cc = Cc::new(CcKind::Reno);
        cc.on_ack(10, 0, RTT);
        assert_eq!(cc.cwnd, 20.0);
    }

    #[test]
    fn reno_adds_one_packet_per_window_and_halves_on_congestion() {
        let mut cc = Cc::new(CcKind::Reno);
        cc.ssthresh = 10.0;
        for _ in 0..10 {
            cc.on_ack(1, 0, RTT);
        }
        assert!((cc.cwnd - 11.0).abs() < 0.05, "{}", cc.cwnd);
        cc.cwnd = 40.0;
        cc.on_congestion();
        assert_eq!((cc.cwnd, cc.ssthresh), (20.0, 20.0));
        cc.on_timeout();
        assert_eq!((cc.cwnd, cc.ssthresh), (1.0, 10.0));
    }

    #[test]
    fn cubic_cuts_to_beta_and_regains_w_max_after_k_seconds() {
        // A large window, so that CUBIC is not in its Reno-friendly region.
        let mut cc = Cc::new(CcKind::Cubic);
        cc.cwnd = 1000.0;
        cc.ssthresh = 500.0;
        cc.on_congestion();
        assert!((cc.cwnd - 700.0).abs() < 1e-9);
        // K = cbrt(1000 * 0.3 / 0.4) = 9.1 s: the window is back near 1000 after K and concave before.
        let k = (300.0f64 / 0.4).cbrt();
        let mut t = 0u64;
        let mut at_half_k = 0.0;
        while (t as f64) < k * 1e9 {
            cc.on_ack(1, t, RTT);
            t += (RTT / cc.cwnd) as u64;
            if at_half_k == 0.0 && t as f64 >= k * 0.5e9 {
                at_half_k = cc.cwnd;
            }
        }
        assert!((cc.cwnd - 1000.0).abs() < 10.0, "{}", cc.cwnd);
        assert!(at_half_k > 850.0, "concave growth: {at_half_k} at K/2");
    }

    #[test]
    fn cubic_fast_convergence_lowers_w_max_when_the_window_did_not_recover() {
        let mut cc = Cc::new(CcKind::Cubic);
        cc.cwnd = 100.0;
        cc.on_congestion();
        cc.cwnd = 80.0;
        cc.on_congestion();
        assert!((cc.cubic.w_max - 80.0 * 0.85).abs() < 1e-9);
    }

    #[test]
    fn scalable_cuts_by_half_alpha_and_alpha_tracks_the_marked_fraction() {
        let mut cc = Cc::new(CcKind::Scalable);
        cc.cwnd = 100.0;
        cc.alpha = 0.2;
        cc.on_scalable_mark();
        assert!((cc.cwnd - 90.0).abs() < 1e-9);
        let mut cc = Cc::new(CcKind::Scalable);
        for _ in 0..200 {
            cc.on_scalable_window(100, 10);
        }
        assert!((cc.alpha - 0.1).abs() < 1e-4, "{}", cc.alpha);
        cc.on_scalable_window(100, 100);
        assert!((cc.alpha - (0.1 + (1.0 - 0.1) / 16.0)).abs() < 1e-4);
    }
}
