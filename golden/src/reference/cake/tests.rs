use super::config::{self, CakeParams, Diffserv, FlowMode, Framing};
use super::*;
use crate::reference::testutil::pkt;

const MS: u64 = 1_000_000;

fn cake(params: CakeParams) -> Cake {
    Cake::new(params, 1).unwrap()
}

fn hdr(dscp: u8, src: u32, dst: u32) -> Header {
    Header {
        dscp,
        src_host: src,
        dst_host: dst,
    }
}

/// Dequeues everything that can go at `now`, at time 0 for an unshaped CAKE.
fn drain(q: &mut Cake, n: usize) -> Vec<Departure> {
    let mut drops = Vec::new();
    (0..n).map_while(|_| q.dequeue(0, &mut drops)).collect()
}

/// Flow ids whose direct index falls in the same 8-way set, and how many were looked at.
fn flows_in_one_set(q: &Cake, n: usize) -> Vec<u32> {
    let set = q.direct_index(0) / SET_WAYS;
    (0..)
        .filter(|&f| q.direct_index(f) / SET_WAYS == set)
        .take(n)
        .collect()
}

#[test]
fn eight_flows_of_one_set_get_eight_queues_and_the_ninth_collides_into_its_direct_queue() {
    let mut q = cake(CakeParams {
        flow_mode: FlowMode::Flows,
        ..CakeParams::default()
    });
    let flows = flows_in_one_set(&q, 9);
    let h = Header::default();
    let mut placed = Vec::new();
    for (i, &f) in flows.iter().enumerate() {
        q.enqueue_with_header(0, pkt(i as u64, f, 1000), &h);
        placed.push(q.hash(0, f, &h)); // a second lookup of a now-busy flow
    }
    let set = placed[0] / SET_WAYS;
    assert!(placed.iter().all(|&i| i / SET_WAYS == set));
    let mut first_eight = placed[..8].to_vec();
    first_eight.sort();
    first_eight.dedup();
    assert_eq!(first_eight.len(), 8, "the first eight flows share no queue");
    assert_eq!(
        placed[8],
        q.direct_index(flows[8]),
        "the ninth shares its direct queue"
    );
    let st = &q.tin_stats()[0];
    assert_eq!(st.way_cols, 1);
    // Where the direct queue was free the flow went there (way_miss); others took a free way.
    assert_eq!(st.way_miss, 8);
    // Looking a busy flow up again finds it: directly, or in another way of the set.
    assert_eq!(st.way_inds + st.way_hits, 9 - 1 + 1);
}

#[test]
fn set_associative_hashing_collides_less_than_direct_mapping() {
    let mut q = cake(CakeParams {
        flow_mode: FlowMode::Flows,
        ..CakeParams::default()
    });
    // 600 concurrent flows in 1024 queues: direct mapping shares a queue for many of them.
    let direct: std::collections::HashSet<usize> = (0..600).map(|f| q.direct_index(f)).collect();
    for f in 0..600u32 {
        q.enqueue_with_header(0, pkt(u64::from(f), f, 100), &Header::default());
    }
    let cols = q.tin_stats()[0].way_cols;
    let direct_shared = 600 - direct.len() as u64;
    assert!(direct_shared > 100, "{direct_shared}");
    assert!(
        cols * 10 < direct_shared,
        "{cols} collisions vs {direct_shared}"
    );
}

