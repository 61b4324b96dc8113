//! Described trace formats (`custom`): the fixtures in tests/fixtures (a
//! LinnOS/FlashNet replayer trace, a blkreplay `.load` file, a site CSV),
//! the built-in layouts described by specs (same records as the built-in
//! readers on the real excerpts in fixtures/traces), and errors in specs and in traces.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use ssdlab_workload::custom::{format_arg, FormatSpec};
use ssdlab_workload::{open_trace, Error, IoRecord, Op, TraceFormat, TraceOptions};

mod common;

fn fixture(name: &str) -> PathBuf {
    common::own_fixture(name)
}

fn real(name: &str) -> PathBuf {
    common::real_trace(name)
}

fn scratch(test: &str) -> PathBuf {
    common::scratch("custom-format-tests", test)
}

fn with_spec(spec: FormatSpec) -> TraceOptions {
    TraceOptions {
        format_spec: Some(Arc::new(spec)),
        ..TraceOptions::default()
    }
}

fn read(path: &Path, options: &TraceOptions) -> Vec<IoRecord> {
    open_trace(path, TraceFormat::Custom, options)
        .unwrap()
        .map(|r| r.unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        .collect()
}

fn first_error(path: &Path, options: &TraceOptions) -> String {
    match open_trace(path, TraceFormat::Custom, options) {
        Err(e) => e.to_string(),
        Ok(mut s) => s.find_map(|r| r.err()).expect("an error").to_string(),
    }
}

#[test]
fn linnos_replayer_trace() {
    let spec = FormatSpec::load(&fixture("linnos.toml")).unwrap();
    assert_eq!(spec.name, "linnos");
    let path = fixture("linnos.trace");
    let o = with_spec(spec.clone());
    let recs = read(&path, &o);
    // an independent reading of the five fields
    let text = std::fs::read_to_string(&path).unwrap();
    let want: Vec<(u64, u32, IoRecord)> = text
        .lines()
        .map(|l| {
            let f: Vec<&str> = l.split(' ').collect();
            let (ms, frac) = f[0].split_once('.').unwrap();
            let ns = ms.parse::<u64>().unwrap() * 1_000_000 + frac.parse::<u64>().unwrap() * 1000;
            let rec = IoRecord::new(
                ns,
                if f[4] == "1" { Op::Read } else { Op::Write },
                f[2].parse().unwrap(),
                f[3].parse().unwrap(),
            );
            (ns, f[1].parse().unwrap(), rec)
        })
        .collect();
    assert_eq!(recs.len(), 40);
    assert_eq!(recs, want.iter().map(|w| w.2).collect::<Vec<_>>());
    assert_eq!(
        recs[0],
        IoRecord::new(131_000, Op::Read, 1_295_781_888, 65_536),
        "relative clock: the first time is kept"
    );
    let c = o.counters.snapshot();
    assert_eq!((c.records, c.reordered, c.filtered), (40, 0, 0));
    // the device column filters
    let dev1 = TraceOptions {
        device: Some(1),
        ..with_spec(spec)
    };
    let recs = read(&path, &dev1);
    let want: Vec<IoRecord> = want.iter().filter(|w| w.1 == 1).map(|w| w.2).collect();
    assert!(!want.is_empty());
    assert_eq!(recs, want);
    assert_eq!(dev1.counters.snapshot().filtered, 40 - want.len() as u64);
}

#[test]
fn blkreplay_load_file() {
    let spec = FormatSpec::load(&fixture("blkreplay.toml")).unwrap();
    let path = fixture("blkreplay.load");
    let o = with_spec(spec);
    let recs = read(&path, &o);
    assert_eq!(recs.len(), 36);
    assert_eq!(
        recs[0],
        IoRecord::new(2_100_000, Op::Write, 34_789_024 * 512, 8 * 512)
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let data: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("start"))
        .skip(1)
        .collect();
    let reads = data
        .iter()
        .filter(|l| l.split(';').nth(3).unwrap().trim().starts_with('R'))
        .count();
    assert!(
        data.iter().any(|l| l.contains("; RA ;")),
        "the fixture has read-ahead rows"
    );
    assert_eq!(recs.iter().filter(|r| r.op == Op::Read).count(), reads);
    assert!(recs.windows(2).all(|w| w[0].time_ns <= w[1].time_ns));
}

#[test]
fn site_csv_with_header_units_trims_and_a_volume_filter() {
    let spec = FormatSpec::load(&fixture("site.toml")).unwrap();
    let path = fixture("site.csv");
    let o = with_spec(spec.clone());
    let recs = read(&path, &o);
    let us = 1000;
    let times: Vec<u64> = recs.iter().map(|r| r.time_ns / us).collect();
    assert_eq!(
        times,
        vec![0, 200, 250, 1500, 1800, 2000, 2150, 2200, 2350, 2400, 2500, 2600, 2800, 3000],
        "volume 3 (the spec's `keep`), rebased, in time order"
    );
    assert_eq!(recs[0], IoRecord::new(0, Op::Write, 1024 * 4096, 16 * 1024));
    assert_eq!(
        recs[1],
        IoRecord::new(200 * us, Op::Read, 4096 * 4096, 64 * 1024),
        "a late record is put in order; `Read` matches `read`"
    );
    // `0x400` pages and `0.5` KiB
    assert!(recs.contains(&IoRecord::new(2200 * us, Op::Write, 0x400 * 4096, 512)));
    let c = o.counters.snapshot();
    assert_eq!(recs.iter().filter(|r| r.op == Op::Read).count(), 7);
    assert_eq!(
        (
            c.records,
            c.discards,
            c.flushes,
            c.non_io,
            c.filtered,
            c.reordered
        ),
        (14, 1, 1, 2, 4, 2)
    );
    // --device overrides the spec's `keep`
    let v7 = TraceOptions {
        device: Some(7),
        ..with_spec(spec)
    };
    let recs = read(&path, &v7);
    assert_eq!(
        recs.iter()
            .map(|r| (r.time_ns / us, r.op))
            .collect::<Vec<_>>(),
        vec![(0, Op::Write), (500, Op::Read), (1800, Op::Write)]
    );
    assert_eq!(v7.counters.snapshot().discards, 1);
    // With replay_trims, the TRIM row is delivered as a trim.
    let t = TraceOptions {
        replay_trims: true,
        ..with_spec(FormatSpec::load(&fixture("site.toml")).unwrap())
    };
    let recs = read(&path, &t);
    assert_eq!(recs.len(), 15);
    assert_eq!(recs.iter().filter(|r| r.op == Op::Trim).count(), 1);
    let c = t.counters.snapshot();
    assert_eq!((c.records, c.trims, c.discards), (15, 1, 0));
}

/// Specs of built-in layouts read the real excerpts exactly as the
/// built-in readers do.
#[test]
fn described_builtin_layouts_match_the_builtin_readers() {
    let cases = [
        (
            "hm_0-sample.msr.csv",
            TraceFormat::Msr,
            r#"
                separator = ","
                time = { column = 1, unit = "filetime", clock = "absolute" }
                device = { column = 3 }
                op = { column = 4, read = ["Read"], write = ["Write"] }
                offset = { column = 5, unit = "bytes" }
                size = { column = 6, unit = "bytes" }
            "#,
        ),
        (
            "tencent-cbs-sample.csv",
            TraceFormat::Tencent,
            r#"
                separator = "comma"
                [time]
                column = 1
                unit = "s"
                clock = "absolute"
                [offset]
                column = 2
                unit = "sectors"
                [size]
                column = 3
                unit = 512
                [op]
                column = 4
                read = [0]
                write = [1]
                [device]
                column = 5
            "#,
        ),
        (
            "tpcc-small.mqsim.trace",
            TraceFormat::Mqsim,
            r#"
                time = { column = 1, unit = "ns" }
                device = { column = 2 }
                offset = { column = 3, unit = "sectors" }
                size = { column = 4, unit = "sectors" }
                op = { column = 5, read = ["1"], write = ["0"] }
            "#,
        ),
    ];
    for (name, format, spec) in cases {
        let path = real(name);
        let spec = FormatSpec::from_toml(spec, name).unwrap();
        let o = with_spec(spec);
        let custom = read(&path, &o);
        let builtin: Vec<IoRecord> = open_trace(&path, format, &TraceOptions::default())
            .unwrap()
            .map(|r| r.unwrap())
            .collect();
        assert!(!custom.is_empty());
        assert_eq!(custom, builtin, "{name}");
        for d in [0, 3] {
            let a = TraceOptions {
                device: Some(d),
                ..o.clone()
            };
            let b = TraceOptions {
                device: Some(d),
                ..TraceOptions::default()
            };
            let a: Vec<_> = read(&path, &a);
            let b: Vec<_> = open_trace(&path, format, &b)
                .unwrap()
                .map(|r| r.unwrap())
                .collect();
            assert_eq!(a, b, "{name} device {d}");
        }
    }
}

#[test]
fn inline_specs() {
    let spec = FormatSpec::from_inline(
        r#"name = "linnos", time = { column = 1, unit = "ms" }, device = { column = 2 }, offset = { column = 3, unit = "bytes" }, size = { column = 4, unit = "bytes" }, op = { column = 5, read = [1], write = [0] }"#,
    )
    .unwrap();
    let file = FormatSpec::load(&fixture("linnos.toml")).unwrap();
    assert_eq!(spec, file);
    let e = FormatSpec::from_inline(r#"time = { column = 1, unit = "minutes" }"#)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("config error in --trace-format: time.unit: unknown time unit `minutes`"),
        "{e}"
    );
    assert!(e.contains("(column 29)"), "{e}");
}

#[test]
fn format_argument_is_a_name_a_file_or_an_inline_spec() {
    assert_eq!(format_arg("msr").unwrap(), (TraceFormat::Msr, None));
    assert_eq!(format_arg("auto").unwrap().0, TraceFormat::Auto);
    let path = fixture("linnos.toml");
    let (f, spec) = format_arg(path.to_str().unwrap()).unwrap();
    assert_eq!(f, TraceFormat::Custom);
    assert_eq!(spec.unwrap().name, "linnos");
    let (f, spec) = format_arg(
        "separator = \";\", time = { column = 1, unit = \"s\" }, offset = { column = 2, unit = \
         \"sectors\" }, size = { column = 3, unit = \"sectors\" }, op = { column = 4, read = \
         [\"R\"], write = [\"W\"], prefix = true }",
    )
    .unwrap();
    assert_eq!(f, TraceFormat::Custom);
    assert_eq!(spec.unwrap().name, "inline");
    let e = format_arg("linos.toml").unwrap_err().to_string();
    assert!(
        e.contains("unknown trace format `linos.toml`") && e.contains("no file `linos.toml`"),
        "{e}"
    );
}

#[test]
fn spec_errors_name_the_file_key_and_line() {
    let base = std::fs::read_to_string(fixture("site.toml")).unwrap();
    let cases: Vec<(String, &str, &str)> = vec![
        (
            base.replace("unit = \"us\"", "unit = \"usec\""),
            "time.unit",
            "line 10",
        ),
        (
            base.replace("unit = \"us\"", "unti = \"us\""),
            "time.unti",
            "line 10",
        ),
        (
            base.replace("column = 1\n", "column = 0\n"),
            "time.column",
            "count from 1",
        ),
        (
            base.replace("column = 1\n", ""),
            "time.column",
            "missing field",
        ),
        (
            base.replace("column = 4\n", "column = 3\n"),
            "offset.column",
            "already `op.column`",
        ),
        (
            base.replace("discard = [\"trim\"]", "discard = [\"Write\"]"),
            "op.discard",
            "already in `op.write`",
        ),
        (
            base.replace("clock = \"absolute\"", "clock = \"wall\""),
            "time.clock",
            "unknown variant",
        ),
        (
            base.replace("unit = \"kib\"", "unit = -4"),
            "size.unit",
            "positive number of bytes",
        ),
        (
            base.replace("unit = \"kib\"", "unit = \"furlongs\""),
            "size.unit",
            "unknown unit",
        ),
        (
            base.replace("keep = 3", "keep = \"three\""),
            "device.keep",
            "invalid type",
        ),
        (
            base.replace("read = [\"read\"]", "read = [\"read\"]\nreed = 1"),
            "op.reed",
            "unknown field",
        ),
        (
            base.replace("skip_lines = 3", "skip_lines = 3\nseperator = \";\""),
            "seperator",
            "unknown field",
        ),
        (
            base.replace("separator = \",\"", "separator = \"\""),
            "separator",
            "must not be empty",
        ),
        (base.replace("[size]", "[size"), "size", "line 29"),
        (
            base.replace("read = [\"read\"]", "read = []")
                .replace("write = [\"write\"]", "write = []"),
            "op.read",
            "both empty",
        ),
        (
            base.replace("[size]\ncolumn = 5\nunit = \"kib\"\n", ""),
            "size",
            "missing field",
        ),
    ];
    let dir = scratch("spec-errors");
    for (i, (text, key, what)) in cases.iter().enumerate() {
        let path = dir.join(format!("spec{i}.toml"));
        std::fs::write(&path, text).unwrap();
        let e = FormatSpec::load(&path).unwrap_err();
        let Error::Config { origin, field, msg } = &e else {
            panic!("{e}")
        };
        assert_eq!(origin, &path.display().to_string());
        assert_eq!(field, key, "{e}");
        assert!(msg.contains(what), "{what}: {e}");
        assert!(msg.contains("(line "), "{e}");
    }
    let e = FormatSpec::load(Path::new("no/such/spec.toml")).unwrap_err();
    assert!(matches!(e, Error::Io { .. }), "{e}");
}

#[test]
fn trace_line_errors_name_file_line_and_field() {
    let spec = FormatSpec::load(&fixture("site.toml")).unwrap();
    let o = with_spec(spec);
    let dir = scratch("line-errors");
    let head = "#\n#\nts,vol,op,lba,len\n1700000000000000,3,write,1,4\n";
    let cases = [
        (
            "1700000000000001,3,writ,1,4",
            "field `op`",
            "known codes: read = read, write = write, discard = trim",
        ),
        (
            "1700000000000001,3,write,1",
            "field `record`",
            "at least 5 comma-separated fields",
        ),
        (
            "17000000000000x1,3,write,1,4",
            "field `time`",
            "column 1, unit us",
        ),
        (
            "1700000000000001,3,write,1,1.3",
            "field `size`",
            "not a whole number of bytes",
        ),
        ("1700000000000001,3,write,1,0", "field `size`", "size is 0"),
        (
            "1700000000000001,3,write,-1,4",
            "field `offset`",
            "non-negative",
        ),
        (
            "1700000000000001,c,write,1,4",
            "field `device`",
            "devices must be integers",
        ),
        (
            "1700000000000001,3,write,99999999999999999,4",
            "field `offset`",
            "too large",
        ),
    ];
    for (i, (line, field, what)) in cases.iter().enumerate() {
        let path = dir.join(format!("t{i}.csv"));
        std::fs::write(&path, format!("{head}{line}\n")).unwrap();
        let e = first_error(&path, &o);
        assert!(
            e.starts_with(&format!("{}:5: {field}", path.display())),
            "{e}"
        );
        assert!(e.contains(what), "{what}: {e}");
    }
    // skipped and counted with skip_bad_lines
    let path = dir.join("skip.csv");
    std::fs::write(
        &path,
        format!("{head}1,3,writ,1,4\n1700000000000009,3,read,1,4\n"),
    )
    .unwrap();
    let skip = TraceOptions {
        skip_bad_lines: true,
        ..o.clone()
    };
    assert_eq!(read(&path, &skip).len(), 2);
    assert_eq!(skip.counters.snapshot().bad_lines, 1);
    // a device filter needs a device column; a custom format needs a spec
    let linnos = FormatSpec::load(&fixture("blkreplay.toml")).unwrap();
    let o = TraceOptions {
        device: Some(1),
        ..with_spec(linnos)
    };
    let e = first_error(&fixture("blkreplay.load"), &o);
    assert!(e.contains("needs a device column"), "{e}");
    let e = first_error(&fixture("blkreplay.load"), &TraceOptions::default());
    assert!(e.contains("needs its format spec"), "{e}");
}
