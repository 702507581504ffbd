//! Round 10 (issue 30): two more programs held out of tuning, a C++
//! finite-element code assembling into a hash map and a Barnes-Hut N-body
//! code with a node pool and a recursive walk; their expectations were
//! written in their top comments from code-centric profiles before blame
//! was run on them by variable (tests/programs/corpus/EXPECTED_ROUND10.md).

use super::*;

#[test]
#[ignore = "held-out shortfall (round 10): the Picard recurrence hands the load step's \
            variables the whole step (u, u_prev, solver ~75%): u is the first row and u_prev \
            (a copy of u) is not low; rhs 1.7%; compress's sorted is a row; a few samples of \
            the hash map's and the sort's internals reach no variable (EXPECTED_ROUND10.md)"]
fn femhash_held_out_blames_the_solver_and_the_hash_map_assembly() {
    if !sampling_allowed() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let b = Build::new();
    let exe = build_all(&b, "femhash", "clang++-19", "cpp");
    let r = record_and_report("femhash", b, &[exe.display().to_string()], false);
    let solve = r.share(|f| is_method_frame(f, "CgSolver", "solve"));
    let add = r.share(|f| is_method_frame(f, "SparseBuilder", "add"));
    let clear = r.share(|f| is_method_frame(f, "SparseBuilder", "clear"));
    let compress = r.share(|f| is_method_frame(f, "SparseBuilder", "compress"));
    let assemble = r.share_of("assemble_system");
    assert!(solve > 25.0, "the solve is the run: {solve:.1}%");
    // 1-3. the solver
    let ranked = |n: &str| r.ranked("main", n);
    if ranked("solver") < 0.85 * solve {
        r.fail(format!(
            "main::solver is ranked at {:.1}%, expected >= {:.1}% (0.85 x CgSolver::solve)",
            ranked("solver"),
            0.85 * solve
        ));
    }
    match r.first_data_row() {
        Some((f, n)) if f == "main" && (n == "solver" || n.starts_with("solver.")) => {}
        other => r.fail(format!(
            "the first data row is {other:?}, expected main::solver"
        )),
    }
    if r.row("main", "solver")
        .is_some_and(|v| v["derived"] == true)
    {
        r.fail("the solver holds the CG vectors: not derived".into());
    }
    for v in ["r_", "z_", "p_", "inv_diag_"] {
        if r.row("main", &format!("solver.{v}")).is_some() {
            r.above(
                "main",
                "solver.q_",
                &format!("solver.{v}"),
                0.0,
                "q_ = A p_ is the matvec",
            );
        }
    }
    r.derived_or_below(
        "main",
        "solver.history",
        5.0,
        "the residual history records norms",
    );
    // 4-7. the assembly into the hash map and the matrix built from it
    if ranked("builder") < 0.8 * (add + clear) {
        r.fail(format!(
            "main::builder is ranked at {:.1}%, expected >= {:.1}% (0.8 x add + clear)",
            ranked("builder"),
            0.8 * (add + clear)
        ));
    }
    r.above(
        "main",
        "builder",
        "A",
        0.0,
        "the hash map's inserts cost more than compress",
    );
    if ranked("A") < 0.8 * compress {
        r.fail(format!(
            "main::A is ranked at {:.1}%, expected >= {:.1}% (0.8 x compress)",
            ranked("A"),
            0.8 * compress
        ));
    }
    for v in ["builder", "A"] {
        if r.row("main", v).is_some_and(|x| x["derived"] == true) {
            r.fail(format!("main::{v} is data, not derived"));
        }
    }
    if ranked("builder") + ranked("A") < 0.8 * (assemble + compress) {
        r.fail("builder and A do not take the assembly and the compression".into());
    }
    // 8. the containers' internals reach the containers
    let reasons = r.report["coverage"]["reasons"].to_string();
    for inner in [
        "_Hashtable",
        "unordered_map",
        "__new_allocator",
        "__introsort",
        "operator new",
    ] {
        if reasons.contains(inner) {
            r.fail(format!("time in {inner} reaches no variable: {reasons}"));
        }
    }
    // 9-13. the solution, copies, setup and bookkeeping
    if r.row("main", "u").is_none_or(|v| v["derived"] == true) {
        r.fail("main::u, the solution, is listed as data".into());
    }
    for v in ["rhs", "u_prev"] {
        r.ranked_below(
            "main",
            v,
            1.0,
            "the load vector and the previous iterate's copy",
        );
        r.above("main", "u", v, 0.0, "u is the solution");
    }
    r.ranked_below(
        "main",
        "model",
        2.0,
        "the model is built once, then only read",
    );
    r.ranked_below("main", "opt", 1.0, "the options");
    for v in [
        "timers",
        "records",
        "rec",
        "info",
        "stats",
        "stress",
        "total_inserts",
        "total_picard",
        "iters",
        "change",
        "true_residual",
        "umax",
        "prev_factor",
        "load_factor",
        "scale",
        "step",
        "it",
    ] {
        r.derived_or_below("main", v, 1.0, "timers, records, statistics and counters");
    }
    for v in ["alpha", "rz", "rz_new", "rel", "bnorm", "k"] {
        r.derived_or_absent("fem::CgSolver::solve", v, "the CG scalars");
    }
    // 15-17. no rows for scratch and pass-through names
    r.no_rows_in(
        "fem::element_stiffness",
        &["ke", "quad", "ue"],
        "the element routine's",
    );
    r.no_rows_in(
        "fem::SparseBuilder::compress",
        &["sorted", "A"],
        "sorted only feeds main's A",
    );
    r.no_rows_in(
        "fem::CgSolver::solve",
        &["A", "b", "x", "d"],
        "the caller's",
    );
    r.finish_held_out();
}

