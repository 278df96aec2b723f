//! The one place where AQMs are made by name: `"codel"`, `"codel:target=5ms,interval=100ms"`.
//!
//! Built in: the software references (tail drop, RED, Adaptive RED, CoDel, FQ-CoDel), the fixed-point
//! golden PIE and DualPI2 models, and with the `hw` feature (on by default) the Verilated hardware cores
//! themselves (`"pie (hw)"`, `"dualpi2 (hw)"`, from `aqm-verilated`), each right after its golden twin. Other crates add their
//! own with [`Registry::register`]. A factory gets the run's seed and link rate and the
//! parameter overrides; it takes the parameters it knows through the typed getters of [`Params`], and any
//! left over is reported as unknown.
//!
//! Plugging in a model: replace its `register_slot` line in [`Registry::with_builtins`] by a
//! `register(name, about, factory)` whose factory builds the qdisc from `ctx.seed` and sets each override
//! by its tc name, e.g. `for (k, v) in p.take_rest() { q.set_param(&k, &v).map_err(|e| p.bad_value(&k,
//! &v, e.to_string()))? }`. A crate outside this one (the Verilated cores) does the same on its own
//! `Registry::with_builtins()` before calling [`crate::run_scenario`].

use crate::units::{parse_bool, parse_duration_ns, parse_rate_bps};
use aqm_golden::reference::cake::config::{rtt_preset, ACK_FILTER_LEFT_OUT};
use aqm_golden::reference::cake::{Diffserv, FlowMode};
use aqm_golden::reference::{
    Cake, CakeParams, Codel, CodelParams, DocsisPie, DocsisPieParams, FqCodel, FqCodelParams, Red,
    RedParams, TailDrop, TailDropParams, TokenBucket, TokenBucketParams,
};
use aqm_golden::Aqm;
use std::fmt;
use std::sync::Arc;

/// What went wrong making an AQM.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("unknown AQM {name:?}; known: {known}")]
    UnknownAqm { name: String, known: String },
    #[error("AQM {name:?} is not available yet: {why}")]
    NotAvailable { name: String, why: String },
    #[error("AQM {name:?} could not be made: {why}")]
    Failed { name: String, why: String },
    #[error("bad AQM spec {spec:?}: {why} (expected NAME or NAME:key=value,key=value)")]
    BadSpec { spec: String, why: String },
    #[error("{aqm}: unknown parameter {key:?}; known: {known}")]
    UnknownParam {
        aqm: String,
        key: String,
        known: String,
    },
    #[error("{aqm}: parameter {key}={value:?}: {why}")]
    BadValue {
        aqm: String,
        key: String,
        value: String,
        why: String,
    },
}

/// An AQM by name with parameter overrides, as written on the command line or in a scenario file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct AqmSpec {
    pub name: String,
    pub params: Vec<(String, String)>,
}

impl AqmSpec {
    /// Parses `name` or `name:key=value,key=value`.
    pub fn parse(s: &str) -> Result<AqmSpec, RegistryError> {
        let bad = |why: &str| RegistryError::BadSpec {
            spec: s.to_string(),
            why: why.to_string(),
        };
        let (name, rest) = match s.split_once(':') {
            Some((n, r)) => (n.trim(), Some(r)),
            None => (s.trim(), None),
        };
        if name.is_empty() {
            return Err(bad("the AQM name is empty"));
        }
        let mut params = Vec::new();
        for item in rest.into_iter().flat_map(|r| r.split(',')) {
            let (k, v) = item
                .split_once('=')
                .ok_or_else(|| bad(&format!("{item:?} is not key=value")))?;
            let (k, v) = (k.trim(), v.trim());
            if k.is_empty() || v.is_empty() {
                return Err(bad(&format!("{item:?} has an empty key or value")));
            }
            if params.iter().any(|(pk, _)| pk == k) {
                return Err(bad(&format!("{k} is given twice")));
            }
            params.push((k.to_string(), v.to_string()));
        }
        Ok(AqmSpec {
            name: name.to_string(),
            params,
        })
    }
}

impl fmt::Display for AqmSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name)?;
        for (i, (k, v)) in self.params.iter().enumerate() {
            write!(f, "{}{k}={v}", if i == 0 { ':' } else { ',' })?;
        }
        Ok(())
    }
}

/// Built-in AQMs that wrap another and need parameters to mean anything (`htb:rate=..,qdisc=..`):
/// left out when a scenario runs "every available AQM".
pub const WRAPPERS: [&str; 1] = ["htb"];

/// What a factory knows about the run it makes an AQM for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FactoryContext {
    /// The run's seed (FQ-CoDel's hash key, RED's and PIE's/DualPI2's random draws come from it).
    pub seed: u64,
    /// The bottleneck rate, bit/s.
    pub link_rate_bps: u64,
}

/// Parameter overrides handed to a factory. Each typed getter takes its key (if given) and remembers the
/// key as known; [`Params::finish`] then rejects keys nobody took.
#[derive(Clone, Debug)]
pub struct Params {
    aqm: String,
    items: Vec<(String, String, bool)>,
    known: Vec<String>,
}

