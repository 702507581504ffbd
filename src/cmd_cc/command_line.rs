//! The user's compiler command as `blame cc` reads it: which arguments are
//! sources, whether one compile can also hand over the analysis bitcode,
//! and the front-end flags a separate analysis front end needs.

use std::path::Path;

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

/// Flags after which the capture plugin cannot hand over the analysis
/// bitcode: no optimization pipeline runs (`-E`, `-fsyntax-only`, `-###`,
/// `--analyze`), the debug info the analysis needs is off, or the pipeline
/// does not start from the front end's IR as the analysis expects (LTO,
/// saved temporaries, profile or sanitizer instrumentation, raw `-Xclang`).
fn blocks_capture(a: &str) -> bool {
    matches!(
        a,
        "-E" | "-fsyntax-only"
            | "-###"
            | "-g0"
            | "-gline-tables-only"
            | "-gline-directives-only"
            | "-gmlt"
            | "--analyze"
            | "-Xclang"
    ) || a.starts_with("-flto")
        || a.starts_with("-save-temps")
        || a.starts_with("-fembed-bitcode")
        || a.starts_with("-fprofile")
        || a.starts_with("-fsanitize")
        || a.starts_with("-fpass-plugin")
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

    /// Links an executable or shared object (no `-c`, `-S`, `-E`,
    /// `-fsyntax-only`, `-M`, `-MM`).
    pub fn links(&self) -> bool {
        !self.args[1..].iter().any(|a| {
            matches!(
                a.as_str(),
                "-c" | "-S" | "-E" | "-fsyntax-only" | "-M" | "-MM" | "-emit-llvm"
            )
        })
    }

    /// The file it writes: `-o FILE` (or `-oFILE`), else `a.out`.
    pub fn output(&self) -> &str {
        let mut out = "a.out";
        let mut i = 1;
        while i < self.args.len() {
            let a = &self.args[i];
            if a == "-o" && i + 1 < self.args.len() {
                out = &self.args[i + 1];
                i += 2;
                continue;
            }
            if let Some(rest) = a.strip_prefix("-o").filter(|r| !r.is_empty()) {
                out = rest;
            }
            i += 1;
        }
        out
    }

    /// Can the compile itself hand over the analysis bitcode (the capture
    /// plugin in clang 19)? One unit (the plugin writes one file), its
    /// optimization pipeline run (no `-E`, `-fsyntax-only`), debug info for
    /// variables kept, nothing that makes the pipeline not start from the
    /// front end's IR (LTO, saved temporaries, instrumentation).
    pub fn one_compile_captures(&self) -> bool {
        self.sources().len() == 1 && !self.args[1..].iter().any(|a| blocks_capture(a))
    }

    /// Inserts `flags` right after the compiler: flags the user gave later
    /// on the line still win.
    pub fn with_leading_flags(&self, flags: &[String]) -> CompileCommand {
        let mut args = vec![self.args[0].clone()];
        args.extend(flags.iter().cloned());
        args.extend(self.args[1..].iter().cloned());
        CompileCommand { args }
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
    fn sources_and_flag_values_are_told_apart() {
        let c = cmd("clang-19 -I inc.c -O2 -c src/a.c -o build/a.o");
        assert_eq!(c.sources(), vec!["src/a.c"]);
        assert!(c.one_compile_captures());
        // Compile and link in one command: one unit, captured too.
        assert!(cmd("clang-19 -g -O2 a.c -o a -lm").one_compile_captures());
    }

    #[test]
    fn what_one_compile_cannot_capture() {
        for s in [
            "clang-19 -c a.c b.c",           // two units, one bitcode file
            "clang-19 -c -flto a.c",         // bitcode objects
            "clang-19 -c -g0 a.c",           // no variables for the analysis
            "clang-19 -c -save-temps a.c",   // its own side files
            "clang-19 -c -fprofile-use a.c", // profile applied before our pass
            "clang-19 -fsyntax-only a.c",    // no pipeline at all
        ] {
            assert!(!cmd(s).one_compile_captures(), "{s}");
        }
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
