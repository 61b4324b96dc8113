//! `ssdlab run` with several flows (`--flow`, `[[flows]]`).

use super::*;

/// `ssdlab run` with flows: each flow's workload from its spec, then the
/// run, per-flow results and, with `--alone`, the alone runs.
pub(super) fn run_flows(a: RunArgs, cfg: Config) -> Result<ExitCode> {
    let w = &a.workload;
    if w.trace.is_some() || w.synthetic.is_some() || w.workload.is_some() || w.limit.is_some() {
        anyhow::bail!(
            "with flows, each flow names its own workload (--flow ...,workload=NAME, trace=FILE or synthetic=FILE, limit=N): drop --trace, --synthetic, --workload and --limit"
        );
    }
    if a.save_state.is_some() || a.load_state.is_some() {
        anyhow::bail!("--save-state and --load-state are not supported with flows");
    }
    let pre = run_precondition(a.precondition.as_deref(), a.conventions.as_deref())?;
    for (path, what) in [
        (&a.json, "--json"),
        (&a.latency_log, "--latency-log"),
        (&a.histogram, "--histogram"),
    ] {
        if let Some(path) = path {
            output::check_writable(path, what)?;
        }
    }
    let sources = input::flow_sources(&cfg, &w.read, a.seed)?;
    let hashes = meta::Hashes::default();
    interrupt::stop_gracefully();
    if a.json.is_some() {
        for s in &sources {
            hashes.prepare(s)?;
        }
    }
    let mut sim = Simulator::with_flows(&cfg, &sources, &pre)?;
    let log = match a.latency_log.as_deref() {
        Some(path) => {
            use std::io::Write;
            let mut f = output::create(path)?;
            let shown = log_parts(&cfg);
            let mut header =
                "flow,arrival_ns,completion_ns,op,offset_bytes,size_bytes,latency_ns,host_wait_ns"
                    .to_string();
            for p in &shown {
                header += &format!(",{}_ns", p.name());
            }
            let e = writeln!(f, "{header}");
            let names: Vec<String> = cfg.flows.iter().map(|f| f.name.clone()).collect();
            let f = std::sync::Arc::new(std::sync::Mutex::new((f, e.err())));
            let sink = f.clone();
            sim.log_requests(Box::new(move |c: &ssdlab::Completion| {
                let mut g = sink.lock().expect("no poisoned lock");
                if g.1.is_none() {
                    let op = log_op(c.op);
                    let flow = c.flow.map_or("", |i| names[i as usize].as_str());
                    let mut line = format!(
                        "{flow},{},{},{op},{},{},{},{}",
                        c.arrival_ns,
                        c.completion_ns,
                        c.offset,
                        c.size,
                        c.completion_ns - c.arrival_ns,
                        c.host_wait_ns
                    );
                    log_part_values(&mut line, c, &shown);
                    g.1 = writeln!(g.0, "{line}").err();
                }
            }));
            Some(f)
        }
        None => None,
    };
    let (mut report, sim) = sim.run_observed_inspect(&mut |_| interrupt::control())?;
    let cdf = sim.latency_cdf();
    drop(sim); // releases the log's sink
    if let Some(f) = log {
        let (f, err) = std::sync::Arc::try_unwrap(f)
            .map_err(|_| anyhow::anyhow!("the request log is still in use"))?
            .into_inner()
            .expect("no poisoned lock");
        if let Some(e) = err {
            return Err(anyhow::Error::from(e).context("writing the latency log"));
        }
        f.finish()?;
    }
    if a.alone && !report.partial {
        let alone = ssdlab::sim::flows::alone_mean_latencies(&cfg, &sources, &pre, &mut |_| {
            interrupt::control()
        })?;
        report.set_alone(&alone);
    }
    if let Some(path) = &a.json {
        write_flows_json(path, &report, &cfg, &sources, &pre, &hashes)?;
    }
    finish_run(&a, &report, &cdf)
}

/// The JSON of a run with flows: the report, and every flow's workload
/// (so that `ssdlab rerun` reproduces it).
pub(super) fn write_flows_json(
    path: &Path,
    report: &Report,
    cfg: &Config,
    sources: &[Source],
    pre: &Precondition,
    hashes: &meta::Hashes,
) -> Result<()> {
    let run = meta::describe_flows(cfg, sources, pre, hashes)?;
    write_json(
        path,
        &meta::Described {
            report: std::borrow::Cow::Borrowed(report),
            run,
        },
    )
}
