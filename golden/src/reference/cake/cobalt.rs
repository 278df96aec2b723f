//! COBALT: CAKE's per-queue AQM, CoDel and BLUE side by side (golden/REFERENCE-AQMS.md, "COBALT").
//!
//! The CoDel half differs from sch_codel (and from [`crate::reference::codel`]) in four ways:
//! - one timer: on first going over target, `drop_next` is set an interval (divided by sqrt(count)) ahead,
//!   and the first signal comes when it is due; there is no separate `first_above_time`;
//! - the count is not reset when a dropping episode ends: it decays by one per interval/sqrt(count)
//!   while the queue stays below target (or empty), so a new episode resumes near the old drop rate;
//! - "over target" also needs the sojourn to exceed four MTU serialisation times (and, in ingress mode,
//!   two MTU times per bulk flow), instead of sch_codel's "backlog above one MTU";
//! - the last packet of a queue is never dropped (the caller sends it, marked or not).
//!
//! The BLUE half keeps a drop probability that rises by `p_inc` each time the queue overflows (at most
//! once per target) and falls by `p_dec` each time the queue is found empty (at most once per target);
//! it drops, never marks, so an unresponsive flow that ignores CE is still held to its share.
//!
//! The control law uses an exact 1/sqrt(count) where Linux keeps a Newton-iterated fixed-point reciprocal.

/// Parameters of one tin's COBALT instances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CobaltParams {
    /// CoDel interval, ns.
    pub interval_ns: u64,
    /// CoDel target (also the BLUE update spacing), ns.
    pub target_ns: u64,
    /// Serialisation time of one MTU at the tin's rate, ns (0 when unshaped).
    pub mtu_time_ns: u64,
    /// BLUE increment, as a 0.32 fixed-point probability. Linux: 1/256.
    pub p_inc: u32,
    /// BLUE decrement, 0.32 fixed point. Linux: 1/4096.
    pub p_dec: u32,
}

impl CobaltParams {
    /// Target and interval as `cake_set_rate` derives them from the configured ones and the tin's MTU time:
    /// target at least 1.5 MTU times, interval stretched by the same amount and at least twice the target.
    pub fn new(target_ns: u64, interval_ns: u64, mtu_time_ns: u64) -> CobaltParams {
        let target = (mtu_time_ns * 3 / 2).max(target_ns);
        CobaltParams {
            target_ns: target,
            interval_ns: (interval_ns + target - target_ns).max(2 * target),
            mtu_time_ns,
            p_inc: 1 << 24,
            p_dec: 1 << 20,
        }
    }
}

/// One queue's COBALT state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CobaltVars {
    /// CoDel's signalling count (decays instead of resetting).
    pub count: u32,
    /// Next signal due (or, with count 0, an activity timeout), ns.
    pub drop_next_ns: u64,
    /// When BLUE last changed its probability, ns.
    pub blue_timer_ns: u64,
    /// BLUE's drop probability, 0.32 fixed point.
    pub p_drop: u32,
    /// Over target since the last check.
    pub dropping: bool,
}

/// What COBALT decided for a packet just taken from the queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Pass,
    /// CoDel signalled and the packet is ECN-capable: send it with CE.
    Mark,
    /// CoDel signalled on a Not-ECT packet.
    DropCodel,
    /// BLUE's random drop.
    DropBlue,
}

fn control(t_ns: u64, interval_ns: u64, count: u32) -> u64 {
    t_ns + (interval_ns as f64 / f64::from(count.max(1)).sqrt()) as u64
}

impl CobaltVars {
    /// The queue overflowed and a packet was dropped from it: raise BLUE's probability (at most once per
    /// target) and make CoDel's next signal due now. True if BLUE was at rest before.
    pub fn queue_full(&mut self, p: &CobaltParams, now_ns: u64) -> bool {
        let mut up = false;
        if now_ns.saturating_sub(self.blue_timer_ns) > p.target_ns {
            up = self.p_drop == 0;
            self.p_drop = self.p_drop.saturating_add(p.p_inc);
            self.blue_timer_ns = now_ns;
        }
        self.dropping = true;
        self.drop_next_ns = now_ns;
        if self.count == 0 {
            self.count = 1;
        }
        up
    }

    /// The queue was served but turned out empty: lower BLUE's probability (at most once per target) and let
    /// CoDel's count decay one step if a step is due. True if BLUE came to rest.
    pub fn queue_empty(&mut self, p: &CobaltParams, now_ns: u64) -> bool {
        let mut down = false;
        if self.p_drop != 0 && now_ns.saturating_sub(self.blue_timer_ns) > p.target_ns {
            self.p_drop = self.p_drop.saturating_sub(p.p_dec);
            self.blue_timer_ns = now_ns;
            down = self.p_drop == 0;
        }
        self.dropping = false;
        if self.count > 0 && now_ns >= self.drop_next_ns {
            self.count -= 1;
            self.drop_next_ns = control(self.drop_next_ns, p.interval_ns, self.count);
        }
        down
    }