#[test]
fn a_host_with_one_flow_gets_as_much_as_a_host_with_sixteen() {
    for mode in [FlowMode::DualSrcHost, FlowMode::TripleIsolate] {
        let mut q = cake(CakeParams {
            flow_mode: mode,
            diffserv: Diffserv::Besteffort,
            ..CakeParams::default()
        });
        // Enough packets that neither host runs dry while 2000 are sent.
        let mut id = 0;
        for _ in 0..1500 {
            q.enqueue_with_header(0, pkt(id, 1000, 1500), &hdr(0, 1, 99));
            id += 1;
        }
        // Each flow to a server of its own: triple-isolate's destination hosts then carry one flow each.
        for _ in 0..100 {
            for f in 0..16 {
                q.enqueue_with_header(0, pkt(id, f, 1500), &hdr(0, 2, 100 + f));
                id += 1;
            }
        }
        let mut bytes = [0u64; 2];
        for d in drain(&mut q, 2000).iter().skip(200) {
            bytes[usize::from(d.pkt.flow != 1000)] += u64::from(d.pkt.len);
        }
        let share = bytes[0] as f64 / (bytes[0] + bytes[1]) as f64;
        assert!((share - 0.5).abs() < 0.05, "{mode}: host 1 got {share}");
    }
    // Per-flow fairness instead: one flow in seventeen.
    let mut q = cake(CakeParams {
        flow_mode: FlowMode::Flows,
        diffserv: Diffserv::Besteffort,
        ..CakeParams::default()
    });
    let mut id = 0;
    for _ in 0..300 {
        for f in 0..17 {
            q.enqueue_with_header(0, pkt(id, f, 1500), &hdr(0, u32::from(f != 16), 9));
            id += 1;
        }
    }
    let n = drain(&mut q, 1700)
        .iter()
        .filter(|d| d.pkt.flow == 16)
        .count();
    assert!((90..=110).contains(&n), "{n} of 1700");
}

#[test]
fn srchost_mode_keeps_one_queue_per_source_host() {
    let mut q = cake(CakeParams {
        flow_mode: FlowMode::SrcHost,
        ..CakeParams::default()
    });
    let a = q.hash(0, 1, &hdr(0, 7, 1));
    assert_eq!(q.hash(0, 2, &hdr(0, 7, 2)), a);
    assert_ne!(q.hash(0, 1, &hdr(0, 8, 1)), a);
    let mut q = cake(CakeParams {
        flow_mode: FlowMode::Flowblind,
        ..CakeParams::default()
    });
    assert_eq!(q.hash(0, 1, &hdr(0, 7, 1)), q.hash(0, 2, &hdr(0, 8, 2)));
}

#[test]
fn blue_raises_its_probability_against_an_unresponsive_flow_and_drops_it() {
    // 10 Mbit/s shaped, 200 kB memory; a 30 Mbit/s unresponsive flow of ECT packets (marks do not slow
    // it) beside a 2 Mbit/s flow.
    let mut q = cake(CakeParams {
        bandwidth_bps: Some(10_000_000),
        memlimit: Some(200_000),
        diffserv: Diffserv::Besteffort,
        ..CakeParams::default()
    });
    let (mut t, mut id, mut next_small) = (0u64, 0u64, 0u64);
    let (mut drops, mut blue, mut sent) = (Vec::new(), 0usize, [0u64; 2]);
    let end = 10_000 * MS;
    let mut next_pull = 0u64;
    while t < end {
        // 1500 B at 30 Mbit/s: one every 400 us.
        let mut p = pkt(id, 1, 1500);
        p.ecn = Ecn::Ect0;
        q.enqueue(t, p);
        let mut out = Vec::new();
        q.take_pushed_out(&mut out);
        id += 1;
        if t >= next_small {
            q.enqueue(t, pkt(id, 2, 1500));
            id += 1;
            next_small += 6 * MS;
        }
        t += 400_000;
        while next_pull <= t {
            if let Some(d) = q.dequeue(next_pull, &mut drops) {
                sent[usize::from(d.pkt.flow == 2)] += 1;
            }
            next_pull = q.next_dequeue_ns().unwrap_or(t + 1).max(next_pull + 1);
        }
        blue += drops
            .drain(..)
            .filter(|d| d.reason == DropReason::Blue)
            .count();
    }
    let idx = q.hash(0, 1, &Header::default());
    let f = &q.tins[0].flows[idx];
    assert!(f.cvars.p_drop > 0, "BLUE stayed at rest");
    assert!(blue > 100, "{blue} BLUE drops");
    assert!(q.tin_stats()[0].unresponsive_flows >= 1);
    // The small flow keeps its 2 Mbit/s (about 1650 packets in 10 s).
    assert!(sent[1] > 1500, "{sent:?}");
}

