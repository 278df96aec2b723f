//! FQ-CoDel (RFC 8290; Linux `sch_fq_codel`): flows hashed with a random key into 1024 buckets, each with
//! its own CoDel state and DRR deficit; new and old flow lists; a drop from the fattest bucket when the
//! qdisc is over its packet or memory limit.
//!
//! Memory is counted as packet bytes (Linux counts `skb->truesize`, somewhat more), so at the defaults the
//! 10240-packet limit binds before the 32 MB memory limit, as it does in Linux for full-size packets.

use super::codel::{CodelParams, CodelSource, CodelVars};
use super::MTU;
use crate::types::{
    Admission, Departure, DropReason, Dropped, Ecn, Header, MarkReason, Packet, QueueId,
};
use crate::Aqm;
use std::collections::HashMap;
use std::collections::VecDeque;

/// Parameters of [`FqCodel`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FqCodelParams {
    /// Number of hash buckets. Default 1024.
    pub flows: usize,
    /// DRR quantum, bytes. Default 1514.
    pub quantum: u32,
    /// Limit over all buckets, packets. Default 10240.
    pub limit: usize,
    /// Limit over all buckets, bytes. Default 32 MiB.
    pub memory_limit: u64,
    /// Most packets one over-limit drop removes from the fattest bucket. Default 64.
    pub drop_batch: usize,
    /// CoDel target, ns. Default 5 ms.
    pub target_ns: u64,
    /// CoDel interval, ns. Default 100 ms.
    pub interval_ns: u64,
    /// Mark ECN-capable packets instead of dropping them. Default on.
    pub ecn: bool,
    /// CoDel's "backlog within one MTU" guard, bytes (over the whole qdisc). Default 1514.
    pub mtu: u32,
    /// `ce_threshold`: CE-mark every ECT packet that leaves with a sojourn above this, ns (DCTCP-style
    /// marking for scalable flows, RFC 9330 section 5.2). Default off.
    pub ce_threshold_ns: Option<u64>,
    /// `ce_threshold_selector`/mask: only packets whose ToS byte (DSCP << 2 | ECN), masked, equals the
    /// selector are subject to `ce_threshold`. Mask 0 (the default): every packet is.
    pub ce_threshold_selector: u8,
    pub ce_threshold_mask: u8,
}

impl Default for FqCodelParams {
    fn default() -> Self {
        FqCodelParams {
            flows: 1024,
            quantum: MTU,
            limit: 10240,
            memory_limit: 32 << 20,
            drop_batch: 64,
            target_ns: 5_000_000,
            interval_ns: 100_000_000,
            ecn: true,
            mtu: MTU,
            ce_threshold_ns: None,
            ce_threshold_selector: 0,
            ce_threshold_mask: 0,
        }
    }
}

/// Which list a bucket is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Listed {
    No,
    New,
    Old,
}

#[derive(Clone, Debug)]
struct Bucket {
    q: VecDeque<(Packet, u64)>,
    /// Bytes queued in this bucket.
    backlog: u64,
    deficit: i64,
    vars: CodelVars,
    listed: Listed,
}

/// One bucket seen as CoDel's packet source; the backlog it reports is the whole qdisc's.
struct BucketSource<'a> {
    bucket: &'a mut Bucket,
    total_bytes: &'a mut u64,
    total_packets: &'a mut usize,
}

impl CodelSource for BucketSource<'_> {
    fn pop(&mut self) -> Option<(Packet, u64)> {
        let head = self.bucket.q.pop_front()?;
        let len = u64::from(head.0.len);
        self.bucket.backlog -= len;
        *self.total_bytes -= len;
        *self.total_packets -= 1;
        Some(head)
    }

    fn backlog_bytes(&self) -> u64 {
        *self.total_bytes
    }
}

/// The SplitMix64 finaliser: a keyed flow hash with good avalanche.
fn mix64(x: u64) -> u64 {
    let x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    let x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}

