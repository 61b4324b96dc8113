"""ssdlab from Python: runs and sweeps of the trace-driven NAND-flash SSD
simulator, with results as pandas DataFrames.

>>> import ssdlab
>>> r = ssdlab.run(preset="small", workload="spd/hm_0", limit=20000,
...                precondition="fill:0.95:0.8+trace-reads", set={"gc.victim": "fifo"})
>>> r.summary()                 # one row: the headline figures (GC ran over 1,000 times)
>>> r.latency_histogram()       # the latency CDF, per op
>>> df = ssdlab.sweep("spec.toml")                 # on this machine
>>> df = ssdlab.sweep("spec.toml", executor=client)  # on a Dask cluster
>>> df = ssdlab.sweep("spec.toml", seeds=5, out="out")  # every cell 5 times
>>> ssdlab.stats("out")                                # mean, sd, 95 % CI per cell
>>> ssdlab.compare("out", "greedy", "fifo")            # paired t-test per metric

Every simulation runs in native code with the GIL released. Errors raise
:class:`SsdlabError` with the same message (file, line, field) as the
``ssdlab`` command. Ctrl-C stops a run where it is and returns its result
so far (``Result.partial`` is true); during preconditioning, or in a sweep
(whose finished runs stay in its ``out`` directory), it raises
``KeyboardInterrupt``.
"""

from __future__ import annotations

import copy
import json
import math
import os
import shutil
import tempfile
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Union

import pandas as pd

from . import _native
from ._native import SsdlabError

__all__ = [
    "Result",
    "SsdlabError",
    "compare",
    "presets",
    "run",
    "schemes",
    "stats",
    "sweep",
    "workloads",
    "__version__",
]

__version__ = _native.__version__

PathLike = Union[str, "os.PathLike[str]"]