#[test]
fn blue_decays_when_the_queue_empties() {
    let mut q = cake(CakeParams {
        diffserv: Diffserv::Besteffort,
        ..CakeParams::default()
    });
    let idx = q.hash(0, 1, &Header::default());
    q.enqueue(0, pkt(0, 1, 100));
    q.tins[0].flows[idx].cvars.p_drop = 3 << 20;
    for i in 1..200 {
        q.enqueue(0, pkt(i, 2, 100));
    }
    // Flow 1 empties and stays in the decaying rotation; each dequeue looks at it first, and lowers its
    // p_drop by 1/4096 at most once per target (5 ms).
    let mut drops = Vec::new();
    for i in 0..13 {
        q.dequeue(i * MS, &mut drops).unwrap();
    }
    let f = &q.tins[0].flows[idx];
    assert_eq!(f.set, FlowSet::Decaying);
    assert_eq!(
        f.cvars.p_drop,
        1 << 20,
        "two steps down in 12 ms (at 6 and 12 ms)"
    );
}

/// Packets the shaper sends in one second from a standing backlog of `len`-byte packets.
fn sent_in_one_second(params: CakeParams, len: u32) -> u64 {
    let n = params.bandwidth_bps.unwrap() / 8 / u64::from(params.adjusted_len(len)) + 100;
    let mut q = cake(params);
    for i in 0..n {
        // ECT, so that COBALT marks instead of eating the backlog.
        let mut p = pkt(i, (i % 4) as u32, len);
        p.ecn = Ecn::Ect0;
        q.enqueue(0, p);
    }
    let mut drops = Vec::new();
    let (mut now, mut n) = (0u64, 0u64);
    while now < 1_000 * MS {
        match q.dequeue(now, &mut drops) {
            Some(_) => n += 1,
            None => now = q.next_dequeue_ns().unwrap().max(now + 1),
        }
    }
    n
}

#[test]
fn the_shaper_sends_at_its_rate_counting_each_overhead_keyword_to_within_one_packet() {
    let rate = 10_000_000u64;
    let mut cases = vec![("raw", 1000u32), ("raw", 40)];
    cases.extend(config::OVERHEAD_PRESETS.iter().map(|p| (p.name, 1000)));
    cases.extend([("ethernet", 40), ("docsis", 40), ("pppoe-ptm", 40)]);
    for (kw, len) in cases {
        let mut p = CakeParams {
            bandwidth_bps: Some(rate),
            memlimit: Some(100 << 20),
            ..CakeParams::default()
        };
        p.apply_keyword(kw).unwrap();
        let adj = p.adjusted_len(len);
        let expected = rate / 8 / u64::from(adj);
        let n = sent_in_one_second(p, len);
        assert!(
            n.abs_diff(expected) <= 1,
            "{kw}, {len} B (charged {adj} B): {n} sent, {expected} expected"
        );
    }
}

#[test]
fn overhead_keywords_add_their_bytes_mpu_and_framing() {
    let adj = |kw: &str, len| {
        let mut p = CakeParams::default();
        p.apply_keyword(kw).unwrap();
        p.adjusted_len(len)
    };
    assert_eq!(adj("raw", 1500), 1500);
    assert_eq!(adj("ethernet", 1500), 1538);
    assert_eq!(adj("ethernet", 20), 84); // mpu
    assert_eq!(adj("docsis", 1500), 1518);
    assert_eq!(adj("docsis", 20), 64);
    // ATM: (1500 + 40) bytes take 33 cells of 48 bytes, 53 bytes each.
    assert_eq!(adj("pppoe-llcsnap", 1500), 33 * 53);
    assert_eq!(adj("pppoe-ptm", 1500), 1530 + 24);
    let mut p = CakeParams::default();
    p.set_overhead(10);
    p.apply_keyword("atm").unwrap();
    p.mpu = 100;
    assert_eq!(p.adjusted_len(40), 3 * 53); // max(50, 100) -> 3 cells
}

