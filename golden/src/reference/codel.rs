//! CoDel (RFC 8289), with the state machine of Linux's `include/net/codel_impl.h`: Normal, Armed
//! (`first_above_time` set), Dropping; the control law interval/sqrt(count); the re-entry rule.
//!
//! The control law uses an exact square root where Linux iterates Newton's method on a fixed-point
//! reciprocal; the drop times therefore follow interval/sqrt(count) exactly.

use super::{TimedFifo, MTU};
use crate::types::{Admission, Departure, DropReason, Dropped, Ecn, MarkReason, Packet, QueueId};
use crate::Aqm;

/// Parameters of [`Codel`] (and of each FQ-CoDel bucket).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CodelParams {
    /// Acceptable standing queue delay, ns. Default 5 ms.
    pub target_ns: u64,
    /// Window over which the delay must stay above target before dropping, ns. Default 100 ms.
    pub interval_ns: u64,
    /// Queue limit, packets. Default 1000.
    pub limit: usize,
    /// Mark ECN-capable packets instead of dropping them. Default off.
    pub ecn: bool,
    /// No drop while the backlog left behind is at most this, bytes. Default 1514.
    pub mtu: u32,
}

impl Default for CodelParams {
    fn default() -> Self {
        CodelParams {
            target_ns: 5_000_000,
            interval_ns: 100_000_000,
            limit: 1000,
            ecn: false,
            mtu: MTU,
        }
    }
}

/// The next drop time: `t_ns` + interval / sqrt(count).
pub fn control_law(t_ns: u64, interval_ns: u64, count: u32) -> u64 {
    t_ns + (interval_ns as f64 / f64::from(count.max(1)).sqrt()) as u64
}

/// CoDel's per-queue state.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CodelVars {
    /// Drops (or marks) in the current dropping episode, including what re-entry carried over.
    pub count: u32,
    /// `count` when the dropping state was last entered.
    pub lastcount: u32,
    /// In the Dropping state.
    pub dropping: bool,
    /// Armed: when the sojourn, if it stays above target, allows the first drop (ns).
    pub first_above_time_ns: Option<u64>,
    /// When the next drop is due in the Dropping state, ns.
    pub drop_next_ns: u64,
}

/// Where CoDel takes packets from: one FIFO, or one FQ-CoDel bucket.
pub(crate) trait CodelSource {
    /// The head packet and its enqueue time.
    fn pop(&mut self) -> Option<(Packet, u64)>;
    /// Bytes left in the whole qdisc after the pop (FQ-CoDel: all buckets, not just this one).
    fn backlog_bytes(&self) -> u64;
}

impl CodelSource for TimedFifo {
    fn pop(&mut self) -> Option<(Packet, u64)> {
        TimedFifo::pop(self)
    }

    fn backlog_bytes(&self) -> u64 {
        self.bytes()
    }
}

impl CodelVars {
    /// Is the packet just taken from the queue a drop candidate? Arms the state on the first sojourn above
    /// target and answers yes only once the sojourn has stayed above target for a whole interval.
    fn should_drop(
        &mut self,
        p: &CodelParams,
        now_ns: u64,
        head: Option<&(Packet, u64)>,
        backlog: u64,
    ) -> bool {
        let Some(&(_, enqueued_ns)) = head else {
            self.first_above_time_ns = None;
            return false;
        };
        if now_ns - enqueued_ns < p.target_ns || backlog <= u64::from(p.mtu) {
            self.first_above_time_ns = None;
            return false;
        }
        match self.first_above_time_ns {
            None => {
                self.first_above_time_ns = Some(now_ns + p.interval_ns);
                false
            }
            Some(t) => now_ns > t,
        }
    }

