"""Tests of the Python package: runs, errors, sweeps (local, on a Dask
LocalCluster, sharded and merged), catalogues."""

import json
import os
import subprocess
import sys
import textwrap

import pandas as pd
import pytest

import ssdlab

SPEC = textwrap.dedent(
    """\
    experiment = "py"
    presets = ["small"]
    workloads = ["spd/hm_0", "spd/prn_0"]
    precondition = "fill:0.9:0.8"
    limit = 4000
    seed = 3
    baseline = "greedy"
    [[scheme]]
    name = "greedy"
    set = []
    [[scheme]]
    name = "fifo"
    set = ["gc.victim=\\"fifo\\""]
    [[param]]
    key = "buffer.capacity"
    values = ["{pages=256}", "{pages=1024}"]
    """
)


@pytest.fixture
def spec(tmp_path):
    p = tmp_path / "spec.toml"
    p.write_text(SPEC)
    return p


RUN = dict(
    preset="small",
    workload="spd/hm_0",
    limit=3000,
    precondition="fill:0.9:0.8",
    set={"gc.victim": "fifo", "metrics.interval_ms": 1000.0},
    seed=5,
)


def test_the_readme_example_runs_gc():
    """The README's example exists to show a GC victim policy: GC must run."""
    r = ssdlab.run(
        preset="small",
        workload="spd/hm_0",
        limit=20000,
        precondition="fill:0.95:0.8+trace-reads",
        set={"gc.victim": "fifo", "metrics.interval_ms": 100.0},
        seed=7,
    )
    s = r.summary()
    assert s["gc_count"][0] > 0
    d = r.to_dict()
    assert d["gc"]["count"] == s["gc_count"][0]
    assert d["warnings"] == []


def test_attribution_splits_latency_into_parts():
    r = ssdlab.run(**RUN, attribution=True)
    a = r.attribution()
    assert set(a["op"]) == {"read", "write"}
    assert list(a[a["op"] == "read"]["band"]) == ["all", "p50", "p99", "p99.9"]
    parts = ["buffer", "mapping", "held", "behind_host", "behind_gc", "channel", "transfer", "array"]
    for _, row in a.iterrows():
        assert abs(sum(row[p] for p in parts) - 100.0) < 1e-6
    # Off by default, and it moves no other figure.
    plain = ssdlab.run(**RUN)
    assert plain.attribution().empty
    d = r.to_dict()
    del d["attribution"]
    q = plain.to_dict()
    for x in (d, q):
        del x["run"]
    assert d == q
    with pytest.raises(TypeError):
        ssdlab.run(**RUN, attribution="yes")


def test_run_gives_the_report_and_frames():
    r = ssdlab.run(**RUN)
    d = r.to_dict()
    assert d["requests"] == 3000
    assert d["run"]["seed"] == 5
    assert d["run"]["config"]["gc"]["victim"] == "fifo"
    assert d["run"]["precondition"] == "fill:0.9:0.8"
    s = r.summary()
    assert len(s) == 1 and s["requests"][0] == 3000
    assert s["write_latency_us_mean"][0] == d["write"]["latency_us"]["mean"]
    ts = r.timeseries()
    assert len(ts) > 0 and "iops" in ts.columns
    h = r.latency_histogram()
    assert list(h.columns) == ["op", "latency_us", "count", "fraction"]
    for op, key in [("read", "read"), ("write", "write")]:
        part = h[h.op == op]
        assert part["count"].sum() == d[key]["count"]
        assert part["fraction"].is_monotonic_increasing
        assert part["fraction"].iloc[-1] == pytest.approx(1.0)
    # Deterministic for a seed.
    assert ssdlab.run(**RUN).to_dict() == d


def test_conventions_pass_through():
    d = ssdlab.run(
        preset="small", workload="spd/hm_0", limit=2000, conventions="mqsim"
    ).to_dict()
    assert d["run"]["precondition"] == "trace-reads"
    assert d["run"]["config"]["buffer"]["free_watermark"] == 1.0
    # writes wait only for MQSim's host link and DRAM
    assert d["run"]["config"]["interface"]["link"]["kind"] == "pcie"
    assert 0.0 < d["write"]["latency_us"]["mean"] < 1000.0
    with pytest.raises(ssdlab.SsdlabError, match="unknown conventions `x`"):
        ssdlab.run(workload="spd/hm_0", limit=10, conventions="x")


def test_errors_are_exceptions_with_the_location(tmp_path):
    with pytest.raises(ssdlab.SsdlabError, match="unknown key `nope`"):
        ssdlab.run(workload="spd/hm_0", set={"gc.nope": 1}, limit=10)
    bad = tmp_path / "bad.csv"
    bad.write_text("128166372003061629,hm,0,Write,x,4096,100\n")
    with pytest.raises(ssdlab.SsdlabError, match=r"bad.csv:1: field `offset`"):
        ssdlab.run(trace=bad, trace_format="msr")
    with pytest.raises(ssdlab.SsdlabError, match="exactly one of"):
        ssdlab.run(workload="spd/hm_0", trace=bad)