impl Params {
    pub fn new(aqm: &str, items: &[(String, String)]) -> Params {
        Params {
            aqm: aqm.to_string(),
            items: items
                .iter()
                .map(|(k, v)| (k.clone(), v.clone(), false))
                .collect(),
            known: Vec::new(),
        }
    }

    /// The AQM these parameters are for.
    pub fn aqm(&self) -> &str {
        &self.aqm
    }

    /// Takes `key` as a raw string.
    pub fn take(&mut self, key: &str) -> Option<String> {
        self.known.push(key.to_string());
        let item = self.items.iter_mut().find(|(k, _, _)| k == key)?;
        item.2 = true;
        Some(item.1.clone())
    }

    /// Takes every key not taken yet, for factories that pass them on (by tc name) to a model that checks
    /// them itself.
    pub fn take_rest(&mut self) -> Vec<(String, String)> {
        self.items
            .iter_mut()
            .filter(|(_, _, used)| !*used)
            .map(|(k, v, used)| {
                *used = true;
                (k.clone(), v.clone())
            })
            .collect()
    }

    /// `key`'s value as written, if given (for an error about a value after its conversion).
    fn given(&self, key: &str) -> Option<&str> {
        self.items
            .iter()
            .find(|(k, _, _)| k == key)
            .map(|(_, v, _)| v.as_str())
    }

    /// An error about `key`'s value.
    pub fn bad_value(&self, key: &str, value: &str, why: impl Into<String>) -> RegistryError {
        RegistryError::BadValue {
            aqm: self.aqm.clone(),
            key: key.to_string(),
            value: value.to_string(),
            why: why.into(),
        }
    }

    fn parsed<T>(
        &mut self,
        key: &str,
        parse: impl Fn(&str) -> Result<T, String>,
    ) -> Result<Option<T>, RegistryError> {
        match self.take(key) {
            None => Ok(None),
            Some(v) => parse(&v)
                .map(Some)
                .map_err(|why| self.bad_value(key, &v, why)),
        }
    }

    /// A duration with a unit (`5ms`), in ns; must be positive.
    pub fn duration_ns(&mut self, key: &str) -> Result<Option<u64>, RegistryError> {
        self.parsed(key, |v| match parse_duration_ns(v)? {
            0 => Err("must be more than 0".into()),
            ns => Ok(ns),
        })
    }

    /// A rate with a unit (`20Mbit`), in bit/s; must be positive.
    pub fn rate_bps(&mut self, key: &str) -> Result<Option<u64>, RegistryError> {
        self.parsed(key, |v| match parse_rate_bps(v)? {
            0 => Err("must be more than 0".into()),
            bps => Ok(bps),
        })
    }

    /// A whole number in `min..=max`.
    pub fn integer(&mut self, key: &str, min: u64, max: u64) -> Result<Option<u64>, RegistryError> {
        self.parsed(key, |v| {
            let n: u64 = v
                .parse()
                .map_err(|_| "expected a whole number".to_string())?;
            if (min..=max).contains(&n) {
                Ok(n)
            } else {
                Err(format!("must be in {min}..={max}"))
            }
        })
    }

    /// A real number in `min..=max`.
    pub fn real(&mut self, key: &str, min: f64, max: f64) -> Result<Option<f64>, RegistryError> {
        self.parsed(key, |v| {
            let x: f64 = v.parse().map_err(|_| "expected a number".to_string())?;
            if x.is_finite() && x >= min && x <= max {
                Ok(x)
            } else {
                Err(format!("must be in {min}..={max}"))
            }
        })
    }

    /// A switch (`on`/`off`, `true`/`false`, `1`/`0`).
    pub fn switch(&mut self, key: &str) -> Result<Option<bool>, RegistryError> {
        self.parsed(key, parse_bool)
    }

    /// Fails on the first key no getter took.
    pub fn finish(self) -> Result<(), RegistryError> {
        match self.items.iter().find(|(_, _, used)| !used) {
            None => Ok(()),
            Some((key, _, _)) => Err(RegistryError::UnknownParam {
                aqm: self.aqm.clone(),
                key: key.clone(),
                known: if self.known.is_empty() {
                    "none".into()
                } else {
                    self.known.join(", ")
                },
            }),
        }
    }
}

/// Makes an AQM for one run.
pub type Factory =
    Arc<dyn Fn(&FactoryContext, &mut Params) -> Result<Box<dyn Aqm>, RegistryError> + Send + Sync>;

#[derive(Clone)]
struct Entry {
    name: String,
    aliases: Vec<String>,
    about: String,
    /// Err: a slot for a model that has not landed, with the reason.
    factory: Result<Factory, String>,
}

/// One row of [`Registry::list`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RegistryRow {
    pub name: String,
    pub aliases: Vec<String>,
    pub about: String,
    pub available: bool,
}

/// AQMs by name, in registration order.
#[derive(Clone)]
pub struct Registry {
    entries: Vec<Entry>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::with_builtins()
    }
}

impl Registry {
    /// A registry with nothing in it.
    pub fn empty() -> Registry {
        Registry {
            entries: Vec::new(),
        }
    }

