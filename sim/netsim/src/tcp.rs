//! A packet-level TCP sender and receiver: per-packet ACKs that identify the packet that caused them (a
//! SACK of one packet, plus the cumulative ACK, plus a timestamp echo), loss detection after three later
//! transmissions were delivered (the "3 duplicate ACKs" rule, applied to retransmissions too), recovery
//! driven by the scoreboard (RFC 6675 style "pipe"), at most one window cut per round trip (NewReno's
//! `recover`), and the retransmission timer of RFC 6298 with a 200 ms floor.
//!
//! Sequence numbers count packets, not bytes. The window rules are in [`crate::cc`].

use crate::cc::Cc;
use std::collections::VecDeque;

/// Packets delivered after a transmission before it is declared lost.
pub const DUPTHRESH: u64 = 3;
/// RFC 6298's lower bound on the RTO (Linux's `TCP_RTO_MIN`), ns.
pub const RTO_MIN_NS: f64 = 200e6;
/// Upper bound on the RTO, ns.
pub const RTO_MAX_NS: f64 = 60e9;
/// RTO before the first RTT sample, ns.
pub const RTO_INITIAL_NS: f64 = 1e9;
/// Clock granularity G of RFC 6298, ns.
const CLOCK_G_NS: f64 = 1e6;

/// How the sender reacts to CE marks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EcnMode {
    /// Not-ECT: only losses count.
    Off,
    /// ECT(0), RFC 3168: a CE mark is a loss without a retransmission (one cut per round trip).
    Classic,
    /// ECT(1), L4S: cut by alpha/2 once per round trip when marks arrive.
    Scalable,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SegState {
    /// Sent and neither delivered nor declared lost: counts in the pipe.
    InFlight,
    /// Declared lost, waiting for its retransmission.
    Lost,
    /// The receiver has it.
    Delivered,
}

#[derive(Clone, Copy, Debug)]
struct Seg {
    state: SegState,
    /// Id of its latest transmission.
    xmit: u64,
}

/// One packet the sender wants on the wire now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Send {
    pub seq: u32,
    /// Transmission id: increases with every packet sent, retransmissions included.
    pub xmit: u64,
    pub retransmit: bool,
}

/// What an ACK tells the sender.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ack {
    /// The packet that caused this ACK.
    pub seq: u32,
    /// Its transmission id (as a timestamp option would identify it).
    pub xmit: u64,
    /// When that transmission left the sender, ns.
    pub sent_ns: u64,
    /// The next packet the receiver expects in order.
    pub cum: u32,
    /// The packet arrived CE-marked (echoed exactly, as with accurate ECN).
    pub ce: bool,
}

/// The scoreboard entry of `seq`, if it is in snd_una..snd_nxt.
fn seg_at(segs: &mut VecDeque<Seg>, snd_una: u32, seq: u32) -> Option<&mut Seg> {
    let i = seq.checked_sub(snd_una)?;
    segs.get_mut(i as usize)
}

/// A TCP sender.
#[derive(Clone, Debug)]
pub struct Sender {
    pub cc: Cc,
    ecn: EcnMode,
    /// Packets to send in all; None for a bulk flow that never ends.
    size: Option<u32>,
    snd_una: u32,
    snd_nxt: u32,
    /// Scoreboard for snd_una..snd_nxt.
    segs: VecDeque<Seg>,
    /// Transmissions not yet judged, in sending order: (xmit id, seq).
    xmits: VecDeque<(u64, u32)>,
    next_xmit: u64,
    /// Highest transmission id known to be delivered.
    delivered_xmit: Option<u64>,
    /// Packets declared lost, in order, waiting to be retransmitted.
    retx: VecDeque<u32>,
    /// Packets in flight: sent, not delivered, not declared lost.
    pipe: u32,
    in_recovery: bool,
    /// No new window cut for a loss or mark on a packet below this (sent before the last cut).
    recover: u32,
    /// After a window cut (not a timeout) the window does not grow until snd_una reaches this, as in
    /// Linux's Recovery and CWR states.
    hold_growth_until: u32,
    /// Fast retransmit: the first lost packet goes out at once, whatever the pipe.
    retransmit_now: bool,
    /// Scalable: the current observation window ends when snd_una reaches this.
    window_end: u32,
    window_acked: u32,
    window_marked: u32,
    srtt_ns: Option<f64>,
    rttvar_ns: f64,
    rto_ns: f64,
    /// When the retransmission timer expires, if it runs.
    pub rto_deadline_ns: Option<u64>,
    /// Retransmission timeouts so far.
    pub timeouts: u32,
    /// Fast recoveries entered so far.
    pub recoveries: u32,
    /// Packets retransmitted so far.
    pub retransmits: u64,
}

