//! The weighted round robin between the two queues, by credit (spec/dualpi2.md, "Scheduler"; Linux's).
//!
//! The credit is in bytes x percent. Sending from L adds wc * len, sending from C subtracts wl * len, but
//! only while both queues are backlogged; L is served while the credit is <= 0. Under saturation the C
//! queue gets wc % of the bytes and L the rest, whatever the packet sizes.
//!
//! "Both backlogged" is judged when the packet is picked, before it leaves its queue (as Linux does): the
//! last packet of a queue still moves the credit if the other queue is waiting. The change is applied
//! only if the packet is sent; a packet dropped at dequeue leaves the credit as it was. Bounds: with
//! packets up to 65535 bytes the credit stays within +-100 * 65535, a signed 24-bit value.

use super::consts::WEIGHT_TOTAL;
use super::params::DualPi2Params;
use crate::types::QueueId;

/// The weights (wc, wl) in percent: C protection and its complement.
pub const fn weights(params: &DualPi2Params) -> (u32, u32) {
    (params.c_protection, WEIGHT_TOTAL - params.c_protection)
}

/// The credit at reset and whenever both queues are found empty: MTU * (wc - wl), -121120 by default,
/// so that L goes first.
pub const fn initial_credit(params: &DualPi2Params) -> i64 {
    let (wc, wl) = weights(params);
    params.mtu as i64 * (wc as i64 - wl as i64)
}

/// The queue to serve: L if it holds a packet and C is empty or the credit is <= 0; else C; `None` when
/// both are empty (the caller then resets the credit).
pub fn pick(credit: i64, l_backlogged: bool, c_backlogged: bool) -> Option<QueueId> {
    if l_backlogged && (!c_backlogged || credit <= 0) {
        Some(QueueId::L)
    } else if c_backlogged {
        Some(QueueId::Classic)
    } else {
        None
    }
}

/// What sending a packet of `len` bytes from `served` adds to the credit; `both_backlogged` as judged
/// when it was picked.
pub fn credit_change(
    params: &DualPi2Params,
    served: QueueId,
    both_backlogged: bool,
    len: u32,
) -> i64 {
    if !both_backlogged {
        return 0;
    }
    let (wc, wl) = weights(params);
    match served {
        QueueId::L => wc as i64 * len as i64,
        QueueId::Classic => -(wl as i64 * len as i64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: DualPi2Params = super::super::params::DEFAULT_PARAMS;

    /// Serves two always-backlogged queues `n` times with the given packet sizes; returns the bytes sent
    /// from (L, C).
    fn saturate(params: &DualPi2Params, n: usize, l_len: u32, c_len: u32) -> (u64, u64) {
        let mut credit = initial_credit(params);
        let (mut l, mut c) = (0, 0);
        for _ in 0..n {
            let q = pick(credit, true, true).unwrap();
            let len = if q == QueueId::L { l_len } else { c_len };
            credit += credit_change(params, q, true, len);
            match q {
                QueueId::L => l += len as u64,
                QueueId::Classic => c += len as u64,
            }
        }
        (l, c)
    }

    #[test]
    fn initial_credit_is_mtu_times_weight_difference_and_l_goes_first() {
        assert_eq!(weights(&P), (10, 90));
        assert_eq!(initial_credit(&P), -121_120);
        assert_eq!(pick(initial_credit(&P), true, true), Some(QueueId::L));
    }

    #[test]
    fn c_gets_about_ten_percent_of_the_bytes_under_saturation() {
        for (l_len, c_len) in [(1500, 1500), (1500, 100), (64, 1500), (1000, 1514)] {
            let (l, c) = saturate(&P, 100_000, l_len, c_len);
            let share = c as f64 / (l + c) as f64;
            assert!(
                (share - 0.10).abs() < 0.002,
                "{l_len}/{c_len}: C share {share}"
            );
        }
    }

    #[test]
    fn c_protection_sets_the_share() {
        for pct in [0u32, 25, 50, 100] {
            let p = DualPi2Params {
                c_protection: pct,
                ..P
            };
            let (l, c) = saturate(&p, 20_000, 1500, 1500);
            let share = c as f64 / (l + c) as f64;
            assert!(
                (share - pct as f64 / 100.0).abs() < 0.002,
                "{pct} %: C share {share}"
            );
        }
    }

    #[test]
    fn credit_moves_only_while_both_queues_are_backlogged() {
        assert_eq!(credit_change(&P, QueueId::L, false, 1500), 0);
        assert_eq!(credit_change(&P, QueueId::Classic, false, 1500), 0);
        assert_eq!(credit_change(&P, QueueId::L, true, 1500), 15_000);
        assert_eq!(credit_change(&P, QueueId::Classic, true, 1500), -135_000);
    }

    #[test]
    fn a_lone_queue_is_served_whatever_the_credit() {
        assert_eq!(pick(1_000_000, true, false), Some(QueueId::L));
        assert_eq!(pick(-1_000_000, false, true), Some(QueueId::Classic));
        assert_eq!(pick(0, false, false), None);
    }

    #[test]
    fn zero_credit_serves_l() {
        assert_eq!(pick(0, true, true), Some(QueueId::L));
        assert_eq!(pick(1, true, true), Some(QueueId::Classic));
    }
}
