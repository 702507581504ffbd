//! How `blame` and `blame-analyzer` print an error.

/// An error with its causes, as `{:#}` prints it but without a cause whose
/// text the message already holds (an I/O error that both names its source
/// and returns it as its cause would print its "(os error N)" twice).
pub fn error_text(e: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in e.chain() {
        let c = cause.to_string();
        if text.is_empty() {
            text = c;
        } else if !text.contains(&c) {
            text.push_str(": ");
            text.push_str(&c);
        }
    }
    text
}