def _value(v: Any) -> str:
    """A Python value as a ``--set`` value (TOML syntax; strings bare)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, (int, float)):
        if isinstance(v, float) and not math.isfinite(v):
            raise SsdlabError(f"--set value {v!r} is not a finite number")
        return repr(v)
    if isinstance(v, str):
        return v
    if isinstance(v, Mapping):
        return "{" + ", ".join(f"{k} = {_toml(x)}" for k, x in v.items()) + "}"
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(_toml(x) for x in v) + "]"
    raise SsdlabError(f"cannot pass {type(v).__name__} {v!r} as a configuration value")


def _toml(v: Any) -> str:
    """A value inside a TOML array or inline table (strings quoted)."""
    if isinstance(v, str):
        return json.dumps(v)
    return _value(v)


class Result:
    """One run's result.

    ``to_dict()`` is the JSON the command line writes with ``--json`` (the
    report, and under ``"run"`` what produced it: version, git revision,
    seed, configuration, workload with the trace's SHA-256).
    """

    def __init__(self, document: Dict[str, Any]):
        self._result = document["result"]
        self._cdf = document["latency_cdf"]

    def to_dict(self) -> Dict[str, Any]:
        """The result as the CLI's ``--json`` writes it (a deep copy)."""
        return copy.deepcopy(self._result)

    @property
    def partial(self) -> bool:
        return bool(self._result.get("partial", False))

    def summary(self) -> pd.DataFrame:
        """One row of headline figures (the columns of a sweep's results)."""
        r = self._result
        gc = r["gc"]
        row = {
            "config": r["config_name"],
            "workload": r["workload_name"],
            "seed": r["seed"],
            "requests": r["requests"],
            "simulated_s": r["simulated_ns"] / 1e9,
            "iops": r["iops"],
            "bandwidth_mb_s": r["bandwidth_mb_s"],
            "read_latency_us_mean": r["read"]["latency_us"]["mean"],
            "read_latency_us_p99": r["read"]["latency_us"]["p99"],
            "write_latency_us_mean": r["write"]["latency_us"]["mean"],
            "write_latency_us_p99": r["write"]["latency_us"]["p99"],
            "gc_count": gc["count"],
            "gc_time_us_total": gc["time_us"]["total"],
            "erases": r["flash"]["erases"],
            "write_amplification": r["write_amplification"],
            "multiplane_program_share": r["flash"]["host_multiplane_program_share"],
        }
        return pd.DataFrame([row])

    def timeseries(self) -> pd.DataFrame:
        """The time series (one row per ``metrics.interval_ms``); empty
        when the run kept none (``metrics.interval_ms = 0``)."""
        return pd.DataFrame(self._result.get("timeseries") or [])

    def attribution(self) -> pd.DataFrame:
        """Latency attribution (run with ``attribution=True``): one row per
        operation and band (``all``, ``p50``, ``p99``, ``p99.9``: the
        requests from that percentile's latency on) with ``from_us``,
        ``requests``, ``mean_us``, each part's share of the band's latency
        in percent (``buffer`` … ``array``, ``suspended`` with suspension on and
        ``host`` with flows or the host interface, summing to 100) and the buffer
        wait's causes (``buffer_cause_*``). Empty when the run had it off."""
        a = self._result.get("attribution")
        rows = []
        for op in ("read", "write"):
            for b in (a or {}).get(op, []):
                row = {
                    "op": op,
                    "band": b["band"],
                    "from_us": b["from_us"],
                    "requests": b["requests"],
                    "mean_us": b["mean_us"],
                }
                row.update(b["share_pct"])
                row.update({f"buffer_cause_{k}": v for k, v in b["buffer_causes_pct"].items()})
                rows.append(row)
        return pd.DataFrame(rows)

    def flows(self) -> pd.DataFrame:
        """Per-flow results of a run with ``flows=``: one row per flow with
        its ``name``, ``priority``, ``queue_depth``, ``requests``, ``iops``,
        ``bandwidth_mb_s``, latency mean and percentiles in microseconds for
        reads, writes and all (``read_mean_us``, ``read_p99_us``, …,
        ``all_p9999_us``), host queue wait (``host_wait_mean_us``,
        ``host_wait_p99_us``), time blocked by GC (``gc_blocked_us``) and,
        with ``alone=True``, ``alone_mean_latency_us`` and ``slowdown``.
        Empty for a run without flows."""
        rows = []
        for f in self._result.get("flows") or []:
            row = {
                "name": f["name"],
                "priority": f["priority"],
                "queue_depth": f["queue_depth"],
                "requests": f["requests"],
                "iops": f["iops"],
                "bandwidth_mb_s": f["bandwidth_mb_s"],
            }
            for op in ("read", "write", "all"):
                for k in ("count", "mean", "p50", "p90", "p99", "p999", "p9999", "max"):
                    row[f"{op}_{k}" if k == "count" else f"{op}_{k}_us"] = f[op][k]
            row["host_wait_mean_us"] = f["host_wait_us"]["mean"]
            row["host_wait_p99_us"] = f["host_wait_us"]["p99"]
            row["gc_blocked_us"] = f["gc_blocked_us"]
            row["alone_mean_latency_us"] = f.get("alone_mean_latency_us")
            row["slowdown"] = f.get("slowdown")
            rows.append(row)
        return pd.DataFrame(rows)

    @property
    def fairness(self) -> Optional[float]:
        """The smallest flow slowdown over the largest (FLIN's fairness;
        1 when every flow is slowed alike): a run with ``flows=`` and
        ``alone=True``; otherwise None."""
        return self._result.get("fairness")

    def latency_histogram(self) -> pd.DataFrame:
        """The latency distribution: ``op``, ``latency_us``, ``count`` and
        the cumulative ``fraction`` (one row per histogram bucket holding
        requests, 3 significant digits) — a CDF plot's points."""
        return pd.DataFrame(self._cdf, columns=["op", "latency_us", "count", "fraction"])

    def __repr__(self) -> str:
        r = self._result
        return (
            f"<ssdlab.Result {r['workload_name']} on {r['config_name']}: {r['requests']} requests, "
            f"read {r['read']['latency_us']['mean']:.1f} us, "
            f"write {r['write']['latency_us']['mean']:.1f} us, WA {r['write_amplification']:.3f}>"
        )


def run(
    preset: Optional[str] = None,
    config: Optional[PathLike] = None,
    scheme: Optional[str] = None,
    workload: Optional[str] = None,
    trace: Optional[PathLike] = None,
    profile: Optional[PathLike] = None,
    precondition: Optional[str] = None,
    set: Optional[Mapping[str, Any]] = None,  # noqa: A002 (the CLI's name)
    seed: Optional[int] = None,
    limit: Optional[int] = None,
    trace_format: Optional[str] = None,
    conventions: Optional[str] = None,
    attribution: bool = False,
    save_state: Optional[PathLike] = None,
    load_state: Optional[PathLike] = None,
    flows: Optional[List[Union[str, Mapping[str, Any]]]] = None,
    alone: bool = False,
) -> Result:
    """Run one simulation, as ``ssdlab run`` does.

    The drive is ``preset`` (default ``small``) or the TOML file
    ``config``, then ``scheme``'s policies, then ``conventions``
    (``"mqsim"``: account as MQSim does, to compare with it; its default
    ``precondition`` is ``trace-reads``), then ``set``'s overrides
    (``{"gc.victim": "fifo", "buffer.capacity": {"pages": 256}}``), then
    ``seed``. The workload is exactly one of ``workload`` (a built-in name,
    see :func:`workloads`), ``trace`` (a trace file; ``trace_format``
    default ``auto``) and ``profile`` (a synthetic profile TOML file);
    ``limit`` cuts it. ``precondition`` ages the drive first
    (``"fill:0.9:0.8+trace-reads"``; default ``"trace-reads"``, which maps
    the pages the workload reads so that every read is a flash read;
    ``"none"`` leaves them unwritten). The result's ``warnings`` say what
    may make its figures mean less than they seem. ``attribution=True``
    splits every request's latency into parts (see
    :meth:`Result.attribution`). ``save_state`` saves the drive as aging
    left it to a file; ``load_state`` starts from such a file instead of
    aging (not with ``precondition``: the state records its aging; it is
    refused for another drive or workload), with the result of aging in
    the same process.

    ``flows`` runs several flows (tenants) side by side instead of one
    workload: a list whose items are each a mapping with the keys of a
    ``[[flows]]`` table (``{"name": "reader", "workload": "spd/hm_0",
    "queue_depth": 8, "priority": "high", "namespace": {"first_page": 0,
    "pages": 100000}}``) or a ``--flow`` spec string
    (``"name=writer,workload=spd/prn_1,start_us=500"``); each flow names its
    own workload and limit (not ``workload``, ``trace``, ``profile`` or
    ``limit``). ``set`` takes the ``queues.*`` keys (arbitration, burst,
    weights). ``alone=True`` also runs each flow alone on the same drive and
    reports its slowdown and the run's fairness (see :meth:`Result.flows`
    and :attr:`Result.fairness`).

    Ctrl-C stops the run where it is: the result so far is returned, with
    ``partial`` true (during preconditioning it raises ``KeyboardInterrupt``).
    """
    if set is not None and not isinstance(set, Mapping):
        raise TypeError(
            f"set= takes a mapping of keys to values, e.g. {{'gc.victim': 'fifo'}}; "
            f"got {type(set).__name__} {set!r}"
        )
    for name, v in (("seed", seed), ("limit", limit)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int)):
            raise TypeError(f"{name}= takes an int; got {type(v).__name__} {v!r}")
        if v is not None and v < 0:
            raise SsdlabError(f"{name}={v}: must not be negative")
    if not isinstance(alone, bool):
        raise TypeError(f"alone= takes a bool; got {type(alone).__name__} {alone!r}")
    if flows is not None and (isinstance(flows, (str, Mapping)) or not isinstance(flows, (list, tuple))):
        raise TypeError(
            "flows= takes a list of flows (each a mapping of [[flows]] keys or a --flow spec string); "
            f"got {type(flows).__name__} {flows!r}"
        )
    flow_specs: List[str] = []
    for i, f in enumerate(flows or []):
        if isinstance(f, str):
            flow_specs.append(f)
        elif isinstance(f, Mapping):
            try:
                flow_specs.append(json.dumps(dict(f), allow_nan=False))
            except (TypeError, ValueError) as e:
                raise SsdlabError(f"flows[{i}]: {e}") from None
        else:
            raise TypeError(
                f"flows[{i}] must be a mapping of [[flows]] keys or a --flow spec string; "
                f"got {type(f).__name__} {f!r}"
            )
    if not isinstance(attribution, bool):
        raise TypeError(f"attribution= takes a bool; got {type(attribution).__name__} {attribution!r}")
    sets: List[str] = [f"{k}={_value(v)}" for k, v in (set or {}).items()]
    if attribution:
        sets.append("metrics.attribution=true")
    text = _native.run(
        preset=preset,
        config=None if config is None else os.fspath(config),
        scheme=scheme,
        conventions=conventions,
        sets=sets,
        workload=workload,
        trace=None if trace is None else os.fspath(trace),
        trace_format=trace_format,
        profile=None if profile is None else os.fspath(profile),
        precondition=precondition,
        seed=seed,
        limit=limit,
        save_state=None if save_state is None else os.fspath(save_state),
        load_state=None if load_state is None else os.fspath(load_state),
        flows=flow_specs,
        alone=alone,
    )
    return Result(json.loads(text))