    /// The software references and the golden-model slots.
    pub fn with_builtins() -> Registry {
        let mut r = Registry::empty();
        r.register(
            "taildrop",
            "drop-tail FIFO (pfifo); limit=1000 packets",
            taildrop,
        );
        r.alias("pfifo", "taildrop");
        r.register(
            "red",
            "RED with the count correction; limit, min_th, max_th, max_p, w_q, ecn, avpkt",
            |c, p| red(c, p, false),
        );
        r.register(
            "ared",
            "Adaptive RED (max_p adapted every 500 ms); same parameters as red",
            |c, p| red(c, p, true),
        );
        r.register(
            "codel",
            "CoDel (RFC 8289); target, interval, limit, ecn, mtu",
            codel,
        );
        r.register(
            "fq_codel",
            "FQ-CoDel (RFC 8290); flows, quantum, limit, memory_limit, drop_batch, target, interval, ecn, mtu, \
             ce_threshold, ce_threshold_selector (VALUE/MASK)",
            fq_codel,
        );
        r.alias("fq-codel", "fq_codel");
        r.register(
            "pie",
            "PIE, the fixed-point golden model of the hardware (spec/pie.md); target, tupdate, alpha, beta, \
             limit, ecn, bytemode, mtu, burst",
            pie,
        );
        #[cfg(feature = "hw")]
        r.register(
            "pie (hw)",
            "PIE, the Verilated hardware core itself, clocked around the simulator's events; same parameters \
             as pie",
            pie_hw,
        );
        #[cfg(not(feature = "hw"))]
        r.register_slot(
            "pie (hw)",
            "PIE, the Verilated hardware core itself; same parameters as pie",
            "aqm-netsim was built without its hw feature",
        );
        r.register(
            "dualpi2",
            "DualPI2, the fixed-point golden model of the hardware (spec/dualpi2.md); target, tupdate, alpha, \
             beta, k, step, min_qlen_step, ecn_mask, drop_overload, limit, mtu, c_protection, queue_capacity",
            dualpi2,
        );
        #[cfg(feature = "hw")]
        r.register(
            "dualpi2 (hw)",
            "DualPI2, the Verilated hardware core itself, clocked around the simulator's events; same \
             parameters as dualpi2",
            dualpi2_hw,
        );
        #[cfg(not(feature = "hw"))]
        r.register_slot(
            "dualpi2 (hw)",
            "DualPI2, the Verilated hardware core itself; same parameters as dualpi2",
            "aqm-netsim was built without its hw feature",
        );
        r.register(
            "cake",
            "CAKE (tc-cake(8)): COBALT, set-associative flow queues, host isolation, DiffServ tins, deficit \
             shaper; bandwidth (RATE or unlimited), rtt (TIME or a preset: datacentre .. interplanetary), \
             isolation (flowblind, srchost, dsthost, hosts, flows, dual-srchost, dual-dsthost, \
             triple-isolate), diffserv (besteffort, diffserv3, diffserv4, diffserv8, precedence), \
             overhead (N or a keyword: raw, ethernet, docsis, pppoe-ptm, pppoe-llcsnap, conservative, ..), \
             mpu, atm (atm, ptm, noatm), wash, ingress, memlimit, limit",
            cake,
        );
        r.register(
            "docsis_pie",
            "DOCSIS-PIE (RFC 8034), floating point; delay from the configured rate: rate (default: the \
             link's), target, tupdate, alpha, beta, max_burst, limit_bytes, ecn",
            docsis_pie,
        );
        r.alias("docsis-pie", "docsis_pie");
        r.register(
            "htb",
            "an HTB-like token-bucket shaper in front of another AQM: rate (default: the link's), burst \
             (bytes), qdisc (the inner AQM's name, default fq_codel); every other parameter goes to the \
             inner AQM",
            htb,
        );
        r
    }

    /// Adds (or replaces) the AQM `name`.
    pub fn register<F>(&mut self, name: &str, about: &str, factory: F)
    where
        F: Fn(&FactoryContext, &mut Params) -> Result<Box<dyn Aqm>, RegistryError>
            + Send
            + Sync
            + 'static,
    {
        self.insert(name, about, Ok(Arc::new(factory)));
    }

    /// Adds a slot for an AQM that is not available; making it fails with `why`.
    pub fn register_slot(&mut self, name: &str, about: &str, why: &str) {
        self.insert(name, about, Err(why.to_string()));
    }

    fn insert(&mut self, name: &str, about: &str, factory: Result<Factory, String>) {
        let entry = Entry {
            name: name.to_string(),
            aliases: Vec::new(),
            about: about.to_string(),
            factory,
        };
        match self.entries.iter_mut().find(|e| e.name == name) {
            Some(e) => {
                e.about = entry.about;
                e.factory = entry.factory;
            }
            None => self.entries.push(entry),
        }
    }

    /// Makes `alias` another name for `name` (which must be registered).
    pub fn alias(&mut self, alias: &str, name: &str) {
        if let Some(e) = self.entries.iter_mut().find(|e| e.name == name) {
            e.aliases.push(alias.to_string());
        }
    }

    fn find(&self, name: &str) -> Result<&Entry, RegistryError> {
        self.entries
            .iter()
            .find(|e| e.name == name || e.aliases.iter().any(|a| a == name))
            .ok_or_else(|| RegistryError::UnknownAqm {
                name: name.to_string(),
                known: self
                    .entries
                    .iter()
                    .map(|e| e.name.as_str())
                    .collect::<Vec<_>>()
                    .join(", "),
            })
    }

