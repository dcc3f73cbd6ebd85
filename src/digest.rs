//! RFC 8785 (JCS) canonicalization and the lock digests built on it.
//!
//! Shared by the lock reader's consistency check (doctor), `pin` and `check`, so a
//! digest is computed one way everywhere. Pure functions over values; no I/O.
//!
//! The canonical form is the one the lock format hashes (engines reference §6.4):
//!
//! * object keys sorted by their UTF-16 code units (not by code point: the two
//!   orders differ once astral characters meet U+E000..U+FFFF);
//! * no insignificant whitespace, non-ASCII written literally as UTF-8, and only
//!   `"`, `\` and C0 controls escaped (the ES `JSON.stringify` escapes);
//! * numbers in ES6 `Number.prototype.toString` form (`1.0` → `1`, `-0.0` → `0`,
//!   `1e21` → `1e+21`, `1e-7` → `1e-7`);
//! * integers outside ±(2^53−1) refused: they do not survive a round trip through
//!   an IEEE double, so two conforming implementations could hash them differently;
//! * nesting bound 512: the root is at depth 0 and every enclosing array or object
//!   adds one; any element deeper than 512 is refused before anything is written.
//!
//! A `serde_json::Value` cannot carry a lone surrogate, so that JCS failure case is
//! excluded by the type. A JSON integer token too large for `u64`/`i64` reaches
//! this module as an `f64` (serde_json without `arbitrary_precision`) and is
//! therefore formatted as a double; callers that parse untrusted text should refuse
//! such tokens themselves if they need to.

use std::cmp::Ordering;
use std::fmt;

use serde_json::{Map, Number, Value};
use sha2::{Digest, Sha256};

/// Deepest element accepted when canonicalizing (the lock spec's normative bound).
pub const MAX_CANON_DEPTH: usize = 512;

/// Largest integer magnitude that round-trips through an IEEE double (2^53 − 1).
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// Prefix of every digest string.
pub const SHA256_PREFIX: &str = "sha256:";

/// Why a value has no canonical form.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DigestError {
    /// An element sits deeper than [`MAX_CANON_DEPTH`].
    TooDeep,
    /// An integer outside ±(2^53−1); the decimal text is kept for the message.
    IntegerOutOfRange(String),
    /// NaN or an infinity (not representable in JSON).
    NonFiniteNumber,
}

impl fmt::Display for DigestError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DigestError::TooDeep => write!(f, "nesting deeper than {MAX_CANON_DEPTH} levels"),
            DigestError::IntegerOutOfRange(n) => write!(
                f,
                "integer {n} is outside the range ±(2^53−1) that JCS can canonicalize"
            ),
            DigestError::NonFiniteNumber => write!(f, "number is not finite"),
        }
    }
}

impl std::error::Error for DigestError {}

/// The RFC 8785 canonical bytes of `value`.
///
/// # Errors
/// [`DigestError::TooDeep`] when an element is nested deeper than 512 levels,
/// [`DigestError::IntegerOutOfRange`] for an integer beyond ±(2^53−1).
pub fn canonicalize(value: &Value) -> Result<Vec<u8>, DigestError> {
    check_depth(value)?;
    let mut out = Vec::new();
    write_value(value, &mut out)?;
    Ok(out)
}

/// `"sha256:" + lowercase hex(SHA-256(canonicalize(value)))`.
///
/// # Errors
/// As [`canonicalize`].
pub fn hash_value(value: &Value) -> Result<String, DigestError> {
    Ok(hash_bytes(&canonicalize(value)?))
}

/// `command_digest` of a stdio server: `hash({"command": command, "args": args})`.
pub fn command_digest_stdio(command: &str, args: &[String]) -> String {
    // Keys in JCS order: "args" < "command".
    let mut out =
        Vec::with_capacity(32 + command.len() + args.iter().map(|a| a.len() + 3).sum::<usize>());
    out.extend_from_slice(b"{\"args\":");
    write_string_array(args, &mut out);
    out.extend_from_slice(b",\"command\":");
    write_string(command, &mut out);
    out.push(b'}');
    hash_bytes(&out)
}