def _sweep_task(spec: str, index: int, count: int, seeds: Optional[int] = None) -> tuple:
    """One run of a sweep, in a worker: runs shard ``index/count`` (one run)
    in a scratch directory and returns (file name, the saved run's JSON)."""
    scratch = tempfile.mkdtemp(prefix="ssdlab-task-")
    try:
        _native.sweep(spec, scratch, jobs=1, shard=f"{index}/{count}", seeds=seeds)
        runs = Path(scratch) / "runs"
        (saved,) = list(runs.glob("*.json"))
        return saved.name, saved.read_text()
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def sweep(
    spec: Union[PathLike, Mapping[str, Any]],
    executor: Any = None,
    out: Optional[PathLike] = None,
    jobs: Optional[int] = None,
    seeds: Optional[int] = None,
) -> pd.DataFrame:
    """Run the sweep ``spec`` and return its results (the ``results.csv``
    columns, typed). ``spec`` is a TOML sweep spec's path, as ``ssdlab
    sweep`` takes, or a dict with the same keys (``{"experiment": "e",
    "presets": ["small"], "workloads": ["spd/hm_0"], "baseline": "greedy",
    "scheme": [{"name": "greedy", "set": []}], ...}``), whose relative
    paths are resolved against the current directory (or its
    ``base_dir``). A dict is written as a spec file in a temporary
    directory; Dask workers must be able to read it there (on a cluster
    whose workers do not share this machine's files, pass a spec file on
    shared storage instead).

    ``executor``: ``None`` or ``"local"`` runs on this machine (``jobs``
    threads, default all cores); a ``dask.distributed.Client`` runs each
    run of the matrix as one Dask task (the simulation in the worker's
    process; only its result comes back), so the same call runs on a
    ``LocalCluster``, on Slurm through dask-jobqueue or on Kubernetes. The
    spec and the files it names must be readable by the workers at the
    same path. Results are identical whatever the executor.

    ``out`` keeps the sweep's directory (runs/, results.csv,
    results.parquet, summary.md, charts/); by default a temporary one.

    ``seeds`` (an int of at least 1; replaces the spec's ``seeds``) runs
    every cell that many times, replicate i with a generated workload's
    seed raised by i and the model's i-th random stream after aging, on the
    cell's one aged drive (the spec's ``age_each_replicate = true`` ages
    one per replicate, its seed raised by i), the same seeds in every
    cell: the results then have one
    row per run with its ``replicate``, ``seed`` and ``workload_seed``, and
    ``out`` also holds ``stats.csv`` (:func:`stats`), which
    :func:`compare` tests schemes with.
    """
    if seeds is not None and (isinstance(seeds, bool) or not isinstance(seeds, int)):
        raise TypeError(f"seeds= takes an int; got {type(seeds).__name__} {seeds!r}")
    if seeds is not None and seeds < 1:
        raise SsdlabError(f"seeds={seeds}: must be at least 1 (1: each cell runs once)")
    spec_dir = None
    if isinstance(spec, Mapping):
        values = dict(spec)
        values.setdefault("base_dir", os.getcwd())
        text = _native.spec_toml(json.dumps(values))
        spec_dir = tempfile.mkdtemp(prefix="ssdlab-spec-")
        spec = os.path.join(spec_dir, "spec.toml")
        with open(spec, "w") as f:
            f.write(text)
    try:
        return _sweep_file(os.path.abspath(os.fspath(spec)), executor, out, jobs, seeds)
    finally:
        if spec_dir is not None:
            shutil.rmtree(spec_dir, ignore_errors=True)