impl Sender {
    pub fn new(cc: Cc, ecn: EcnMode, size: Option<u32>) -> Sender {
        Sender {
            cc,
            ecn,
            size,
            snd_una: 0,
            snd_nxt: 0,
            segs: VecDeque::new(),
            xmits: VecDeque::new(),
            next_xmit: 0,
            delivered_xmit: None,
            retx: VecDeque::new(),
            pipe: 0,
            in_recovery: false,
            recover: 0,
            hold_growth_until: 0,
            retransmit_now: false,
            window_end: 0,
            window_acked: 0,
            window_marked: 0,
            srtt_ns: None,
            rttvar_ns: 0.0,
            rto_ns: RTO_INITIAL_NS,
            rto_deadline_ns: None,
            timeouts: 0,
            recoveries: 0,
            retransmits: 0,
        }
    }

    /// Every packet of a finite flow is acknowledged.
    pub fn is_done(&self) -> bool {
        self.size.is_some_and(|n| self.snd_una >= n)
    }

    /// The smoothed RTT, ns (0 before the first sample).
    pub fn srtt_ns(&self) -> f64 {
        self.srtt_ns.unwrap_or(0.0)
    }

    /// The current retransmission timeout, ns.
    pub fn rto_ns(&self) -> f64 {
        self.rto_ns
    }

    /// Packets in flight (the RFC 6675 pipe).
    pub fn pipe(&self) -> u32 {
        self.pipe
    }

    /// RFC 6298 RTT estimation; a fresh sample also clears any timer back-off.
    fn rtt_sample(&mut self, r: f64) {
        match self.srtt_ns {
            None => {
                self.srtt_ns = Some(r);
                self.rttvar_ns = r / 2.0;
            }
            Some(srtt) => {
                self.rttvar_ns = 0.75 * self.rttvar_ns + 0.25 * (srtt - r).abs();
                self.srtt_ns = Some(0.875 * srtt + 0.125 * r);
            }
        }
        let srtt = self.srtt_ns.unwrap_or(r);
        self.rto_ns = (srtt + CLOCK_G_NS.max(4.0 * self.rttvar_ns)).clamp(RTO_MIN_NS, RTO_MAX_NS);
    }

