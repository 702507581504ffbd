//! Round 9 (issue 30): two programs held out of tuning, written in styles
//! the corpus lacked, their expectations written in their top comments
//! from code-centric profiles before blame was run on them by variable
//! (tests/programs/corpus/EXPECTED_ROUND9_*.md).

use super::*;

impl Run {
    /// The first row the report lists among the data structures (not derived).
    pub(super) fn first_data_row(&self) -> Option<(String, String)> {
        self.variables()
            .iter()
            .find(|v| v["derived"] != true)
            .map(|v| {
                (
                    v["function"].as_str().unwrap_or("").to_string(),
                    v["name"].as_str().unwrap_or("").to_string(),
                )
            })
    }

    /// `function::name` is derived or not listed.
    pub(super) fn derived_or_absent(&self, function: &str, name: &str, why: &str) {
        if self
            .row(function, name)
            .is_some_and(|v| v["derived"] != true)
        {
            self.fail(format!("{function}::{name} is listed as data: {why}"));
        }
    }

    /// The samples under `call` never reach "no variable".
    pub(super) fn mpi_reaches_data(&self, calls: &[&str]) {
        let reasons = self.report["coverage"]["reasons"].to_string();
        for call in calls {
            if reasons.contains(&format!("call to {call} "))
                || reasons.contains(&format!("call to P{call} "))
            {
                self.fail(format!("time in {call} reaches no variable: {reasons}"));
            }
        }
    }
}

#[test]
#[ignore = "held-out shortfall (round 9): mac (the macroscopic fields computed from the \
            lattice for output) is a record, listed with the derived, but its explicit \
            blame is the lattice's 92% (EXPECTED_ROUND9.md)"]