def _sweep_file(
    spec: str,
    executor: Any,
    out: Optional[PathLike],
    jobs: Optional[int],
    seeds: Optional[int],
) -> pd.DataFrame:
    keep = out is not None
    target = os.fspath(out) if keep else tempfile.mkdtemp(prefix="ssdlab-sweep-")
    try:
        if executor is None or executor == "local":
            _native.sweep(spec, target, jobs=jobs, seeds=seeds)
        elif isinstance(executor, str):
            raise SsdlabError(f"unknown executor {executor!r}: use None, 'local' or a dask Client")
        else:
            runs = _native.sweep_runs(spec, seeds=seeds)
            count = len(runs)
            futures = executor.map(
                _sweep_task,
                [spec] * count,
                range(count),
                [count] * count,
                [seeds] * count,
                pure=False,
            )
            merged = tempfile.mkdtemp(prefix="ssdlab-merge-")
            try:
                os.makedirs(os.path.join(merged, "runs"))
                for name, text in executor.gather(futures):
                    with open(os.path.join(merged, "runs", name), "w") as f:
                        f.write(text)
                _native.sweep(spec, target, jobs=jobs, merge=[merged], seeds=seeds)
            finally:
                shutil.rmtree(merged, ignore_errors=True)
        return pd.read_parquet(os.path.join(target, "results.parquet"))
    finally:
        if not keep:
            shutil.rmtree(target, ignore_errors=True)