    /// Makes the AQM `spec` names for a run.
    pub fn create(
        &self,
        spec: &AqmSpec,
        ctx: &FactoryContext,
    ) -> Result<Box<dyn Aqm>, RegistryError> {
        let entry = self.find(&spec.name)?;
        let factory = entry
            .factory
            .as_ref()
            .map_err(|why| RegistryError::NotAvailable {
                name: entry.name.clone(),
                why: why.clone(),
            })?;
        let mut params = Params::new(&entry.name, &spec.params);
        let aqm = factory(ctx, &mut params)?;
        params.finish()?;
        Ok(aqm)
    }

    /// Whether `name` can be made now: an unknown name or a slot is an error saying why.
    pub fn check_available(&self, name: &str) -> Result<(), RegistryError> {
        let entry = self.find(name)?;
        match &entry.factory {
            Ok(_) => Ok(()),
            Err(why) => Err(RegistryError::NotAvailable {
                name: entry.name.clone(),
                why: why.clone(),
            }),
        }
    }

    /// Every AQM, in registration order.
    pub fn list(&self) -> Vec<RegistryRow> {
        self.entries
            .iter()
            .map(|e| RegistryRow {
                name: e.name.clone(),
                aliases: e.aliases.clone(),
                about: e.about.clone(),
                available: e.factory.is_ok(),
            })
            .collect()
    }

    /// Names of the AQMs that can be made now.
    pub fn available(&self) -> Vec<String> {
        self.entries
            .iter()
            .filter(|e| e.factory.is_ok())
            .map(|e| e.name.clone())
            .collect()
    }
}

fn limit(p: &mut Params, default: usize) -> Result<usize, RegistryError> {
    Ok(p.integer("limit", 1, 10_000_000)?
        .map_or(default, |v| v as usize))
}

fn taildrop(_: &FactoryContext, p: &mut Params) -> Result<Box<dyn Aqm>, RegistryError> {
    let d = TailDropParams::default();
    Ok(Box::new(TailDrop::new(TailDropParams {
        limit: limit(p, d.limit)?,
    })))
}

fn red(
    ctx: &FactoryContext,
    p: &mut Params,
    adaptive: bool,
) -> Result<Box<dyn Aqm>, RegistryError> {
    let d = RedParams::default();
    let params = RedParams {
        limit: limit(p, d.limit)?,
        min_th: p.real("min_th", 0.0, 1e7)?.unwrap_or(d.min_th),
        max_th: p.real("max_th", 0.0, 1e7)?.unwrap_or(d.max_th),
        max_p: p.real("max_p", 0.0, 1.0)?.unwrap_or(d.max_p),
        w_q: p.real("w_q", 0.0, 1.0)?.unwrap_or(d.w_q),
        ecn: p.switch("ecn")?.unwrap_or(d.ecn),
        adaptive,
        avpkt: p.integer("avpkt", 1, 65_535)?.map_or(d.avpkt, |v| v as u32),
        link_rate_bps: ctx.link_rate_bps,
    };
    if params.w_q == 0.0 {
        // A zero weight never moves the average queue: RED would never act.
        let v = p.given("w_q").unwrap_or("0");
        return Err(p.bad_value("w_q", v, "must be more than 0 (at most 1)"));
    }
    if params.min_th >= params.max_th {
        // Blame the threshold that was written (max_th when only it was).
        return Err(match (p.given("min_th"), p.given("max_th")) {
            (None, Some(max)) => p.bad_value(
                "max_th",
                max,
                format!("must be above min_th ({})", params.min_th),
            ),
            (min, _) => p.bad_value(
                "min_th",
                min.unwrap_or(&params.min_th.to_string()),
                format!("must be below max_th ({})", params.max_th),
            ),
        });
    }
    Ok(Box::new(Red::new(params, ctx.seed)))
}

/// PIE's parameters with tc's names; durations are whole microseconds in the hardware's registers.
pub fn pie_params(p: &mut Params) -> Result<aqm_golden::pie::PieParams, RegistryError> {
    use aqm_golden::pie::params::range;
    let d = aqm_golden::pie::PieParams::default();
    let target_us = whole_us(p, "target", range::TARGET_US, d.target_us)?;
    let tupdate_us = whole_us(p, "tupdate", range::TUPDATE_US, d.tupdate_us)?;
    let max_burst_us = whole_us(p, "burst", range::MAX_BURST_US, d.max_burst_us)?;
    let int =
        |p: &mut Params, key: &str, (lo, hi): (u32, u32), def: u32| -> Result<u32, RegistryError> {
            Ok(p.integer(key, lo as u64, hi as u64)?
                .map_or(def, |v| v as u32))
        };
    Ok(aqm_golden::pie::PieParams {
        target_us,
        tupdate_us,
        max_burst_us,
        alpha: int(p, "alpha", range::GAIN, d.alpha)?,
        beta: int(p, "beta", range::GAIN, d.beta)?,
        limit: int(p, "limit", range::LIMIT, d.limit)?,
        mtu: int(p, "mtu", range::MTU, d.mtu)?,
        ecn: p.switch("ecn")?.unwrap_or(d.ecn),
        bytemode: p.switch("bytemode")?.unwrap_or(d.bytemode),
    })
}