fn lbmflow_held_out_blames_the_swapped_lattices_not_the_diagnostics() {
    if !sampling_allowed() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let b = Build::new();
    let exe = build_all(&b, "lbmflow", "mpicc", "c");
    let r = record_and_report("lbmflow", b, &mpirun_np2(&exe), true);
    let collide = r.share_of("collide_stream");
    let halo = r.share_of("halo_exchange");
    assert!(collide > 30.0, "the collision is the run: {collide:.1}%");
    r.mpi_reaches_data(&["MPI_Waitall", "MPI_Allreduce"]);
    // 1-3. the two lattices the pointers swap
    let (src, dst) = (r.ranked("main", "src"), r.ranked("main", "dst"));
    if src + dst < COVERED * collide {
        r.fail(format!(
            "main::src + main::dst are blamed {:.1}%, expected >= {:.1}% (the collision writes dst from src)",
            src + dst,
            COVERED * collide
        ));
    }
    if src.max(dst) < 0.45 * collide {
        r.fail(format!(
            "the larger of src and dst is {:.1}%, expected >= {:.1}%",
            src.max(dst),
            0.45 * collide
        ));
    }
    match r.first_data_row() {
        Some((f, n))
            if f == "main"
                && (n == "src" || n == "dst" || n.starts_with("src.") || n.starts_with("dst.")) => {
        }
        other => r.fail(format!(
            "the first data row is {other:?}, expected main::src or main::dst"
        )),
    }
    for v in ["src", "dst"] {
        if r.row("main", v).is_some_and(|x| x["derived"] == true) {
            r.fail(format!("main::{v} is a lattice, not derived"));
        }
    }
    // 4. the ghost columns are the receive buffers of the exchange
    let smaller = r.total("main", "src").min(r.total("main", "dst"));
    if smaller < 0.8 * halo {
        r.fail(format!(
            "the smaller of src and dst is blamed {smaller:.1}%, expected >= {:.1}% (0.8 x halo_exchange)",
            0.8 * halo
        ));
    }
    // 6. the halo's handles and requests
    for v in ["src", "dst"] {
        r.above(
            "main",
            v,
            "halo",
            0.0,
            "the halo holds datatypes and requests",
        );
    }
    r.derived_or_below("main", "halo.nexchange", 1.0, "a counter");
    // 7. read only after setup
    for v in ["solid", "opt"] {
        r.ranked_below("main", v, 2.0, "written once at setup, then only read");
    }
    r.ranked_below(
        "",
        "g_dom",
        2.0,
        "the global domain is written once, then only read",
    );
    let g_dom_rows = r
        .variables()
        .iter()
        .filter(|v| v["name"] == "g_dom")
        .count();
    if g_dom_rows > 1 {
        r.fail(format!("g_dom is {g_dom_rows} rows, expected one"));
    }
    // 8. the macroscopic fields of the output steps
    r.ranked_below(
        "main",
        "mac",
        2.0,
        "rho, ux, uy are computed every 200 steps",
    );
    for v in ["src", "dst"] {
        r.above(
            "main",
            v,
            "mac",
            0.0,
            "mac is computed from the lattice for output",
        );
    }
    // 9-10. records, timers, diagnostics
    for v in [
        "force_hist",
        "stats",
        "timing",
        "tmax",
        "t_collide",
        "t_halo",
        "t_io",
        "t_start",
        "t0",
        "t1",
        "t2",
        "t3",
        "local",
        "global",
        "umax",
        "force",
        "fscale",
        "u_mean",
        "diameter",
        "rank",
        "nranks",
    ] {
        r.derived_or_below(
            "main",
            v,
            1.0,
            "records, timers and diagnostics of the output steps",
        );
    }
    // 11-12. loop indices and the kernel's scalars
    r.low_anywhere(
        &["step", "k", "first", "i", "x", "y", "q"],
        1.0,
        "loop indices",
    );
    for v in ["fin", "rho", "ux", "uy", "usq", "inv"] {
        r.derived_or_absent(
            "collide_stream",
            v,
            "a cell's moments and populations are the kernel's scalars",
        );
    }
    // 13. no rows for the swap temporary, casts and pass-through parameters
    r.no_rows(&["tmp"], "the swap temporary is src or dst");
    for (f, names) in [
        ("collide_stream", &["src", "dst", "solid"][..]),
        ("gather", &["src", "solid", "fin"][..]),
        ("halo_exchange", &["h", "lat"][..]),
        ("apply_boundaries", &["lat"][..]),
        ("compute_macro", &["lat", "m"][..]),
        ("macro_sums", &["m"][..]),
        ("obstacle_force", &["lat"][..]),
        ("domain_setup", &["d"][..]),
        ("lattice_create", &["lat"][..]),
        ("lattice_init", &["lat"][..]),
        ("crossing_type", &["column", "type"][..]),
    ] {
        r.no_rows_in(
            f,
            names,
            "parameters and locals that point into main's lattices and fields",
        );
    }
    r.finish_held_out();
}

#[test]
#[ignore = "held-out shortfall (round 9): w_hat and dw_hat inherit the whole RK3 recurrence \
            and rank above the plan; the final vorticity w, computed from w_hat after the \
            loop, is listed with the derived but keeps its inherited share \
            (EXPECTED_ROUND9.md)"]
