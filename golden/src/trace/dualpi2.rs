//! Replaying a trace through the golden DualPI2 functions.
//!
//! - `update <qdelay_us> <backlog_bytes>`: one [`update`] with qdelay as the head-of-queue delay.
//!   Prints `prob=0x<16 hex digits> delta=<delta> overload=<0|1>`.
//! - `enqueue <len> <ecn> <rnd_hex64> [backlog_bytes]`: one dequeue-time [`decide`] for a packet with
//!   that ECN field, classified by ecn_mask, with the word's low half as the first draw and its high half
//!   as the second. Prints `ENQUEUE` (sent unchanged), `MARK` or `DROP`, then `class=L|C`, then
//!   `reason=<rule>` for a mark or drop.
//!
//! A trace has no queues, so the replay fills in what the decision needs:
//! - backlog: the bytes the 2*MTU gate compares, i.e. what both queues hold once this packet is taken
//!   off (the optional argument, else the last update's);
//! - sojourn: the qdelay of the last update (0 before any), which drives the step threshold;
//! - apply_step: always set (min_qlen_step 0, the default; a trace carries no queue lengths). `len` is
//!   range-checked but does not enter the decision.
//!
//! `set` changes parameters for what follows and applies no cap by itself: with drop_overload off, the
//! next update caps p' at MAX / k. `elapse` is PIE's and is rejected.

use super::{flag_value, set_fields, u32_value, EnqueueLine, Replayer};
use crate::dualpi2::classify::classify;
use crate::dualpi2::consts::{MAX_PROB, NS_PER_US};
use crate::dualpi2::controller::update;
use crate::dualpi2::decision::{decide, Head, Verdict};
use crate::dualpi2::{DualPi2Params, DualPi2Vars};
use crate::types::{Ecn, QueueId};

pub struct DualPi2Replay {
    params: DualPi2Params,
    vars: DualPi2Vars,
    backlog: u64,
    qdelay_ns: u64,
}

impl DualPi2Replay {
    pub fn new() -> DualPi2Replay {
        let params = DualPi2Params::default();
        DualPi2Replay {
            vars: DualPi2Vars::new(&params),
            params,
            backlog: 0,
            qdelay_ns: 0,
        }
    }
}

impl Replayer for DualPi2Replay {
    fn set(&mut self, key: &str, value: u64) -> Result<(), String> {
        let mut p = self.params;
        match set_fields!(p, key, value; target_us, tupdate_us, alpha, beta, k, step_us, ecn_mask, mtu; drop_overload) {
            Some(r) => r?,
            None => match key {
                "prob" => {
                    if value > MAX_PROB as u64 {
                        return Err(format!(
                            "prob = {value:#x}: expected at most {MAX_PROB:#x} (100 %)"
                        ));
                    }
                    self.vars.prob = value as u32;
                    return Ok(());
                }
                _ => {
                    return Err(format!(
                        "unknown dualpi2 parameter {key:?}: expected target_us, tupdate_us, alpha, beta, \
                         k, step_us, ecn_mask, drop_overload, mtu or prob"
                    ))
                }
            },
        }
        p.validate().map_err(|e| e.to_string())?;
        self.params = p;
        Ok(())
    }

    fn update(&mut self, qdelay_us: u64, backlog: u64) -> Result<String, String> {
        let ns = qdelay_us
            .checked_mul(NS_PER_US)
            .ok_or_else(|| format!("qdelay_us = {qdelay_us}: too large"))?;
        self.qdelay_ns = ns;
        self.backlog = backlog;
        let r = update(&mut self.vars, &self.params, ns);
        Ok(format!(
            "prob={:#018x} delta={} overload={}",
            self.vars.prob, r.delta, r.overload as u8
        ))
    }

    fn enqueue(&mut self, e: EnqueueLine) -> Result<String, String> {
        u32::try_from(e.len).map_err(|_| format!("len = {}: too large", e.len))?;
        let ecn = Ecn::from_bits(e.ecn);
        let queue = classify(ecn, self.params.ecn_mask);
        let head = Head {
            queue,
            ecn,
            sojourn_ns: self.qdelay_ns,
            apply_step: true,
        };
        let bytes = e.backlog.unwrap_or(self.backlog);
        let d = decide(&self.vars, &self.params, bytes, &head, e.rnd);
        let class = match queue {
            QueueId::L => "L",
            QueueId::Classic => "C",
        };
        Ok(match d.verdict {
            Verdict::Pass => format!("ENQUEUE class={class}"),
            Verdict::Mark(r) => format!("MARK class={class} reason={}", r.name()),
            Verdict::Drop(r) => format!("DROP class={class} reason={}", r.name()),
        })
    }

    fn elapse(&mut self, _us: u64) -> Result<(), String> {
        Err("elapse: a PIE command (burst allowance); dualpi2 has no use for it".into())
    }
}

#[cfg(test)]
mod tests {
    use super::super::replay;
    use super::super::tests::assert_rejected;

    #[test]
    fn worked_example_replays_bit_exactly() {
        let out = replay("mode dualpi2\nupdate 5000 100000\n").unwrap();
        assert_eq!(
            out[0],
            "prob=0x0000000003aef20b delta=3955000000 overload=0"
        );
    }