    /// Processes one ACK. The caller then calls [`Sender::transmit`].
    pub fn on_ack(&mut self, now_ns: u64, ack: &Ack) {
        self.rtt_sample(now_ns.saturating_sub(ack.sent_ns) as f64);
        self.delivered_xmit = Some(self.delivered_xmit.map_or(ack.xmit, |d| d.max(ack.xmit)));

        let mut newly_delivered = 0;
        if let Some(seg) = seg_at(&mut self.segs, self.snd_una, ack.seq) {
            if seg.state != SegState::Delivered {
                if seg.state == SegState::InFlight {
                    self.pipe -= 1;
                }
                seg.state = SegState::Delivered;
                newly_delivered = 1;
            }
        }
        let advanced = ack.cum > self.snd_una;
        while self.snd_una < ack.cum {
            match self.segs.pop_front() {
                Some(seg) => {
                    if seg.state == SegState::InFlight {
                        self.pipe -= 1;
                    }
                }
                None => break,
            }
            self.snd_una += 1;
        }
        if self.in_recovery && self.snd_una >= self.recover {
            self.in_recovery = false;
        }

        // A transmission is lost once DUPTHRESH transmissions sent after it were delivered.
        let mut first_loss = None;
        let delivered = self.delivered_xmit.unwrap_or(0);
        while let Some(&(x, seq)) = self.xmits.front() {
            if x + DUPTHRESH > delivered {
                break;
            }
            self.xmits.pop_front();
            if let Some(seg) = seg_at(&mut self.segs, self.snd_una, seq) {
                if seg.state == SegState::InFlight && seg.xmit == x {
                    seg.state = SegState::Lost;
                    self.pipe -= 1;
                    self.retx.push_back(seq);
                    first_loss = Some(first_loss.map_or(seq, |f: u32| f.min(seq)));
                }
            }
        }

        let mut cut = false;
        if let Some(seq) = first_loss {
            if seq >= self.recover {
                self.cc.on_congestion();
                self.in_recovery = true;
                self.recover = self.snd_nxt;
                self.recoveries += 1;
                self.retransmit_now = true;
                cut = true;
            }
        }

        if self.ecn == EcnMode::Scalable {
            self.window_acked += newly_delivered;
            self.window_marked += u32::from(ack.ce && newly_delivered > 0);
            if self.snd_una >= self.window_end {
                self.cc
                    .on_scalable_window(self.window_acked, self.window_marked);
                self.window_acked = 0;
                self.window_marked = 0;
                self.window_end = self.snd_nxt;
            }
        }
        if ack.ce && !self.in_recovery && ack.seq >= self.recover {
            match self.ecn {
                EcnMode::Off => {}
                EcnMode::Classic => {
                    self.cc.on_congestion();
                    cut = true;
                }
                EcnMode::Scalable => {
                    self.cc.on_scalable_mark();
                    cut = true;
                }
            }
            if cut {
                self.recover = self.snd_nxt;
            }
        }
        if cut {
            self.hold_growth_until = self.snd_nxt;
        }

        if newly_delivered > 0 && !self.in_recovery && self.snd_una >= self.hold_growth_until {
            self.cc.on_ack(newly_delivered, now_ns, self.srtt_ns());
        }
        if advanced {
            self.rto_deadline_ns =
                (self.snd_una < self.snd_nxt).then(|| now_ns + self.rto_ns as u64);
        }
    }

    /// Appends to `out` what the window allows now: retransmissions first, then new packets.
    pub fn transmit(&mut self, now_ns: u64, out: &mut Vec<Send>) {
        let window = self.cc.window();
        while self.pipe < window || (self.retransmit_now && !self.retx.is_empty()) {
            self.retransmit_now = false;
            let mut lost = None;
            while let Some(seq) = self.retx.pop_front() {
                if seg_at(&mut self.segs, self.snd_una, seq)
                    .is_some_and(|s| s.state == SegState::Lost)
                {
                    lost = Some(seq);
                    break;
                }
            }
            let (seq, retransmit) = match lost {
                Some(seq) => (seq, true),
                None if self.size.is_none_or(|n| self.snd_nxt < n) => {
                    self.segs.push_back(Seg {
                        state: SegState::InFlight,
                        xmit: 0,
                    });
                    self.snd_nxt += 1;
                    (self.snd_nxt - 1, false)
                }
                None => break,
            };
            let xmit = self.next_xmit;
            self.next_xmit += 1;
            if let Some(seg) = seg_at(&mut self.segs, self.snd_una, seq) {
                seg.state = SegState::InFlight;
                seg.xmit = xmit;
            }
            self.xmits.push_back((xmit, seq));
            self.pipe += 1;
            self.retransmits += u64::from(retransmit);
            out.push(Send {
                seq,
                xmit,
                retransmit,
            });
        }
        if self.rto_deadline_ns.is_none() && self.snd_una < self.snd_nxt {
            self.rto_deadline_ns = Some(now_ns + self.rto_ns as u64);
        }
    }

    /// The retransmission timer expired: everything not delivered is lost; restart from one packet, and
    /// back the timer off. The caller then calls [`Sender::transmit`].
    pub fn on_timeout(&mut self, now_ns: u64) {
        if self.snd_una >= self.snd_nxt {
            self.rto_deadline_ns = None;
            return;
        }
        self.timeouts += 1;
        self.cc.on_timeout();
        self.retx.clear();
        for (i, seg) in self.segs.iter_mut().enumerate() {
            if seg.state != SegState::Delivered {
                seg.state = SegState::Lost;
                self.retx.push_back(self.snd_una + i as u32);
            }
        }
        self.pipe = 0;
        self.xmits.clear();
        self.in_recovery = false;
        self.recover = self.snd_nxt;
        self.hold_growth_until = 0;
        self.rto_ns = (self.rto_ns * 2.0).min(RTO_MAX_NS);
        self.rto_deadline_ns = Some(now_ns + self.rto_ns as u64);
    }
}

