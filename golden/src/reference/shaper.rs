//! An HTB-like token-bucket shaper in front of any AQM: the qdisc under it sees a link of the shaper's
//! rate, so the queue forms (and is managed) here instead of in a device further down the path.
//!
//! Tokens are kept as time, as HTB does: they accrue at one ns per ns up to the bucket depth (`burst`
//! bytes at the rate), and a packet of `len` bytes costs `len * 8 / rate` s of them. The shaper takes the
//! inner qdisc's next packet when the link asks (like HTB's peek, which dequeues and holds it) and sends it
//! as soon as there are tokens for it; until then `next_dequeue_ns` says when to ask again.

use crate::types::{Admission, Departure, Dropped, Header, Packet};
use crate::Aqm;

/// Parameters of [`TokenBucket`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TokenBucketParams {
    /// Shaping rate, bit/s.
    pub rate_bps: u64,
    /// Bucket depth, bytes. Default: 1 ms at the rate, at least 1600 bytes (HTB's order of magnitude).
    pub burst_bytes: u64,
}

impl TokenBucketParams {
    pub fn at_rate(rate_bps: u64) -> TokenBucketParams {
        TokenBucketParams {
            rate_bps,
            burst_bytes: (rate_bps / 8 / 1000).max(1600),
        }
    }
}

/// A token-bucket shaper around an inner qdisc.
pub struct TokenBucket {
    params: TokenBucketParams,
    inner: Box<dyn Aqm>,
    /// Tokens as ns of sending time, and when they were last topped up.
    tokens_ns: u64,
    updated_ns: u64,
    /// The inner qdisc's packet waiting for tokens, and when it was taken.
    held: Option<(Departure, u64)>,
}

impl TokenBucket {
    pub fn new(params: TokenBucketParams, inner: Box<dyn Aqm>) -> Result<TokenBucket, String> {
        if params.rate_bps == 0 {
            return Err("the shaping rate must be more than 0".into());
        }
        let mut t = TokenBucket {
            params,
            inner,
            tokens_ns: 0,
            updated_ns: 0,
            held: None,
        };
        t.tokens_ns = t.cost_ns(params.burst_bytes);
        Ok(t)
    }

    fn cost_ns(&self, bytes: u64) -> u64 {
        (u128::from(bytes) * 8_000_000_000 / u128::from(self.params.rate_bps)) as u64
    }

    fn refill(&mut self, now_ns: u64) {
        let depth = self.cost_ns(self.params.burst_bytes);
        let elapsed = now_ns.saturating_sub(self.updated_ns);
        self.tokens_ns = (self.tokens_ns + elapsed).min(depth);
        self.updated_ns = self.updated_ns.max(now_ns);
    }

    /// The inner qdisc.
    pub fn inner(&self) -> &dyn Aqm {
        self.inner.as_ref()
    }
}

impl Aqm for TokenBucket {
    fn name(&self) -> String {
        format!("{} (htb)", self.inner.name())
    }

    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission {
        self.inner.enqueue(now_ns, pkt)
    }

    fn enqueue_with_header(&mut self, now_ns: u64, pkt: Packet, header: &Header) -> Admission {
        self.inner.enqueue_with_header(now_ns, pkt, header)
    }

    fn take_pushed_out(&mut self, drops: &mut Vec<Dropped>) {
        self.inner.take_pushed_out(drops);
    }

    fn dequeue(&mut self, now_ns: u64, drops: &mut Vec<Dropped>) -> Option<Departure> {
        self.refill(now_ns);
        if self.held.is_none() {
            let d = self.inner.dequeue(now_ns, drops)?;
            self.held = Some((d, now_ns));
        }
        let (d, _) = self.held?;
        let cost = self.cost_ns(u64::from(d.pkt.len));
        if self.tokens_ns < cost {
            return None;
        }
        self.tokens_ns -= cost;
        let (mut d, taken) = self.held.take()?;
        d.sojourn_ns += now_ns - taken;
        Some(d)
    }

    fn next_dequeue_ns(&self) -> Option<u64> {
        match &self.held {
            Some((d, _)) => {
                let cost = self.cost_ns(u64::from(d.pkt.len));
                Some(self.updated_ns + cost.saturating_sub(self.tokens_ns))
            }
            None => self.inner.next_dequeue_ns(),
        }
    }

    fn backlog_packets(&self) -> usize {
        self.inner.backlog_packets() + usize::from(self.held.is_some())
    }

    fn backlog_bytes(&self) -> u64 {
        self.inner.backlog_bytes() + self.held.map_or(0, |(d, _)| u64::from(d.pkt.len))
    }

    fn fault(&self) -> Option<String> {
        self.inner.fault()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reference::testutil::pkt;
    use crate::reference::{TailDrop, TailDropParams};

    #[test]
    fn a_standing_backlog_leaves_at_the_shaping_rate_after_the_burst() {
        let inner = Box::new(TailDrop::new(TailDropParams { limit: 100_000 }));
        let mut t = TokenBucket::new(TokenBucketParams::at_rate(8_000_000), inner).unwrap();
        for i in 0..5000 {
            t.enqueue(0, pkt(i, 0, 1000));
        }
        let (mut now, mut n) = (0u64, 0u64);
        let mut drops = Vec::new();
        while now <= 1_000_000_000 {
            match t.dequeue(now, &mut drops) {
                Some(_) => n += 1,
                None => now = t.next_dequeue_ns().unwrap().max(now + 1),
            }
        }
        // 1 Mbyte/s for 1 s, plus the 1600-byte bucket (one packet).
        assert!((1000..=1003).contains(&n), "{n}");
        assert_eq!(t.backlog_packets(), 5000 - n as usize);
    }

    #[test]
    fn a_zero_rate_is_an_error() {
        let inner = Box::new(TailDrop::new(TailDropParams::default()));
        assert!(TokenBucket::new(TokenBucketParams::at_rate(0), inner).is_err());
    }
}
