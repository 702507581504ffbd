//! The user's compiler command as `blame cc` reads and rewrites it: which
//! arguments are sources, where the object goes, and the two commands that
//! replace one compile when the front end runs once (front end to
//! unoptimized bitcode, then the optimizing back end from that bitcode).

use std::path::{Path, PathBuf};

const SOURCE_EXTS: &[&str] = &["c", "cc", "cpp", "cxx", "c++", "C", "cp"];

/// Flags taking their value as the next argument that only the
/// preprocessor and front end read (dropped from the back end's command).
const FRONT_END_WITH_VALUE: &[&str] = &[
    "-I",
    "-D",
    "-U",
    "-include",
    "-isystem",
    "-iquote",
    "-idirafter",
    "-imacros",
];

/// Dependency-file flags taking a value.
const DEP_WITH_VALUE: &[&str] = &["-MF", "-MT", "-MQ"];

/// Flags after which one front end cannot feed both the analysis and the
/// object: the output is not an object (`-S`, `-emit-llvm`, LTO bitcode),
/// the language is forced (`-x`), the debug info the analysis needs is off,
/// or the compile writes side files of its own.
fn blocks_single_front_end(a: &str) -> bool {
    matches!(
        a,
        "-S" | "-E"
            | "-emit-llvm"
            | "-x"
            | "-fsyntax-only"
            | "-###"
            | "-g0"
            | "-gline-tables-only"
            | "-gline-directives-only"
            | "-gmlt"
            | "-MJ"
            | "--analyze"
            | "-Xclang"
            | "-Xarch_host"
    ) || a.starts_with("-flto")
        || a.starts_with("-save-temps")
        || a.starts_with("-fembed-bitcode")
        || a.starts_with("-fprofile")
        || a.starts_with("-fsanitize")
        || a.starts_with("-x")
        || a.starts_with("--serialize-diagnostics")
        || a.starts_with("-ftime-trace")
}

pub fn is_source(a: &str) -> bool {
    !a.starts_with('-')
        && Path::new(a)
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| SOURCE_EXTS.contains(&e))
}

/// A compiler command: `args[0]` is the compiler.
#[derive(Debug, Clone)]
pub struct CompileCommand {
    pub args: Vec<String>,
}

impl CompileCommand {
    pub fn new(args: Vec<String>) -> CompileCommand {
        CompileCommand { args }
    }

    pub fn compiler(&self) -> &str {
        &self.args[0]
    }

    /// The source files it compiles, in order.
    pub fn sources(&self) -> Vec<&str> {
        let mut out = Vec::new();
        let mut i = 1;
        while i < self.args.len() {
            let a = &self.args[i];
            if takes_value(a) {
                i += 2;
                continue;
            }
            if is_source(a) {
                out.push(a.as_str());
            }
            i += 1;
        }
        out
    }

    /// Only preprocesses (`-E`, `-M`, `-MM`): nothing to analyze.
    pub fn preprocess_only(&self) -> bool {
        self.args[1..]
            .iter()
            .any(|a| a == "-E" || a == "-M" || a == "-MM")
    }

    fn compiles_only(&self) -> bool {
        self.args[1..].iter().any(|a| a == "-c")
    }

    /// Index of the `-o` value, or of a joined `-oFILE`.
    fn output_index(&self) -> Option<(usize, bool)> {
        let mut i = 1;
        while i < self.args.len() {
            let a = &self.args[i];
            if a == "-o" {
                return Some((i + 1, false)).filter(|(j, _)| *j < self.args.len());
            }
            if a.starts_with("-o") && a.len() > 2 {
                return Some((i, true));
            }
            if takes_value(a) {
                i += 2;
                continue;
            }
            i += 1;
        }
        None
    }

    /// The object file the command writes.
    pub fn object(&self) -> Option<PathBuf> {
        match self.output_index() {
            Some((i, false)) => Some(PathBuf::from(&self.args[i])),
            Some((i, true)) => Some(PathBuf::from(&self.args[i][2..])),
            None => {
                let src = *self.sources().first()?;
                let stem = Path::new(src).file_stem()?;
                Some(PathBuf::from(stem).with_extension("o"))
            }
        }
    }

