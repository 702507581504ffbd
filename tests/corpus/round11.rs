//! Round 11: a program held out of tuning, a distributed PageRank in C99 +
//! MPI (a CSR graph from a factory, a contribution exchange through
//! MPI_Alltoallv over per-destination slots, rank vectors swapped by
//! pointer, an extern global configuration); its expectations were written
//! in its top comment from code-centric profiles before blame was run on it
//! by variable (tests/programs/corpus/EXPECTED_ROUND11.md).

use super::*;

#[test]
#[ignore = "held-out shortfall (round 11): contrib and incoming are judged records, \
            pagerank_run's flows into them being implicit only (the rank vectors arrive \
            through double ** and swap through local pointers); incoming ranks below the \
            rank vectors of the recurrence; exchange_create's returned ex is a row of its \
            own (EXPECTED_ROUND11.md)"]
fn prgraph_held_out_blames_the_exchange_buffers_and_the_graph_not_the_stats_or_config() {
    if !sampling_allowed() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let b = Build::new();
    let exe = build_all(&b, "prgraph", "mpicc", "c");
    let r = record_and_report("prgraph", b, &mpirun_np2(&exe), true);
    let pack = r.share_of("exchange_pack");
    let run = r.share_of("exchange_run");
    let setup = r.share_of("exchange_create");
    let build = r.share_of("graph_create");
    let unpack = r.share_of("exchange_unpack");
    let contrib = r.share_of("compute_contrib");
    let update = r.share_of("update_ranks");
    assert!(
        pack + run > 25.0,
        "the pack and the exchange are the run: {:.1}%",
        pack + run
    );
    // 1-3. the exchange
    let ranked = |n: &str| r.ranked("main", n);
    let exchange = pack + run + setup;
    if ranked("ex") < 0.8 * exchange {
        r.fail(format!(
            "main::ex is ranked at {:.1}%, expected >= {:.1}% (0.8 x pack + Alltoallv + setup)",
            ranked("ex"),
            0.8 * exchange
        ));
    }
    match r.first_data_row() {
        Some((f, n)) if f == "main" && (n == "ex" || n.starts_with("ex.")) => {}
        other => r.fail(format!(
            "the first data row is {other:?}, expected main::ex"
        )),
    }
    r.mpi_reaches_data(&["MPI_Alltoallv", "MPI_Alltoall", "MPI_Allreduce"]);
    // 4. the exchange's fields, if listed
    if r.row("main", "ex.sendbuf").is_some() && r.ranked("main", "ex.sendbuf") < 0.8 * pack {
        r.fail(format!(
            "main::ex.sendbuf is ranked at {:.1}%, expected >= {:.1}% (0.8 x exchange_pack)",
            r.ranked("main", "ex.sendbuf"),
            0.8 * pack
        ));
    }
    if r.row("main", "ex.recvbuf").is_some() {
        r.gets(
            "main",
            "ex.recvbuf",
            0.8,
            run,
            "MPI_Alltoallv receives into recvbuf",
        );
    }
    for buf in ["ex.sendbuf", "ex.recvbuf"] {
        if r.row("main", buf).is_none() {
            continue;
        }
        for v in [
            "ex.dest_index",
            "ex.recv_local",
            "ex.sendcounts",
            "ex.sdispls",
            "ex.recvcounts",
            "ex.rdispls",
        ] {
            if r.row("main", v).is_some() {
                r.above(
                    "main",
                    buf,
                    v,
                    0.0,
                    "the buffers are written every iteration, the slots once",
                );
            }
        }
    }
    r.derived_or_below("main", "ex.nexchange", 1.0, "a counter");
    // 5. the graph
    if ranked("g") < 0.8 * build {
        r.fail(format!(
            "main::g is ranked at {:.1}%, expected >= {:.1}% (0.8 x graph_create)",
            ranked("g"),
            0.8 * build
        ));
    }
    r.above(
        "main",
        "ex",
        "g",
        0.0,
        "the exchange is the iteration, the graph its setup",
    );
    // 6-8. the vectors of the iteration
    if ranked("incoming") < 0.8 * unpack {
        r.fail(format!(
            "main::incoming is ranked at {:.1}%, expected >= {:.1}% (0.8 x exchange_unpack)",
            ranked("incoming"),
            0.8 * unpack
        ));
    }
    r.above(
        "main",
        "g",
        "incoming",
        0.0,
        "the graph's construction costs more than the unpack",
    );
    if ranked("pr") + ranked("next") < 0.8 * update {
        r.fail(format!(
            "main::pr + main::next are ranked at {:.1}%, expected >= {:.1}% (0.8 x update_ranks)",
            ranked("pr") + ranked("next"),
            0.8 * update
        ));
    }
    for v in ["pr", "next"] {
        r.above("main", "ex", v, 0.0, "the exchange is the iteration");
        r.above(
            "main",
            "incoming",
            v,
            0.0,
            "the unpack costs more than the update",
        );
    }
    if ranked("contrib") < 0.8 * contrib {
        r.fail(format!(
            "main::contrib is ranked at {:.1}%, expected >= {:.1}% (0.8 x compute_contrib)",
            ranked("contrib"),
            0.8 * contrib
        ));
    }
    r.above(
        "main",
        "ex",
        "contrib",
        0.0,
        "the exchange is the iteration",
    );
    for v in ["ex", "g", "incoming", "pr", "next", "contrib"] {
        if r.row("main", v).is_some_and(|x| x["derived"] == true) {
            r.fail(format!("main::{v} is data, not derived"));
        }
    }
    // 9. read only after setup
    r.ranked_below("main", "part", 1.0, "the partition is set once");
    r.ranked_below("", "g_cfg", 1.0, "the configuration is set once");
    let g_cfg_rows = r
        .variables()
        .iter()
        .filter(|v| v["name"] == "g_cfg")
        .count();
    if g_cfg_rows > 1 {
        r.fail(format!("g_cfg is {g_cfg_rows} rows, expected one"));
    }
    // 10-12. records, timers, counters and scalars
    for v in [
        "st",
        "st.resid_hist",
        "st.dangling_hist",
        "st.t_setup",
        "st.t_pack",
        "st.t_exchange",
        "st.t_update",
        "st.t_total",
        "st.niter",
        "st.hist_len",
        "st.rank_sum",
        "st.rank_max",
        "st.ntop",
        "st.top_id",
        "st.top_val",
        "nedges_all",
        "ndangling_all",
        "maxdeg_all",
        "slots",
        "slots_all",
        "iters",
        "t_start",
        "nglobal",
        "rank",
        "nranks",
    ] {
        r.derived_or_below("main", v, 1.0, "records, timers and counters");
    }
    for v in [
        "resid",
        "dangling",
        "dangling_local",
        "diff_local",
        "base",
        "d",
        "n",
        "iter",
        "t0",
        "t1",
        "t2",
        "t3",
    ] {
        r.derived_or_absent("pagerank_run", v, "the iteration's scalars");
    }
    r.derived_or_absent("update_ranks", "diff", "the local L1 change");
    r.derived_or_absent("compute_contrib", "dangling", "the local dangling mass");
    r.derived_or_absent("exchange_pack", "c", "a contribution in a register");
    r.low_anywhere(&["u", "v", "e", "s", "r", "i"], 1.0, "loop indices");
    // 13. no rows for the swap temporary and pass-through names
    r.no_rows(&["tmp"], "the swap temporary is pr or next");
    for (f, names) in [
        (
            "pagerank_run",
            &[
                "rank", "next", "tmp", "rank_io", "next_io", "contrib", "incoming", "g", "ex", "st",
            ][..],
        ),
        (
            "exchange_pack",
            &["sendbuf", "slot", "ex", "g", "contrib"][..],
        ),
        ("exchange_unpack", &["ex", "incoming"][..]),
        ("exchange_run", &["ex"][..]),
        ("compute_contrib", &["g", "rank", "contrib"][..]),
        ("update_ranks", &["incoming", "rank", "next"][..]),
        ("exchange_create", &["ex", "g", "part"][..]),
        ("graph_create", &["g", "part"][..]),
        ("generate_edges", &["el", "part"][..]),
        ("edges_push", &["el"][..]),
        ("stats_record", &["st"][..]),
        ("stats_topk", &["st", "rank", "part"][..]),
        ("stats_mass", &["st", "rank"][..]),
    ] {
        r.no_rows_in(
            f,
            names,
            "parameters and locals that point into main's data",
        );
    }
    // 14. the setup's scratch feeds its owner
    for (f, v, owner) in [
        ("graph_create", "el", "g"),
        ("graph_create", "cursor", "g"),
        ("exchange_create", "slot_of", "ex"),
        ("exchange_create", "send_ids", "ex"),
    ] {
        if r.row(f, v).is_some() && r.ranked(f, v) > ranked(owner) {
            r.fail(format!(
                "{f}::{v} is ranked at {:.1}%, above main::{owner} ({:.1}%): it only feeds main::{owner}",
                r.ranked(f, v),
                ranked(owner)
            ));
        }
    }
    r.finish_held_out();
}
