//! Packets per clock at the ports, measured on the golden model, the rust-hdl simulation (both head
//! forms) and the Verilated RTL of every core (back-to-back descriptors at ingress; `out_ready` high at egress, the link
//! model off): all agree, ingress takes one descriptor per clock, and egress gives what the core's
//! contract page says: one beat per clock for both.

use aqm_golden::hw::{packet_rates, ClockedCore, PacketRates, CORES};
use aqm_hdl::head_queue::Heads;
use aqm_verilated::VerilatedCore;

#[test]
fn ingress_and_egress_rates_agree_on_every_model() {
    for kind in CORES {
        let models: Vec<Box<dyn ClockedCore + Send>> = vec![
            kind.model(),
            (aqm_hdl::cores::hdl_core(*kind).simulate)(Heads::Registers),
            (aqm_hdl::cores::hdl_core(*kind).simulate)(Heads::Ram),
            Box::new(VerilatedCore::new(*kind)),
        ];
        let rates: Vec<(&str, PacketRates)> = models
            .into_iter()
            .map(|m| {
                let name = m.model_name();
                let r = packet_rates(*kind, m)
                    .unwrap_or_else(|e| panic!("{} ({name}): {e}", kind.name()));
                (name, r)
            })
            .collect();
        eprintln!("{}: {rates:?}", kind.name());
        for (name, r) in &rates[1..] {
            assert_eq!(*r, rates[0].1, "{} {name} vs golden", kind.name());
        }
        let r = rates[0].1;
        assert_eq!(r.ingress, 1.0, "{}", kind.name());
        assert_eq!(r.egress, 1.0, "{}: egress beats per clock", kind.name());
    }
}