#[test]
fn rtt_presets_set_the_interval_and_a_twentieth_of_it_as_target() {
    for (name, rtt) in config::RTT_PRESETS {
        let mut p = CakeParams::default();
        p.apply_keyword(name).unwrap();
        assert_eq!((p.interval_ns, p.target_ns), (rtt, rtt / 20), "{name}");
    }
    let q = cake(CakeParams::default());
    assert_eq!(q.tins[0].cparams.target_ns, 5 * MS);
    assert_eq!(q.tins[0].cparams.interval_ns, 100 * MS);
    // At a low rate the target grows to 1.5 MTU times and the interval with it.
    let q = cake(CakeParams {
        bandwidth_bps: Some(1_000_000),
        ..CakeParams::default()
    });
    let mtu_time = 1514 * 8 * 1000; // ns at 1 Mbit/s
    let c = q.tins[0].cparams;
    assert!(
        c.target_ns.abs_diff(mtu_time * 3 / 2) < 10,
        "{}",
        c.target_ns
    );
    assert_eq!(c.interval_ns, 100 * MS + c.target_ns - 5 * MS);
}

#[test]
fn dscp_selects_the_tin_in_each_diffserv_mode() {
    use config::{AF11, AF41, CS0, CS1, CS2, CS6, EF, LE, VA};
    let ds3 = Diffserv::Diffserv3;
    assert_eq!(
        [CS0, CS1, LE, EF, VA, CS6, AF41].map(|d| ds3.tin_of(d)),
        [0, 1, 1, 2, 2, 2, 0]
    );
    let ds4 = Diffserv::Diffserv4;
    assert_eq!(
        [CS0, CS1, AF41, CS2, EF, AF11].map(|d| ds4.tin_of(d)),
        [0, 1, 2, 2, 3, 0]
    );
    let ds8 = Diffserv::Diffserv8;
    assert_eq!(
        [LE, CS1, CS0, AF41, CS2, EF, CS6].map(|d| ds8.tin_of(d)),
        [0, 1, 2, 3, 5, 6, 7]
    );
    assert_eq!(Diffserv::Besteffort.tin_of(EF), 0);
    assert_eq!(Diffserv::Precedence.tin_of(CS6), 6);
    assert_eq!(ds3.tins().len(), 3);
    assert_eq!(
        Diffserv::Diffserv8.tins()[1].rate_num * 8,
        7 * Diffserv::Diffserv8.tins()[1].rate_den
    );
}

#[test]
fn voice_goes_first_up_to_its_threshold_then_shares() {
    // Shaped at 10 Mbit/s; Voice's threshold is a quarter of it. A standing backlog in both tins: Voice
    // gets about its quarter (it is preferred while under its threshold), Best Effort the rest.
    let mut q = cake(CakeParams {
        bandwidth_bps: Some(10_000_000),
        memlimit: Some(100 << 20),
        ..CakeParams::default()
    });
    for i in 0..4000 {
        q.enqueue_with_header(0, pkt(2 * i, 1, 1000), &hdr(0, 0, 0));
        q.enqueue_with_header(0, pkt(2 * i + 1, 2, 1000), &hdr(config::EF, 0, 0));
    }
    let (mut now, mut voice, mut all) = (0u64, 0u64, 0u64);
    let mut drops = Vec::new();
    while now < 1_000 * MS {
        match q.dequeue(now, &mut drops) {
            Some(d) => {
                all += 1;
                voice += u64::from(d.pkt.flow == 2);
            }
            None => now = q.next_dequeue_ns().unwrap().max(now + 1),
        }
    }
    let share = voice as f64 / all as f64;
    assert!((0.2..0.3).contains(&share), "voice share {share}");
    // Alone, a Voice flow may use the whole rate.
    let mut q = cake(CakeParams {
        bandwidth_bps: Some(10_000_000),
        memlimit: Some(100 << 20),
        ..CakeParams::default()
    });
    for i in 0..4000 {
        q.enqueue_with_header(0, pkt(i, 2, 1000), &hdr(config::EF, 0, 0));
    }
    let mut n = 0;
    now = 0;
    while now < 1_000 * MS {
        match q.dequeue(now, &mut drops) {
            Some(_) => n += 1,
            None => now = q.next_dequeue_ns().unwrap().max(now + 1),
        }
    }
    assert!(n >= 1249, "{n}");
}

