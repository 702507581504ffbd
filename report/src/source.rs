//! Reads source lines for drill-downs, caching files; a missing file is not an error.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

#[derive(Default)]
pub struct SourceCache {
    roots: Vec<PathBuf>,
    files: HashMap<String, Option<Vec<String>>>,
}

impl SourceCache {
    /// `roots` are tried in order for relative paths (e.g. the build directory).
    pub fn new(roots: Vec<PathBuf>) -> Self {
        SourceCache {
            roots,
            files: HashMap::new(),
        }
    }

    pub fn line(&mut self, file: &str, line: u32) -> Option<String> {
        if file.is_empty() || line == 0 {
            return None;
        }
        let roots = &self.roots;
        let lines = self.files.entry(file.to_string()).or_insert_with(|| {
            let p = Path::new(file);
            let candidates: Vec<PathBuf> = if p.is_absolute() {
                vec![p.to_path_buf()]
            } else {
                roots
                    .iter()
                    .map(|r| r.join(p))
                    .chain(std::iter::once(p.to_path_buf()))
                    .collect()
            };
            candidates
                .iter()
                .find_map(|c| std::fs::read_to_string(c).ok())
                .map(|text| text.lines().map(str::to_string).collect())
        });
        lines
            .as_ref()?
            .get(line as usize - 1)
            .map(|s| s.trim().to_string())
    }
}