    /// Can one front end feed both the analysis and the object? One source,
    /// compiled only (`-c`), to an object, with nothing in the way.
    pub fn single_front_end(&self) -> bool {
        self.sources().len() == 1
            && self.compiles_only()
            && !self.args[1..].iter().any(|a| blocks_single_front_end(a))
            && self.object().is_some()
    }

    /// Inserts `flags` right after the compiler: flags the user gave later
    /// on the line still win.
    pub fn with_leading_flags(&self, flags: &[String]) -> CompileCommand {
        let mut args = vec![self.args[0].clone()];
        args.extend(flags.iter().cloned());
        args.extend(self.args[1..].iter().cloned());
        CompileCommand { args }
    }

    /// The front end alone: the same command writing unoptimized bitcode
    /// (`-emit-llvm -Xclang -disable-llvm-passes`, the optimization level
    /// kept so the front end emits what the back end expects) to `bitcode`.
    /// A dependency file keeps the object as its target and its usual name.
    pub fn front_end(&self, bitcode: &Path) -> Vec<String> {
        let object = self.object().expect("single_front_end checked");
        let mut out = Vec::with_capacity(self.args.len() + 8);
        let mut i = 0;
        let mut replaced = false;
        while i < self.args.len() {
            let a = &self.args[i];
            if a == "-o" && !replaced {
                out.push("-o".into());
                out.push(bitcode.display().to_string());
                replaced = true;
                i += 2;
                continue;
            }
            if a.starts_with("-o") && a.len() > 2 && !replaced {
                out.push("-o".into());
                out.push(bitcode.display().to_string());
                replaced = true;
                i += 1;
                continue;
            }
            out.push(a.clone());
            i += 1;
        }
        if !replaced {
            out.push("-o".into());
            out.push(bitcode.display().to_string());
        }
        let has = |f: &str| self.args.iter().any(|a| a == f || a.starts_with(f));
        if has("-MD") || has("-MMD") {
            if !has("-MT") && !has("-MQ") {
                out.push("-MT".into());
                out.push(object.display().to_string());
            }
            if !has("-MF") {
                out.push("-MF".into());
                out.push(object.with_extension("d").display().to_string());
            }
        }
        out.extend(
            ["-emit-llvm", "-Xclang", "-disable-llvm-passes"]
                .iter()
                .map(|s| s.to_string()),
        );
        out
    }

    /// The back end alone: the same command compiling `bitcode` instead of
    /// the source, without what only the preprocessor and front end read
    /// (include paths, macros, `-std`, dependency files: the front end
    /// wrote that file already).
    pub fn back_end(&self, bitcode: &Path) -> Vec<String> {
        let mut out = vec![self.args[0].clone()];
        let mut i = 1;
        while i < self.args.len() {
            let a = &self.args[i];
            if FRONT_END_WITH_VALUE.contains(&a.as_str()) || DEP_WITH_VALUE.contains(&a.as_str())
            {
                i += 2;
                continue;
            }
            let joined_front_end = FRONT_END_WITH_VALUE
                .iter()
                .chain(DEP_WITH_VALUE)
                .any(|p| a.starts_with(p) && a.len() > p.len());
            if joined_front_end
                || a.starts_with("-std=")
                || a == "-ansi"
                || matches!(a.as_str(), "-MD" | "-MMD" | "-MP" | "-MG")
            {
                i += 1;
                continue;
            }
            if is_source(a) {
                out.push(bitcode.display().to_string());
            } else {
                out.push(a.clone());
            }
            i += 1;
        }
        out.push("-Wno-unused-command-line-argument".into());
        out
    }
}

/// Flags whose value is the next argument (so the value is no source).
fn takes_value(a: &str) -> bool {
    FRONT_END_WITH_VALUE.contains(&a)
        || DEP_WITH_VALUE.contains(&a)
        || matches!(
            a,
            "-o" | "-x" | "-Xclang" | "-Xlinker" | "-mllvm" | "-arch" | "-target" | "-MJ"
        )
}