/// A golden qdisc as the simulator's AQM, or its parameter error as the registry's.
fn boxed<Q: Aqm + 'static>(
    made: Result<Q, aqm_golden::params::ParamError>,
    p: &Params,
) -> Result<Box<dyn Aqm>, RegistryError> {
    made.map(|q| Box::new(q) as Box<dyn Aqm>)
        .map_err(|e| p.bad_value(e.name, &e.value.to_string(), e.expected))
}

fn pie(ctx: &FactoryContext, p: &mut Params) -> Result<Box<dyn Aqm>, RegistryError> {
    let params = pie_params(p)?;
    boxed(aqm_golden::pie::PieQdisc::new(params, ctx.seed), p)
}

/// The Verilated PIE core, configured through its registers with the parameters of [`pie_params`] and
/// seeded as the golden model is.
#[cfg(feature = "hw")]
fn pie_hw(ctx: &FactoryContext, p: &mut Params) -> Result<Box<dyn Aqm>, RegistryError> {
    let params = pie_params(p)?;
    hw_core(&aqm_golden::pie::kind::PIE_CORE, &params, ctx, p)
}

/// The Verilated core of `kind`, reset and configured through its registers with `params`, its
/// generator seeded from the run's seed. A parameter its register file refused names the parameter and
/// the register's range (from the core's register map).
#[cfg(feature = "hw")]
fn hw_core(
    kind: &'static dyn aqm_golden::hw::CoreKind,
    params: &dyn aqm_golden::hw::CoreParams,
    ctx: &FactoryContext,
    p: &Params,
) -> Result<Box<dyn Aqm>, RegistryError> {
    use aqm_golden::hw::{CoreAqm, DriverError};
    let failed = |why: String| RegistryError::Failed {
        name: p.aqm().to_string(),
        why,
    };
    params.check_hardware().map_err(|why| {
        failed(format!(
            "{why} (the hardware's limits; see {} (hw)'s defaults)",
            kind.name()
        ))
    })?;
    let core = aqm_verilated::VerilatedCore::new(kind);
    match CoreAqm::new(kind, core, &params.register_writes(ctx.seed)) {
        Ok(q) => Ok(Box::new(q)),
        Err(DriverError::Param {
            param,
            value,
            register,
        }) => {
            let accepts = kind
                .register_by_name(register)
                .and_then(|d| d.range)
                .map_or(String::new(), |(lo, hi)| {
                    format!(" (it accepts {lo}..={hi})")
                });
            Err(p.bad_value(
                param,
                &value.to_string(),
                format!("the core's {register} register refused it{accepts}"),
            ))
        }
        Err(other) => Err(failed(other.to_string())),
    }
}

/// A duration given with a unit, held in whole microseconds in the hardware's registers.
fn whole_us(
    p: &mut Params,
    key: &str,
    (lo, hi): (u32, u32),
    default: u32,
) -> Result<u32, RegistryError> {
    match p.duration_ns(key)? {
        None => Ok(default),
        Some(ns) if ns % 1000 == 0 && (lo as u64..=hi as u64).contains(&(ns / 1000)) => {
            Ok((ns / 1000) as u32)
        }
        Some(ns) => Err(p.bad_value(
            key,
            p.given(key).unwrap_or(&format!("{ns}ns")),
            format!("expected whole microseconds from {lo}us to {hi}us"),
        )),
    }
}

/// DualPI2's parameters with tc's names: durations with a unit (whole microseconds), alpha and beta in
/// Hz x 256, `k` the coupling factor, `ecn_mask` 1 (ECT(1) and CE), 2 (ECT(0) and CE) or 3 (any ECT),
/// `c_protection` in percent, `queue_capacity` packets per queue (the hardware has 512).
pub fn dualpi2_params(p: &mut Params) -> Result<aqm_golden::dualpi2::DualPi2Params, RegistryError> {
    dualpi2_params_over(p, aqm_golden::dualpi2::DualPi2Params::default())
}

/// As [`dualpi2_params`], with the values not given taken from `d`.
pub fn dualpi2_params_over(
    p: &mut Params,
    d: aqm_golden::dualpi2::DualPi2Params,
) -> Result<aqm_golden::dualpi2::DualPi2Params, RegistryError> {
    use aqm_golden::dualpi2::params::range;
    let int =
        |p: &mut Params, key: &str, (lo, hi): (u32, u32), def: u32| -> Result<u32, RegistryError> {
            Ok(p.integer(key, lo as u64, hi as u64)?
                .map_or(def, |v| v as u32))
        };
    Ok(aqm_golden::dualpi2::DualPi2Params {
        target_us: whole_us(p, "target", range::TARGET_US, d.target_us)?,
        tupdate_us: whole_us(p, "tupdate", range::TUPDATE_US, d.tupdate_us)?,
        step_us: whole_us(p, "step", range::STEP_US, d.step_us)?,
        alpha: int(p, "alpha", range::GAIN, d.alpha)?,
        beta: int(p, "beta", range::GAIN, d.beta)?,
        k: int(p, "k", range::K, d.k)?,
        min_qlen_step: int(p, "min_qlen_step", range::MIN_QLEN_STEP, d.min_qlen_step)?,
        ecn_mask: int(p, "ecn_mask", range::ECN_MASK, d.ecn_mask)?,
        drop_overload: p.switch("drop_overload")?.unwrap_or(d.drop_overload),
        limit: int(p, "limit", range::LIMIT, d.limit)?,
        mtu: int(p, "mtu", range::MTU, d.mtu)?,
        c_protection: int(p, "c_protection", range::C_PROTECTION, d.c_protection)?,
        queue_capacity: int(p, "queue_capacity", range::QUEUE_CAPACITY, d.queue_capacity)?,
    })
}