/// An FQ-CoDel qdisc.
#[derive(Clone, Debug)]
pub struct FqCodel {
    params: FqCodelParams,
    codel: CodelParams,
    buckets: Vec<Bucket>,
    new_flows: VecDeque<usize>,
    old_flows: VecDeque<usize>,
    total_packets: usize,
    total_bytes: u64,
    /// Secret hash key, drawn from the run seed (Linux draws it at qdisc creation).
    key: u64,
    /// Queued packets dropped by the last enqueue, reported through `take_pushed_out`.
    pushed_out: Vec<Dropped>,
    /// DSCP of queued packets by id, kept only when the ce_threshold selector looks at DSCP bits.
    dscp: HashMap<u64, u8>,
}

impl FqCodel {
    /// An FQ-CoDel qdisc whose hash key comes from `seed`.
    pub fn new(params: FqCodelParams, seed: u64) -> FqCodel {
        let bucket = Bucket {
            q: VecDeque::new(),
            backlog: 0,
            deficit: 0,
            vars: CodelVars::default(),
            listed: Listed::No,
        };
        FqCodel {
            codel: CodelParams {
                target_ns: params.target_ns,
                interval_ns: params.interval_ns,
                limit: params.limit,
                ecn: params.ecn,
                mtu: params.mtu,
            },
            buckets: vec![bucket; params.flows.max(1)],
            new_flows: VecDeque::new(),
            old_flows: VecDeque::new(),
            total_packets: 0,
            total_bytes: 0,
            key: mix64(seed ^ 0x6671_636F_6465_6C00),
            pushed_out: Vec::new(),
            dscp: HashMap::new(),
            params,
        }
    }

    /// Does `ce_threshold` apply to a departing packet with this DSCP? ECT only, and its ToS byte must
    /// match the selector under the mask.
    fn ce_threshold_applies(&self, pkt: &Packet, dscp: u8) -> bool {
        if !matches!(pkt.ecn, Ecn::Ect0 | Ecn::Ect1) {
            return false;
        }
        let tos = dscp << 2 | pkt.ecn.bits();
        tos & self.params.ce_threshold_mask == self.params.ce_threshold_selector
    }

    fn keeps_dscp(&self) -> bool {
        self.params.ce_threshold_ns.is_some() && self.params.ce_threshold_mask & 0xfc != 0
    }

    /// The bucket a flow hashes to: a keyed 64-bit hash scaled onto 0..flows (as Linux's
    /// `reciprocal_scale` does with its 32-bit hash).
    pub fn bucket_of(&self, flow: u32) -> usize {
        let h = mix64(u64::from(flow) ^ self.key) >> 32;
        ((h * self.buckets.len() as u64) >> 32) as usize
    }

    /// Over the limit: drop from the head of the bucket with the largest byte backlog until half of its
    /// bytes are gone or `drop_batch` packets were dropped; the drops count towards its CoDel count.
    fn drop_from_fattest(&mut self, now_ns: u64) {
        let mut fattest = 0;
        for (i, b) in self.buckets.iter().enumerate() {
            if b.backlog > self.buckets[fattest].backlog {
                fattest = i;
            }
        }
        let b = &mut self.buckets[fattest];
        let threshold = b.backlog / 2;
        let (mut freed, mut n) = (0u64, 0usize);
        while let Some((pkt, enqueued_ns)) = b.q.pop_front() {
            freed += u64::from(pkt.len);
            n += 1;
            self.pushed_out.push(Dropped {
                pkt,
                reason: DropReason::FqOverlimit,
                sojourn_ns: now_ns - enqueued_ns,
                queue: QueueId::Classic,
            });
            if n >= self.params.drop_batch || freed >= threshold {
                break;
            }
        }
        b.backlog -= freed;
        b.vars.count += n as u32;
        self.total_bytes -= freed;
        self.total_packets -= n;
    }
}

impl Aqm for FqCodel {
    fn name(&self) -> String {
        "fq_codel".into()
    }

