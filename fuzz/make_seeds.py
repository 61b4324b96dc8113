#!/usr/bin/env python3
"""Write the fuzz targets' seed corpora under fuzz/seeds/TARGET/.

Run from the repository root after `cargo build -p ssdlab-cli`:
    python3 fuzz/make_seeds.py
Each seed starts with the selector bytes its target reads (src/fuzz.rs).
"""
import pathlib
import subprocess
import tomllib

ROOT = pathlib.Path(__file__).resolve().parent.parent
SEEDS = ROOT / "fuzz" / "seeds"
SSDLAB = ROOT / "target" / "debug" / "ssdlab"
SHARED = ROOT.parent / "shared" / "traces"
FIXTURES = ROOT / "crates" / "ssdlab-workload" / "tests" / "fixtures"

# src/fuzz.rs: byte 0 picks TraceFormat::ALL[i], then auto, then custom.
FORMATS = ["msr", "spc", "msprod", "systor", "alibaba", "tencent", "blkparse",
           "disksim", "mqsim", "ssdsim", "linnos", "auto", "custom"]


def head(path, lines=40):
    with open(path, "rb") as f:
        return b"".join(f.readline() for _ in range(lines))


def out(target, name, data):
    d = SEEDS / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def numeric_keys(table, prefix=""):
    """(dotted key, value) of every number or array of numbers in a TOML table."""
    for k, v in table.items():
        key = f"{prefix}{k}"
        if isinstance(v, dict):
            yield from numeric_keys(v, key + ".")
        elif isinstance(v, bool):
            continue
        elif isinstance(v, (int, float)) or (isinstance(v, list) and v and isinstance(v[0], (int, float))):
            yield key, v


def sh(*args):
    return subprocess.run([str(SSDLAB), *args], check=True, capture_output=True).stdout


def main():
    traces = {
        "msr": SHARED / "hm_0-sample.msr.csv",
        "systor": SHARED / "systor17-sample.csv",
        "tencent": SHARED / "tencent-cbs-sample.csv",
        "blkparse": SHARED / "hadoop-blkparse-sample.txt",
        "mqsim": SHARED / "tpcc-small.mqsim.trace",
        "ssdsim": SHARED / "financial1-first10k.ssdsim.trace",
    }
    extra = {
        "spc": b"0,20941264,8192,W,0.551706\n1,20939840,8192,r,0.554041\n0,3436288,15872,w,1.0\n",
        "alibaba": b"0,R,126703644672,4096,1577808144013\n0,W,1271083008,8192,1577808144064\n",
        "disksim": b"0.000000 0 1024 8 0\n1.250000 0 2048 16 1\n",
        "linnos": (FIXTURES / "linnos.trace").read_bytes(),
        "msprod": b"DiskWrite, 128165840625, Irp, 0x1, 0x2, 0x000000001234, 0x00001000, 0, 0\n",
    }
    for fmt, path in traces.items():
        body = head(path)
        out("trace", f"{fmt}-plain", bytes([FORMATS.index(fmt), 0, 0]) + body)
        out("trace", f"{fmt}-auto", bytes([FORMATS.index("auto"), 0, 1]) + body)
        out("trace", f"{fmt}-gzip", bytes([FORMATS.index(fmt), 3, 4]) + body)
    for fmt, body in extra.items():
        out("trace", f"{fmt}-plain", bytes([FORMATS.index(fmt), 0, 0]) + body)
    for spec, trace in [("site.toml", "site.csv"), ("linnos.toml", "linnos.trace")]:
        body = (FIXTURES / spec).read_bytes() + b"\0" + head(FIXTURES / trace)
        out("trace", f"custom-{spec[:-5]}", bytes([FORMATS.index("custom"), 0, 0]) + body)

    for line in sh("presets").decode().splitlines():
        name = line.split(" ")[0]
        if not line or line.startswith("Schemes") or line[0] == " ":
            break
        out("config", f"preset-{name}", b"\0" + sh("presets", "show", name))
    out("config", "scheme-spd", b"\0" + sh("presets", "show", "small", "--scheme", "spd"))
    out("config", "sets", b"\1gc.victim=fifo\nbuffer.capacity={pages=256}\n"
        b"geometry.blocks_per_plane=64\nftl.mapping=\"dftl\"\nflash.plane_registers=4\n")
    # Every numeric key at an extreme value (the range checks'
    # boundaries; the mutations vary them): one override per seed.
    small = tomllib.loads(sh("presets", "show", "small").decode())
    for key, value in numeric_keys(small):
        if isinstance(value, list):
            v = "[" + ", ".join(["1e300" if isinstance(value[0], float) else "4294967296"] * len(value)) + "]"
        elif isinstance(value, float):
            v = "1e300"
        else:
            v = "18446744073709551615"
        out("config", f"extreme-{key}", b"\1" + f"{key}={v}\n".encode())
    out("config", "extreme-time-scale", b"\1host.time_scale=1e16\nmetrics.interval_ms=0.001\n")
    out("config", "extreme-line-break", b"\1name=\"x\"\\nseed=99\n")
    for i, p in enumerate(["none", "fill:0.9:0.8+trace-reads", "fill:0.93-0.95:0.8",
                           "age:0.7+trace-writes", "trace-sequence+trace-reads"]):
        out("config", f"precondition-{i}", b"\2" + p.encode())

    for name in ["spd/hm_0", "pa/tFin", "pgc/SYN", "dvp/MSR", "dvp/pcmark05_file_write"]:
        out("profile", name.replace("/", "-"), sh("workloads", "show", name))

    out("sweep", "basic", b'''experiment = "seed"
presets = ["small"]
workloads = ["spd/hm_0"]
precondition = "fill:0.95:0.8+trace-reads"
limit = 3000
seed = 1
baseline = "greedy"
[[scheme]]
name = "greedy"
set = []
[[scheme]]
name = "spd"
[[param]]
key = "buffer.capacity"
values = ["{pages=256}", "{pages=1024}"]
''')


main()