/// `command_digest` of an HTTP server: `hash({"url": url})`.
pub fn command_digest_url(url: &str) -> String {
    let mut out = Vec::with_capacity(10 + url.len());
    out.extend_from_slice(b"{\"url\":");
    write_string(url, &mut out);
    out.push(b'}');
    hash_bytes(&out)
}

/// `overall_digest` of a lock (engines reference §6.5): the hash of
/// `{"schema_version", "server": {"command_digest"}, "tools", "resources", "prompts"}`
/// where the three lists hold the entries' `entry_digest` strings in lock order.
pub fn overall_digest(
    schema_version: u32,
    command_digest: &str,
    tools: &[String],
    resources: &[String],
    prompts: &[String],
) -> String {
    // Keys in JCS order: prompts < resources < schema_version < server < tools.
    let mut out = Vec::new();
    out.extend_from_slice(b"{\"prompts\":");
    write_string_array(prompts, &mut out);
    out.extend_from_slice(b",\"resources\":");
    write_string_array(resources, &mut out);
    out.extend_from_slice(b",\"schema_version\":");
    out.extend_from_slice(schema_version.to_string().as_bytes());
    out.extend_from_slice(b",\"server\":{\"command_digest\":");
    write_string(command_digest, &mut out);
    out.extend_from_slice(b"},\"tools\":");
    write_string_array(tools, &mut out);
    out.push(b'}');
    hash_bytes(&out)
}

fn hash_bytes(bytes: &[u8]) -> String {
    let digest = Sha256::digest(bytes);
    let mut s = String::with_capacity(SHA256_PREFIX.len() + 64);
    s.push_str(SHA256_PREFIX);
    for b in digest {
        s.push(hex_digit(b >> 4));
        s.push(hex_digit(b & 0x0f));
    }
    s
}

fn hex_digit(n: u8) -> char {
    char::from(b"0123456789abcdef"[usize::from(n & 0x0f)])
}

/// Iterative depth check, so the check itself never recurses on the input it refuses.
fn check_depth(value: &Value) -> Result<(), DigestError> {
    let mut stack: Vec<(&Value, usize)> = vec![(value, 0)];
    while let Some((node, depth)) = stack.pop() {
        if depth > MAX_CANON_DEPTH {
            return Err(DigestError::TooDeep);
        }
        match node {
            Value::Array(items) => stack.extend(items.iter().map(|v| (v, depth + 1))),
            Value::Object(map) => stack.extend(map.values().map(|v| (v, depth + 1))),
            _ => {}
        }
    }
    Ok(())
}

/// Recursive writer; only called after [`check_depth`] bounded the recursion to 513 frames.
fn write_value(value: &Value, out: &mut Vec<u8>) -> Result<(), DigestError> {
    match value {
        Value::Null => out.extend_from_slice(b"null"),
        Value::Bool(true) => out.extend_from_slice(b"true"),
        Value::Bool(false) => out.extend_from_slice(b"false"),
        Value::Number(n) => write_number(n, out)?,
        Value::String(s) => write_string(s, out),
        Value::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                write_value(item, out)?;
            }
            out.push(b']');
        }
        Value::Object(map) => write_object(map, out)?,
    }
    Ok(())
}

fn write_object(map: &Map<String, Value>, out: &mut Vec<u8>) -> Result<(), DigestError> {
    let mut entries: Vec<(&String, &Value)> = map.iter().collect();
    entries.sort_by(|a, b| utf16_cmp(a.0, b.0));
    out.push(b'{');
    for (i, (k, v)) in entries.into_iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_string(k, out);
        out.push(b':');
        write_value(v, out)?;
    }
    out.push(b'}');
    Ok(())
}

/// Order of two strings by UTF-16 code units (RFC 8785 §3.2.3).
pub fn utf16_cmp(a: &str, b: &str) -> Ordering {
    // UTF-8 byte order equals code point order, which equals UTF-16 order except
    // when a supplementary character meets one in U+E000..U+FFFF. Compare bytes
    // up to the first difference and fall back to UTF-16 units only from there.
    let common = a.bytes().zip(b.bytes()).take_while(|(x, y)| x == y).count();
    // Back up to a char boundary so both tails start with whole characters.
    let mut start = common;
    while start > 0 && !a.is_char_boundary(start) {
        start -= 1;
    }
    let (ta, tb) = match (a.get(start..), b.get(start..)) {
        (Some(ta), Some(tb)) => (ta, tb),
        _ => return a.encode_utf16().cmp(b.encode_utf16()),
    };
    ta.encode_utf16().cmp(tb.encode_utf16())
}