#[test]
#[ignore = "held-out shortfall (round 10): bodies' explicit blame misses the walk's opening \
            tests, which reach it through control flow only (its total has them); \
            MPI_Allgatherv's send buffer takes its time as the receive buffer does \
            (EXPECTED_ROUND10.md)"]
fn bhtree_held_out_blames_the_bodies_the_walk_writes_and_the_node_pool() {
    if !sampling_allowed() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let b = Build::new();
    let exe = build_all(&b, "bhtree", "mpicc", "c");
    let r = record_and_report("bhtree", b, &mpirun_np2(&exe), true);
    let walk = r.share_of("compute_forces");
    let gather = r.share_of("gather_positions");
    let build = r.share_of("tree_build") + r.share_of("tree_moments");
    assert!(walk > 30.0, "the walk is the run: {walk:.1}%");
    r.mpi_reaches_data(&["MPI_Allgatherv", "MPI_Allreduce"]);
    // 1-2. the bodies
    if r.ranked("main", "bodies") < 0.8 * walk {
        r.fail(format!(
            "main::bodies is ranked at {:.1}%, expected >= {:.1}% (0.8 x the walk)",
            r.ranked("main", "bodies"),
            0.8 * walk
        ));
    }
    match r.first_data_row() {
        Some((f, n)) if f == "main" && (n == "bodies" || n.starts_with("bodies.")) => {}
        other => r.fail(format!(
            "the first data row is {other:?}, expected main::bodies"
        )),
    }
    // 3-5. the gathered positions and the pool
    r.gets(
        "main",
        "gpos",
        0.8,
        gather,
        "MPI_Allgatherv receives into gpos",
    );
    r.gets(
        "main",
        "pool",
        0.8,
        build,
        "the tree is built in the pool's nodes",
    );
    for v in ["gpos", "pool"] {
        r.above(
            "main",
            "bodies",
            v,
            0.0,
            "the walk writes the bodies' accelerations",
        );
        if r.row("main", v).is_some_and(|x| x["derived"] == true) {
            r.fail(format!("main::{v} is data, not derived"));
        }
    }
    // 7-11. buffers, parameters, records and timers
    r.ranked_below("main", "sendbuf", 1.0, "the positions packed to send");
    r.ranked_below("", "sim", 1.0, "the parameters are set once");
    for v in ["opt", "counts", "displs"] {
        r.ranked_below("main", v, 1.0, "set once");
    }
    for v in [
        "interactions",
        "energy_hist",
        "stats",
        "ekin",
        "epot",
        "etot",
        "p",
        "sep",
        "inter_all",
        "inter_total",
        "err_mean",
        "err_max",
        "t_build",
        "t_walk",
        "t_comm",
        "t_start",
    ] {
        r.derived_or_below("main", v, 1.0, "records, statistics and timers");
    }
    for v in ["dx", "dy", "dz", "r2", "rinv", "gm", "f"] {
        r.derived_or_absent("interact", v, "the interaction's scalars");
    }
    for v in ["dx", "dy", "dz", "r2", "size"] {
        r.derived_or_absent("walk_force", v, "the walk's scalars");
    }
    // 14-15. node pointers and pass-through parameters
    r.no_rows(&["root"], "the root is an element of the pool");
    for (f, names) in [
        ("new_node", &["n"][..]),
        (
            "walk_force",
            &["n", "pos", "acc", "pot", "interactions"][..],
        ),
        ("tree_insert", &["node", "pool", "gpos"][..]),
        ("insert_below", &["n", "pool", "gpos"][..]),
        ("tree_moments", &["node", "c", "gpos"][..]),
        ("inside", &["n"][..]),
        ("interact", &["com", "pos", "acc", "pot"][..]),
        (
            "compute_forces",
            &["root", "bodies", "b", "interactions"][..],
        ),
        ("kick", &["b"][..]),
        ("drift", &["b"][..]),
        (
            "gather_positions",
            &["sendbuf", "gpos", "counts", "displs"][..],
        ),
    ] {
        r.no_rows_in(
            f,
            names,
            "node pointers and parameters are their callers' variables",
        );
    }
    r.finish_held_out();
}