/// A TCP receiver: the cumulative ACK point and which packets above it arrived.
#[derive(Clone, Debug, Default)]
pub struct Receiver {
    rcv_nxt: u32,
    /// above[i]: packet rcv_nxt + i has arrived.
    above: VecDeque<bool>,
}

impl Receiver {
    /// A packet arrives: returns the cumulative ACK point and whether it was new (not a duplicate).
    pub fn on_packet(&mut self, seq: u32) -> (u32, bool) {
        let Some(i) = seq.checked_sub(self.rcv_nxt) else {
            return (self.rcv_nxt, false);
        };
        let i = i as usize;
        if i >= self.above.len() {
            self.above.resize(i + 1, false);
        }
        if self.above[i] {
            return (self.rcv_nxt, false);
        }
        self.above[i] = true;
        while self.above.front() == Some(&true) {
            self.above.pop_front();
            self.rcv_nxt += 1;
        }
        (self.rcv_nxt, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::CcKind;

    const MS: u64 = 1_000_000;

    /// A sender and receiver joined by a lossless path except for the listed (seq, nth transmission)
    /// drops; every ACK arrives `rtt` after its packet was sent. Returns the sender after `rounds` round
    /// trips and the number of packets delivered.
    struct Path {
        s: Sender,
        r: Receiver,
        now: u64,
        in_flight: VecDeque<(Send, u64)>,
        drop: Vec<u32>,
    }

    impl Path {
        fn new(s: Sender) -> Path {
            Path {
                s,
                r: Receiver::default(),
                now: 0,
                in_flight: VecDeque::new(),
                drop: Vec::new(),
            }
        }

        fn send(&mut self) {
            let mut out = Vec::new();
            self.s.transmit(self.now, &mut out);
            for p in out {
                if let Some(i) = self.drop.iter().position(|&d| d == p.seq) {
                    self.drop.remove(i);
                } else {
                    self.in_flight.push_back((p, self.now));
                }
            }
        }

        /// Delivers every packet in flight, one ACK each, `rtt` after it was sent.
        fn round(&mut self, rtt: u64, ce: impl Fn(u32) -> bool) {
            let batch: Vec<_> = self.in_flight.drain(..).collect();
            for (p, sent) in batch {
                self.now = self.now.max(sent + rtt);
                let (cum, _) = self.r.on_packet(p.seq);
                let ack = Ack {
                    seq: p.seq,
                    xmit: p.xmit,
                    sent_ns: sent,
                    cum,
                    ce: ce(p.seq),
                };
                self.s.on_ack(self.now, &ack);
                self.send();
            }
        }
    }

    #[test]
    fn initial_window_is_ten_and_slow_start_doubles_it_per_round() {
        let mut p = Path::new(Sender::new(Cc::new(CcKind::Reno), EcnMode::Off, None));
        p.send();
        assert_eq!(p.in_flight.len(), 10);
        p.round(50 * MS, |_| false);
        assert_eq!(p.in_flight.len(), 20);
        assert_eq!(p.s.cc.cwnd, 20.0);
    }

    #[test]
    fn three_later_deliveries_trigger_fast_retransmit_and_one_cut() {
        let mut p = Path::new(Sender::new(Cc::new(CcKind::Reno), EcnMode::Off, None));
        p.drop = vec![3, 5];
        p.send();
        p.round(50 * MS, |_| false);
        // Both losses are in the same window: one cut, and packet 3 is resent at once.
        assert_eq!(p.s.recoveries, 1);
        assert!(p.in_flight.iter().any(|(s, _)| s.seq == 3 && s.retransmit));
        let cwnd = p.s.cc.cwnd;
        p.round(50 * MS, |_| false);
        p.round(50 * MS, |_| false);
        assert_eq!(p.s.retransmits, 2);
        assert_eq!(p.s.recoveries, 1);
        assert!(!p.s.in_recovery);
        assert_eq!(p.s.timeouts, 0);
        assert!(p.s.snd_una > 5);
        assert!(
            p.s.cc.cwnd < 1.5 * cwnd,
            "no slow start after the cut: {cwnd} -> {}",
            p.s.cc.cwnd
        );
    }

    #[test]
    fn a_lost_retransmission_is_detected_without_a_timeout() {
        let mut p = Path::new(Sender::new(Cc::new(CcKind::Reno), EcnMode::Off, None));
        p.drop = vec![2, 2];
        p.send();
        // Round 1 detects the loss and resends 2 (lost again); packets sent after that resend are
        // delivered in round 3, which declares the resend lost; round 4 delivers the second resend.
        for _ in 0..4 {
            p.round(50 * MS, |_| false);
        }
        assert_eq!(p.s.timeouts, 0);
        assert_eq!(p.s.retransmits, 2);
        assert!(p.s.snd_una > 2);
    }

    #[test]
    fn loss_of_the_tail_is_recovered_by_the_retransmission_timeout() {
        let mut p = Path::new(Sender::new(Cc::new(CcKind::Reno), EcnMode::Off, Some(5)));
        p.drop = vec![4];
        p.send();
        p.round(50 * MS, |_| false);
        assert!(!p.s.is_done());
        let deadline = p.s.rto_deadline_ns.unwrap();
        // First RTT sample 50 ms: RTO = 50 + 4 * 25 = 150 ms, raised to the 200 ms floor.
        assert_eq!(deadline, 50 * MS + 200 * MS);
        p.now = deadline;
        p.s.on_timeout(deadline);
        assert_eq!(p.s.cc.cwnd, 1.0);
        p.send();
        p.round(50 * MS, |_| false);
        assert!(p.s.is_done());
        assert_eq!(p.s.timeouts, 1);
    }

    #[test]
    fn timer_backs_off_exponentially() {
        let mut s = Sender::new(Cc::new(CcKind::Reno), EcnMode::Off, None);
        let mut out = Vec::new();
        s.transmit(0, &mut out);
        assert_eq!(s.rto_deadline_ns, Some(1_000 * MS));
        s.on_timeout(1_000 * MS);
        assert_eq!(s.rto_deadline_ns, Some(3_000 * MS));
        s.on_timeout(3_000 * MS);
        assert_eq!(s.rto_deadline_ns, Some(7_000 * MS));
        assert_eq!(s.timeouts, 2);
    }

    #[test]
    fn classic_ecn_cuts_once_per_round_trip_without_retransmitting() {
        let mut p = Path::new(Sender::new(Cc::new(CcKind::Reno), EcnMode::Classic, None));
        p.send();
        p.round(50 * MS, |_| false);
        p.round(50 * MS, |_| false);
        let before = p.s.cc.cwnd;
        p.round(50 * MS, |_| true);
        assert_eq!(p.s.retransmits, 0);
        // One halving for a whole window of marks.
        assert!(
            (p.s.cc.cwnd - before / 2.0).abs() < 1.0,
            "{before} -> {}",
            p.s.cc.cwnd
        );
    }

    #[test]
    fn scalable_sender_cuts_by_half_alpha_once_per_round_trip() {
        let mut p = Path::new(Sender::new(
            Cc::new(CcKind::Scalable),
            EcnMode::Scalable,
            None,
        ));
        p.send();
        p.round(50 * MS, |_| false);
        let before = p.s.cc.cwnd;
        // Mark one packet in ten during one round: alpha starts at 1 and moves 1/16 towards 0.1 per round.
        p.round(50 * MS, |seq| seq % 10 == 0);
        assert!(p.s.cc.cwnd < before);
        assert!(p.s.cc.alpha < 1.0);
        assert_eq!(p.s.retransmits, 0);
        assert_eq!(p.s.recoveries, 0);
    }

    #[test]
    fn receiver_acks_cumulatively_and_flags_duplicates() {
        let mut r = Receiver::default();
        assert_eq!(r.on_packet(0), (1, true));
        assert_eq!(r.on_packet(2), (1, true));
        assert_eq!(r.on_packet(3), (1, true));
        assert_eq!(r.on_packet(2), (1, false));
        assert_eq!(r.on_packet(1), (4, true));
        assert_eq!(r.on_packet(0), (4, false));
    }
}