    /// One CoDel dequeue: drops (or marks) per the control law, returns the packet to send, if any.
    pub(crate) fn dequeue(
        &mut self,
        p: &CodelParams,
        now_ns: u64,
        src: &mut impl CodelSource,
        drops: &mut Vec<Dropped>,
    ) -> Option<Departure> {
        let mut head = src.pop();
        if head.is_none() {
            self.dropping = false;
            return None;
        }
        let drop = self.should_drop(p, now_ns, head.as_ref(), src.backlog_bytes());
        let mut mark = false;
        let dropped = |pkt: Packet, enqueued_ns: u64| Dropped {
            pkt,
            reason: DropReason::Codel,
            sojourn_ns: now_ns - enqueued_ns,
            queue: QueueId::Classic,
        };
        if self.dropping {
            if !drop {
                // Sojourn below target (or backlog within one MTU): leave the Dropping state.
                self.dropping = false;
            } else {
                while self.dropping && now_ns >= self.drop_next_ns {
                    let Some((pkt, enqueued_ns)) = head else {
                        break;
                    };
                    self.count += 1;
                    if p.ecn && pkt.ecn.is_ecn_capable() {
                        mark = true;
                        self.drop_next_ns =
                            control_law(self.drop_next_ns, p.interval_ns, self.count);
                        break;
                    }
                    drops.push(dropped(pkt, enqueued_ns));
                    head = src.pop();
                    if self.should_drop(p, now_ns, head.as_ref(), src.backlog_bytes()) {
                        self.drop_next_ns =
                            control_law(self.drop_next_ns, p.interval_ns, self.count);
                    } else {
                        self.dropping = false;
                    }
                }
            }
        } else if drop {
            // Enter Dropping: drop (or mark) this packet now.
            if let Some((pkt, enqueued_ns)) = head {
                if p.ecn && pkt.ecn.is_ecn_capable() {
                    mark = true;
                } else {
                    drops.push(dropped(pkt, enqueued_ns));
                    head = src.pop();
                    // Only for its side effect on first_above_time, as in Linux.
                    self.should_drop(p, now_ns, head.as_ref(), src.backlog_bytes());
                }
            }
            self.dropping = true;
            // Re-entry: if the last episode ended recently, resume near its drop rate.
            let delta = self.count.saturating_sub(self.lastcount);
            let since_drop_next = now_ns as i128 - self.drop_next_ns as i128;
            self.count = if delta > 1 && since_drop_next < 16 * p.interval_ns as i128 {
                delta
            } else {
                1
            };
            self.lastcount = self.count;
            self.drop_next_ns = control_law(now_ns, p.interval_ns, self.count);
        }
        head.map(|(mut pkt, enqueued_ns)| {
            if mark {
                pkt.ecn = Ecn::Ce;
            }
            Departure {
                pkt,
                sojourn_ns: now_ns - enqueued_ns,
                mark: mark.then_some(MarkReason::Codel),
                queue: QueueId::Classic,
            }
        })
    }
}

/// A CoDel queue.
#[derive(Clone, Debug)]
pub struct Codel {
    params: CodelParams,
    vars: CodelVars,
    fifo: TimedFifo,
}

impl Codel {
    pub fn new(params: CodelParams) -> Codel {
        Codel {
            params,
            vars: CodelVars::default(),
            fifo: TimedFifo::default(),
        }
    }

    /// The control state (for tests and counters).
    pub fn vars(&self) -> &CodelVars {
        &self.vars
    }
}

impl Aqm for Codel {
    fn name(&self) -> String {
        "codel".into()
    }

    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission {
        self.fifo.admit(self.params.limit, pkt, now_ns)
    }

    fn dequeue(&mut self, now_ns: u64, drops: &mut Vec<Dropped>) -> Option<Departure> {
        self.vars
            .dequeue(&self.params, now_ns, &mut self.fifo, drops)
    }

    super::fifo_backlog!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testutil::{pkt, run_link};

    const MS: u64 = 1_000_000;

    #[test]
    fn first_drop_comes_an_interval_after_sojourn_exceeds_target_then_gaps_shrink_as_inverse_sqrt()
    {
        // 10 Mbit/s: a 1500-byte packet takes 1.2 ms; arrivals every 0.6 ms are twice the service rate.
        let service = 1_200_000;
        let arrivals: Vec<_> = (0..1700u64)
            .map(|i| (i * 600_000, pkt(i, 0, 1500)))
            .collect();
        let mut q = Codel::new(CodelParams::default());
        let log = run_link(&mut q, &arrivals, 10_000_000, 1_000 * MS);
        let above = log
            .departures
            .iter()
            .map(|(t, d)| (*t, d.sojourn_ns))
            .chain(log.drops.iter().map(|(t, d)| (*t, d.sojourn_ns)))
            .filter(|&(_, s)| s >= 5 * MS)
            .map(|(t, _)| t)
            .min()
            .unwrap();
        let drop_times: Vec<u64> = log.drops.iter().map(|(t, _)| *t).collect();
        assert!(drop_times.len() >= 10, "{} drops", drop_times.len());
        let first = drop_times[0] - above;
        assert!(
            (100 * MS..=100 * MS + service).contains(&first),
            "first drop {first} ns after arming"
        );
        // Drop n+1 is due interval/sqrt(n) after drop n was due; it happens at the first dequeue after that.
        let mut due = drop_times[0];
        for (n, &t) in drop_times.iter().enumerate().skip(1) {
            due = control_law(due, 100 * MS, n as u32);
            assert!(t >= due && t <= due + service, "drop {n} at {t}, due {due}");
        }
    }