def test_catalogues():
    p = ssdlab.presets()
    assert "spd-512g" in set(p["name"]) and (p["capacity_gib"] > 0).all()
    assert {"spd", "parallel-gc", "pa-baseline"} <= set(ssdlab.schemes()["name"])
    assert "pgc/Financial1" in set(ssdlab.workloads()["name"])


def test_local_sweep_is_the_cli_sweep(spec, tmp_path):
    df = ssdlab.sweep(spec, out=tmp_path / "out", jobs=2)
    assert len(df) == 8
    assert df["requests"].dtype.kind == "i" and (df["requests"] == 4000).all()
    csv = pd.read_csv(tmp_path / "out" / "results.csv")
    assert list(csv.columns) == list(df.columns)
    pd.testing.assert_frame_equal(
        df.reset_index(drop=True), csv, check_dtype=False, check_exact=True
    )


def test_dask_sweep_equals_the_local_sweep(spec, tmp_path):
    distributed = pytest.importorskip("dask.distributed")
    local = ssdlab.sweep(spec, jobs=2)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster, distributed.Client(cluster) as client:
        remote = ssdlab.sweep(spec, executor=client, out=tmp_path / "dask")
    pd.testing.assert_frame_equal(local, remote, check_exact=True)
    # Cell by cell, and the saved runs byte for byte against a local sweep.
    for col in local.columns:
        assert (local[col].astype(str) == remote[col].astype(str)).all(), col
    whole = tmp_path / "whole"
    ssdlab.sweep(spec, out=whole, jobs=2)
    for f in sorted(os.listdir(whole / "runs")):
        assert (whole / "runs" / f).read_bytes() == (tmp_path / "dask" / "runs" / f).read_bytes(), f


def test_shards_merge_to_the_local_sweep(spec, tmp_path):
    from ssdlab import _native

    whole = tmp_path / "whole"
    ssdlab.sweep(spec, out=whole, jobs=2)
    shards = []
    for i in range(3):
        d = tmp_path / f"shard{i}"
        _native.sweep(str(spec), str(d), jobs=1, shard=f"{i}/3")
        assert not (d / "results.csv").exists()
        shards.append(str(d))
    merged = tmp_path / "merged"
    _native.sweep(str(spec), str(merged), merge=shards)
    for f in ["results.csv", "results.parquet", "summary.md"]:
        assert (whole / f).read_bytes() == (merged / f).read_bytes(), f


def test_sweep_takes_a_dict(spec, tmp_path, monkeypatch):
    tomllib = pytest.importorskip("tomllib")

    from_file = ssdlab.sweep(spec, jobs=2)
    values = tomllib.loads(spec.read_text())
    pd.testing.assert_frame_equal(ssdlab.sweep(values, jobs=2), from_file, check_exact=True)
    # Relative paths are the caller's: a profile next to the current directory.
    monkeypatch.chdir(tmp_path)
    (tmp_path / "w.toml").write_text(
        'name = "w"\nseed = 1\nrequests = 300\nread_share = 0.5\n'
        "footprint_bytes = 4194304\n"
        "read_size = { uniform = [4096, 16384] }\n"
        "write_size = { uniform = [4096, 16384] }\n"
        'address = { kind = "uniform" }\n'
        'arrival = { kind = "poisson", iops = 300.0 }\n'
    )
    small = dict(values, workloads=["w.toml"], param=[], limit=300)
    df = ssdlab.sweep(small, jobs=1)
    assert len(df) == 2 and (df["requests"] == 300).all()
    with pytest.raises(ssdlab.SsdlabError, match="`limit` is None"):
        ssdlab.sweep(dict(small, limit=None))


_CUT = ["geometry.blocks_per_plane=64", "geometry.pages_per_block=32"]
SEEDS_SPEC = dict(
    experiment="reps",
    presets=["small"],
    workloads=["spd/hm_0"],
    precondition="fill:0.95:0.8+trace-reads",
    limit=3000,
    baseline="greedy",
    seed=1,
    scheme=[
        {"name": "greedy", "set": _CUT},
        {"name": "same", "set": _CUT},
        {"name": "tight", "set": _CUT + ["ftl.overprovisioning=0.03"]},
    ],
)


