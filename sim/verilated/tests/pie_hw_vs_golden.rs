//! The Verilated PIE core behind the simulator's `Aqm` trait against the golden `PieQdisc`, event for
//! event: the same arrivals and link requests give the same verdicts, departures, sojourn times and
//! ECN fields.

use aqm_golden::hw::{CoreAqm, CoreParams, DriverError};
use aqm_golden::pie::kind::PIE_CORE;
use aqm_golden::pie::regs::addr;
use aqm_golden::pie::{PieParams, PieQdisc};
use aqm_golden::{Admission, Aqm, DropReason, Ecn, Packet};
use aqm_verilated::VerilatedCore;

/// The Verilated PIE core configured with `params`, seeded from `seed`.
fn pie_hw(params: PieParams, seed: u64) -> Result<CoreAqm<VerilatedCore>, DriverError> {
    CoreAqm::new(
        &PIE_CORE,
        VerilatedCore::new(&PIE_CORE),
        &params.register_writes(seed),
    )
}

const MS: u64 = 1_000_000;

/// An event of a test: an arrival (len, ecn) or a link request, at a time in ns.
#[derive(Clone, Copy, Debug)]
enum Ev {
    Arrive(u64, u32, Ecn),
    Ask(u64),
}

/// Runs `events` through both models and compares every answer; returns the verdict counts
/// (enqueued, marked, early drop, tail drop) and both models.
fn compare(
    params: PieParams,
    seed: u64,
    events: &[Ev],
) -> ([u64; 4], CoreAqm<VerilatedCore>, PieQdisc) {
    let mut golden = PieQdisc::new(params, seed).unwrap();
    let mut hw = pie_hw(params, seed).unwrap();
    let mut counts = [0; 4];
    for (k, ev) in events.iter().enumerate() {
        match *ev {
            Ev::Arrive(t, len, ecn) => {
                let pkt = Packet {
                    id: k as u64,
                    flow: 0,
                    len,
                    ecn,
                };
                let g = golden.enqueue(t, pkt);
                let h = hw.enqueue(t, pkt);
                assert_eq!(h, g, "event {k} {ev:?}: hw {h:?}, golden {g:?}");
                counts[match g {
                    Admission::Enqueued => 0,
                    Admission::Marked(_) => 1,
                    Admission::Dropped(DropReason::Early) => 2,
                    Admission::Dropped(_) => 3,
                }] += 1;
            }
            Ev::Ask(t) => {
                let (mut gd, mut hd) = (vec![], vec![]);
                let g = golden.dequeue(t, &mut gd);
                let h = hw.dequeue(t, &mut hd);
                assert_eq!(h, g, "event {k} {ev:?}");
                assert!(gd.is_empty() && hd.is_empty());
            }
        }
        assert_eq!(hw.fault(), None, "event {k}");
        assert_eq!(hw.backlog_packets(), golden.backlog_packets(), "event {k}");
        assert_eq!(hw.backlog_bytes(), golden.backlog_bytes(), "event {k}");
    }
    (counts, hw, golden)
}