    #[test]
    fn no_drop_while_backlog_is_within_one_mtu() {
        let mut q = Codel::new(CodelParams::default());
        let mut drops = Vec::new();
        // One packet at a time, each queued for 50 ms: far above target, but never more than one MTU queued.
        for i in 0..100u64 {
            q.enqueue(i * 60 * MS, pkt(i, 0, 1500));
            let d = q.dequeue(i * 60 * MS + 50 * MS, &mut drops).unwrap();
            assert_eq!(d.sojourn_ns, 50 * MS);
        }
        assert!(drops.is_empty());
        assert!(!q.vars().dropping);
    }

    #[test]
    fn a_packet_below_target_leaves_the_dropping_state() {
        let mut q = Codel::new(CodelParams::default());
        q.vars.dropping = true;
        q.vars.count = 3;
        q.vars.drop_next_ns = 10 * MS;
        let mut drops = Vec::new();
        for i in 0..3 {
            q.enqueue(99 * MS, pkt(i, 0, 1500));
        }
        q.dequeue(100 * MS, &mut drops).unwrap();
        assert!(drops.is_empty());
        assert!(!q.vars().dropping);
    }

    fn armed_queue(count: u32, lastcount: u32, drop_next_ns: u64, now: u64) -> Codel {
        let mut q = Codel::new(CodelParams::default());
        q.vars.count = count;
        q.vars.lastcount = lastcount;
        q.vars.drop_next_ns = drop_next_ns;
        q.vars.first_above_time_ns = Some(now - 1);
        for i in 0..4 {
            q.enqueue(now - 20 * MS, pkt(i, 0, 1500));
        }
        q
    }

    #[test]
    fn reentry_within_16_intervals_resumes_with_the_count_delta() {
        let now = 10_000 * MS;
        let mut q = armed_queue(10, 4, now - 50 * MS, now);
        let mut drops = Vec::new();
        let d = q.dequeue(now, &mut drops).unwrap();
        assert_eq!(drops.len(), 1);
        assert_eq!(d.pkt.id, 1);
        assert!(q.vars().dropping);
        assert_eq!((q.vars().count, q.vars().lastcount), (6, 6));
        assert_eq!(q.vars().drop_next_ns, control_law(now, 100 * MS, 6));
    }

    #[test]
    fn reentry_after_16_intervals_restarts_the_count_at_one() {
        let now = 10_000 * MS;
        let mut q = armed_queue(10, 4, now - 1_600 * MS, now);
        let mut drops = Vec::new();
        q.dequeue(now, &mut drops).unwrap();
        assert_eq!(q.vars().count, 1);
        assert_eq!(q.vars().drop_next_ns, now + 100 * MS);
    }

    #[test]
    fn ecn_capable_packets_are_marked_instead_of_dropped() {
        let now = 10_000 * MS;
        let mut q = armed_queue(0, 0, 0, now);
        q.params.ecn = true;
        let mut fifo = TimedFifo::default();
        while let Some((mut p, t)) = q.fifo.pop() {
            p.ecn = Ecn::Ect0;
            fifo.push(p, t);
        }
        q.fifo = fifo;
        let mut drops = Vec::new();
        let d = q.dequeue(now, &mut drops).unwrap();
        assert!(drops.is_empty());
        assert_eq!(
            (d.pkt.id, d.pkt.ecn, d.mark),
            (0, Ecn::Ce, Some(MarkReason::Codel))
        );
        assert!(q.vars().dropping);
    }

    #[test]
    fn arrival_beyond_the_limit_is_tail_dropped() {
        let mut q = Codel::new(CodelParams {
            limit: 2,
            ..CodelParams::default()
        });
        assert_eq!(q.enqueue(0, pkt(0, 0, 100)), Admission::Enqueued);
        assert_eq!(q.enqueue(0, pkt(1, 0, 100)), Admission::Enqueued);
        assert_eq!(
            q.enqueue(0, pkt(2, 0, 100)),
            Admission::Dropped(DropReason::Overlimit)
        );
    }
}
