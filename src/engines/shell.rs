//! A small POSIX-ish shell word splitter for `sh -c "<script>"` arguments.
//!
//! It is not a shell: no expansion happens and nothing runs. It only recovers words
//! and control operators well enough to see `curl … | sh` or `npx pkg` inside one
//! argument. Unterminated quotes run to the end. Linear in the input.

use std::borrow::Cow;

/// A word, or a control operator (`|`, `||`, `&&`, `;`, `&`, `(`, `)`, and the
/// openers of command substitution `$(`, `` ` ``, `<(`).
///
/// A word is borrowed where it is an argument taken whole (see
/// `supply::launch_tokens`): a launch's words are judged without copying them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Tok<'a> {
    Word(Cow<'a, str>),
    Op(&'static str),
}

pub(crate) fn split_words(s: &str) -> Vec<Tok<'static>> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut in_word = false;
    let mut it = s.chars().peekable();
    let flush = |cur: &mut String, in_word: &mut bool, out: &mut Vec<Tok<'static>>| {
        if *in_word {
            out.push(Tok::Word(Cow::Owned(std::mem::take(cur))));
            *in_word = false;
        }
    };
    while let Some(c) = it.next() {
        match c {
            '\'' => {
                in_word = true;
                for q in it.by_ref() {
                    if q == '\'' {
                        break;
                    }
                    cur.push(q);
                }
            }
            '"' => {
                in_word = true;
                while let Some(q) = it.next() {
                    match q {
                        '"' => break,
                        '\\' => {
                            if let Some(&n) = it.peek() {
                                if matches!(n, '"' | '\\' | '$' | '`') {
                                    it.next();
                                    cur.push(n);
                                    continue;
                                }
                            }
                            cur.push('\\');
                        }
                        _ => cur.push(q),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(n) = it.next() {
                    cur.push(n);
                }
            }
            c if c.is_whitespace() => flush(&mut cur, &mut in_word, &mut out),
            '|' | '&' | ';' | '(' | ')' | '`' => {
                flush(&mut cur, &mut in_word, &mut out);
                let op = match c {
                    '|' if it.peek() == Some(&'|') => {
                        it.next();
                        "||"
                    }
                    '|' => "|",
                    '&' if it.peek() == Some(&'&') => {
                        it.next();
                        "&&"
                    }
                    '&' => "&",
                    ';' => ";",
                    '(' => "(",
                    ')' => ")",
                    _ => "`",
                };
                out.push(Tok::Op(op));
            }
            '$' | '<' if it.peek() == Some(&'(') => {
                flush(&mut cur, &mut in_word, &mut out);
                it.next();
                out.push(Tok::Op(if c == '$' { "$(" } else { "<(" }));
            }
            _ => {
                in_word = true;
                cur.push(c);
            }
        }
    }
    flush(&mut cur, &mut in_word, &mut out);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn w(s: &str) -> Tok<'static> {
        Tok::Word(Cow::Owned(s.to_string()))
    }

    #[test]
    fn splits_pipelines_and_quotes() {
        assert_eq!(
            split_words("curl -fsSL 'https://x/a b' | sudo bash"),
            [
                w("curl"),
                w("-fsSL"),
                w("https://x/a b"),
                Tok::Op("|"),
                w("sudo"),
                w("bash")
            ]
        );
        assert_eq!(
            split_words("bash -c \"$(curl -s x)\""),
            [w("bash"), w("-c"), w("$(curl -s x)")]
        );
        assert_eq!(
            split_words("bash -c $(curl -s x)"),
            [
                w("bash"),
                w("-c"),
                Tok::Op("$("),
                w("curl"),
                w("-s"),
                w("x"),
                Tok::Op(")")
            ]
        );
        assert_eq!(
            split_words("a&&b||c;d"),
            [
                w("a"),
                Tok::Op("&&"),
                w("b"),
                Tok::Op("||"),
                w("c"),
                Tok::Op(";"),
                w("d")
            ]
        );
        assert_eq!(split_words("'unterminated"), [w("unterminated")]);
        assert_eq!(split_words(""), []);
        assert_eq!(split_words("\"\""), [w("")]);
    }
}