    #[test]
    fn classic_marks_and_drops_with_both_draws() {
        // p' = 0x1000: both halves at or below it hit.
        let t = "mode dualpi2\nset prob 0x1000\n\
                 enqueue 1500 2 0x0000100000001000 10000\n\
                 enqueue 1500 0 0x0000100000001000 10000\n\
                 enqueue 1500 0 0x0000100100000000 10000\n";
        let out = replay(t).unwrap();
        assert_eq!(
            out,
            [
                "MARK class=C reason=classic",
                "DROP class=C reason=classic",
                "ENQUEUE class=C"
            ]
        );
    }

    #[test]
    fn l_uses_k_times_p_with_the_first_draw() {
        let t = "mode dualpi2\nset prob 0x1000\n\
                 enqueue 1500 1 0xffffffff00002000 10000\n\
                 enqueue 1500 1 0x0000000000002001 10000\n";
        let out = replay(t).unwrap();
        assert_eq!(out, ["MARK class=L reason=coupled", "ENQUEUE class=L"]);
    }

    #[test]
    fn backlog_below_two_mtu_passes_and_defaults_to_the_last_update() {
        let t = "mode dualpi2\nset prob 0xffffffff\nupdate 15000 3027\n\
                 enqueue 1500 0 0x0\n\
                 enqueue 1500 0 0x0 3028\n";
        let out = replay(t).unwrap();
        assert_eq!(
            &out[1..],
            ["ENQUEUE class=C", "DROP class=C reason=classic"]
        );
    }

    #[test]
    fn step_uses_the_last_update_delay_as_sojourn() {
        let t = "mode dualpi2\nupdate 1000 0\nenqueue 1500 1 0xffffffffffffffff\n\
                 update 1001 0\nenqueue 1500 1 0xffffffffffffffff\nenqueue 1500 2 0xffffffffffffffff\n";
        let out = replay(t).unwrap();
        assert_eq!(out[1], "ENQUEUE class=L");
        assert_eq!(out[3], "MARK class=L reason=step");
        assert_eq!(out[4], "ENQUEUE class=C");
    }

    #[test]
    fn mask_3_puts_ect0_in_l() {
        let t = "mode dualpi2\nset ecn_mask 3\nenqueue 1500 2 0x0\nset ecn_mask 2\nenqueue 1500 1 0x0\n";
        let out = replay(t).unwrap();
        assert_eq!(out, ["ENQUEUE class=L", "ENQUEUE class=C"]);
    }

    #[test]
    fn overload_drops_l_packets_only_with_drop_overload() {
        let t = "mode dualpi2\nset prob 0x80000001\n\
                 enqueue 1500 1 0x0000000000000000 10000\n\
                 set drop_overload 0\n\
                 enqueue 1500 1 0x0000000000000000 10000\n";
        let out = replay(t).unwrap();
        assert_eq!(
            out,
            [
                "DROP class=L reason=overload",
                "MARK class=L reason=overload"
            ]
        );
    }

    #[test]
    fn without_drop_overload_the_update_caps_prob() {
        let t = "mode dualpi2\nset drop_overload 0\nset prob 0xffffffff\nupdate 15000 0\n";
        let out = replay(t).unwrap();
        assert!(out[0].starts_with("prob=0x000000007fffffff "), "{out:?}");
    }

    #[test]
    fn bad_lines_name_the_line_and_the_expected_values() {
        assert_rejected(&[
            ("mode dualpi2\nset k 0\n", 2, "k = 0"),
            ("mode dualpi2\nset prob 0x100000000\n", 2, "100 %"),
            ("mode dualpi2\nset drop_overload 2\n", 2, "0 or 1"),
            (
                "mode dualpi2\nset burst_us 5\n",
                2,
                "unknown dualpi2 parameter",
            ),
            ("mode dualpi2\n\nelapse 10\n", 3, "elapse"),
            ("mode dualpi2\nset ecn_mask 0\n", 2, "ecn_mask"),
        ]);
    }

    #[test]
    fn no_input_makes_it_panic() {
        let inputs = [
            "mode dualpi2\nupdate 18446744073709551615 18446744073709551615\n",
            "mode dualpi2\nset alpha 1048575\nset beta 1048575\nupdate 18446744073709551 0\nupdate 0 0\n",
            "mode dualpi2\nenqueue 18446744073709551615 3 0x0\n",
            "mode dualpi2\nset k 255\nset prob 0xffffffff\nenqueue 1 1 0xffffffffffffffff 18446744073709551615\n",
            "mode dualpi2\nset mtu 18446744073709551615\n",
        ];
        for i in inputs {
            let _ = replay(i);
        }
    }

    #[test]
    fn the_example_trace_replays() {
        let text = include_str!("../../traces/dualpi2-example.trace");
        let out = replay(text).unwrap();
        assert_eq!(
            out[0],
            "prob=0x0000000003aef20b delta=3955000000 overload=0"
        );
        assert!(out.len() > 10);
    }
}