def test_sweep_with_seeds_gives_statistics_and_comparisons(tmp_path):
    out = tmp_path / "out"
    df = ssdlab.sweep(SEEDS_SPEC, seeds=3, out=out, jobs=2)
    assert len(df) == 9
    assert list(df["replicate"]) == [0, 1, 2] * 3
    # replicates share the aged drive (its seed); the workload's seed is raised
    assert list(df["seed"]) == [1] * 9 and list(df["workload_seed"]) == [1, 2, 3] * 3
    # stats.csv against the rows: mean, sample sd, Student-t interval (t_0.975,2)
    st = ssdlab.stats(out)
    assert len(st) == 3 * 13
    row = st[(st["scheme"] == "tight") & (st["metric"] == "write_amplification")].iloc[0]
    xs = df[df["scheme"] == "tight"]["write_amplification"]
    half = 4.302652729911275 * xs.std(ddof=1) / 3**0.5
    assert row["n"] == 3
    assert row["mean"] == pytest.approx(xs.mean(), rel=1e-12)
    assert row["sd"] == pytest.approx(xs.std(ddof=1), rel=1e-9)
    assert row["ci95_low"] == pytest.approx(xs.mean() - half, rel=1e-9)
    assert row["ci95_high"] == pytest.approx(xs.mean() + half, rel=1e-9)
    # the same configuration under two names: no difference; less
    # over-provisioning: a higher write amplification
    same = ssdlab.compare(out, "greedy", "same")
    assert (same["test"] == "paired-t").all() and (same["n_a"] == 3).all()
    assert set(same["verdict"]) <= {"identical", "no-significant-difference"}
    tight = ssdlab.compare(out, "greedy", "tight").set_index("metric")
    assert tight.loc["write_amplification", "verdict"] == "differ"
    assert tight.loc["write_amplification", "ci95_low"] > 0
    with pytest.raises(ssdlab.SsdlabError, match="its schemes: greedy, same, tight"):
        ssdlab.compare(out, "greedy", "nope")
    with pytest.raises(ssdlab.SsdlabError, match="seeds=0: must be at least 1"):
        ssdlab.sweep(SEEDS_SPEC, seeds=0)
    with pytest.raises(TypeError, match="seeds= takes an int"):
        ssdlab.sweep(SEEDS_SPEC, seeds=2.5)
    # the spec's own key, and the override in the runs' list
    one = tmp_path / "one"
    ssdlab.sweep(dict(SEEDS_SPEC, seeds=2), out=one, jobs=2)
    assert len(pd.read_csv(one / "results.csv")) == 6
    with pytest.raises(ssdlab.SsdlabError, match="stats.csv: no such file"):
        ssdlab.stats(tmp_path)


def test_flows_give_per_flow_results_and_fairness():
    flows = [
        {"name": "reader", "workload": "spd/proj_3", "limit": 1500, "queue_depth": 8},
        "name=writer,workload=spd/prxy_0,limit=1500,priority=high",
    ]
    r = ssdlab.run(preset="small", flows=flows, alone=True, set={"queues.arbitration": "wrr"}, seed=3)
    d = r.to_dict()
    f = r.flows()
    assert list(f["name"]) == ["reader", "writer"]
    assert list(f["priority"]) == ["medium", "high"]
    assert list(f["queue_depth"]) == [8, 32]
    assert f["requests"].sum() == d["requests"]
    assert list(f["all_mean_us"]) == [x["all"]["mean"] for x in d["flows"]]
    assert (f["slowdown"] > 0).all()
    assert r.fairness == pytest.approx(f["slowdown"].min() / f["slowdown"].max())
    assert 0 < r.fairness <= 1
    assert d["run"]["config"]["queues"]["arbitration"] == "wrr"
    # Deterministic for a seed; without alone=, no slowdowns.
    again = ssdlab.run(preset="small", flows=flows, alone=True, set={"queues.arbitration": "wrr"}, seed=3)
    assert again.to_dict() == d
    plain = ssdlab.run(preset="small", flows=flows, set={"queues.arbitration": "wrr"}, seed=3)
    assert plain.fairness is None and plain.flows()["slowdown"].isna().all()
    assert list(plain.flows()["all_mean_us"]) == list(f["all_mean_us"])
    # A run without flows has none.
    assert ssdlab.run(**RUN).flows().empty


def test_bad_flows_are_refused():
    with pytest.raises(ssdlab.SsdlabError, match=r"flows\[0\]: unknown field `depth`"):
        ssdlab.run(flows=[{"name": "a", "workload": "spd/hm_0", "depth": 4}])
    with pytest.raises(ssdlab.SsdlabError, match=r"flows\[1\]"):
        ssdlab.run(flows=[{"name": "a", "workload": "spd/hm_0"}, "name=b,workload"])
    with pytest.raises(ssdlab.SsdlabError, match="each flow names its own workload"):
        ssdlab.run(workload="spd/hm_0", flows=["name=a,workload=spd/hm_0"])
    with pytest.raises(ssdlab.SsdlabError, match="give flows="):
        ssdlab.run(workload="spd/hm_0", limit=10, alone=True)
    with pytest.raises(TypeError, match="flows= takes a list"):
        ssdlab.run(flows="name=a,workload=spd/hm_0")
    with pytest.raises(TypeError, match=r"flows\[0\] must be"):
        ssdlab.run(flows=[3])
    with pytest.raises(TypeError, match="alone= takes a bool"):
        ssdlab.run(flows=["name=a,workload=spd/hm_0"], alone=1)


