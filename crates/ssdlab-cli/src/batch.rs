//! Running many simulations: sweeps and reproductions share this.
//!
//! Runs go on `--jobs` threads; each finished run is written at once to
//! `runs/<file>.json` (atomically), with a fingerprint of what it ran, so
//! that an interrupted batch keeps its finished runs and `--resume` reuses
//! them: a saved run whose fingerprint matches its task is read back
//! instead of run again (JSON numbers round-trip exactly), and the outputs
//! are byte-identical to an uninterrupted batch. Reports come back in task
//! order whatever order the runs finish in.

use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use clap::Args;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::meta::{Hashes, RunMeta};
use ssdlab::workload::Source;
use ssdlab::{Config, Precondition, Report, Simulator};

/// The options every batch command takes.
#[derive(Args, Clone, Debug, Default)]
pub struct BatchArgs {
    /// Runs at once (default: the number of available cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Reuse the finished runs an earlier, interrupted invocation left in
    /// the output directory's runs/ (those whose drive, workload and
    /// preconditioning are unchanged); run only the others.
    #[arg(long)]
    pub resume: bool,
    /// Run only the runs whose index modulo N is I (0 ≤ I < N), save them
    /// under --out's runs/, and stop without the combined results: one
    /// shard of N (a job of a Slurm array; `--list` shows the indexes).
    /// Combine the shards with `--merge`.
    #[arg(long, value_name = "I/N", value_parser = parse_shard)]
    pub shard: Option<Shard>,
    /// Output directories of shards (or of any earlier invocation) whose
    /// saved runs are reused, as with --resume; comma-separated or
    /// repeated. The results are those of one unsharded invocation.
    #[arg(long, value_name = "DIR", value_delimiter = ',')]
    pub merge: Vec<PathBuf>,
}

/// `--shard I/N`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: usize,
    pub count: usize,
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

pub(crate) fn parse_shard(s: &str) -> std::result::Result<Shard, String> {
    let bad = || format!("`{s}` is not I/N with 0 <= I < N (for example 0/4)");
    let (i, n) = s.split_once('/').ok_or_else(bad)?;
    let index: usize = i.trim().parse().map_err(|_| bad())?;
    let count: usize = n.trim().parse().map_err(|_| bad())?;
    if count == 0 || index >= count {
        return Err(bad());
    }
    Ok(Shard { index, count })
}

/// What a batch produced: every report (in task order), or, for one shard,
/// how many runs it saved.
pub(crate) enum Outcome {
    Complete(Vec<Report>),
    Shard { shard: Shard, runs: usize },
}

impl BatchArgs {
    /// `--jobs`: the given count (at least 1) or the number of available
    /// cores.
    pub fn job_count(&self) -> Result<usize> {
        match self.jobs {
            Some(0) => bail!("--jobs must be at least 1"),
            Some(n) => Ok(n),
            None => Ok(std::thread::available_parallelism().map_or(1, |n| n.get())),
        }
    }
}

/// One simulation: a drive, a workload and its preconditioning, saved as
/// `runs/<file>.json`.
pub(crate) struct Task<'a> {
    /// Human-readable name (progress lines, errors).
    pub label: String,
    pub file: String,
    pub config: &'a Config,
    pub work: Work<'a>,
    pub precondition: &'a Precondition,
    /// The drive as `precondition` leaves it, saved: the run starts from
    /// it instead of aging (the same result).
    pub state: Option<&'a ssdlab::sim::SavedState>,
}

/// What a task runs: one workload, or several flows (`config.flows`).
#[derive(Clone, Copy)]
pub(crate) enum Work<'a> {
    One(&'a Source),
    Flows(&'a FlowWork),
}

/// The flows of a run: each flow's workload (in `config.flows`' order), and
/// whether each flow also runs alone (its slowdown, the run's fairness).
pub(crate) struct FlowWork {
    pub sources: Vec<Source>,
    pub alone: bool,
}

impl Work<'_> {
    /// Every workload it reads.
    fn sources(&self) -> &[Source] {
        match self {
            Work::One(s) => std::slice::from_ref(*s),
            Work::Flows(f) => &f.sources,
        }
    }
}