def stats(out: PathLike) -> pd.DataFrame:
    """The statistics of a sweep run with ``seeds`` of at least 2, kept in
    ``out``: its ``stats.csv``, one row per cell (``experiment``,
    ``preset``, ``workload``, ``scheme``, the parameters) and metric, with
    ``n``, ``mean``, ``sd`` (sample standard deviation) and the 95 %
    confidence interval of the mean ``ci95_low``, ``ci95_high`` (Student
    t with n - 1 degrees of freedom)."""
    path = Path(os.fspath(out)) / "stats.csv"
    if not path.is_file():
        raise SsdlabError(
            f"{path}: no such file; a sweep writes it when it runs each cell at least twice "
            "(seeds= of at least 2, or `seeds` in its spec)"
        )
    return pd.read_csv(path, dtype={"scheme": str, "workload": str, "preset": str})


def compare(out: PathLike, a: str, b: str) -> pd.DataFrame:
    """Do schemes ``a`` and ``b`` of the sweep kept in ``out`` (run with
    ``seeds`` of at least 2) differ, as ``ssdlab compare OUT A B`` says:
    one row per row of the sweep's tables (``preset``, ``workload``, the
    parameters) and metric, with ``test`` (``paired-t``: the paired t-test
    on the per-replicate differences, the replicates of both having run
    with the same seeds; ``welch-t`` otherwise), ``n_a``, ``n_b``,
    ``mean_a``, ``mean_b``, ``difference`` (B - A), its 95 % confidence
    interval ``ci95_low``, ``ci95_high``, ``p_value`` (two-sided; None
    when the replicates do not vary) and ``verdict`` (``differ`` at the 5 %
    level, ``no-significant-difference``, ``identical``,
    ``constant-difference``)."""
    doc = json.loads(_native.compare(os.fspath(out), a, b))
    rows = []
    for row in doc["rows"]:
        for m in row["metrics"]:
            rows.append(
                {
                    "preset": row["preset"],
                    "workload": row["workload"],
                    **row["params"],
                    "metric": m["metric"],
                    "test": row["test"],
                    "n_a": row["n_a"],
                    "n_b": row["n_b"],
                    "mean_a": m["mean_a"],
                    "mean_b": m["mean_b"],
                    "difference": m["difference"],
                    "ci95_low": m["ci95_low"],
                    "ci95_high": m["ci95_high"],
                    "p_value": m["p_value"],
                    "verdict": m["verdict"],
                }
            )
    return pd.DataFrame(rows)


def presets() -> pd.DataFrame:
    """The built-in drives: ``name``, ``description``, ``capacity_gib``."""
    return pd.DataFrame(json.loads(_native.presets()))


def schemes() -> pd.DataFrame:
    """The registered schemes: ``name``, ``description``."""
    return pd.DataFrame(json.loads(_native.schemes()))


def workloads() -> pd.DataFrame:
    """The built-in workload profiles: ``name``, ``description``."""
    return pd.DataFrame(json.loads(_native.workloads()))