    fn enqueue_with_header(&mut self, now_ns: u64, pkt: Packet, header: &Header) -> Admission {
        if self.keeps_dscp() && header.dscp != 0 {
            self.dscp.insert(pkt.id, header.dscp);
        }
        let a = self.enqueue(now_ns, pkt);
        if self.keeps_dscp() {
            if a == Admission::Dropped(DropReason::FqOverlimit) {
                self.dscp.remove(&pkt.id);
            }
            for d in &self.pushed_out {
                self.dscp.remove(&d.pkt.id);
            }
        }
        a
    }

    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission {
        self.pushed_out.clear();
        let idx = self.bucket_of(pkt.flow);
        let quantum = i64::from(self.params.quantum);
        let b = &mut self.buckets[idx];
        b.q.push_back((pkt, now_ns));
        b.backlog += u64::from(pkt.len);
        if b.listed == Listed::No {
            b.listed = Listed::New;
            b.deficit = quantum;
            self.new_flows.push_back(idx);
        }
        self.total_packets += 1;
        self.total_bytes += u64::from(pkt.len);
        if self.total_packets > self.params.limit || self.total_bytes > self.params.memory_limit {
            self.drop_from_fattest(now_ns);
        }
        // The arriving packet may itself have gone (its bucket was the fattest and short).
        super::arrival_verdict(&mut self.pushed_out, pkt.id)
    }

    fn take_pushed_out(&mut self, drops: &mut Vec<Dropped>) {
        drops.append(&mut self.pushed_out);
    }

    fn dequeue(&mut self, now_ns: u64, drops: &mut Vec<Dropped>) -> Option<Departure> {
        let quantum = i64::from(self.params.quantum);
        loop {
            let (idx, from_new) = match self.new_flows.front() {
                Some(&i) => (i, true),
                None => (*self.old_flows.front()?, false),
            };
            let list = if from_new {
                &mut self.new_flows
            } else {
                &mut self.old_flows
            };
            let b = &mut self.buckets[idx];
            if b.deficit <= 0 {
                b.deficit += quantum;
                list.pop_front();
                b.listed = Listed::Old;
                self.old_flows.push_back(idx);
                continue;
            }
            let mut src = BucketSource {
                bucket: b,
                total_bytes: &mut self.total_bytes,
                total_packets: &mut self.total_packets,
            };
            let mut vars = src.bucket.vars;
            let out = vars.dequeue(&self.codel, now_ns, &mut src, drops);
            b.vars = vars;
            match out {
                Some(mut d) => {
                    b.deficit -= i64::from(d.pkt.len);
                    let mut dscp = 0;
                    if self.keeps_dscp() {
                        for x in drops.iter() {
                            self.dscp.remove(&x.pkt.id);
                        }
                        dscp = self.dscp.remove(&d.pkt.id).unwrap_or(0);
                    }
                    if let Some(th) = self.params.ce_threshold_ns {
                        if d.sojourn_ns > th && self.ce_threshold_applies(&d.pkt, dscp) {
                            d.pkt.ecn = Ecn::Ce;
                            d.mark = Some(MarkReason::CeThreshold);
                        }
                    }
                    return Some(d);
                }
                None => {
                    list.pop_front();
                    // An emptied new flow takes one pass through old_flows, so it cannot starve them.
                    if from_new && !self.old_flows.is_empty() {
                        b.listed = Listed::Old;
                        self.old_flows.push_back(idx);
                    } else {
                        b.listed = Listed::No;
                    }
                }
            }
        }
    }

    fn backlog_packets(&self) -> usize {
        self.total_packets
    }