def test_bad_argument_types_are_refused():
    with pytest.raises(TypeError, match="set= takes a mapping"):
        ssdlab.run(workload="spd/hm_0", set=["gc.victim=fifo"], limit=10)
    with pytest.raises(TypeError, match="limit= takes an int; got bool"):
        ssdlab.run(workload="spd/hm_0", limit=True)
    with pytest.raises(TypeError, match="seed= takes an int"):
        ssdlab.run(workload="spd/hm_0", seed=1.5, limit=10)
    with pytest.raises(ssdlab.SsdlabError, match="limit=-1"):
        ssdlab.run(workload="spd/hm_0", limit=-1)
    with pytest.raises(ssdlab.SsdlabError, match="host.time_scale"):
        ssdlab.run(workload="spd/hm_0", set={"host.time_scale": 1e19}, limit=10)


# Ctrl-C while a native call runs: each case in a child interpreter that
# interrupts itself (SIGINT, as Ctrl-C sends), with a timeout so that an
# interrupt that is not seen fails the test instead of hanging it.
INTERRUPT = textwrap.dedent(
    """\
    import json, os, signal, sys, threading
    import ssdlab

    mode = sys.argv[1]
    # Ctrl-C as in a terminal, even when these tests run in a background
    # job, which starts with SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    threading.Timer(float(sys.argv[2]), os.kill, (os.getpid(), signal.SIGINT)).start()
    out = {}
    try:
        if mode == "run":
            r = ssdlab.run(preset="small", workload="spd/hm_0", precondition="none",
                           set={"host.replays": 1000})
        elif mode == "precondition":
            # ageing a 512 GiB drive takes seconds
            r = ssdlab.run(preset="spd-512g", workload="spd/hm_0", precondition="fill:0.95:0.8")
        else:
            fifo = sys.argv[3]
            writer = os.open(fifo, os.O_RDWR)  # holds the pipe open
            if mode != "empty":
                # two records, then nothing more
                os.write(writer, b"128166372003061629,hm,0,Write,4096,4096,100\\n"
                                 b"128166372003071629,hm,0,Read,4096,4096,100\\n")
            # a pipe is read once: no preconditioning that reads it first
            r = ssdlab.run(trace=fifo, trace_format="msr", precondition="none")
        out = {"partial": r.partial, "requests": r.to_dict()["requests"]}
    except KeyboardInterrupt as e:
        out = {"keyboard_interrupt": str(e)}
    print(json.dumps(out))
    """
)


def _interrupted(tmp_path, mode, delay):
    script = tmp_path / "interrupt.py"
    script.write_text(INTERRUPT)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    done = subprocess.run(
        [sys.executable, str(script), mode, str(delay), str(fifo)],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_ctrl_c_during_a_run_returns_the_partial_result(tmp_path):
    out = _interrupted(tmp_path, "run", 1.0)
    assert out["partial"] is True and out["requests"] > 0, out


def test_ctrl_c_while_a_trace_pipe_sends_nothing(tmp_path):
    # The run waits for the pipe's next record: it ends with what it did.
    out = _interrupted(tmp_path, "pipe", 0.5)
    assert out["partial"] is True, out


def test_ctrl_c_before_the_run_raises_keyboard_interrupt(tmp_path):
    # Waiting for the trace's first bytes, or ageing the drive before the
    # run: there is no run to return.
    for mode in ["empty", "precondition"]:
        d = tmp_path / mode
        d.mkdir()
        out = _interrupted(d, mode, 0.5)
        assert "keyboard_interrupt" in out, (mode, out)


def test_a_saved_state_gives_the_aging_runs_result(tmp_path):
    """save_state= then load_state=: the same result as aging in the run."""
    state = tmp_path / "drive.state"
    aged = ssdlab.run(**RUN, save_state=state)
    assert state.stat().st_size > 0
    args = {k: v for k, v in RUN.items() if k != "precondition"}
    loaded = ssdlab.run(**args, load_state=state)
    assert loaded.to_dict() == aged.to_dict()
    with pytest.raises(ssdlab.SsdlabError, match="not both"):
        ssdlab.run(**RUN, load_state=state)
    with pytest.raises(ssdlab.SsdlabError, match="gc.victim"):
        ssdlab.run(**{**args, "set": {"gc.victim": "greedy"}}, load_state=state)