/// A run as saved: its report, what produced it, the fingerprint of its
/// task, and the checksum of all that.
#[derive(Serialize, Deserialize)]
struct Saved {
    #[serde(flatten)]
    report: Report,
    run: RunMeta,
    /// The latency distribution (as `--histogram` writes it; `ssdlab
    /// report` draws it).
    latency_cdf: Vec<ssdlab::CdfPoint>,
    task_sha256: String,
    /// SHA-256 of the other fields as compact JSON ([`content_sha256`]):
    /// `--resume` and `--merge` reuse a saved run only if it still holds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    content_sha256: Option<String>,
}

/// The checksum of a saved run: SHA-256 of its fields but the checksum, as
/// compact JSON (the saved numbers read back bit for bit, so a run read
/// back gives the same bytes).
fn content_sha256(saved: &Saved) -> Result<String> {
    struct HashWriter(Sha256);
    impl std::io::Write for HashWriter {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.update(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    assert!(
        saved.content_sha256.is_none(),
        "the checksum covers the rest"
    );
    let mut h = HashWriter(Sha256::new());
    serde_json::to_writer(&mut h, saved)?;
    Ok(h.0.finalize().iter().map(|b| format!("{b:02x}")).collect())
}

/// A finished run: its report and latency distribution.
struct Finished {
    report: Report,
    cdf: Vec<ssdlab::CdfPoint>,
}

/// What identifies a task's result: the ssdlab version, the resolved
/// drive, the workload (a profile in full; a trace by path, options, size
/// and modification time) and the preconditioning.
fn fingerprint(t: &Task) -> String {
    let mut h = Sha256::new();
    h.update(env!("CARGO_PKG_VERSION"));
    h.update(t.config.to_toml());
    match t.work {
        Work::One(s) => h.update(source_key(s)),
        Work::Flows(f) => {
            for s in &f.sources {
                h.update(source_key(s));
            }
            h.update(format!("alone {}", f.alone));
        }
    }
    h.update(format!("{:?}", t.precondition));
    h.finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<String>()
}

fn source_key(s: &Source) -> String {
    match s {
        Source::Trace {
            path,
            format,
            options: o,
        } => {
            let meta = std::fs::metadata(path).ok();
            format!(
                "trace {} {:?} len {:?} mtime {:?}; device {:?} limit {:?} skip {} start {} skip_bad {} \
                 window {:?} side {} stride {:?} trims {} action {:?} spec {:?}",
                path.display(),
                format,
                meta.as_ref().map(|m| m.len()),
                meta.and_then(|m| m.modified().ok()),
                o.device,
                o.limit,
                o.skip_records,
                o.start_ns,
                o.skip_bad_lines,
                o.sort_window,
                o.side_by_side,
                o.device_stride,
                o.replay_trims,
                o.blkparse_action,
                o.format_spec
            )
        }
        Source::Synthetic(p) => format!("profile {p:?}"),
        Source::Records { name, records } => format!("records {name} {}", records.len()),
        Source::Limited { inner, limit } => format!("{} limit {limit}", source_key(inner)),
    }
}

/// The finished run saved at `path` for `task`, if `--resume` or
/// `--merge` may use it; else why not (None: there is no such file).
fn load(path: &Path, task: &Task) -> Option<std::result::Result<Finished, String>> {
    if !path.exists() {
        return None;
    }
    let read = || -> std::result::Result<Finished, String> {
        let reader = crate::meta::open_result(path).map_err(|e| format!("{e:#}"))?;
        let mut saved: Saved = serde_json::from_reader(reader)
            .map_err(|e| format!("it does not read as a saved run (cut short?): {e}"))?;
        if saved.task_sha256 != fingerprint(task) {
            return Err(
                "it was made for another drive, workload, preconditioning or ssdlab version".into(),
            );
        }
        if saved.report.partial {
            return Err("it is the partial result of an interrupted run".into());
        }
        let Some(sum) = saved.content_sha256.take() else {
            return Err("it has no checksum".into());
        };
        if content_sha256(&saved).map_err(|e| e.to_string())? != sum {
            return Err("its content does not match its checksum (was it edited?)".into());
        }
        Ok(Finished {
            report: saved.report,
            cdf: saved.latency_cdf,
        })
    };
    Some(read())
}

fn save(path: &Path, task: &Task, run: &Finished, hashes: &Hashes) -> Result<()> {
    let mut saved = Saved {
        report: run.report.clone(),
        run: match task.work {
            Work::One(s) => crate::meta::describe(task.config, s, task.precondition, hashes)?,
            Work::Flows(f) => {
                crate::meta::describe_flows(task.config, &f.sources, task.precondition, hashes)?
            }
        },
        latency_cdf: run.cdf.clone(),
        task_sha256: fingerprint(task),
        content_sha256: None,
    };
    saved.content_sha256 = Some(content_sha256(&saved)?);
    crate::write_json(path, &saved)
}

/// Copy the saved run `from` to `to` as it is (so that a run keeps the
/// record of the binary and machine that produced it).
fn copy_saved(from: &Path, to: &Path) -> Result<()> {
    let mut src = crate::meta::open_result(from)?;
    let mut dst = crate::output::create(to)?;
    std::io::copy(&mut src, &mut dst).with_context(|| format!("copying {}", from.display()))?;
    dst.finish()?;
    Ok(())
}

/// Run every task (of the shard, with `--shard`) on `jobs` threads, saving
/// each finished run under `runs_dir`; with `--resume` (runs_dir) and
/// `--merge` (other directories' runs/) a saved run whose fingerprint
/// matches is reused instead (and copied to `runs_dir`). The first failure
/// (lowest index among those that failed) stops the batch; so does an
/// interrupt, keeping the finished runs. `what` names the batch in
/// messages ("sweep").
pub(crate) fn run(
    tasks: &[Task],
    args: &BatchArgs,
    runs_dir: &Path,
    what: &str,
) -> Result<Outcome> {
    let jobs = args.job_count()?;
    crate::interrupt::stop_gracefully();
    std::fs::create_dir_all(runs_dir)
        .with_context(|| format!("creating {}", runs_dir.display()))?;
    // Every run's file name can be written (the longest tells), before
    // any run.
    if let Some(t) = tasks.iter().max_by_key(|t| t.file.len()) {
        crate::output::check_writable(&runs_dir.join(format!("{}.json", t.file)), "a run's file")
            .with_context(|| format!("run `{}`", t.label))?;
    }
    for dir in &args.merge {
        if !dir.join("runs").is_dir() {
            bail!(
                "--merge {}: no runs/ directory there (is it the --out of a shard?)",
                dir.display()
            );
        }
    }
    let n = tasks.len();
    let chosen: Vec<usize> = (0..n)
        .filter(|i| args.shard.is_none_or(|s| i % s.count == s.index))
        .collect();
    // The traces' hashes for the runs' records, before any run.
    let hashes = Hashes::default();
    for &i in &chosen {
        for s in tasks[i].work.sources() {
            hashes.prepare(s)?;
        }
    }
    let path = |t: &Task| -> PathBuf { runs_dir.join(format!("{}.json", t.file)) };
    // Where saved runs may come from: our own runs/ with --resume, then
    // the merged directories' (copied here as they are, so that a run
    // keeps the record of the binary and machine that produced it). A
    // saved run that cannot be used is said, and run again.
    let saved = |t: &Task| -> Option<Finished> {
        let own = args.resume.then(|| path(t));
        let others = args
            .merge
            .iter()
            .map(|d| d.join("runs").join(format!("{}.json", t.file)));
        for p in own.into_iter().chain(others) {
            match load(&p, t) {
                None => {}
                Some(Err(why)) => {
                    eprintln!("{}: not reused, {why}; running it again", p.display())
                }
                Some(Ok(r)) => {
                    if p != path(t) {
                        if let Err(e) = copy_saved(&p, &path(t)) {
                            eprintln!("{}: not reused, {e:#}; running it again", p.display());
                            continue;
                        }
                    }
                    return Some(r);
                }
            }
        }
        None
    };
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let reused = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    let results: Mutex<Vec<Option<Result<Report>>>> = Mutex::new((0..n).map(|_| None).collect());
    let worker = || loop {
        if stop.load(Ordering::Relaxed) || crate::interrupt::requested() {
            break;
        }
        let k = next.fetch_add(1, Ordering::Relaxed);
        let Some(&i) = chosen.get(k) else {
            break;
        };
        let task = &tasks[i];
        if let Some(run) = saved(task) {
            reused.fetch_add(1, Ordering::Relaxed);
            done.fetch_add(1, Ordering::Relaxed);
            results.lock().expect("no poisoned lock")[i] = Some(Ok(run.report));
            continue;
        }
        let started = Instant::now();
        // A panic in the model (a bug) stops the batch with an error
        // naming the run instead of tearing down every thread.
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let control = &mut |_: &ssdlab::Progress| crate::interrupt::control();
            match (task.work, task.state) {
                (Work::One(source), Some(state)) => {
                    Simulator::new_loaded(task.config, source, state)
                }
                (Work::One(source), None) => Simulator::new(task.config, source, task.precondition),
                (Work::Flows(f), _) => {
                    Simulator::with_flows(task.config, &f.sources, task.precondition)
                }
            }
            .and_then(|sim| sim.run_observed_inspect(control))
            .and_then(|(mut report, sim)| {
                let cdf = sim.latency_cdf();
                drop(sim);
                if let Work::Flows(f) = task.work {
                    if f.alone && !report.partial {
                        let alone = ssdlab::sim::flows::alone_mean_latencies(
                            task.config,
                            &f.sources,
                            task.precondition,
                            control,
                        )?;
                        report.set_alone(&alone);
                    }
                }
                Ok(Finished { report, cdf })
            })
            .map_err(anyhow::Error::from)
        }))
        .unwrap_or_else(|_| {
            Err(anyhow::anyhow!(
                "the simulator panicked (a bug; message above)"
            ))
        });
        let result = match result {
            // interrupted: neither kept nor an error of the run
            Ok(r) if r.report.partial => break,
            Err(e) if crate::stopped_by_interrupt(&e) => break,
            Ok(r) => save(&path(task), task, &r, &hashes).map(|()| r.report),
            Err(e) => Err(e),
        };
        if result.is_err() {
            stop.store(true, Ordering::Relaxed);
        } else {
            let k = done.fetch_add(1, Ordering::Relaxed) + 1;
            eprintln!(
                "[{k}/{}] {}: {:.2} s",
                chosen.len(),
                task.label,
                started.elapsed().as_secs_f64()
            );
        }
        results.lock().expect("no poisoned lock")[i] = Some(result);
    };
    let workers = jobs.min(chosen.len()).max(1);
    let ended = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                worker();
                ended.fetch_add(1, Ordering::SeqCst);
            });
        }
        // This thread looks for an interrupt meanwhile (an embedding
        // program's poll hook answers on this thread only).
        while ended.load(Ordering::SeqCst) < workers {
            crate::interrupt::requested();
            std::thread::sleep(std::time::Duration::from_millis(
                ssdlab::workload::interrupt::POLL_MS,
            ));
        }
    });
    let results = results.into_inner().expect("no poisoned lock");
    let mut reports = Vec::with_capacity(n);
    for (i, r) in results.into_iter().enumerate() {
        match r {
            Some(Ok(report)) => reports.push(report),
            Some(Err(e)) => {
                return Err(e.context(format!(
                    "run {} of {n} ({}) failed; {what} stopped",
                    i + 1,
                    tasks[i].label
                )))
            }
            None => {}
        }
    }
    let reused = reused.into_inner();
    if reused > 0 {
        eprintln!(
            "{reused} of {} runs reused from {}",
            chosen.len(),
            std::iter::once(runs_dir)
                .filter(|_| args.resume)
                .chain(args.merge.iter().map(|d| d.as_path()))
                .map(|d| d.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    if let Some(shard) = args.shard {
        if reports.len() == chosen.len() {
            return Ok(Outcome::Shard {
                shard,
                runs: reports.len(),
            });
        }
    }
    if reports.len() != chosen.len() {
        if crate::interrupt::requested() {
            return Err(ssdlab::Error::Interrupted(format!(
                "after {} of {} runs, which are saved in {}; run the same command with --resume \
                 to finish the {what}",
                reports.len(),
                chosen.len(),
                runs_dir.display()
            ))
            .into());
        }
        bail!("{what} stopped before all runs finished");
    }
    Ok(Outcome::Complete(reports))
}

/// [`run`] with the runs saved under `out/runs`: every report, or None
/// after a shard, whose runs are saved and whose message (where they are,
/// how to combine the shards) is printed. `what` is "sweep" or
/// "reproduction".
pub(crate) fn run_all(
    tasks: &[Task],
    args: &BatchArgs,
    out: &Path,
    what: &str,
) -> Result<Option<Vec<Report>>> {
    match run(tasks, args, &out.join("runs"), what)? {
        Outcome::Complete(reports) => Ok(Some(reports)),
        Outcome::Shard { shard, runs } => {
            eprintln!(
                "shard {shard}: {runs} runs saved in {}; when all {} shards are done, {} gives the \
                 combined results",
                out.join("runs").display(),
                shard.count,
                if what == "sweep" {
                    "`ssdlab sweep merge DIR… --out OUT` (the shards' --out)"
                } else {
                    "the same command without --shard, with --merge DIR,DIR,… (the shards' --out)"
                }
            );
            Ok(None)
        }
    }
}

/// A simulation a reproduction owns: what a [`Task`] borrows.
pub(crate) struct Job {
    pub label: String,
    pub file: String,
    pub config: Config,
    pub source: Source,
}

/// A reproduction's simulations, all after `precondition`: the header
/// printed, then [`run_all`]. The caller has checked and locked `out`
/// ([`crate::output::check_out_dir`]) before.
pub(crate) fn reproduce<'a>(
    head: &str,
    sims: impl IntoIterator<Item = &'a Job>,
    precondition: &'a Precondition,
    args: &BatchArgs,
    out: &Path,
) -> Result<Option<Vec<Report>>> {
    reproduce_each(head, sims.into_iter().map(|j| (j, precondition)), args, out)
}

/// [`reproduce`] with each simulation after a preconditioning of its own.
pub(crate) fn reproduce_each<'a>(
    head: &str,
    sims: impl IntoIterator<Item = (&'a Job, &'a Precondition)>,
    args: &BatchArgs,
    out: &Path,
) -> Result<Option<Vec<Report>>> {
    let tasks: Vec<Task> = sims
        .into_iter()
        .map(|(j, precondition)| Task {
            label: j.label.clone(),
            file: j.file.clone(),
            config: &j.config,
            work: Work::One(&j.source),
            precondition,
            state: None,
        })
        .collect();
    let tasks = &tasks[..];
    let jobs = args.job_count()?;
    print!("{head}");
    eprintln!(
        "{} runs on {} threads",
        tasks.len(),
        jobs.min(tasks.len()).max(1)
    );
    run_all(tasks, args, out, "reproduction")
}
