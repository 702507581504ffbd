//! Slurm launch forms the recorder cannot follow. `srun` asks slurmd to
//! start the tasks, so they are no descendants of the recorded command and
//! perf_event's inheritance never reaches them; one recorder per task
//! (`srun ... blame record -- PROGRAM`) records them instead.

/// srun's short options that take their value as the next argument.
const SHORT_WITH_VALUE: &[&str] = &[
    "-n", "-N", "-c", "-p", "-t", "-J", "-w", "-x", "-m", "-A", "-q", "-G", "-o", "-e", "-i", "-D",
    "-d", "-C", "-L", "-M", "-r", "-T", "-W", "-B",
];

/// When `command` runs `srun`: why that cannot be recorded, with the
/// command line that can (`srun OPTIONS blame record RECORD_ARGS -- PROGRAM`).
/// `record_args` are the recorder's own options (e.g. `-o run -F 2000`).
pub fn srun_refusal(command: &[String], record_args: &[String]) -> Option<String> {
    let name = std::path::Path::new(command.first()?)
        .file_name()?
        .to_str()?;
    if name != "srun" {
        return None;
    }
    // The program starts at the first argument that is neither an option
    // nor the value of one.
    let mut i = 1;
    while i < command.len() {
        let a = &command[i];
        if a == "--" {
            i += 1;
            break;
        }
        if !a.starts_with('-') {
            break;
        }
        i += if SHORT_WITH_VALUE.contains(&a.as_str()) {
            2
        } else {
            1
        };
    }
    let i = i.min(command.len());
    let srun = command[..i].join(" ");
    let program = command[i..].join(" ");
    let program = if program.is_empty() {
        "PROGRAM".to_string()
    } else {
        program
    };
    let mut record = String::from("blame record");
    for a in record_args {
        record.push(' ');
        record.push_str(a);
    }
    Some(format!(
        "cannot record `{}`: srun has slurmd start the tasks, which are not descendants of the recorded command; run one recorder per task instead:\n  {srun} {record} -- {program}",
        command.join(" ")
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn srun_is_refused_with_the_per_task_form() {
        let msg = srun_refusal(
            &words("srun -n 4 --cpu-bind=cores ./app in.txt"),
            &words("-o run -F 2000"),
        )
        .unwrap();
        assert!(
            msg.ends_with("srun -n 4 --cpu-bind=cores blame record -o run -F 2000 -- ./app in.txt"),
            "{msg}"
        );
        assert!(srun_refusal(&words("/usr/bin/srun ./app"), &[]).is_some());
        assert!(srun_refusal(&words("mpirun -np 2 ./app"), &[]).is_none());
        assert!(srun_refusal(&words("./app"), &[]).is_none());
    }
}