    fn backlog_bytes(&self) -> u64 {
        self.total_bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testutil::{pkt, run_link};

    const MS: u64 = 1_000_000;

    /// Flow ids that hash to distinct buckets under `q`'s key.
    fn distinct_flows(q: &FqCodel, n: usize) -> Vec<u32> {
        let mut seen = Vec::new();
        let mut flows = Vec::new();
        for f in 0.. {
            let b = q.bucket_of(f);
            if !seen.contains(&b) {
                seen.push(b);
                flows.push(f);
                if flows.len() == n {
                    break;
                }
            }
        }
        flows
    }

    #[test]
    fn sparse_flow_sees_sub_millisecond_queueing_beside_four_bulk_flows() {
        let mut q = FqCodel::new(FqCodelParams::default(), 1);
        let f = distinct_flows(&q, 5);
        // 100 Mbit/s link (a 1500-byte packet holds it for 0.12 ms); each bulk flow offers 50 Mbit/s (twice
        // the link in total); the sparse flow sends 100 bytes every 10 ms.
        let mut arrivals = Vec::new();
        let mut id = 0;
        for t in (0..5_000 * MS).step_by(240_000) {
            for &flow in &f[..4] {
                arrivals.push((t + u64::from(flow % 7) * 1000, pkt(id, flow, 1500)));
                id += 1;
            }
        }
        for t in (3 * MS..5_000 * MS).step_by(10 * MS as usize) {
            arrivals.push((t, pkt(id, f[4], 100)));
            id += 1;
        }
        arrivals.sort_by_key(|a| a.0);
        let log = run_link(&mut q, &arrivals, 100_000_000, 5_000 * MS);
        let mut sparse: Vec<u64> = log
            .departures
            .iter()
            .filter(|(t, d)| d.pkt.flow == f[4] && *t > 1_000 * MS)
            .map(|(_, d)| d.sojourn_ns)
            .collect();
        sparse.sort();
        assert!(sparse.len() > 300);
        let p99 = sparse[sparse.len() * 99 / 100];
        assert!(p99 < MS, "sparse p99 {p99} ns");
        // The bulk flows, meanwhile, are held near CoDel's target by drops.
        assert!(log.drops.len() > 100);
    }

    #[test]
    fn a_new_bucket_joins_new_flows_with_a_quantum_of_deficit() {
        let mut q = FqCodel::new(FqCodelParams::default(), 1);
        q.enqueue(0, pkt(0, 5, 1000));
        let idx = q.bucket_of(5);
        assert_eq!(q.new_flows, VecDeque::from([idx]));
        assert_eq!(q.buckets[idx].deficit, 1514);
        q.enqueue(0, pkt(1, 5, 1000));
        assert_eq!(q.new_flows.len(), 1, "a listed bucket is not added twice");
    }

    #[test]
    fn drr_shares_bytes_equally_between_flows_of_different_packet_sizes() {
        let mut q = FqCodel::new(FqCodelParams::default(), 1);
        let f = distinct_flows(&q, 2);
        for i in 0..400 {
            q.enqueue(0, pkt(2 * i, f[0], 1500));
            q.enqueue(0, pkt(2 * i + 1, f[1], 300));
        }
        let mut drops = Vec::new();
        let mut bytes = [0u64; 2];
        // Dequeue at time 0: sojourn 0, so CoDel never drops.
        for _ in 0..300 {
            let d = q.dequeue(0, &mut drops).unwrap();
            bytes[usize::from(d.pkt.flow == f[1])] += u64::from(d.pkt.len);
        }
        let ratio = bytes[0] as f64 / bytes[1] as f64;
        assert!((ratio - 1.0).abs() < 0.05, "byte ratio {ratio}");
    }

    #[test]
    fn an_emptied_new_bucket_passes_through_old_flows_before_leaving() {
        let mut q = FqCodel::new(FqCodelParams::default(), 1);
        let f = distinct_flows(&q, 2);
        let (a, b) = (q.bucket_of(f[0]), q.bucket_of(f[1]));
        let mut drops = Vec::new();
        q.enqueue(0, pkt(0, f[0], 1500));
        q.enqueue(0, pkt(1, f[0], 1500));
        q.dequeue(0, &mut drops).unwrap(); // a: deficit 1514 - 1500 = 14
        q.dequeue(0, &mut drops).unwrap(); // a: deficit 14 - 1500 < 0
        q.enqueue(0, pkt(2, f[1], 100));
        // a's deficit is spent: it moves to old_flows; then b (new) is served.
        assert_eq!(q.dequeue(0, &mut drops).unwrap().pkt.id, 2);
        assert_eq!(q.old_flows, VecDeque::from([a]));
        // b is empty now and old_flows is not: b moves to old_flows instead of leaving.
        assert!(q.dequeue(0, &mut drops).is_none());
        assert_eq!(q.buckets[b].listed, Listed::No);
        assert_eq!(q.buckets[a].listed, Listed::No);
        assert!(q.new_flows.is_empty() && q.old_flows.is_empty());
    }

    #[test]
    fn over_limit_drops_half_the_fattest_buckets_bytes_and_adds_to_its_codel_count() {
        let params = FqCodelParams {
            limit: 20,
            ..FqCodelParams::default()
        };
        let mut q = FqCodel::new(params, 1);
        let f = distinct_flows(&q, 2);
        for i in 0..16 {
            q.enqueue(0, pkt(i, f[0], 1000));
        }
        for i in 16..20 {
            q.enqueue(0, pkt(i, f[1], 1000));
        }
        assert_eq!(q.enqueue(1, pkt(20, f[1], 1000)), Admission::Enqueued);
        let mut out = Vec::new();
        q.take_pushed_out(&mut out);
        // Fattest: f[0] with 16000 bytes; drop from its head until 8000 bytes are gone.
        assert_eq!(out.len(), 8);
        assert!(out
            .iter()
            .all(|d| d.pkt.flow == f[0] && d.reason == DropReason::FqOverlimit));
        assert_eq!(out[0].pkt.id, 0);
        assert_eq!(q.buckets[q.bucket_of(f[0])].vars.count, 8);
        assert_eq!((q.backlog_packets(), q.backlog_bytes()), (13, 13_000));
    }

    #[test]
    fn over_limit_drop_is_capped_at_drop_batch_packets() {
        let params = FqCodelParams {
            limit: 100,
            drop_batch: 5,
            ..FqCodelParams::default()
        };
        let mut q = FqCodel::new(params, 1);
        for i in 0..101 {
            q.enqueue(0, pkt(i, 9, 500));
        }
        let mut out = Vec::new();
        q.take_pushed_out(&mut out);
        assert_eq!(out.len(), 5);
        assert_eq!(q.backlog_packets(), 96);
    }

    #[test]
    fn codel_mtu_guard_uses_the_whole_qdisc_backlog() {
        let mut q = FqCodel::new(FqCodelParams::default(), 1);
        let f = distinct_flows(&q, 2);
        let (a, _) = (q.bucket_of(f[0]), q.bucket_of(f[1]));
        // Bucket a holds a single old packet, far above target, and is already armed; bucket b holds a lot.
        q.enqueue(0, pkt(0, f[0], 1500));
        for i in 1..20 {
            q.enqueue(0, pkt(i, f[1], 1500));
        }
        q.buckets[a].vars.first_above_time_ns = Some(1);
        q.buckets[a].vars.drop_next_ns = 0;
        let mut drops = Vec::new();
        q.dequeue(200 * MS, &mut drops);
        // Bucket a alone is within one MTU, but the qdisc is not: CoDel drops a's packet.
        assert_eq!(drops.len(), 1);
        assert_eq!(drops[0].pkt.id, 0);
        assert_eq!(drops[0].reason, DropReason::Codel);
    }

    #[test]
    fn ect_packets_are_marked_not_dropped_by_default() {
        let mut q = FqCodel::new(FqCodelParams::default(), 1);
        for i in 0..20 {
            let mut p = pkt(i, 3, 1500);
            p.ecn = crate::types::Ecn::Ect1;
            q.enqueue(0, p);
        }
        let b = q.bucket_of(3);
        q.buckets[b].vars.first_above_time_ns = Some(1);
        let mut drops = Vec::new();
        let d = q.dequeue(200 * MS, &mut drops).unwrap();
        assert!(drops.is_empty());
        assert_eq!(d.mark, Some(crate::types::MarkReason::Codel));
    }

    fn ect_backlog(q: &mut FqCodel, ecn: crate::types::Ecn, dscp: u8) {
        for i in 0..20 {
            let mut p = pkt(i, 3, 1500);
            p.ecn = ecn;
            q.enqueue_with_header(
                0,
                p,
                &Header {
                    dscp,
                    ..Header::default()
                },
            );
        }
    }

    #[test]
    fn ce_threshold_marks_ect_packets_whose_sojourn_exceeds_it_long_before_codel_would() {
        let params = FqCodelParams {
            ce_threshold_ns: Some(MS),
            ..FqCodelParams::default()
        };
        let mut q = FqCodel::new(params, 1);
        ect_backlog(&mut q, Ecn::Ect1, 0);
        let mut drops = Vec::new();
        // 0.5 ms: below the threshold; 2 ms: above it (and far below CoDel's 5 ms target).
        assert_eq!(q.dequeue(MS / 2, &mut drops).unwrap().mark, None);
        let d = q.dequeue(2 * MS, &mut drops).unwrap();
        assert_eq!(
            (d.mark, d.pkt.ecn),
            (Some(MarkReason::CeThreshold), Ecn::Ce)
        );
        // Not-ECT packets are never marked (and not dropped for it).
        let mut q = FqCodel::new(params, 1);
        ect_backlog(&mut q, Ecn::NotEct, 0);
        assert_eq!(q.dequeue(2 * MS, &mut drops).unwrap().mark, None);
        assert!(drops.is_empty());
        // Off by default.
        let mut q = FqCodel::new(FqCodelParams::default(), 1);
        ect_backlog(&mut q, Ecn::Ect1, 0);
        assert_eq!(q.dequeue(2 * MS, &mut drops).unwrap().mark, None);
    }

    #[test]
    fn ce_threshold_selector_limits_marking_to_matching_tos_bytes() {
        // Linux's usual L4S setting: selector 0x01/0x01, ECT(1) only.
        let params = FqCodelParams {
            ce_threshold_ns: Some(MS),
            ce_threshold_selector: 0x01,
            ce_threshold_mask: 0x01,
            ..FqCodelParams::default()
        };
        let mut drops = Vec::new();
        for (ecn, marked) in [(Ecn::Ect1, true), (Ecn::Ect0, false)] {
            let mut q = FqCodel::new(params, 1);
            ect_backlog(&mut q, ecn, 0);
            assert_eq!(
                q.dequeue(2 * MS, &mut drops).unwrap().mark.is_some(),
                marked,
                "{ecn}"
            );
        }
        // A DSCP selector: EF (46 << 2 = 0xb8) under mask 0xfc.
        let params = FqCodelParams {
            ce_threshold_ns: Some(MS),
            ce_threshold_selector: 0xb8,
            ce_threshold_mask: 0xfc,
            ..FqCodelParams::default()
        };
        for (dscp, marked) in [(46, true), (0, false)] {
            let mut q = FqCodel::new(params, 1);
            ect_backlog(&mut q, Ecn::Ect0, dscp);
            assert_eq!(
                q.dequeue(2 * MS, &mut drops).unwrap().mark.is_some(),
                marked,
                "{dscp}"
            );
            assert_eq!(q.dscp.len(), if dscp == 0 { 0 } else { 19 });
        }
    }

    #[test]
    fn hash_key_comes_from_the_seed_and_spreads_flows_over_all_buckets() {
        let a = FqCodel::new(FqCodelParams::default(), 1);
        let b = FqCodel::new(FqCodelParams::default(), 2);
        let same = (0..1000)
            .filter(|&f| a.bucket_of(f) == b.bucket_of(f))
            .count();
        assert!(same < 20, "{same} flows kept their bucket across keys");
        let mut used = vec![false; 1024];
        for f in 0..20_000 {
            used[a.bucket_of(f)] = true;
        }
        assert!(used.iter().all(|&u| u));
        assert_eq!(
            a.bucket_of(77),
            FqCodel::new(FqCodelParams::default(), 1).bucket_of(77)
        );
    }
}
