# Slack at every endpoint of a routed iCE40 design: nextpnr-ice40 runs this after routing
# (`--post-route slack.py`, written next to the design by bsp/src/flow.rs), because its own report
# names only the single worst path of each clock.
#
# Arrival times are propagated forward from every register and block RAM output through the logic
# cells, with each net's routed delay from nextpnr's pips and fixed cell delays close to the
# iCE40-HX8K's (so a figure here is within a few tenths of a nanosecond of nextpnr's own). A LUT's
# output depends only on the inputs its truth table reads (a LUT that feeds its own carry's operand is
# not a loop). Endpoints (flip-flop and block RAM inputs) are grouped by the register they belong to,
# its name up to yosys's first `$` or `_SB_` suffix.
#
# Environment: SLACK_PERIOD_NS (the clock's period), SLACK_OUT (the file written). Output, one record
# per line, tab-separated:
#   period <ns> <endpoints> <endpoints below 0>
#   group <name> <endpoints below 0> <worst slack ns> <its endpoint> <its path's start>
#   step <group> <arrival ns> <cell.port>          (the worst path of the first groups, start first)
#   error <message>                                (nothing else is written then)
import os
import sys

PERIOD = float(os.environ.get("SLACK_PERIOD_NS", "10"))
OUT = os.environ.get("SLACK_OUT", "slack.tsv")
GROUPS = 16
PATHS = 4
# ns: clock to output of a logic cell's flip-flop, LUT input to output, carry in from I1/I2 and along
# the chain, setup, block RAM clock to output.
T_CQ, T_LUT, T_CARRY_IN, T_CARRY, T_SETUP, T_RAM = 0.54, 0.40, 0.23, 0.13, 0.10, 2.10
CONSTANT_NETS = ("$PACKER_VCC_NET", "$PACKER_GND_NET")


def pair(x):
    try:
        return x.first, x.second
    except AttributeError:
        a, b = x
        return a, b


def main(out):
    cells = {str(k): v for k, v in map(pair, ctx.cells)}

    def param(ci, name):
        for k, v in map(pair, ci.params):
            if str(k) == name:
                return str(v)
        return ""

    def net_of(ci, port):
        for k, v in map(pair, ci.ports):
            if str(k) == port:
                return v.net
        return None

    registered = {}
    for name, ci in cells.items():
        if str(ci.type) == "ICESTORM_LC":
            registered[name] = param(ci, "DFF_ENABLE").strip("0") != ""
        else:
            registered[name] = True  # block RAM, IO, PLL, global buffer: boundaries

    pips = {}

    def route_delay(ni, cname, port):
        # Back from the sink's wire along the net's pips to its source.
        key = str(ni.name)
        wires = pips.get(key)
        if wires is None:
            wires = {str(w): pm.pip for w, pm in map(pair, ni.wires)}
            pips[key] = wires
        w = ctx.getBelPinWire(cells[cname].bel, port)
        total = 0.0
        for _ in range(100000):
            pip = wires.get(str(w))
            if pip is None:
                break
            d = ctx.getPipDelay(pip)
            total += ctx.getDelayNS(d.maxDelay() if hasattr(d, "maxDelay") else d)
            src = ctx.getPipSrcWire(pip)
            if str(src) == str(w):
                break
            w = src
        return total

    arrival = {}
    busy = set()

    def arrive_in(cname, port):
        ni = net_of(cells[cname], port)
        # A constant (nextpnr's packer drives 1 and 0 from a LUT each, routed to every user) never
        # switches: no path starts there.
        if ni is None or ni.driver.cell is None or str(ni.name) in CONSTANT_NETS:
            return 0.0, None
        dc, dp = str(ni.driver.cell.name), str(ni.driver.port)
        t, _ = arrive_out(dc, dp)
        return t + route_delay(ni, cname, port), (dc, dp)

    def arrive_out(cname, port):
        key = (cname, port)
        if key in arrival:
            return arrival[key]
        if key in busy:
            return 0.0, None
        busy.add(key)
        ci = cells[cname]
        kind = str(ci.type)
        best = (0.0, None)
        if kind == "ICESTORM_LC" and port == "O" and not registered[cname]:
            bits = [c == "1" for c in reversed(param(ci, "LUT_INIT").strip())]
            bits += [False] * (16 - len(bits))
            for k, p in enumerate(("I0", "I1", "I2", "I3")):
                if any(bits[i] != bits[i ^ (1 << k)] for i in range(16)):
                    a, _ = arrive_in(cname, p)
                    if a + T_LUT >= best[0]:
                        best = (a + T_LUT, (cname, p))
        elif kind == "ICESTORM_LC" and port == "COUT":
            for p, d in (("I1", T_CARRY_IN), ("I2", T_CARRY_IN), ("CIN", T_CARRY)):
                a, _ = arrive_in(cname, p)
                if a + d >= best[0]:
                    best = (a + d, (cname, p))
        elif kind == "ICESTORM_LC":
            best = (T_CQ, None)
        elif kind == "ICESTORM_RAM":
            best = (T_RAM, None)
        arrival[key] = best
        busy.discard(key)
        return best

    def path(cname, port):
        steps = []
        a, prev = arrive_in(cname, port)
        steps.append((a, cname + "." + port))
        while prev is not None:
            t, back = arrive_out(*prev)
            steps.append((t, prev[0] + "." + prev[1]))
            if back is None:
                break
            a, prev = arrive_in(*back)
        steps.reverse()
        return steps

    ends = []
    for name, ci in cells.items():
        kind = str(ci.type)
        if kind == "ICESTORM_LC" and registered[name]:
            ports = ("I0", "I1", "I2", "I3", "CEN", "SR")
        elif kind == "ICESTORM_RAM":
            ports = [str(k) for k, _ in map(pair, ci.ports)]
            ports = [p for p in ports if not p.startswith("RDATA") and p not in ("RCLK", "WCLK")]
        else:
            continue
        for p in ports:
            if net_of(ci, p) is None:
                continue
            a, _ = arrive_in(name, p)
            ends.append((PERIOD - a - T_SETUP, name, p))
    ends.sort()
    below = sum(1 for e in ends if e[0] < 0)
    out.write("period\t%.3f\t%d\t%d\n" % (PERIOD, len(ends), below))
    groups = {}
    for slack, name, p in ends:
        stem = name.split("$")[0].split("_SB_")[0]
        g = groups.setdefault(stem, [slack, name, p, 0])
        g[3] += slack < 0
    ranked = sorted(groups.items(), key=lambda kv: kv[1][0])[:GROUPS]
    paths = [(stem, path(name, p)) for stem, (_, name, p, _) in ranked]
    for (stem, (slack, name, p, n)), (_, steps) in zip(ranked, paths):
        out.write("group\t%s\t%d\t%.3f\t%s.%s\t%s\n" % (stem, n, slack, name, p, steps[0][1]))
    for stem, steps in paths[:PATHS]:
        for a, where in steps:
            out.write("step\t%s\t%.3f\t%s\n" % (stem, a, where))


sys.setrecursionlimit(100000)
with open(OUT, "w") as f:
    try:
        main(f)
    except Exception as e:  # never fail nextpnr's run: the flow reports the error instead
        f.seek(0)
        f.truncate()
        f.write("error\t%s\n" % repr(e).replace("\t", " ").replace("\n", " "))