fn dualpi2(ctx: &FactoryContext, p: &mut Params) -> Result<Box<dyn Aqm>, RegistryError> {
    let params = dualpi2_params(p)?;
    boxed(aqm_golden::dualpi2::DualPi2Qdisc::new(params, ctx.seed), p)
}

/// The Verilated DualPI2 core, configured through its registers with the parameters of
/// [`dualpi2_params`] over the hardware's defaults (the limit and per-queue capacity of its descriptor
/// memory), and seeded as the golden model is.
#[cfg(feature = "hw")]
fn dualpi2_hw(ctx: &FactoryContext, p: &mut Params) -> Result<Box<dyn Aqm>, RegistryError> {
    let params = dualpi2_params_over(p, aqm_golden::dualpi2::params::HARDWARE_PARAMS)?;
    hw_core(&aqm_golden::dualpi2::kind::DUALPI2_CORE, &params, ctx, p)
}

fn codel_times(p: &mut Params, target: u64, interval: u64) -> Result<(u64, u64), RegistryError> {
    Ok((
        p.duration_ns("target")?.unwrap_or(target),
        p.duration_ns("interval")?.unwrap_or(interval),
    ))
}

fn codel(_: &FactoryContext, p: &mut Params) -> Result<Box<dyn Aqm>, RegistryError> {
    let d = CodelParams::default();
    let (target_ns, interval_ns) = codel_times(p, d.target_ns, d.interval_ns)?;
    Ok(Box::new(Codel::new(CodelParams {
        target_ns,
        interval_ns,
        limit: limit(p, d.limit)?,
        ecn: p.switch("ecn")?.unwrap_or(d.ecn),
        mtu: p.integer("mtu", 64, 65_535)?.map_or(d.mtu, |v| v as u32),
    })))
}

fn fq_codel(ctx: &FactoryContext, p: &mut Params) -> Result<Box<dyn Aqm>, RegistryError> {
    let d = FqCodelParams::default();
    let (target_ns, interval_ns) = codel_times(p, d.target_ns, d.interval_ns)?;
    let selector = ce_selector(p)?;
    Ok(Box::new(FqCodel::new(
        FqCodelParams {
            flows: p
                .integer("flows", 1, 65_536)?
                .map_or(d.flows, |v| v as usize),
            quantum: p
                .integer("quantum", 1, 1 << 20)?
                .map_or(d.quantum, |v| v as u32),
            limit: limit(p, d.limit)?,
            memory_limit: p
                .integer("memory_limit", 1, 1 << 40)?
                .unwrap_or(d.memory_limit),
            drop_batch: p
                .integer("drop_batch", 1, 1 << 16)?
                .map_or(d.drop_batch, |v| v as usize),
            target_ns,
            interval_ns,
            ecn: p.switch("ecn")?.unwrap_or(d.ecn),
            mtu: p.integer("mtu", 64, 65_535)?.map_or(d.mtu, |v| v as u32),
            ce_threshold_ns: p.duration_ns("ce_threshold")?,
            ce_threshold_selector: selector.0,
            ce_threshold_mask: selector.1,
        },
        ctx.seed,
    )))
}

/// `ce_threshold_selector=VALUE/MASK` (bytes, decimal or 0x hex) as Linux's tc takes it.
fn ce_selector(p: &mut Params) -> Result<(u8, u8), RegistryError> {
    let Some(v) = p.take("ce_threshold_selector") else {
        return Ok((0, 0));
    };
    let byte = |x: &str| {
        let x = x.trim();
        match x.strip_prefix("0x").or_else(|| x.strip_prefix("0X")) {
            Some(h) => u8::from_str_radix(h, 16),
            None => x.parse::<u8>(),
        }
        .map_err(|_| format!("{x:?} is not a byte (0..=255 or 0x00..=0xff)"))
    };
    let parsed = match v.split_once('/') {
        Some((a, b)) => byte(a).and_then(|a| Ok((a, byte(b)?))),
        None => Err("expected VALUE/MASK, e.g. 0x01/0x01 for ECT(1)".to_string()),
    };
    match parsed {
        Ok((a, m)) if a & !m != 0 => Err(p.bad_value(
            "ce_threshold_selector",
            &v,
            "the value has bits outside the mask",
        )),
        Ok(x) => Ok(x),
        Err(why) => Err(p.bad_value("ce_threshold_selector", &v, why)),
    }
}

