#[test]
fn print_model() {
    let Ok(p) = std::env::var("BLAME_LOAD") else {
        return;
    };
    let m = blame_static::llvm_loader::load_file(std::path::Path::new(&p)).unwrap();
    for f in &m.functions {
        println!(
            "fn {} file={} line={} decl={} vars={:?}",
            f.name,
            f.file,
            f.line,
            f.is_declaration,
            f.vars
                .iter()
                .map(|v| (&v.name, v.line, v.ty.map(|t| m.type_name(t))))
                .collect::<Vec<_>>()
        );
        for (i, inst) in f.insts.iter().enumerate() {
            println!(
                "  {i}: b{} l{} {:?} {:?}",
                inst.block, inst.line, inst.op, inst.args
            );
        }
    }
    println!("{:?}", m.types);
}