#[test]
fn unshaped_tins_share_by_their_weights() {
    let mut q = cake(CakeParams::default());
    for i in 0..3000 {
        q.enqueue_with_header(0, pkt(2 * i, 1, 1000), &hdr(0, 0, 0));
        q.enqueue_with_header(0, pkt(2 * i + 1, 2, 1000), &hdr(config::CS1, 0, 0));
    }
    let d = drain(&mut q, 2800);
    let bulk = d.iter().filter(|d| d.pkt.flow == 2).count() as f64;
    // Weights 1024 : 64.
    assert!(
        (bulk / d.len() as f64 - 64.0 / 1088.0).abs() < 0.01,
        "{bulk}"
    );
}

#[test]
fn wash_counts_and_clears_the_dscp_after_classification() {
    let mut q = cake(CakeParams {
        wash: true,
        ..CakeParams::default()
    });
    q.enqueue_with_header(0, pkt(0, 1, 100), &hdr(config::EF, 0, 0));
    q.enqueue_with_header(0, pkt(1, 2, 100), &hdr(0, 0, 0));
    assert_eq!(q.washed(), 1);
    // Classified before the wash: the EF packet is in Voice.
    assert_eq!(q.tins[2].stats.packets, 1);
}

#[test]
fn a_new_sparse_flow_is_served_before_the_bulk_flows() {
    let mut q = cake(CakeParams::default());
    for i in 0..50 {
        q.enqueue(0, pkt(i, 1, 1500));
    }
    let _ = drain(&mut q, 3);
    q.enqueue(0, pkt(100, 2, 100));
    assert_eq!(drain(&mut q, 1)[0].pkt.id, 100);
}

#[test]
fn ect_packets_are_marked_and_not_ect_ones_dropped_over_target() {
    for ecn in [Ecn::Ect0, Ecn::Ect1, Ecn::NotEct] {
        let mut q = cake(CakeParams::default());
        for i in 0..400 {
            let mut p = pkt(i, 1, 1500);
            p.ecn = ecn;
            q.enqueue(0, p);
        }
        let mut drops = Vec::new();
        let mut marks = 0;
        for i in 0..300 {
            if let Some(d) = q.dequeue(10 * MS + i * MS, &mut drops) {
                marks += usize::from(d.mark == Some(MarkReason::Codel));
                assert_eq!(d.mark.is_some(), d.pkt.ecn == Ecn::Ce);
            }
        }
        if ecn == Ecn::NotEct {
            assert!(marks == 0 && !drops.is_empty());
            assert!(drops.iter().all(|d| d.reason == DropReason::Codel));
        } else {
            assert!(marks > 0 && drops.is_empty(), "{ecn}: {marks} marks");
        }
    }
}

#[test]
fn ingress_mode_charges_dropped_packets_to_the_shaper() {
    let run = |ingress| {
        let mut q = cake(CakeParams {
            bandwidth_bps: Some(10_000_000),
            memlimit: Some(100 << 20),
            ingress,
            ..CakeParams::default()
        });
        for i in 0..5000 {
            q.enqueue(0, pkt(i, 1, 1000));
        }
        let (mut now, mut sent, mut dropped) = (0u64, 0u64, 0u64);
        let mut drops = Vec::new();
        while now < 2_000 * MS {
            match q.dequeue(now, &mut drops) {
                Some(_) => sent += 1,
                None => now = q.next_dequeue_ns().unwrap_or(u64::MAX).max(now + 1),
            }
            dropped += drops.drain(..).count() as u64;
        }
        (sent, dropped)
    };
    let (sent_e, dropped_e) = run(false);
    let (sent_i, dropped_i) = run(true);
    assert!(dropped_e > 0 && dropped_i > 0);
    // Egress: the link carries 2 s of packets. Ingress: drops take link time too.
    assert!(sent_e.abs_diff(2500) <= 2, "{sent_e}");
    assert!(
        (sent_i + dropped_i).abs_diff(2500) <= 2,
        "{sent_i} + {dropped_i}"
    );
}