fn spectral_held_out_blames_the_plan_buffers_and_the_fields() {
    if !sampling_allowed() {
        return;
    }
    let _serial = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let b = Build::new();
    let exe = build_all(&b, "spectral", "mpicc", "c");
    let r = record_and_report("spectral", b, &mpirun_np2(&exe), true);
    let fft = r.share_of("fft_1d");
    let transpose = r.share_of("transpose_global");
    let pack = r.share_of("pack_blocks");
    let alltoall = r.share_of("MPI_Alltoall") + r.share_of("PMPI_Alltoall");
    let velocity = r.share_of("velocity_from_vorticity");
    let rk3 = r.share_of("rk3_step");
    assert!(fft > 20.0, "the FFTs are the run: {fft:.1}%");
    r.mpi_reaches_data(&["MPI_Alltoall", "MPI_Allreduce"]);
    // 1-5. the plan and its buffers
    r.gets(
        "main",
        "plan",
        0.8,
        transpose + 0.45 * fft,
        "the transposes and the FFT work rows",
    );
    match r.first_data_row() {
        Some((f, n)) if f == "main" && (n == "plan" || n.starts_with("plan.")) => {}
        other => r.fail(format!(
            "the first data row is {other:?}, expected main::plan"
        )),
    }
    if r.row("main", "plan").is_some_and(|v| v["derived"] == true) {
        r.fail("the FFT plan holds the transpose buffers: not derived".into());
    }
    r.gets(
        "main",
        "plan.sendbuf",
        0.8,
        pack,
        "pack_blocks fills the send buffer",
    );
    r.gets(
        "main",
        "plan.recvbuf",
        0.8,
        alltoall,
        "MPI_Alltoall receives into it",
    );
    r.gets(
        "main",
        "plan.work",
        0.8,
        0.45 * fft,
        "the row FFTs of the transposed slab",
    );
    // 6-9. the fields
    r.gets(
        "main",
        "fld",
        0.8,
        0.4 * fft + velocity,
        "the inverse transforms and the velocity",
    );
    r.above(
        "main",
        "plan",
        "fld",
        0.0,
        "the plan's buffers take the transposes",
    );
    r.above(
        "main",
        "fld",
        "nl_hat",
        0.0,
        "fld holds five spectral and five physical fields",
    );
    for v in ["fld.u_hat", "fld.v_hat", "fld.wx_hat", "fld.wy_hat"] {
        r.gets(
            "main",
            v,
            0.07,
            fft,
            "each spectral field takes its inverse transforms",
        );
    }
    r.gets(
        "main",
        "nl_hat",
        0.07,
        fft,
        "the forward transform of the nonlinear term",
    );
    for v in ["nl_hat", "w_hat", "dw_hat"] {
        if r.row("main", v).is_some_and(|x| x["derived"] == true) {
            r.fail(format!("main::{v} is a spectral field, not derived"));
        }
    }
    for v in ["w_hat", "dw_hat"] {
        if r.row("main", v).is_none() {
            r.fail(format!("main::{v} is not listed"));
        }
        if r.total("main", v) > rk3 + 0.5 {
            r.fail(format!(
                "main::{v} is blamed more than rk3_step ({rk3:.1}%)"
            ));
        }
    }
    // 11-13. read only after setup
    for v in ["wn", "plan.twiddle", "plan.bitrev", "w", "fld.psi_hat"] {
        r.ranked_below(
            "main",
            v,
            2.0,
            "written once at setup (or at the end), then only read",
        );
    }
    r.ranked_below("", "grid", 2.0, "the global grid is set once");
    // 14-16. timers, records, loop indices
    for v in ["t_fft", "t_comm", "t_nonlin"] {
        r.derived_or_below("", v, 1.0, "timers");
    }
    for v in ["t_start", "t_loop"] {
        r.derived_or_below("main", v, 1.0, "timers");
    }
    for v in [
        "stats",
        "spec_hist",
        "energy",
        "enstrophy",
        "nrec",
        "err",
        "wloc",
        "wglob",
        "plan.ntransforms",
    ] {
        r.derived_or_below("main", v, 2.0, "diagnostics and records");
    }
    r.low_anywhere(
        &[
            "step", "stage", "len", "start", "k", "i", "j", "r", "c", "idx",
        ],
        1.0,
        "loop indices",
    );
    // 17. no rows for pass-through parameters and row pointers
    for (f, names) in [
        ("compute_rhs", &["f", "w_hat", "rhs_hat", "plan", "wn"][..]),
        (
            "rk3_step",
            &["f", "w_hat", "dw_hat", "rhs_hat", "plan", "wn"][..],
        ),
        ("velocity_from_vorticity", &["f", "w_hat"][..]),
        ("advection_products", &["f"][..]),
        ("fft2d_inverse", &["spec", "phys", "plan"][..]),
        ("fft2d_forward", &["spec", "phys", "plan"][..]),
        ("transpose_global", &["in", "out"][..]),
        ("pack_blocks", &["in", "blk", "row"][..]),
        ("unpack_blocks", &["out", "blk"][..]),
        ("fft_rows", &["rows"][..]),
        ("fft_1d", &["x", "lo", "hi", "tw", "rev"][..]),
        ("diag_spectrum", &["spec"][..]),
    ] {
        r.no_rows_in(
            f,
            names,
            "parameters and row pointers are their callers' fields",
        );
    }
    r.no_rows(&[], "no MPI globals");
    r.finish_held_out();
}