fn cake(ctx: &FactoryContext, p: &mut Params) -> Result<Box<dyn Aqm>, RegistryError> {
    let mut c = CakeParams::default();
    let keyword = |p: &Params, c: &mut CakeParams, key: &str, v: &str| {
        c.apply_keyword(v)
            .map_err(|e| p.bad_value(key, v, e.to_string()))
    };
    if let Some(v) = p.take("bandwidth") {
        if v == "unlimited" {
            c.bandwidth_bps = None;
        } else {
            c.bandwidth_bps = Some(
                crate::units::parse_rate_bps(&v)
                    .and_then(|b| {
                        if b == 0 {
                            Err("must be more than 0".into())
                        } else {
                            Ok(b)
                        }
                    })
                    .map_err(|why| p.bad_value("bandwidth", &v, why))?,
            );
        }
    }
    if let Some(v) = p.take("rtt") {
        let rtt = match rtt_preset(&v) {
            Some(r) => r,
            None => crate::units::parse_duration_ns(&v)
                .and_then(|d| {
                    if d == 0 {
                        Err("must be more than 0".into())
                    } else {
                        Ok(d)
                    }
                })
                .map_err(|why| p.bad_value("rtt", &v, format!("{why}, or a preset name")))?,
        };
        c.set_rtt(rtt);
    }
    for key in ["isolation", "diffserv", "atm"] {
        if let Some(v) = p.take(key) {
            let ok = match key {
                "isolation" => FlowMode::from_word(&v).is_some(),
                "diffserv" => Diffserv::from_word(&v).is_some(),
                _ => ["atm", "ptm", "noatm"].contains(&v.as_str()),
            };
            if !ok {
                return Err(p.bad_value(key, &v, format!("not a {key} keyword")));
            }
            keyword(p, &mut c, key, &v)?;
        }
    }
    if let Some(v) = p.take("overhead") {
        match v.parse::<i32>() {
            Ok(n) => c.set_overhead(n),
            Err(_) => keyword(p, &mut c, "overhead", &v)?,
        }
    }
    if let Some(m) = p.integer("mpu", 0, 256)? {
        c.mpu = m as u32;
    }
    if let Some(w) = p.switch("wash")? {
        c.wash = w;
    }
    if let Some(i) = p.switch("ingress")? {
        c.ingress = i;
    }
    if let Some(m) = p.integer("memlimit", 1, 1 << 40)? {
        c.memlimit = Some(m);
    }
    c.limit = limit(p, c.limit)?;
    for key in ["ack-filter", "ack_filter"] {
        if let Some(v) = p.take(key) {
            return Err(p.bad_value(key, &v, ACK_FILTER_LEFT_OUT));
        }
    }
    Ok(Box::new(Cake::new(c, ctx.seed).map_err(|e| {
        RegistryError::Failed {
            name: "cake".into(),
            why: e.to_string(),
        }
    })?))
}

fn docsis_pie(ctx: &FactoryContext, p: &mut Params) -> Result<Box<dyn Aqm>, RegistryError> {
    let rate = p.rate_bps("rate")?.unwrap_or(ctx.link_rate_bps);
    let mut d = DocsisPieParams::at_rate(rate);
    d.target_ns = p.duration_ns("target")?.unwrap_or(d.target_ns);
    d.tupdate_ns = p.duration_ns("tupdate")?.unwrap_or(d.tupdate_ns);
    d.alpha = p.real("alpha", 0.0, 100.0)?.unwrap_or(d.alpha);
    d.beta = p.real("beta", 0.0, 100.0)?.unwrap_or(d.beta);
    d.max_burst_ns = p.duration_ns("max_burst")?.unwrap_or(d.max_burst_ns);
    d.limit_bytes = p.integer("limit_bytes", 3000, 1 << 40)?.or(d.limit_bytes);
    d.ecn = p.switch("ecn")?.unwrap_or(d.ecn);
    Ok(Box::new(DocsisPie::new(d, ctx.seed).map_err(|why| {
        RegistryError::Failed {
            name: "docsis_pie".into(),
            why,
        }
    })?))
}

/// The token-bucket shaper around another AQM, which is made by this registry's built-ins with the rest
/// of the parameters and a link rate of the shaper's.
fn htb(ctx: &FactoryContext, p: &mut Params) -> Result<Box<dyn Aqm>, RegistryError> {
    let rate = p.rate_bps("rate")?.unwrap_or(ctx.link_rate_bps);
    let mut tb = TokenBucketParams::at_rate(rate);
    if let Some(b) = p.integer("burst", 64, 1 << 32)? {
        tb.burst_bytes = b;
    }
    let inner_name = p.take("qdisc").unwrap_or_else(|| "fq_codel".into());
    if inner_name == "htb" {
        return Err(p.bad_value("qdisc", &inner_name, "htb cannot be nested in htb"));
    }
    let inner = AqmSpec {
        name: inner_name,
        params: p.take_rest(),
    };
    let inner_ctx = FactoryContext {
        seed: ctx.seed,
        link_rate_bps: rate,
    };
    // An inner AQM that cannot be made is the qdisc parameter's fault: say so.
    let q = Registry::with_builtins()
        .create(&inner, &inner_ctx)
        .map_err(|e| match e {
            RegistryError::UnknownAqm { .. } | RegistryError::NotAvailable { .. } => {
                p.bad_value("qdisc", &inner.name, e.to_string())
            }
            e => e,
        })?;
    Ok(Box::new(TokenBucket::new(tb, q).map_err(|why| {
        RegistryError::Failed {
            name: "htb".into(),
            why,
        }
    })?))
}