    /// The COBALT decision for a packet that spent `sojourn_ns` in the queue. `ect`: the packet can carry
    /// CE; `bulk_flows`: the tin's bulk flows in ingress mode (0 otherwise); `random`: a uniform u32 for
    /// BLUE.
    pub fn should_drop(
        &mut self,
        p: &CobaltParams,
        now_ns: u64,
        sojourn_ns: u64,
        ect: bool,
        bulk_flows: u32,
        random: u32,
    ) -> Verdict {
        let mut schedule = now_ns as i128 - self.drop_next_ns as i128;
        let over_target = sojourn_ns > p.target_ns
            && sojourn_ns > p.mtu_time_ns * u64::from(bulk_flows) * 2
            && sojourn_ns > p.mtu_time_ns * 4;
        let mut next_due = self.count > 0 && schedule >= 0;
        let mut verdict = Verdict::Pass;
        if over_target {
            if !self.dropping {
                self.dropping = true;
                self.drop_next_ns = control(now_ns, p.interval_ns, self.count);
            }
            if self.count == 0 {
                self.count = 1;
            }
        } else if self.dropping {
            self.dropping = false;
        }
        if next_due && self.dropping {
            verdict = if ect {
                Verdict::Mark
            } else {
                Verdict::DropCodel
            };
            self.count = self.count.saturating_add(1);
            self.drop_next_ns = control(self.drop_next_ns, p.interval_ns, self.count);
            schedule = now_ns as i128 - self.drop_next_ns as i128;
        } else {
            // Below target: each due step lets the count decay by one.
            while next_due {
                self.count -= 1;
                self.drop_next_ns = control(self.drop_next_ns, p.interval_ns, self.count);
                schedule = now_ns as i128 - self.drop_next_ns as i128;
                next_due = self.count > 0 && schedule >= 0;
            }
        }
        let drop = matches!(verdict, Verdict::DropCodel);
        if self.p_drop != 0 && !drop && random < self.p_drop {
            verdict = Verdict::DropBlue;
        }
        let dropped = matches!(verdict, Verdict::DropCodel | Verdict::DropBlue);
        // drop_next doubles as an activity timeout while the count is at rest.
        if self.count == 0 {
            self.drop_next_ns = now_ns + p.interval_ns;
        } else if schedule > 0 && !dropped {
            self.drop_next_ns = now_ns;
        }
        verdict
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn params() -> CobaltParams {
        CobaltParams::new(5 * MS, 100 * MS, 0)
    }

    #[test]
    fn the_first_signal_comes_one_interval_after_the_sojourn_first_exceeds_target() {
        let p = params();
        let mut v = CobaltVars::default();
        let mut first = None;
        for t in (0..300).map(|i| i * MS) {
            if v.should_drop(&p, t, 10 * MS, false, 0, u32::MAX) != Verdict::Pass {
                first = Some(t);
                break;
            }
        }
        assert_eq!(first, Some(100 * MS));
        assert_eq!(v.count, 2);
    }

    #[test]
    fn the_count_decays_instead_of_resetting_when_the_queue_drains() {
        let p = params();
        let mut v = CobaltVars {
            count: 10,
            drop_next_ns: 0,
            dropping: true,
            ..CobaltVars::default()
        };
        // Below target at 200 ms: the steps due since drop_next (100/sqrt(9), 100/sqrt(8), .. ms apart)
        // decay the count from 10 to 4.
        assert_eq!(
            v.should_drop(&p, 200 * MS, MS, false, 0, u32::MAX),
            Verdict::Pass
        );
        assert!(!v.dropping);
        assert_eq!(v.count, 4);
        // Over target again: the first signal comes interval/sqrt(4) later, not a whole interval later.
        let mut t = 200 * MS;
        let first = loop {
            t += MS;
            if v.should_drop(&p, t, 10 * MS, false, 0, u32::MAX) != Verdict::Pass {
                break t;
            }
        };
        assert_eq!(first - 201 * MS, 50 * MS);
    }

    #[test]
    fn a_sojourn_within_four_mtu_times_is_never_over_target() {
        let p = CobaltParams::new(MS, 100 * MS, 2 * MS); // target becomes 3 ms
        assert_eq!(p.target_ns, 3 * MS);
        assert_eq!(p.interval_ns, 102 * MS);
        let mut v = CobaltVars::default();
        for t in (0..1000).map(|i| i * MS) {
            // 7 ms: above target but below 4 MTU times (8 ms).
            assert_eq!(
                v.should_drop(&p, t, 7 * MS, false, 0, u32::MAX),
                Verdict::Pass
            );
        }
    }

    #[test]
    fn ect_packets_are_marked_and_blue_drops_regardless_of_ecn() {
        let p = params();
        let mut v = CobaltVars {
            count: 1,
            dropping: true,
            drop_next_ns: 0,
            ..CobaltVars::default()
        };
        assert_eq!(
            v.should_drop(&p, MS, 10 * MS, true, 0, u32::MAX),
            Verdict::Mark
        );
        let mut v = CobaltVars {
            p_drop: u32::MAX / 2,
            ..CobaltVars::default()
        };
        assert_eq!(v.should_drop(&p, MS, 0, true, 0, 1), Verdict::DropBlue);
        assert_eq!(v.should_drop(&p, MS, 0, true, 0, u32::MAX), Verdict::Pass);
    }

    #[test]
    fn blue_rises_on_overflow_and_falls_on_empty_at_most_once_per_target() {
        let p = params();
        let mut v = CobaltVars::default();
        assert!(v.queue_full(&p, 10 * MS));
        assert_eq!(v.p_drop, 1 << 24);
        v.queue_full(&p, 12 * MS); // within target of the last change: no step
        assert_eq!(v.p_drop, 1 << 24);
        v.queue_full(&p, 16 * MS);
        assert_eq!(v.p_drop, 2 << 24);
        v.queue_empty(&p, 18 * MS);
        assert_eq!(v.p_drop, 2 << 24);
        v.queue_empty(&p, 22 * MS);
        assert_eq!(v.p_drop, (2 << 24) - (1 << 20));
        // It saturates instead of wrapping.
        v.p_drop = u32::MAX - 5;
        v.queue_full(&p, 100 * MS);
        assert_eq!(v.p_drop, u32::MAX);
    }
}
