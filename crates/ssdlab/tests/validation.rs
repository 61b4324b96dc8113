//! The model-validation suite (DESIGN §7): every check must pass within its
//! stated tolerance. The same checks back `ssdlab validate`.

use ssdlab::validate::{self, Check};

fn assert_all(checks: Vec<Check>) {
    let mut failed = vec![];
    for c in &checks {
        println!(
            "{} {:<75} measured {:>12.4} expected {:>12.4} {} ({})",
            if c.pass { "PASS" } else { "FAIL" },
            c.name,
            c.measured,
            c.expected,
            c.unit,
            c.tolerance
        );
        if !c.pass {
            failed.push(c.name.clone());
        }
    }
    assert!(failed.is_empty(), "failed: {failed:?}");
}

#[test]
fn exact_timing_of_isolated_commands() {
    assert_all(validate::timing_checks().unwrap());
}

#[test]
fn parallel_gc_takes_ceil_n_over_k_copyback_rounds() {
    assert_all(validate::parallel_gc_checks().unwrap());
}

#[test]
fn die_gc_by_copyback_runs_rows_then_pads() {
    assert_all(validate::die_copy_checks().unwrap());
}

#[test]
fn die_writes_take_one_page_type() {
    assert_all(validate::typed_die_write_checks().unwrap());
}

#[test]
fn preemptive_and_idle_gc_latency_in_closed_form() {
    assert_all(validate::pacing_checks().unwrap());
}

#[test]
fn one_die_reads_match_md1() {
    assert_all(validate::md1_checks(300_000).unwrap());
}

#[test]
fn write_amplification_matches_analytic_models() {
    assert_all(validate::wa_checks().unwrap());
}

#[test]
fn no_lpn_lost_or_stale_under_any_policy() {
    assert_all(validate::consistency_checks(40_000).unwrap());
}

#[test]
fn latency_parts_match_timing_and_md1() {
    assert_all(validate::attribution_checks(300_000).unwrap());
}

#[test]
fn a_constant_service_is_judged_steady() {
    assert_all(validate::steady_state_checks(10_000).unwrap());
}

#[test]
fn suspension_times_reads_and_operations_exactly() {
    assert_all(validate::suspension_checks().unwrap());
}

#[test]
fn cache_program_and_read_overlap_transfers_exactly() {
    assert_all(validate::cache_checks().unwrap());
}

#[test]
fn bad_blocks_retire_and_end_read_only_where_computed() {
    assert_all(validate::bad_block_checks().unwrap());
}

#[test]
fn wear_levelling_in_closed_form() {
    assert_all(validate::wear_checks().unwrap());
}

#[test]
fn flows_share_as_their_arbitration_says() {
    assert_all(validate::flow_checks().unwrap());
}

#[test]
fn flin_orders_as_worked_out_by_hand() {
    assert_all(validate::flin_checks().unwrap());
}

#[test]
fn flows_partitions_place_pages_as_counted() {
    assert_all(validate::partition_checks().unwrap());
    assert_all(validate::cache_partition_checks().unwrap());
    assert_all(validate::buffer_partition_checks().unwrap());
}

#[test]
fn host_interface_times_equal_their_closed_forms() {
    assert_all(validate::interface_checks().unwrap());
}