/// Flags of `args` that change what the preprocessor and front end see (for
/// the separate analysis front end when the compiler is not clang 19).
pub fn front_end_flags(args: &[String]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        if FRONT_END_WITH_VALUE.contains(&a.as_str()) {
            if let Some(v) = args.get(i + 1) {
                out.push(a.clone());
                out.push(v.clone());
            }
            i += 2;
            continue;
        }
        if FRONT_END_WITH_VALUE
            .iter()
            .any(|p| a.starts_with(p) && a.len() > p.len())
            || a.starts_with("-std=")
            || a == "-fopenmp"
            || a.starts_with("-fopenmp=")
            || a == "-pthread"
            || a == "-ansi"
            || a.starts_with("-fno-exceptions")
            || a.starts_with("-fno-rtti")
        {
            out.push(a.clone());
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cmd(s: &str) -> CompileCommand {
        CompileCommand::new(s.split_whitespace().map(str::to_string).collect())
    }

    #[test]
    fn sources_objects_and_values_are_told_apart() {
        let c = cmd("clang-19 -I inc.c -O2 -c src/a.c -o build/a.o");
        assert_eq!(c.sources(), vec!["src/a.c"]);
        assert_eq!(c.object(), Some(PathBuf::from("build/a.o")));
        assert!(c.single_front_end());
        let c = cmd("clang-19 -c src/a.c");
        assert_eq!(c.object(), Some(PathBuf::from("a.o")));
        let c = cmd("clang-19 -c a.c -obuild/x.o");
        assert_eq!(c.object(), Some(PathBuf::from("build/x.o")));
    }

    #[test]
    fn what_one_front_end_cannot_serve() {
        for s in [
            "clang-19 a.c -o a",            // links
            "clang-19 -c a.c b.c",          // two units
            "clang-19 -S a.c",              // assembly
            "clang-19 -c -flto a.c",        // bitcode objects
            "clang-19 -c -x c a.txt",       // forced language
            "clang-19 -c -g0 a.c",          // no debug info for the analysis
            "clang-19 -c -save-temps a.c",  // its own side files
            "clang-19 -c -fprofile-use a.c", // profile applied by the optimizer
        ] {
            assert!(!cmd(s).single_front_end(), "{s}");
        }
    }

    #[test]
    fn the_front_end_writes_bitcode_and_keeps_the_dependency_file() {
        let c = cmd("clang-19 -MMD -MP -Iinc -DN=3 -std=c99 -O2 -c a.c -o obj/a.o");
        let fe = c.front_end(Path::new("/q/1.bc"));
        let fe = fe.join(" ");
        assert!(fe.contains("-o /q/1.bc") && !fe.contains("-o obj/a.o"), "{fe}");
        assert!(fe.contains("-MT obj/a.o") && fe.contains("-MF obj/a.d"), "{fe}");
        assert!(fe.ends_with("-emit-llvm -Xclang -disable-llvm-passes"), "{fe}");
        let c = cmd("clang-19 -MD -MF deps/a.dep -MT x -c a.c -o a.o");
        let fe = c.front_end(Path::new("q.bc")).join(" ");
        assert!(!fe.contains("-MT a.o") && !fe.contains("-MF a.d"), "{fe}");
    }

    #[test]
    fn the_back_end_compiles_the_bitcode_without_front_end_flags() {
        let c = cmd("mpicc -MMD -MF a.d -I inc -Iinc2 -DN=3 -std=c99 -O2 -march=native -fPIC -Wall -c a.c -o obj/a.o");
        let be = c.back_end(Path::new("/q/1.bc")).join(" ");
        assert_eq!(
            be,
            "mpicc -O2 -march=native -fPIC -Wall -c /q/1.bc -o obj/a.o -Wno-unused-command-line-argument"
        );
    }

    #[test]
    fn leading_flags_lose_to_the_users_own() {
        let c = cmd("gcc -fomit-frame-pointer -c a.c");
        let c = c.with_leading_flags(&["-fno-omit-frame-pointer".to_string()]);
        assert_eq!(
            c.args.join(" "),
            "gcc -fno-omit-frame-pointer -fomit-frame-pointer -c a.c"
        );
    }
}
