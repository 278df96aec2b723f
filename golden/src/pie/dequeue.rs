//! The dequeue side in timestamp mode (spec/pie.md, "Dequeue side"): the delay sample and the burst
//! allowance.

use super::vars::PieVars;

/// A packet left the queue at `now_ticks` after `sojourn_ticks` in it; `queue_empty_after` when it was
/// the last one.
pub fn on_dequeue(vars: &mut PieVars, now_ticks: u64, sojourn_ticks: u64, queue_empty_after: bool) {
    vars.qdelay = if queue_empty_after { 0 } else { sojourn_ticks };
    let dtime = match vars.dq_tstamp {
        Some(prev) => now_ticks.wrapping_sub(prev),
        None => 0,
    };
    vars.dq_tstamp = Some(now_ticks);
    // The allowance drains only with time between dequeues, never while the queue sits idle.
    if dtime > 0 {
        vars.burst_time = vars.burst_time.saturating_sub(dtime);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sample_is_the_sojourn_unless_the_queue_emptied() {
        let mut v = PieVars::new(100);
        on_dequeue(&mut v, 10, 7, false);
        assert_eq!(v.qdelay, 7);
        on_dequeue(&mut v, 11, 7, true);
        assert_eq!(v.qdelay, 0);
    }

    #[test]
    fn first_dequeue_does_not_consume_burst_allowance() {
        let mut v = PieVars::new(100);
        on_dequeue(&mut v, 1_000_000, 5, false);
        assert_eq!(v.burst_time, 100);
        assert_eq!(v.dq_tstamp, Some(1_000_000));
    }

    #[test]
    fn burst_allowance_drains_by_time_between_dequeues_and_stops_at_zero() {
        let mut v = PieVars::new(100);
        on_dequeue(&mut v, 1000, 5, false);
        on_dequeue(&mut v, 1030, 5, false);
        assert_eq!(v.burst_time, 70);
        on_dequeue(&mut v, 1030, 5, false);
        assert_eq!(v.burst_time, 70);
        on_dequeue(&mut v, 2000, 5, false);
        assert_eq!(v.burst_time, 0);
    }
}