fn write_number(n: &Number, out: &mut Vec<u8>) -> Result<(), DigestError> {
    if let Some(u) = n.as_u64() {
        if u > MAX_SAFE_INTEGER {
            return Err(DigestError::IntegerOutOfRange(u.to_string()));
        }
        out.extend_from_slice(u.to_string().as_bytes());
    } else if let Some(i) = n.as_i64() {
        if i.unsigned_abs() > MAX_SAFE_INTEGER {
            return Err(DigestError::IntegerOutOfRange(i.to_string()));
        }
        out.extend_from_slice(i.to_string().as_bytes());
    } else if let Some(f) = n.as_f64() {
        out.extend_from_slice(es6_number(f)?.as_bytes());
    } else {
        return Err(DigestError::NonFiniteNumber);
    }
    Ok(())
}

/// ES6 `Number.prototype.toString(x)` for a finite double (ECMA-262 §6.1.6.1.20).
pub fn es6_number(x: f64) -> Result<String, DigestError> {
    if !x.is_finite() {
        return Err(DigestError::NonFiniteNumber);
    }
    if x == 0.0 {
        return Ok("0".to_string());
    }
    // Rust's `{:e}` prints the shortest digit string that round-trips, which is the
    // digit string ES6 asks for: `d[.ddd]e[-]x`.
    let sci = format!("{:e}", x.abs());
    let (mantissa, exp) = sci.split_once('e').unwrap_or((sci.as_str(), "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(char::is_ascii_digit).collect();
    let k = i64::try_from(digits.len()).unwrap_or(i64::MAX);
    let n = exp + 1;
    let mut s = String::new();
    if x < 0.0 {
        s.push('-');
    }
    if k <= n && n <= 21 {
        s.push_str(&digits);
        for _ in 0..(n - k) {
            s.push('0');
        }
    } else if 0 < n && n <= 21 {
        let (int, frac) = digits.split_at(usize::try_from(n).unwrap_or(0));
        s.push_str(int);
        s.push('.');
        s.push_str(frac);
    } else if -6 < n && n <= 0 {
        s.push_str("0.");
        for _ in 0..(-n) {
            s.push('0');
        }
        s.push_str(&digits);
    } else {
        let (first, rest) = digits.split_at(1.min(digits.len()));
        s.push_str(first);
        if !rest.is_empty() {
            s.push('.');
            s.push_str(rest);
        }
        s.push('e');
        s.push(if n - 1 < 0 { '-' } else { '+' });
        s.push_str(&(n - 1).abs().to_string());
    }
    Ok(s)
}

fn write_string_array(items: &[String], out: &mut Vec<u8>) {
    out.push(b'[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(b',');
        }
        write_string(item, out);
    }
    out.push(b']');
}

/// A JSON string as ES `JSON.stringify` writes it (the JCS string form).
fn write_string(s: &str, out: &mut Vec<u8>) {
    out.push(b'"');
    let bytes = s.as_bytes();
    let mut start = 0;
    for (i, &b) in bytes.iter().enumerate() {
        let esc: Option<&[u8]> = match b {
            b'"' => Some(b"\\\""),
            b'\\' => Some(b"\\\\"),
            0x08 => Some(b"\\b"),
            0x09 => Some(b"\\t"),
            0x0a => Some(b"\\n"),
            0x0c => Some(b"\\f"),
            0x0d => Some(b"\\r"),
            _ => None,
        };
        if let Some(esc) = esc {
            out.extend_from_slice(&bytes[start..i]);
            out.extend_from_slice(esc);
            start = i + 1;
        } else if b < 0x20 {
            out.extend_from_slice(&bytes[start..i]);
            out.extend_from_slice(b"\\u00");
            out.push(hex_digit(b >> 4) as u8);
            out.push(hex_digit(b & 0x0f) as u8);
            start = i + 1;
        }
    }
    out.extend_from_slice(&bytes[start..]);
    out.push(b'"');
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn canon_str(v: &Value) -> String {
        String::from_utf8(canonicalize(v).unwrap()).unwrap()
    }

    fn parse(text: &str) -> Value {
        serde_json::from_str(text).unwrap()
    }

    #[test]
    fn vector_89_empty_string() {
        assert_eq!(
            hash_value(&json!("")).unwrap(),
            "sha256:12ae32cb1ec02d01eda3581b127c1fee3b0dc53572ed6baf239721a03d82e126"
        );
    }

    #[test]
    fn vector_90_empty_object() {
        assert_eq!(
            hash_value(&json!({})).unwrap(),
            "sha256:44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"
        );
    }

    #[test]
    fn vector_91_empty_array() {
        assert_eq!(
            hash_value(&json!([])).unwrap(),
            "sha256:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
        );
    }

    #[test]
    fn vector_92_null() {
        assert_eq!(
            hash_value(&Value::Null).unwrap(),
            "sha256:74234e98afe7498fb5daf1f36ac2d78acc339464f950703b8c019892f982b90b"
        );
    }

    #[test]
    fn vector_93_simple_forms() {
        assert_eq!(canon_str(&parse(r#"{"b":1,"a":2}"#)), r#"{"a":2,"b":1}"#);
        assert_eq!(canon_str(&parse("[3,1,2]")), "[3,1,2]");
        assert_eq!(
            canon_str(&parse(r#"{"x":{"y":[1,2]}}"#)),
            r#"{"x":{"y":[1,2]}}"#
        );
        assert_eq!(
            canonicalize(&parse(r#"{"k":"café"}"#)).unwrap(),
            "{\"k\":\"café\"}".as_bytes()
        );
    }

    #[test]
    fn vector_94_key_order_does_not_matter_and_content_does() {
        let a = parse(r#"{"type":"object","required":["p"],"properties":{"p":{"type":"string"}}}"#);
        let b = parse(r#"{"properties":{"p":{"type":"string"}},"type":"object","required":["p"]}"#);
        let c = parse(r#"{"required":["p"],"properties":{"p":{"type":"string"}},"type":"object"}"#);
        let d = parse(
            r#"{"type":"object","required":["p"],"properties":{"p":{"type":"string"},"q":{"type":"string"}}}"#,
        );
        assert_eq!(hash_value(&a).unwrap(), hash_value(&b).unwrap());
        assert_eq!(hash_value(&a).unwrap(), hash_value(&c).unwrap());
        assert_ne!(hash_value(&a).unwrap(), hash_value(&d).unwrap());
    }

    #[test]
    fn vector_95_utf16_key_order() {
        let v = parse("{\"！\":1,\"😀\":2,\"\u{E000}\":3}");
        assert_eq!(canon_str(&v), "{\"😀\":2,\"\u{E000}\":3,\"！\":1}");
        assert_eq!(
            hash_value(&v).unwrap(),
            "sha256:c1ca72ce1f69cc033efa46ecd3870334cd0431bf063a4501ab3f6e2a98f6ba9a"
        );
    }

    #[test]
    fn vector_96_es6_numbers() {
        let v = parse(
            r#"{"a":0.1,"b":1e21,"c":100,"d":1.0,"e":-0.0,"f":1e-7,"g":123456789.125,"h":-5,"i":9007199254740991}"#,
        );
        assert_eq!(
            canon_str(&v),
            r#"{"a":0.1,"b":1e+21,"c":100,"d":1,"e":0,"f":1e-7,"g":123456789.125,"h":-5,"i":9007199254740991}"#
        );
        assert_eq!(
            hash_value(&v).unwrap(),
            "sha256:fd5aa060039901d7e17bab294be8b6d3a96e8e3fdd5a62a7a06fce1bbcdad3b3"
        );
    }

    #[test]
    fn es6_number_edges() {
        let cases: &[(f64, &str)] = &[
            (1e20, "100000000000000000000"),
            (1e21, "1e+21"),
            (1.5e21, "1.5e+21"),
            (1e-6, "0.000001"),
            (1.5e-7, "1.5e-7"),
            (-1e-7, "-1e-7"),
            (0.000123, "0.000123"),
            (5e-324, "5e-324"),
            (1.7976931348623157e308, "1.7976931348623157e+308"),
            (-123.456, "-123.456"),
            (2.5, "2.5"),
            (9007199254740993.0, "9007199254740992"),
        ];
        for (x, want) in cases {
            assert_eq!(es6_number(*x).unwrap(), *want, "{x}");
        }
        assert_eq!(es6_number(f64::NAN), Err(DigestError::NonFiniteNumber));
    }

    #[test]
    fn integers_beyond_2_pow_53_are_refused() {
        assert!(matches!(
            canonicalize(&json!(9007199254740992u64)),
            Err(DigestError::IntegerOutOfRange(_))
        ));
        assert!(matches!(
            canonicalize(&json!(-9007199254740992i64)),
            Err(DigestError::IntegerOutOfRange(_))
        ));
        assert_eq!(canon_str(&json!(-9007199254740991i64)), "-9007199254740991");
    }

    #[test]
    fn string_escapes_follow_json_stringify() {
        let v = json!("a\"b\\c\u{8}\u{c}\n\r\t\u{1}\u{1f}\u{7f}\u{2028}é");
        assert_eq!(
            canon_str(&v),
            "\"a\\\"b\\\\c\\b\\f\\n\\r\\t\\u0001\\u001f\u{7f}\u{2028}é\""
        );
    }

    fn nested(depth_of_innermost: usize) -> Value {
        // Innermost empty array at `depth_of_innermost` (root at depth 0).
        let mut v = json!([]);
        for _ in 0..depth_of_innermost {
            v = Value::Array(vec![v]);
        }
        v
    }

    #[test]
    fn vector_102_nesting_512_accepted_513_refused() {
        assert!(canonicalize(&nested(512)).is_ok());
        assert_eq!(canonicalize(&nested(513)), Err(DigestError::TooDeep));
        // A scalar at depth 513 is as much a violation as a container there.
        let mut v = json!(1);
        for _ in 0..513 {
            v = Value::Array(vec![v]);
        }
        assert_eq!(canonicalize(&v), Err(DigestError::TooDeep));
        assert!(DigestError::TooDeep
            .to_string()
            .contains("nesting deeper than 512"));
    }

    #[test]
    fn vector_97_command_digest_and_v3_overall() {
        let cd = command_digest_stdio("node", &["./server.js".to_string()]);
        assert_eq!(
            cd,
            "sha256:12c6871f14a9ddfe1a7afda4c3d35425410bc4bfe4a19c281e0e4dfff808aec2"
        );
        assert_eq!(
            hash_value(&json!("Read a file.")).unwrap(),
            "sha256:f83d56c834a0029f639f3db5e497620fcad6f2a8367d31e34238a3a9ae0c2020"
        );
        let schema = parse(
            r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}"#,
        );
        let ish = hash_value(&schema).unwrap();
        assert_eq!(
            ish,
            "sha256:923b083c9bcab2e3d3e07c7d9b4401688ad9f3d5e2c2f0c48fcd43052bdcb71b"
        );
        let skeleton = parse(
            r#"{"props":{"$root":{"type":["object"],"required":false,"enum":null,"constraints":{"additionalProperties":true}},"path":{"type":["string"],"required":true,"enum":null,"constraints":{"additionalProperties":true}}}}"#,
        );
        let body = json!({
            "name": "read_file",
            "description_hash": "sha256:f83d56c834a0029f639f3db5e497620fcad6f2a8367d31e34238a3a9ae0c2020",
            "input_schema_hash": ish,
            "capabilities": ["fs-read"],
            "schema_skeleton": skeleton,
        });
        let entry = hash_value(&body).unwrap();
        assert_eq!(
            entry,
            "sha256:9512f1b4519e48f35f72935fe094fcd3db104cdadcd91de16da13584067ddb9e"
        );
        assert_eq!(
            overall_digest(3, &cd, &[entry], &[], &[]),
            "sha256:93acc5354965a023f5e937d468ea6afaf20498cb0b7077a8e1b4227310b4e406"
        );
    }

    #[test]
    fn vector_98_same_surface_at_schema_4() {
        let cd = command_digest_stdio("node", &["./server.js".to_string()]);
        let null_hash = hash_value(&Value::Null).unwrap();
        let skeleton = parse(
            r#"{"props":{"$root":{"type":["object"],"required":false,"enum":null,"constraints":{"additionalProperties":true}},"path":{"type":["string"],"required":true,"enum":null,"constraints":{"additionalProperties":true}}}}"#,
        );
        let body = json!({
            "name": "read_file",
            "description_hash": "sha256:f83d56c834a0029f639f3db5e497620fcad6f2a8367d31e34238a3a9ae0c2020",
            "input_schema_hash": "sha256:923b083c9bcab2e3d3e07c7d9b4401688ad9f3d5e2c2f0c48fcd43052bdcb71b",
            "capabilities": ["fs-read"],
            "annotations_hash": null_hash,
            "output_schema_hash": null_hash,
            "output_schema_skeleton": null,
            "schema_skeleton": skeleton,
        });
        let entry = hash_value(&body).unwrap();
        assert_eq!(
            entry,
            "sha256:f0d5e26ac99d25b74bdf9a1886177adcada8d80489d5875f0f8b86502003c34c"
        );
        assert_eq!(
            overall_digest(4, &cd, &[entry], &[], &[]),
            "sha256:8dcd1c14a3f719826ee111f2a14551ee9b2c8e5c4bcc64c04fbfd6bf62450ed9"
        );
    }

    #[test]
    fn vector_99_http_url_server() {
        let cd = command_digest_url("https://example.com/mcp");
        assert_eq!(
            cd,
            "sha256:b6ab9af4649e26f4b90a7786ee4b70f287a0b0189551386e1accb431f4e97986"
        );
        assert_eq!(
            cd,
            hash_value(&json!({"url": "https://example.com/mcp"})).unwrap()
        );
        let ish = hash_value(&json!({"type": "object", "properties": {}})).unwrap();
        assert_eq!(
            ish,
            "sha256:efddc7bd8bbcef73a14eb1ace1ffdaec81e518ef1e13c1e9271d0b8acb694a49"
        );
        let null_hash = hash_value(&Value::Null).unwrap();
        let body = json!({
            "name": "ping",
            "description_hash": hash_value(&json!("")).unwrap(),
            "input_schema_hash": ish,
            "capabilities": [],
            "annotations_hash": null_hash,
            "output_schema_hash": null_hash,
            "output_schema_skeleton": null,
            "schema_skeleton": parse(r#"{"props":{"$root":{"type":["object"],"required":false,"enum":null,"constraints":{"additionalProperties":true}}}}"#),
        });
        let entry = hash_value(&body).unwrap();
        assert_eq!(
            entry,
            "sha256:d6618ea2ccdf7cfacf5f35419dd399b2b32c3172690175e5a0b056450537e18d"
        );
        assert_eq!(
            overall_digest(4, &cd, &[entry], &[], &[]),
            "sha256:a5dd175f90ed35ade0e0407df3bcc7c414c51c3d148cb62625072b432577585a"
        );
    }

    #[test]
    fn vector_100_astral_entry_sorting() {
        let cd = command_digest_stdio("python", &["server.py".to_string()]);
        assert_eq!(
            cd,
            "sha256:b42e4fe9ab2871e34b4115b0f7a8a762c2e2fd3712805c4e323da999456eeb77"
        );
        let null_hash = hash_value(&Value::Null).unwrap();
        let empty = hash_value(&json!("")).unwrap();
        let tool = |name: &str| {
            hash_value(&json!({
                "name": name,
                "description_hash": empty,
                "input_schema_hash": hash_value(&json!({})).unwrap(),
                "capabilities": [],
                "annotations_hash": null_hash,
                "output_schema_hash": null_hash,
                "output_schema_skeleton": null,
                "schema_skeleton": {"props": {}},
            }))
            .unwrap()
        };
        let resource = |uri: &str| {
            hash_value(
                &json!({"uri": uri, "name": null, "description_hash": empty, "mime_type": null}),
            )
            .unwrap()
        };
        let prompt = |name: &str| {
            hash_value(&json!({"name": name, "description_hash": empty, "arguments_hash": hash_value(&json!([])).unwrap()}))
                .unwrap()
        };
        let tools: Vec<String> = ["x", "\u{E000}x", "😀x"].iter().map(|n| tool(n)).collect();
        let resources: Vec<String> = ["x://1", "\u{E000}://1", "😀://1"]
            .iter()
            .map(|u| resource(u))
            .collect();
        let prompts: Vec<String> = ["x", "\u{E000}", "😀"].iter().map(|n| prompt(n)).collect();
        assert_eq!(
            tools,
            [
                "sha256:39244621081b457130705520e86b8b257e0341f040254829c1382b57ae9a42d5",
                "sha256:07e961d72acd86e33d4a030576845ff1d6fadbf04a8a18e76ce39051c6cc3124",
                "sha256:7d30fc78baa5582de9d2698e18406905c002c03cb98cd40ce250f807b467ad50"
            ]
        );
        assert_eq!(
            resources,
            [
                "sha256:8e5869da2647b1361277885d0e48a4bf173845d3789bed9c81d7ffc898b3ca3e",
                "sha256:20e076e9d3ef40bdcce6263d4505de0d1e13a4bb84bf391ba8a68b84ccb40a25",
                "sha256:6a9914d720d9ce61c55d518dd7839f8a6fd394edcc333e80617a78ca32a06905"
            ]
        );
        assert_eq!(
            prompts,
            [
                "sha256:293bba949c9b6c9b16a60d8e6c16defc3895d1221cfb020a9ea12f59bae3671c",
                "sha256:c2b7e39f3f92d425d8b68e5873afa0504704b087d3431ff637cf87f0344ae86b",
                "sha256:66aaf4461fd17d0c88a04e4e46d75d0aaf48d00ed66f977f854ddc720b740335"
            ]
        );
        assert_eq!(
            overall_digest(4, &cd, &tools, &resources, &prompts),
            "sha256:53479e16bdf394db3a83879851ddda9651bd42fea5ddd3df0d553b9ea2ec6253"
        );
    }

    #[test]
    fn vector_101_and_literal_lock_command_digest() {
        let args = [
            "-y".to_string(),
            "@modelcontextprotocol/server-memory@2026.1.26".to_string(),
        ];
        assert_eq!(
            command_digest_stdio("npx", &args),
            "sha256:586e40c1ab55ec9c6c0a471e55753aae13181a3d543d7c3af7f4fda5875b010a"
        );
        assert_eq!(
            command_digest_stdio("npx", &args),
            hash_value(&json!({"command": "npx", "args": args})).unwrap()
        );
    }

    #[test]
    fn direct_writers_escape_like_the_generic_path() {
        let args = vec!["a\"b".to_string(), "\u{1}\n".to_string(), "é😀".to_string()];
        assert_eq!(
            command_digest_stdio("c\\md", &args),
            hash_value(&json!({"command": "c\\md", "args": args})).unwrap()
        );
        assert_eq!(
            overall_digest(2, "sha256:x", &["a".into()], &["b".into()], &["c".into()]),
            hash_value(&json!({
                "schema_version": 2,
                "server": {"command_digest": "sha256:x"},
                "tools": ["a"], "resources": ["b"], "prompts": ["c"]
            }))
            .unwrap()
        );
    }

    #[test]
    fn utf16_order_matches_encode_utf16() {
        let words = [
            "",
            "a",
            "ab",
            "é",
            "\u{E000}",
            "😀",
            "！",
            "😀a",
            "\u{E000}a",
            "a😀",
            "a\u{E000}",
        ];
        for a in words {
            for b in words {
                assert_eq!(
                    utf16_cmp(a, b),
                    a.encode_utf16().cmp(b.encode_utf16()),
                    "{a:?} vs {b:?}"
                );
            }
        }
    }
}
