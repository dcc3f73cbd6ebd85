//! A byte-exact split of an endpoint URL into its parts, and the locality test.
//!
//! Deliberately not a normalising parser: the pin command must print the URL
//! byte-for-byte outside the masked pieces, so every part here is a range of the
//! original string. The split follows the WHATWG authority rules that matter for
//! the verdicts: the authority ends at the first `/`, `?`, `#` or `\`, and the host
//! is what follows the last `@` in it.

use std::net::{Ipv4Addr, Ipv6Addr};
use std::ops::Range;

/// Ranges into the original URL string.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UrlParts {
    /// The scheme as written (without `://`), when the URL has one.
    pub scheme: Option<Range<usize>>,
    /// Everything between `://` (or the start) and the path.
    pub authority: Range<usize>,
    pub path: Range<usize>,
    /// After `?`, without it.
    pub query: Option<Range<usize>>,
    /// After `#`, without it.
    pub fragment: Option<Range<usize>>,
}

fn valid_scheme(s: &str) -> bool {
    let mut b = s.bytes();
    b.next().is_some_and(|c| c.is_ascii_alphabetic())
        && b.all(|c| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'-' | b'.'))
}

/// The one `://` searcher, built once: every launch argument and URL of a report is
/// split, and every printed word is scanned for embedded URLs; `str::find` and
/// `memmem::find_iter` build a searcher per call.
static SCHEME_END: std::sync::LazyLock<memchr::memmem::Finder<'static>> =
    std::sync::LazyLock::new(|| memchr::memmem::Finder::new("://"));

/// Texts shorter than this are searched for `:` and then `//` after it: most words
/// are a few bytes, where the vector searcher's setup costs more than the search
/// (it was most of the credential scan of a server name). Longer texts keep the
/// searcher, whose speed does not depend on how many `:` they hold.
const SHORT_TEXT: usize = 64;

/// The first `://` of `text`.
fn first_scheme_end(text: &[u8]) -> Option<usize> {
    if text.len() < SHORT_TEXT {
        memchr::memchr_iter(b':', text).find(|&i| text.get(i + 1..i + 3) == Some(b"//"))
    } else {
        SCHEME_END.find(text)
    }
}

/// Where the scheme [`split`] reads ends (the `:` of its `://`), if `url` has one.
fn scheme_end(url: &str) -> Option<usize> {
    first_scheme_end(url.as_bytes()).filter(|&i| valid_scheme(&url[..i]))
}

/// Whether `url` has a scheme as [`split`] reads one, without splitting the rest:
/// every launch argument is asked this, and few are URLs.
pub fn has_scheme(url: &str) -> bool {
    scheme_end(url).is_some()
}

/// Every `://` of `text`, in order (the credential scan's embedded URLs). Two
/// cannot overlap (`:` is not `/`), so each search starts after the last one found.
pub(crate) fn scheme_ends(text: &[u8]) -> impl Iterator<Item = usize> + '_ {
    let mut from = 0;
    std::iter::from_fn(move || {
        let at = from + first_scheme_end(text.get(from..)?)?;
        from = at + 3;
        Some(at)
    })
}

pub fn split(url: &str) -> UrlParts {
    let (scheme, auth_start) = match scheme_end(url) {
        Some(i) => (Some(0..i), i + 3),
        None => (None, 0),
    };
    let rest = &url[auth_start..];
    let auth_end = auth_start + rest.find(['/', '?', '#', '\\']).unwrap_or(rest.len());
    let after = &url[auth_end..];
    let frag_at = after.find('#').map(|i| auth_end + i);
    let before_frag_end = frag_at.unwrap_or(url.len());
    let query_at = url[auth_end..before_frag_end]
        .find('?')
        .map(|i| auth_end + i);
    let path_end = query_at.unwrap_or(before_frag_end);
    UrlParts {
        scheme,
        authority: auth_start..auth_end,
        path: auth_end..path_end,
        query: query_at.map(|q| q + 1..before_frag_end),
        fragment: frag_at.map(|f| f + 1..url.len()),
    }
}

impl UrlParts {
    /// `host[:port]`: the authority after its last `@`.
    pub fn host<'a>(&self, url: &'a str) -> &'a str {
        let a = &url[self.authority.clone()];
        a.rsplit_once('@').map_or(a, |(_, h)| h)
    }

    /// The userinfo (before the last `@`), if the authority has one.
    pub fn userinfo<'a>(&self, url: &'a str) -> Option<&'a str> {
        url[self.authority.clone()].rsplit_once('@').map(|(u, _)| u)
    }

    pub fn scheme<'a>(&self, url: &'a str) -> Option<&'a str> {
        self.scheme.clone().map(|r| &url[r])
    }

    /// `scheme://host[:port]` with userinfo, path, query and fragment dropped: what a
    /// finding may quote of an endpoint.
    pub fn safe_url(&self, url: &str) -> String {
        match self.scheme(url) {
            Some(s) => format!("{s}://{}", self.host(url)),
            None => self.host(url).to_string(),
        }
    }
}

