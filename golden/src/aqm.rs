//! The one interface through which the network simulator drives any AQM: the software references, the
//! fixed-point golden models and the Verilated hardware cores.
//!
//! It is a qdisc's view: packets are offered at enqueue, and the link asks for the next packet when it is
//! free. Time is passed in with every call (ns since the start of the run, never decreasing); an AQM with
//! periodic work (PIE's and DualPI2's controllers) runs every update that fell due up to `now_ns` before it
//! handles the call, at the time the update was due, so the result does not depend on how often it is called.

use crate::types::{Admission, Departure, Dropped, Header, Packet};

/// A bottleneck queue discipline.
pub trait Aqm: Send {
    /// Name used in tables and plots (`"pie"`, `"codel"`, `"pie (hw)"`).
    fn name(&self) -> String;

    /// A packet arrives at `now_ns`.
    fn enqueue(&mut self, now_ns: u64, pkt: Packet) -> Admission;

    /// A packet arrives at `now_ns` with the IP-header fields a classifier may read. AQMs that do not look
    /// at them keep the default, which is [`Aqm::enqueue`].
    fn enqueue_with_header(&mut self, now_ns: u64, pkt: Packet, _header: &Header) -> Admission {
        self.enqueue(now_ns, pkt)
    }

    /// When `dequeue` answered `None` while packets are queued (a shaper holding them back), the earliest
    /// time the link should ask again, ns. Unshaped AQMs keep the default, `None`.
    fn next_dequeue_ns(&self) -> Option<u64> {
        None
    }

    /// The link is free at `now_ns` and asks for a packet. Packets the AQM drops at dequeue on the way are
    /// appended to `drops`. `None` means the queue is empty.
    fn dequeue(&mut self, now_ns: u64, drops: &mut Vec<Dropped>) -> Option<Departure>;

    /// Packets queued now.
    fn backlog_packets(&self) -> usize;

    /// Bytes queued now.
    fn backlog_bytes(&self) -> u64;

    /// Packets that were already queued and that the last `enqueue` call dropped to make room (FQ-CoDel's
    /// drop from the fattest flow), appended to `drops`. The simulator calls this after every `enqueue` so
    /// that every packet gets exactly one verdict; AQMs that only ever drop the arriving packet keep the
    /// default, which reports none.
    fn take_pushed_out(&mut self, _drops: &mut Vec<Dropped>) {}

    /// A model that can fail on its own (the Verilated hardware core: no verdict, a departure it never
    /// got) reports its first failure here; the simulator checks after every event and stops the run
    /// with it. Software models never fail and keep the default.
    fn fault(&self) -> Option<String> {
        None
    }

    /// Clock cycles a hardware model has been clocked so far, for the simulator's timing report; `None`
    /// for software models.
    fn cycles_clocked(&self) -> Option<u64> {
        None
    }
}