/// A small xorshift for the stimuli.
struct Lcg(u64);
impl Lcg {
    fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// Arrivals at `per_ms` packets per ms (random sizes and ECN codes), the link asking every `ask_us`,
/// for `ms` milliseconds.
fn overload(per_ms: u64, ask_us: u64, ms: u64, seed: u64) -> Vec<Ev> {
    waves(per_ms, &[ask_us], ms, seed)
}

/// As [`overload`], with the link's interval taking the values of `ask_us` in turn, 250 ms each.
fn waves(per_ms: u64, ask_us: &[u64], ms: u64, seed: u64) -> Vec<Ev> {
    let mut r = Lcg(seed | 1);
    let mut ev = vec![];
    let mut next_ask = 0;
    for m in 0..ms {
        let ask_ns = ask_us[(m / 250) as usize % ask_us.len()] * 1000;
        for k in 0..per_ms {
            let t = m * MS + k * MS / per_ms + r.next(1000);
            while next_ask <= t {
                ev.push(Ev::Ask(next_ask));
                next_ask += ask_ns;
            }
            let len = [64, 200, 576, 1000, 1500][r.next(5) as usize];
            ev.push(Ev::Arrive(t, len, Ecn::from_bits(r.next(4) as u8)));
        }
    }
    ev
}

#[test]
fn overload_gives_the_golden_verdicts_and_departures() {
    let (counts, mut hw, _) = compare(PieParams::default(), 1, &overload(2, 1000, 3_000, 7));
    assert!(counts[0] > 1000 && counts[2] > 100, "{counts:?}");
    // The core's own counters agree with what came out.
    let core = hw.driver();
    assert_eq!(
        core.read_reg(addr::PKTS_IN).unwrap() as u64,
        counts.iter().sum::<u64>()
    );
    assert_eq!(
        core.read_reg(addr::BACKLOG_PKTS).unwrap() as usize,
        hw.backlog_packets()
    );
}

#[test]
fn ecn_marks_tail_drops_and_bytemode_match_the_golden_model() {
    let params = PieParams {
        ecn: true,
        bytemode: true,
        limit: 110,
        tupdate_us: 10_000,
        mtu: 1500,
        max_burst_us: 20_000,
        ..PieParams::default()
    };
    let (counts, _, _) = compare(params, 3, &waves(2, &[700, 400], 4_000, 11));
    assert!(counts.iter().all(|&c| c > 0), "{counts:?}");
}

#[test]
fn updates_run_at_their_own_time_across_long_idle_gaps() {
    let mut ev = overload(2, 1000, 800, 5);
    // Seconds of silence (tens of updates each), then more traffic, twice.
    for (gap_s, start) in [(3, 0), (7, 1)] {
        let base = ev
            .iter()
            .map(|e| match *e {
                Ev::Arrive(t, ..) | Ev::Ask(t) => t,
            })
            .max()
            .unwrap()
            + gap_s * 1_000 * MS;
        ev.extend(
            overload(2, 1000, 600, 9 + start)
                .into_iter()
                .map(|e| match e {
                    Ev::Arrive(t, l, c) => Ev::Arrive(t + base, l, c),
                    Ev::Ask(t) => Ev::Ask(t + base),
                }),
        );
    }
    let (_, mut hw, golden) = compare(PieParams::default(), 2, &ev);
    // The controller's schedule did not drift: its next firing is the golden one.
    assert_eq!(hw.driver().next_update_ns(), golden.next_update());
    assert!(golden.stats().updates > 700);
    assert!(hw.cycles_clocked().unwrap() > 0);
}

#[test]
fn an_update_due_exactly_at_an_event_runs_before_it() {
    // 500 ms is the first update: arrivals and link requests at exactly 500 ms and at multiples of
    // tupdate after it.
    let mut ev = overload(4, 1000, 499, 3);
    for k in 0..40u64 {
        let t = 500 * MS + k * 15 * MS;
        ev.push(Ev::Arrive(t, 1500, Ecn::Ect0));
        ev.push(Ev::Ask(t));
        ev.push(Ev::Arrive(t, 1500, Ecn::NotEct));
    }
    compare(PieParams::default(), 4, &ev);
}

#[test]
fn the_link_asking_an_empty_queue_gets_nothing_and_changes_nothing() {
    let mut ev = vec![Ev::Ask(0), Ev::Ask(5)];
    ev.extend(overload(1, 500, 700, 13).into_iter().map(|e| match e {
        Ev::Arrive(t, l, c) => Ev::Arrive(t + 10, l, c),
        Ev::Ask(t) => Ev::Ask(t + 10),
    }));
    ev.extend((0..10).map(|k| Ev::Ask(800 * MS + k)));
    compare(PieParams::default(), 5, &ev);
}

#[test]
fn parameters_the_register_file_refuses_are_errors_that_name_them() {
    let err = |p: PieParams| pie_hw(p, 1).err().unwrap();
    let e = err(PieParams {
        limit: 5000,
        ..PieParams::default()
    });
    assert_eq!(
        e,
        DriverError::Param {
            param: "limit",
            register: "LIMIT",
            value: 5000
        }
    );
    let e = err(PieParams {
        target_us: 0,
        ..PieParams::default()
    });
    assert!(e.to_string().starts_with("target = 0"), "{e}");
}

#[test]
fn time_going_back_and_oversized_packets_are_faults_not_panics() {
    let mut hw = pie_hw(PieParams::default(), 1).unwrap();
    let p = Packet {
        id: 0,
        flow: 0,
        len: 100_000,
        ecn: Ecn::NotEct,
    };
    assert_eq!(hw.enqueue(10, p), Admission::Dropped(DropReason::Overlimit));
    assert!(hw.fault().unwrap().contains("65535"), "{:?}", hw.fault());
    let mut hw = pie_hw(PieParams::default(), 1).unwrap();
    let p = Packet { len: 100, ..p };
    hw.enqueue(1_000, p);
    hw.enqueue(999, p);
    assert!(hw.fault().unwrap().contains("time went back"));
    // After a fault nothing departs.
    assert!(hw.dequeue(2_000, &mut vec![]).is_none());
}
