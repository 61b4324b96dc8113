//! Unit tests of the configuration.

use super::*;

#[test]
fn presets_validate_and_round_trip() {
    for (name, _) in Config::preset_names() {
        let c = Config::preset(name).unwrap();
        c.validate(name).unwrap();
        let back = Config::from_toml(&c.to_toml(), name).unwrap();
        assert_eq!(c, back, "{name}");
    }
}

#[test]
fn spd_preset_is_512_gib() {
    let c = Config::preset("spd-512g").unwrap();
    assert_eq!(c.physical_pages() * 4096, 512 << 30);
}

#[test]
fn unknown_key_is_an_error() {
    let c = Config::preset("small").unwrap();
    let e = c
        .with_overrides(&["gc.victm=greedy".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("victm"), "{e}");
    let text = c.to_toml().replace("[gc]", "[gc]\nbogus = 1");
    let e = Config::from_toml(&text, "x.toml").unwrap_err().to_string();
    assert!(e.contains("bogus") && e.contains("x.toml"), "{e}");
}

/// Every key of every preset, with every scheme, and of the other forms of
/// the keys that choose between forms, has its documentation line, and the
/// commented TOML reads back as the same configuration.
#[test]
fn every_key_is_documented() {
    let mut configs = Vec::new();
    for (name, _) in Config::preset_names() {
        let c = Config::preset(name).unwrap();
        for s in crate::scheme::SCHEMES {
            if let Ok(with) = s.apply(&c) {
                configs.push(with);
            }
        }
        configs.push(c);
    }
    let small = Config::preset("small").unwrap();
    configs.push(
        small
            .with_overrides(&[
                "gc.threshold={blocks=3}".into(),
                "buffer.capacity={footprint-percent=1.0}".into(),
            ])
            .unwrap(),
    );
    configs.push(
        small
            .with_overrides(&["buffer.capacity=\"none\"".into()])
            .unwrap(),
    );
    configs.push(
        small
            .with_overrides(&["flash.suspension.erase=true".into()])
            .unwrap(),
    );
    configs.push(
        small
            .with_overrides(&["cell.endurance=2000".into()])
            .unwrap(),
    );
    configs.push(
        small
            .with_overrides(&[
                "flash.cache_program=true".into(),
                "flash.cache_read=true".into(),
                "flash.bad_blocks={factory_fraction=0.01, retire_at_endurance=true, erase_failure_probability=1e-6, spare_blocks=8}".into(),
            ])
            .unwrap(),
    );
    // When a buffer slot frees, written only when not the default.
    configs.push(
        small
            .with_overrides(&["buffer.slot_frees=\"eviction\"".into()])
            .unwrap(),
    );
    // Flows and their queues, written only when given.
    {
        let refused = small
            .with_overrides(&[
                "queues={protocol=\"nvme\", arbitration=\"wrr\", weights={high=4, medium=2, low=1}, burst=2, device_slots=8, max_queues=16}".into(),
            ])
            .unwrap_err();
        assert!(refused.to_string().contains("queues"), "{refused}");
        let mut f = Config::preset("small").unwrap();
        f.flows.push(FlowConfig {
            name: "a".into(),
            workload: Some("spd/hm_0".into()),
            trace: None,
            synthetic: None,
            limit: Some(10),
            start_us: 5.0,
            queue_depth: 8,
            priority: Priority::High,
            namespace: Some(Namespace {
                first_page: 0,
                pages: 100,
            }),
            channels: None,
            chips: None,
            dies: None,
            planes: None,
        });
        let mut g = f.flows[0].clone();
        g.name = "b".into();
        g.workload = None;
        g.trace = Some("t.csv".into());
        g.namespace = None;
        f.flows.push(g);
        let mut h = f.flows[0].clone();
        h.name = "c".into();
        h.workload = None;
        h.synthetic = Some("p.toml".into());
        h.namespace = None;
        f.flows.push(h);
        f.queues = Some(Queues {
            arbitration: Arbitration::Wrr,
            burst: 2,
            device_slots: Some(8),
            ..Queues::default()
        });
        f.validate("x").unwrap();
        configs.push(f.clone());
        // FLIN's keys, written only when set.
        f.sched.policy = SchedPolicy::Flin;
        f.sched.flin_epoch_us = Some(5_000.0);
        f.sched.flin_alpha_read_mib_s = Some(16.0);
        f.sched.flin_alpha_write_kib_s = Some(128.0);
        f.sched.flin_fairness_threshold = Some(0.5);
        f.validate("x").unwrap();
        // The buffer's and DFTL's map cache's sharing, written only when
        // partitioned.
        let mut p = f.clone();
        p.flows.truncate(1);
        p.buffer.sharing = Sharing::Partitioned;
        p.ftl.mapping = Mapping::Dftl;
        p.ftl.mapping_cache_sharing = Sharing::Partitioned;
        p.validate("x").unwrap();
        configs.push(p);
        configs.push(f);
    }
    // Wear levelling's keys, written only when set.
    configs.push(
        small
            .with_overrides(&["ftl.wear_levelling={dynamic=true, static_threshold=50}".into()])
            .unwrap(),
    );
    // GC pacing's keys, written only when on, in both forms.
    configs.push(
        small
            .with_overrides(&[
                "gc.preemptive=true".into(),
                "gc.hard_threshold={blocks=1}".into(),
                "gc.idle={after_us=100, high_watermark={blocks=200}}".into(),
            ])
            .unwrap(),
    );
    configs.push(
        small
            .with_overrides(&[
                "gc.preemptive=true".into(),
                "gc.hard_threshold={percent=1.5}".into(),
                "gc.idle={after_us=100, high_watermark={percent=12.5}}".into(),
            ])
            .unwrap(),
    );
    // The host interface's keys, written only when on.
    configs.push(
        small
            .with_overrides(&[
                r#"interface.link={ kind = "pcie", generation = 3, lanes = 4 }"#.into(),
                "interface.controller={ dram = {} }".into(),
            ])
            .unwrap(),
    );
    for c in &configs {
        let commented = c.to_toml_commented();
        let mut section = String::new();
        for line in c.to_toml().lines() {
            if let Some(s) = line
                .strip_prefix("[[")
                .and_then(|l| l.strip_suffix("]]"))
                .or_else(|| line.strip_prefix('[').and_then(|l| l.strip_suffix(']')))
            {
                section = s.to_string();
            } else if let Some((k, _)) = line.split_once(" = ") {
                let key = if section.is_empty() {
                    k.to_string()
                } else {
                    format!("{section}.{k}")
                };
                assert!(
                    docs::key_doc(&key).is_some(),
                    "{key} has no documentation line"
                );
            }
        }
        assert_eq!(&Config::from_toml(&commented, "x").unwrap(), c);
    }
    for (k, _) in docs::KEY_DOCS {
        assert!(
            configs
                .iter()
                .any(|c| c.to_toml().contains(&format!("[{k}]"))
                    || k.rsplit_once('.').map_or(
                        c.to_toml()
                            .lines()
                            .any(|l| l.starts_with(&format!("{k} = "))),
                        |(sec, key)| c.to_toml().contains(&format!("[{sec}]"))
                            && c.to_toml()
                                .lines()
                                .any(|l| l.starts_with(&format!("{key} = ")))
                    )),
            "documented key {k} is in no configuration"
        );
    }
}

#[test]
fn overrides_apply() {
    let c = Config::preset("small").unwrap();
    let c = c
        .with_overrides(&[
            "gc.victim=fifo".into(),
            "ftl.overprovisioning=0.3".into(),
            "gc.threshold={blocks=3}".into(),
        ])
        .unwrap();
    assert_eq!(c.gc.victim, VictimPolicy::Fifo);
    assert_eq!(c.ftl.overprovisioning, 0.3);
    assert_eq!(c.gc.threshold, GcThreshold::Blocks(3));
}

#[test]
fn impossible_geometry_is_rejected() {
    let c = Config::preset("small").unwrap();
    for (set, field) in [
        ("geometry.planes_per_die=0", "planes_per_die"),
        ("ftl.overprovisioning=1.0", "overprovisioning"),
        ("gc.threshold={percent=99.9}", "gc.threshold"),
        ("ftl.static_order=CWDX", "static_order"),
    ] {
        let e = c.with_overrides(&[set.into()]).unwrap_err().to_string();
        assert!(e.contains(field), "{set}: {e}");
    }
}

/// Setting another variant's key of a one-key table switches the variant
/// (`buffer.capacity.pages`, `gc.threshold.blocks`); a bare number for a
/// table-valued key is an error that shows the table's form; a key no
/// variant has is still an unknown key.
#[test]
fn overrides_switch_variants_and_explain_tables() {
    let c = Config::preset("spd-512g").unwrap();
    let o = c
        .with_overrides(&[
            "buffer.capacity.footprint-percent=2.0".into(),
            "gc.threshold.blocks=3".into(),
        ])
        .unwrap();
    assert_eq!(o.buffer.capacity, BufferCapacity::FootprintPercent(2.0));
    assert_eq!(o.gc.threshold, GcThreshold::Blocks(3));
    let e = c
        .with_overrides(&["buffer.capacity=64".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("is a table here ({ pages = 4096 })"), "{e}");
    let e = c
        .with_overrides(&["buffer.capacity.bogus=3".into()])
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown key `bogus`; known here: pages"), "{e}");
    assert!(c.with_overrides(&["buffer.capacity=none".into()]).is_ok());
}

/// Program and erase suspension: absent from a configuration while off (its
/// TOML and JSON as before), reachable by `--set`, and its values checked
/// with the key named.
#[test]
fn suspension_is_optional_and_checked() {
    let c = Config::preset("spd-512g").unwrap();
    assert!(c.flash.suspension.is_off());
    assert!(!c.to_toml().contains("suspension"));
    let on = c
        .with_overrides(&[
            "flash.suspension.erase=true".into(),
            "flash.suspension.resume_us=5.0".into(),
        ])
        .unwrap();
    let s = &on.flash.suspension;
    assert!(s.erase && !s.program && s.resume_us == 5.0 && s.erase_suspend_us == 700.0);
    assert!(on.to_toml().contains("[flash.suspension]"));
    assert_eq!(Config::from_toml(&on.to_toml(), "x").unwrap(), on);
    // A table in a file: the keys not given take their defaults.
    let text = c.to_toml() + "\n[flash.suspension]\nprogram = true\nmax_per_op = 2\n";
    let f = Config::from_toml(&text, "x.toml").unwrap();
    assert!(f.flash.suspension.program && f.flash.suspension.max_per_op == 2);
    // Switched off again, it leaves the configuration as it was.
    let off = on
        .with_overrides(&["flash.suspension.erase=false".into()])
        .unwrap();
    assert_eq!(off.to_toml(), c.to_toml());
    for (set, key) in [
        (
            "flash.suspension.erase_suspend_us=-1.0",
            "flash.suspension.erase_suspend_us",
        ),
        (
            "flash.suspension.program_suspend_us=nan",
            "flash.suspension.program_suspend_us",
        ),
        (
            "flash.suspension.resume_us=1e9",
            "flash.suspension.resume_us",
        ),
        (
            "flash.suspension.max_per_op=-1",
            "flash.suspension.max_per_op",
        ),
        ("flash.suspension.bogus=1", "bogus"),
    ] {
        let e = c.with_overrides(&[set.into()]).unwrap_err().to_string();
        assert!(e.contains(key), "{set}: {e}");
    }
}

/// GC pacing's keys are absent from a configuration that does not use
/// them (presets, and so every result keyed on a configuration, stay as
/// they were), may be set with `--set`, and are checked.
#[test]
fn pacing_keys_only_when_on() {
    let small = Config::preset("small").unwrap();
    let text = small.to_toml();
    assert!(
        !text.contains("preemptive") && !text.contains("hard_threshold") && !text.contains("idle"),
        "{text}"
    );
    let on = small
        .with_overrides(&[
            "gc.preemptive=true".into(),
            "gc.hard_threshold={blocks=2}".into(),
        ])
        .unwrap();
    assert!(on.gc.preemptive);
    assert_eq!(on.gc.hard_threshold, Some(GcThreshold::Blocks(2)));
    assert_eq!(Config::from_toml(&on.to_toml(), "x").unwrap(), on);
    let cases: &[(&[&str], &str)] = &[
        (&["gc.preemptive=true"], "gc.hard_threshold"),
        (&["gc.hard_threshold={blocks=2}"], "gc.preemptive"),
        (
            &["gc.preemptive=true", "gc.hard_threshold={blocks=0}"],
            "gc.hard_threshold.blocks",
        ),
        // above gc.threshold (5 % of the plane)
        (
            &["gc.preemptive=true", "gc.hard_threshold={percent=8}"],
            "gc.hard_threshold.percent",
        ),
        (&["gc.preemptive=yes"], "gc.preemptive"),
        (
            &["gc.idle={after_us=-1, high_watermark={blocks=200}}"],
            "gc.idle.after_us",
        ),
        // at or below gc.threshold
        (
            &["gc.idle={after_us=10, high_watermark={percent=5}}"],
            "gc.idle.high_watermark.percent",
        ),
        (
            &["gc.idle={after_us=10, high_watermark={blocks=2047}}"],
            "gc.idle.high_watermark.blocks",
        ),
        (&["gc.idle={after_us=10}"], "gc.idle"),
        (
            &[
                "gc.idle={after_us=10, high_watermark={blocks=200}}",
                "host.mode=closed-loop",
            ],
            "gc.idle",
        ),
        (
            &[
                "gc.preemptive=true",
                "gc.hard_threshold={blocks=1}",
                "gc.hold_die=true",
            ],
            "gc.preemptive",
        ),
    ];
    for (sets, key) in cases {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let e = small.with_overrides(&sets).unwrap_err().to_string();
        assert!(e.contains(key), "{sets:?}: {e}");
    }
}

/// Cache program and cache read: absent from a configuration while off
/// (its TOML and JSON as before), reachable by `--set`, and refused with
/// the key named where the model does not combine them.
#[test]
fn cache_modes_are_optional_and_checked() {
    let c = Config::preset("spd-512g").unwrap();
    assert!(!c.flash.cache_program && !c.flash.cache_read);
    assert!(!c.to_toml().contains("cache_program") && !c.to_toml().contains("cache_read"));
    let on = c
        .with_overrides(&[
            "flash.cache_program=true".into(),
            "flash.cache_read=true".into(),
        ])
        .unwrap();
    assert!(on.flash.cache_program && on.flash.cache_read);
    let text = on.to_toml();
    assert!(text.contains("cache_program = true") && text.contains("cache_read = true"));
    assert_eq!(Config::from_toml(&text, "x").unwrap(), on);
    let off = on
        .with_overrides(&[
            "flash.cache_program=false".into(),
            "flash.cache_read=false".into(),
        ])
        .unwrap();
    assert_eq!(off.to_toml(), c.to_toml());
    let refused = |sets: &[&str], key: &str| {
        let sets: Vec<String> = sets.iter().map(|s| s.to_string()).collect();
        let e = Config::preset("small")
            .unwrap()
            .with_overrides(&sets)
            .unwrap_err()
            .to_string();
        assert!(e.contains(key), "{sets:?}: {e}");
    };
    refused(
        &["flash.cache_program=true", "flash.suspension.program=true"],
        "flash.cache_program",
    );
    refused(
        &["flash.cache_read=true", "flash.suspension.erase=true"],
        "flash.cache_read",
    );
    refused(
        &[
            "flash.cache_program=true",
            "flash.plane_registers=2",
            "gc.migration=\"copyback\"",
        ],
        "flash.cache_program",
    );
    // Erase suspension and cache program compose.
    assert!(Config::preset("small")
        .unwrap()
        .with_overrides(&[
            "flash.cache_program=true".into(),
            "flash.suspension.erase=true".into(),
        ])
        .is_ok());
}

#[test]
fn wear_levelling_is_checked_and_round_trips() {
    let small = Config::preset("small").unwrap();
    assert!(!small.to_toml().contains("wear_levelling"));
    let on = small
        .with_overrides(&["ftl.wear_levelling.static_threshold=20".into()])
        .unwrap();
    assert_eq!(
        on.ftl.wear_levelling,
        WearLevelling {
            dynamic: false,
            static_threshold: Some(20)
        }
    );
    // Any other --set leaves it off and unwritten.
    let other = small.with_overrides(&["seed=5".into()]).unwrap();
    assert!(other.ftl.wear_levelling.is_off());
    assert!(!other.to_toml().contains("wear_levelling"));
    assert_eq!(Config::from_toml(&on.to_toml(), "x").unwrap(), on);
    for (set, key) in [
        (
            "ftl.wear_levelling.static_threshold=0",
            "ftl.wear_levelling.static_threshold",
        ),
        ("ftl.wear_levelling.typo=1", "typo"),
    ] {
        let e = small.with_overrides(&[set.into()]).unwrap_err().to_string();
        assert!(e.contains(key), "{set}: {e}");
    }
    // Combinations it cannot run are refused, naming the key.
    for (sets, key) in [
        (
            vec![
                "ftl.wear_levelling.dynamic=true",
                "ftl.block_groups=\"die\"",
            ],
            "ftl.wear_levelling",
        ),
        (
            vec![
                "ftl.wear_levelling.dynamic=true",
                "ftl.align_block_index=true",
            ],
            "ftl.wear_levelling.dynamic",
        ),
        (
            vec![
                "ftl.wear_levelling.static_threshold=5",
                "gc.blocks_per_gc=2",
            ],
            "ftl.wear_levelling.static_threshold",
        ),
        (
            vec![
                "ftl.wear_levelling.static_threshold=5",
                "ftl.mapping=\"fast\"",
            ],
            "ftl.wear_levelling",
        ),
    ] {
        let sets: Vec<String> = sets.into_iter().map(String::from).collect();
        let e = small.with_overrides(&sets).unwrap_err().to_string();
        assert!(e.contains(key), "{sets:?}: {e}");
    }
}