/// Whether `host[:port]` names this machine: `localhost` (with or without the root
/// dot), 127.0.0.0/8, `0.0.0.0`, and in brackets `::1`, `::` and their IPv4-mapped
/// forms (`[::ffff:127.0.0.1]`). Anything else — including DNS names that merely
/// resolve locally — is remote.
pub fn is_local_host(host_port: &str) -> bool {
    if let Some(inner) = host_port.strip_prefix('[') {
        let Some((addr, _port)) = inner.split_once(']') else {
            return false;
        };
        let addr = addr.split_once('%').map_or(addr, |(a, _zone)| a);
        return addr.parse::<Ipv6Addr>().is_ok_and(|ip| {
            ip.is_loopback()
                || ip.is_unspecified()
                || ip
                    .to_ipv4_mapped()
                    .is_some_and(|v4| v4.is_loopback() || v4.is_unspecified())
        });
    }
    let host = host_port.split_once(':').map_or(host_port, |(h, _)| h);
    let host = host.strip_suffix('.').unwrap_or(host).to_ascii_lowercase();
    if host == "localhost" {
        return true;
    }
    host.parse::<Ipv4Addr>()
        .is_ok_and(|ip| ip.is_loopback() || ip.is_unspecified())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every `://` is found, in order, whether the text is searched by `:` (short)
    /// or by the vector searcher (long), and wherever a search switches between
    /// the two: texts of every length around the cut made of pieces that make and
    /// break the separator.
    #[test]
    fn scheme_ends_are_every_separator_in_order() {
        let naive = |t: &[u8]| -> Vec<usize> {
            (0..t.len())
                .filter(|&i| t[i..].starts_with(b"://"))
                .collect()
        };
        let pieces = [":", "/", "://", "a", ":/", "//", "é"];
        let mut generated = crate::test_gen::Generated::new(0x2545_F491_4F6C_DD1D);
        for _ in 0..20_000 {
            let text = generated.text(&pieces, 70);
            let text = text.as_bytes();
            let found: Vec<usize> = scheme_ends(text).collect();
            assert_eq!(found, naive(text), "{text:?}");
            assert_eq!(
                first_scheme_end(text),
                naive(text).first().copied(),
                "{text:?}"
            );
        }
    }

    #[test]
    fn splits_byte_exact() {
        let u = "https://u:p@h.example.com:8443/a/b?x=1&y=2#frag";
        let p = split(u);
        assert_eq!(p.scheme(u), Some("https"));
        assert_eq!(&u[p.authority.clone()], "u:p@h.example.com:8443");
        assert_eq!(p.host(u), "h.example.com:8443");
        assert_eq!(p.userinfo(u), Some("u:p"));
        assert_eq!(&u[p.path.clone()], "/a/b");
        assert_eq!(&u[p.query.clone().unwrap_or_default()], "x=1&y=2");
        assert_eq!(&u[p.fragment.clone().unwrap_or_default()], "frag");
        assert_eq!(p.safe_url(u), "https://h.example.com:8443");
    }

    #[test]
    fn query_without_path_ends_the_authority_unlike_reference() {
        let u = "https://h.example.com?email=a@b.example";
        let p = split(u);
        assert_eq!(p.host(u), "h.example.com");
        assert_eq!(p.userinfo(u), None);
    }

    #[test]
    fn schemeless() {
        let u = "user:pw@h.example.com/x";
        let p = split(u);
        assert_eq!(p.scheme(u), None);
        assert_eq!(p.userinfo(u), Some("user:pw"));
        assert_eq!(p.safe_url(u), "h.example.com");
    }

    #[test]
    fn locality() {
        for h in [
            "localhost",
            "LOCALHOST:8080",
            "localhost.",
            "localhost.:3000",
            "127.0.0.1",
            "127.1.2.3:80",
            "0.0.0.0",
            "[::1]",
            "[::1]:8080",
            "[0:0:0:0:0:0:0:1]",
            "[::ffff:127.0.0.1]:9",
            "[::]",
        ] {
            assert!(is_local_host(h), "{h}");
        }
        for h in [
            "mcp.example.com",
            "[",
            "[::2]",
            "128.0.0.1",
            "localhost.example.com",
            "127.0.0.1.nip.io",
            "127.1",
            "[::ffff:10.0.0.1]",
            "",
            "::1",
        ] {
            assert!(!is_local_host(h), "{h}");
        }
    }
}
