//! The two-queue path (an AQM at a gateway or host egress feeding a downstream FIFO), the shapers that
//! move the queue to where it is managed, the tunnel, and the new AQMs: conservation (checked by every
//! run), determinism, and the effects the scenarios are about.

use aqm_netsim::output::{runs_csv, summary_csv};
use aqm_netsim::registry::{AqmSpec, Registry};
use aqm_netsim::run_scenario;
use aqm_netsim::runner::Report;
use aqm_netsim::scenario::named;

fn specs(names: &[&str]) -> Vec<AqmSpec> {
    names.iter().map(|a| AqmSpec::parse(a).unwrap()).collect()
}

fn gateway(seconds: f64, aqms: &[&str], seeds: &[u64]) -> Report {
    let mut s = named("gateway").unwrap();
    s.scale_time(seconds / 60.0);
    run_scenario(&s, &specs(aqms), seeds, &Registry::with_builtins(), false).unwrap()
}

fn col(report: &Report, aqm: &str, name: &str) -> f64 {
    let row = report
        .summary()
        .into_iter()
        .find(|r| r.aqm == aqm)
        .unwrap_or_else(|| panic!("no row {aqm}"));
    row.columns
        .iter()
        .find(|(n, _)| n == name)
        .and_then(|(_, v)| *v)
        .unwrap_or_else(|| panic!("{aqm}: no {name}"))
}

#[test]
fn without_a_shaper_the_gateway_never_holds_the_queue_and_with_one_it_does() {
    let aqms = [
        "fq_codel",
        "htb:rate=18Mbit,qdisc=fq_codel",
        "cake:bandwidth=18Mbit",
    ];
    let r = gateway(12.0, &aqms, &[1]);
    for run in &r.runs {
        assert!(run.metrics.conservation.balanced(), "{}", run.aqm);
    }
    // FQ-CoDel on the 1 Gbit/s link: its queue stays within a few packets; the modem's FIFO fills.
    assert!(col(&r, "fq_codel", "peak_qdisc_kb") < 20.0);
    assert!(col(&r, "fq_codel", "peak_port_kb") > 200.0);
    assert!(col(&r, "fq_codel", "probe_p50_ms") > 30.0);
    // Shaped below the modem's rate, the queue moves to the gateway, where it is managed.
    for a in &aqms[1..] {
        assert!(col(&r, a, "peak_port_kb") < 20.0, "{a}");
        assert!(col(&r, a, "probe_p50_ms") < 10.0, "{a}");
        let goodput = col(&r, a, "goodput.reno_mbps");
        assert!(goodput > 15.0 && goodput < 18.0, "{a}: {goodput}");
    }
}

#[test]
fn the_two_queue_path_and_the_new_aqms_are_deterministic() {
    let aqms = [
        "cake:bandwidth=18Mbit,overhead=ethernet",
        "htb:rate=18Mbit,qdisc=docsis_pie",
        "taildrop",
    ];
    let a = gateway(4.0, &aqms, &[1, 2]);
    let b = gateway(4.0, &aqms, &[1, 2]);
    assert_eq!(runs_csv(&a), runs_csv(&b));
    assert_eq!(summary_csv(&a.summary()), summary_csv(&b.summary()));
    let c = gateway(4.0, &aqms, &[3]);
    assert_ne!(runs_csv(&a).lines().nth(1), runs_csv(&c).lines().nth(1));
}

#[test]
fn in_a_tunnel_flow_queuing_cannot_separate_the_flows() {
    let mut s = named("l4s-fq").unwrap();
    s.scale_time(10.0 / 60.0);
    let aqms = specs(&["fq_codel", "dualpi2"]);
    let r = run_scenario(&s, &aqms, &[1], &Registry::with_builtins(), false).unwrap();
    let ratio = |point: &str, aqm: &str| {
        r.runs
            .iter()
            .find(|x| x.point == point && x.aqm == aqm)
            .and_then(|x| x.metrics.rate_ratio)
            .unwrap()
    };
    // Separate 5-tuples: FQ-CoDel shares fairly. In the tunnel, one queue, one CoDel: the scalable
    // flow's mild response to CoDel's sparse marks no longer shares fairly with the classic flows.
    let (open, tunnel) = (
        ratio("tunnel=off", "fq_codel"),
        ratio("tunnel=on", "fq_codel"),
    );
    assert!((0.5..2.0).contains(&open), "{open}");
    assert!((tunnel - open).abs() > 0.25 * open, "{tunnel} vs {open}");
    // DualPI2 classifies by the ECN field, tunnel or not.
    let (a, b) = (
        ratio("tunnel=off", "dualpi2"),
        ratio("tunnel=on", "dualpi2"),
    );
    assert!((a - b).abs() < 1e-9, "{a} vs {b}");
}

#[test]
fn ce_threshold_marks_the_scalable_flow_early() {
    let mut s = named("l4s-fq").unwrap();
    s.scale_time(10.0 / 60.0);
    let aqms = specs(&["fq_codel:ce_threshold=1ms,ce_threshold_selector=0x01/0x01"]);
    let r = run_scenario(&s, &aqms, &[1], &Registry::with_builtins(), false).unwrap();
    let open = r.runs.iter().find(|x| x.point == "tunnel=off").unwrap();
    assert!(open.metrics.marks.get("ce-threshold").copied().unwrap_or(0) > 100);
    assert!(open.metrics.scalable_p99_ms.unwrap() < 5.0);
}

#[test]
fn bad_cake_and_htb_parameters_are_errors_naming_the_key() {
    let registry = Registry::with_builtins();
    let ctx = aqm_netsim::FactoryContext {
        seed: 1,
        link_rate_bps: 20_000_000,
    };
    for (spec, want) in [
        ("cake:ack-filter=on", "ACKs"),
        ("cake:diffserv=diffserv5", "diffserv"),
        ("cake:bandwidth=fast", "bandwidth"),
        ("cake:overhead=nosuch", "overhead"),
        ("cake:rtt=-1", "rtt"),
        ("htb:rate=0bit", "rate"),
        ("htb:rate=10Mbit,qdisc=nosuch", "nosuch"),
        ("htb:rate=10Mbit,qdisc=fq_codel,bogus=1", "bogus"),
        ("fq_codel:ce_threshold_selector=0x03/0x01", "mask"),
        ("docsis_pie:alpha=-1", "alpha"),
    ] {
        let e = registry
            .create(&AqmSpec::parse(spec).unwrap(), &ctx)
            .err()
            .unwrap_or_else(|| panic!("{spec} was accepted"));
        assert!(e.to_string().contains(want), "{spec}: {e}");
    }
    for ok in [
        "cake:bandwidth=18Mbit,rtt=metro,isolation=dual-srchost,diffserv=diffserv8,overhead=docsis,mpu=64,\
         atm=ptm,wash=on,ingress=on,memlimit=4000000",
        "cake:bandwidth=unlimited,overhead=18",
        "htb:rate=18Mbit,burst=3000,qdisc=fq_codel,target=1ms",
        "docsis_pie:rate=18Mbit,target=10ms",
    ] {
        registry
            .create(&AqmSpec::parse(ok).unwrap(), &ctx)
            .unwrap_or_else(|e| panic!("{ok}: {e}"));
    }
}