#[cfg(test)]
mod tests {
    use super::*;

    const CTX: FactoryContext = FactoryContext {
        seed: 1,
        link_rate_bps: 20_000_000,
    };

    #[test]
    fn specs_parse_names_and_overrides_and_print_back() {
        let s = AqmSpec::parse("codel:target=5ms,interval=100ms").unwrap();
        assert_eq!(s.name, "codel");
        assert_eq!(s.params.len(), 2);
        assert_eq!(s.to_string(), "codel:target=5ms,interval=100ms");
        assert!(AqmSpec::parse(":x=1").is_err());
        assert!(AqmSpec::parse("codel:target").is_err());
        assert!(AqmSpec::parse("codel:target=1ms,target=2ms").is_err());
    }

    #[test]
    fn every_available_builtin_is_made_by_name_and_alias() {
        let r = Registry::with_builtins();
        for name in r
            .available()
            .iter()
            .map(String::as_str)
            .chain(["pfifo", "fq-codel"])
        {
            let aqm = r.create(&AqmSpec::parse(name).unwrap(), &CTX).unwrap();
            assert_eq!(aqm.backlog_packets(), 0, "{name}");
        }
    }

    #[test]
    fn golden_slots_say_they_are_not_available() {
        let r = Registry::with_builtins();
        for name in ["pie", "dualpi2"] {
            if !r.available().iter().any(|a| a == name) {
                let e = r
                    .create(&AqmSpec::parse(name).unwrap(), &CTX)
                    .err()
                    .unwrap();
                assert!(matches!(e, RegistryError::NotAvailable { .. }), "{e}");
            }
        }
    }

    #[test]
    fn bad_overrides_name_the_key_and_what_was_expected() {
        let r = Registry::with_builtins();
        let err = |s: &str| {
            r.create(&AqmSpec::parse(s).unwrap(), &CTX)
                .err()
                .unwrap()
                .to_string()
        };
        assert!(err("codel:target=5").contains("target=\"5\""));
        assert!(err("codel:target=5").contains("unit"));
        assert!(err("codel:foo=1").contains("unknown parameter \"foo\"; known: target, interval"));
        assert!(err("red:min_th=80").contains("must be below max_th"));
        assert!(err("taildrop:limit=0").contains("1..="));
        assert!(err("nosuch").contains("unknown AQM"));
    }

    #[test]
    fn dualpi2_takes_tc_style_overrides() {
        let r = Registry::with_builtins();
        let spec = "dualpi2:target=10ms,tupdate=15ms,alpha=20,beta=500,k=4,step=2ms,min_qlen_step=2,\
                    ecn_mask=3,drop_overload=off,limit=1024,mtu=1500,c_protection=25,queue_capacity=512";
        let mut p = Params::new("dualpi2", &AqmSpec::parse(spec).unwrap().params);
        let d = dualpi2_params(&mut p).unwrap();
        p.finish().unwrap();
        assert_eq!(
            (d.target_us, d.tupdate_us, d.step_us),
            (10_000, 15_000, 2_000)
        );
        assert_eq!((d.alpha, d.beta, d.k, d.min_qlen_step), (20, 500, 4, 2));
        assert_eq!((d.ecn_mask, d.drop_overload, d.limit), (3, false, 1024));
        assert_eq!((d.mtu, d.c_protection, d.queue_capacity), (1500, 25, 512));
        let aqm = r.create(&AqmSpec::parse(spec).unwrap(), &CTX).unwrap();
        assert_eq!(aqm.name(), "dualpi2");
        let err = |s: &str| {
            r.create(&AqmSpec::parse(s).unwrap(), &CTX)
                .err()
                .unwrap()
                .to_string()
        };
        assert!(err("dualpi2:k=0").contains("1..=255"));
        assert!(err("dualpi2:step=1500ns").contains("whole microseconds"));
        assert!(err("dualpi2:ecn_mask=4").contains("1..=3"));
    }

    #[test]
    fn a_slot_is_known_but_not_available() {
        let mut r = Registry::with_builtins();
        r.register_slot("later", "a model still being built", "not built yet");
        assert!(r.check_available("codel").is_ok());
        let e = r.check_available("later").err().unwrap();
        assert!(matches!(e, RegistryError::NotAvailable { .. }), "{e}");
        assert!(e.to_string().contains("not built yet"), "{e}");
        assert!(matches!(
            r.check_available("nosuch"),
            Err(RegistryError::UnknownAqm { .. })
        ));
    }

    #[test]
    fn outside_factories_can_be_registered_and_replace_slots() {
        let mut r = Registry::with_builtins();
        r.register("pie (hw)", "test", |ctx, p| {
            let n = p.integer("limit", 1, 100)?.unwrap_or(5) as usize;
            assert_eq!(ctx.seed, 1);
            Ok(Box::new(TailDrop::new(TailDropParams { limit: n })))
        });
        let aqm = r
            .create(&AqmSpec::parse("pie (hw):limit=7").unwrap(), &CTX)
            .unwrap();
        assert_eq!(aqm.name(), "taildrop");
        assert!(r.available().contains(&"pie (hw)".to_string()));
    }
}