#[test]
fn over_the_memory_limit_the_longest_queue_loses_its_head_and_its_blue_steps_up() {
    let mut q = cake(CakeParams {
        memlimit: Some(10_000),
        ..CakeParams::default()
    });
    for i in 0..8 {
        q.enqueue(0, pkt(i, 1, 1000));
    }
    q.enqueue(0, pkt(8, 2, 1000));
    q.enqueue(MS, pkt(9, 2, 1000));
    assert_eq!(q.enqueue(10 * MS, pkt(10, 2, 1000)), Admission::Enqueued);
    let mut out = Vec::new();
    q.take_pushed_out(&mut out);
    assert_eq!(out.len(), 1);
    assert_eq!((out[0].pkt.id, out[0].reason), (0, DropReason::FqOverlimit));
    assert_eq!(q.backlog_bytes(), 10_000);
    let idx = q.hash(0, 1, &Header::default());
    assert_eq!(q.tins[0].flows[idx].cvars.p_drop, 1 << 24);
    assert_eq!(q.tin_stats()[0].overlimit_drops, 1);
}

#[test]
fn bad_configurations_and_ack_filter_are_errors_not_panics() {
    let mut p = CakeParams::default();
    let e = p.apply_keyword("ack-filter").unwrap_err();
    assert!(e.0.contains("ACKs"), "{e}");
    assert!(p
        .apply_keyword("diffserv5")
        .unwrap_err()
        .0
        .contains("diffserv4"));
    let bad = CakeParams {
        bandwidth_bps: Some(0),
        ..CakeParams::default()
    };
    assert!(Cake::new(bad, 1).is_err());
    let bad = CakeParams {
        overhead: 1000,
        ..CakeParams::default()
    };
    assert!(Cake::new(bad, 1).is_err());
}

#[test]
fn tc_stats_show_every_tin() {
    let mut q = cake(CakeParams {
        bandwidth_bps: Some(18_000_000),
        diffserv: Diffserv::Diffserv4,
        ..CakeParams::default()
    });
    q.enqueue(0, pkt(0, 1, 1500));
    let s = q.tc_stats();
    for w in [
        "Bulk",
        "Best Effort",
        "Video",
        "Voice",
        "way_cols",
        "thresh",
        "18000Kbit",
        "un_flows",
    ] {
        assert!(s.contains(w), "{w} missing from\n{s}");
    }
}

#[test]
fn every_packet_is_accounted_for_and_a_seed_gives_the_same_run() {
    let run = |seed| {
        let mut q = Cake::new(
            CakeParams {
                bandwidth_bps: Some(5_000_000),
                memlimit: Some(60_000),
                diffserv: Diffserv::Diffserv4,
                ..CakeParams::default()
            },
            seed,
        )
        .unwrap();
        let (mut log, mut drops, mut in_q) = (Vec::new(), Vec::new(), 0i64);
        let mut x = seed;
        let mut now = 0;
        for id in 0..20_000u64 {
            x = super::mix64(x + 1);
            now += x % 400_000;
            let h = hdr((x >> 8) as u8 & 63, (x >> 20) as u32 % 4, 0);
            let mut p = pkt(id, (x >> 32) as u32 % 40, 64 + (x >> 40) as u32 % 1437);
            p.ecn = Ecn::from_bits((x >> 50) as u8);
            if q.enqueue_with_header(now, p, &h) != Admission::Dropped(DropReason::FqOverlimit) {
                in_q += 1;
            }
            q.take_pushed_out(&mut drops);
            for _ in 0..(x >> 60) {
                if let Some(d) = q.dequeue(now, &mut drops) {
                    log.push((d.pkt.id, now));
                    in_q -= 1;
                }
            }
            in_q -= drops.len() as i64;
            log.extend(drops.drain(..).map(|d| (d.pkt.id, u64::MAX)));
            assert_eq!(in_q, q.backlog_packets() as i64);
            let bytes: u64 = q.tins.iter().map(|b| b.backlog).sum();
            assert_eq!(bytes, q.backlog_bytes());
        }
        log
    };
    assert_eq!(run(3), run(3));
    assert_ne!(run(3), run(4));
}

#[test]
fn framing_keywords_set_only_the_framing() {
    let mut p = CakeParams::default();
    p.apply_keyword("atm").unwrap();
    assert_eq!((p.framing, p.compensate), (Framing::Atm, false));
    p.apply_keyword("noatm").unwrap();
    assert_eq!(p.framing, Framing::None);
}
