//! Replaying a trace through the golden PIE functions.

use super::{flag_value, set_fields, u32_value, EnqueueLine, Replayer};
use crate::pie::consts::{us_to_ticks, MAX_PROB};
use crate::pie::controller::update;
use crate::pie::enqueue::{decide, QueueView, Verdict};
use crate::pie::{PieParams, PieVars};
use crate::types::Ecn;

pub struct PieReplay {
    params: PieParams,
    vars: PieVars,
    backlog: u64,
}

impl PieReplay {
    pub fn new() -> PieReplay {
        let params = PieParams::default();
        PieReplay {
            vars: PieVars::new(params.max_burst_ticks()),
            params,
            backlog: 0,
        }
    }
}

impl Replayer for PieReplay {
    fn set(&mut self, key: &str, value: u64) -> Result<(), String> {
        let mut p = self.params;
        match set_fields!(p, key, value; target_us, tupdate_us, alpha, beta, limit, mtu; ecn, bytemode) {
            Some(r) => r?,
            None => match key {
                "burst_us" => p.max_burst_us = u32_value(key, value)?,
                "prob" => {
                    if value > MAX_PROB {
                        return Err(format!("prob = {value:#x}: expected at most {MAX_PROB:#x} (100 %)"));
                    }
                    self.vars.prob = value;
                    return Ok(());
                }
                _ => {
                    return Err(format!(
                        "unknown pie parameter {key:?}: expected target_us, tupdate_us, alpha, beta, limit, \
                         ecn, bytemode, mtu, prob or burst_us"
                    ))
                }
            },
        }
        p.validate().map_err(|e| e.to_string())?;
        self.params = p;
        if key == "burst_us" {
            // The allowance left now, and the one a new measurement cycle grants.
            self.vars.burst_time = p.max_burst_ticks();
        }
        Ok(())
    }

    fn update(&mut self, qdelay_us: u64, backlog: u64) -> Result<String, String> {
        let ns = qdelay_us
            .checked_mul(1000)
            .ok_or_else(|| format!("qdelay_us = {qdelay_us}: too large"))?;
        self.vars.qdelay = ns >> 6;
        self.backlog = backlog;
        let r = update(&mut self.vars, &self.params, backlog);
        Ok(format!(
            "prob={:#018x} delta={} alpha_i={} beta_i={} burst_reset={}",
            self.vars.prob, r.delta, r.alpha_i, r.beta_i, r.burst_reset as u8
        ))
    }

    fn enqueue(&mut self, e: EnqueueLine) -> Result<String, String> {
        let len = u32::try_from(e.len).map_err(|_| format!("len = {}: too large", e.len))?;
        let bytes = e.backlog.unwrap_or(self.backlog);
        // The trace carries no packet count: the packet limit does not apply to a replay.
        let queue = QueueView { packets: 0, bytes };
        let d = decide(
            &self.vars,
            &self.params,
            queue,
            len,
            Ecn::from_bits(e.ecn),
            e.rnd,
        );
        self.vars.accu_prob = d.accu_prob;
        let word = match d.verdict {
            Verdict::Enqueue => "ENQUEUE",
            Verdict::Mark => "MARK",
            Verdict::EarlyDrop | Verdict::TailDrop => "DROP",
        };
        Ok(format!(
            "{word} accu={:#x} local_prob={:#x}",
            d.accu_prob, d.local_prob
        ))
    }

    fn elapse(&mut self, us: u64) -> Result<(), String> {
        let ticks = us_to_ticks(us.min(u64::MAX / 1000));
        self.vars.burst_time = self.vars.burst_time.saturating_sub(ticks);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::super::replay;

    #[test]
    fn worked_example_replays_bit_exactly() {
        let out = replay("mode pie\nupdate 5000 100000\n").unwrap();
        assert!(out[0].starts_with("prob=0x00000028f5c3f965"), "{}", out[0]);
    }

    #[test]
    fn burst_allowance_then_elapse_then_drop() {
        let t = "mode pie\nset prob 0xffffffffffffff\nupdate 20000 100000\n\
                 enqueue 1500 0 0x0 100000\nelapse 150000\nenqueue 1500 0 0x0 100000\n";
        let out = replay(t).unwrap();
        assert!(out[1].starts_with("ENQUEUE"), "{out:?}");
        assert!(out[2].starts_with("DROP"), "{out:?}");
    }

    #[test]
    fn ecn_marks_once_the_accumulator_reaches_085_below_ten_percent() {
        // Zero gains keep prob at 9 % through the update, which sets the delay sample to the target.
        let mut t = String::from(
            "mode pie\nset ecn 1\nset burst_us 0\nset alpha 0\nset beta 0\nset prob 0x170a3d70a3d70a\n\
             update 15000 100000\n",
        );
        for _ in 0..10 {
            t.push_str("enqueue 1500 2 0x0\n");
        }
        let out = replay(&t).unwrap();
        assert!(out[0].starts_with("prob=0x00170a3d70a3d70a"), "{out:?}");
        // 0.09 per packet: the 10th reaches 0.9 >= 0.85 and the draw 0 hits; marking clears the sum.
        assert!(
            out[1..10].iter().all(|l| l.starts_with("ENQUEUE")),
            "{out:?}"
        );
        assert!(out[10].starts_with("MARK accu=0x0 "), "{out:?}");
    }

    #[test]
    fn parameters_are_range_checked() {
        assert!(replay("mode pie\nset alpha 33\n")
            .unwrap_err()
            .message
            .contains("alpha"));
        assert!(replay("mode pie\nset mtu 10\n")
            .unwrap_err()
            .message
            .contains("mtu"));
        assert!(replay("mode pie\nset prob 0x100000000000000\n")
            .unwrap_err()
            .message
            .contains("100 %"));
        assert!(replay("mode pie\nset nope 1\n")
            .unwrap_err()
            .message
            .contains("unknown pie parameter"));
    }
}
