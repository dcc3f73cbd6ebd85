//! The confined side: read the handed file once, parse only its server maps, send
//! one answer.
//!
//! The file is mapped read-only by `mcp_warden_sandbox::MappedFile`, as doctor's child
//! maps its files, so the two read the same way (a file that shrinks while it is
//! mapped is refused, as doctor refuses it). The text is checked to be UTF-8 as a whole
//! (`serde_json::from_slice` would not check the strings it skips), then parsed by
//! serde_json into borrowed records: `IgnoredAny` for every value outside the
//! top-level `mcpServers` and `projects.*.mcpServers`, no tree.

use std::borrow::Cow;
use std::fmt;
use std::fs::File;

use mcp_warden_sandbox::Sender;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde::Deserialize;

use crate::wire::{Answer, Request, Section, Server};

/// Runs as the confined child (`argv[1]` is the sandbox's child argument).
pub fn serve() -> ! {
    mcp_warden_sandbox::serve_child(|request: Request, files: Vec<File>, sender: &mut Sender| {
        let Some(file) = files.first() else {
            return sender.send(&Answer::Failed("no descriptor was handed over".into()));
        };
        let mapped = match map_within_cap(file, request.size_cap) {
            Ok(mapped) => mapped,
            Err(why) => return sender.send(&Answer::Failed(why)),
        };
        let answer = parse(mapped.bytes());
        if mapped.shrank() {
            return sender.send(&Answer::Failed("the file shrank while it was read".into()));
        }
        sender.send(&answer)
        // The records are left to the process exit.
    })
}

/// The whole file, mapped, within the cap by its `fstat` size.
fn map_within_cap(file: &File, cap: u64) -> Result<mcp_warden_sandbox::MappedFile, String> {
    let size = mcp_warden_sandbox::file_size(file).map_err(|e| format!("fstat failed: {e}"))?;
    if size > cap {
        return Err(format!("{size} bytes exceed the {cap}-byte cap"));
    }
    let len = usize::try_from(size).map_err(|_| format!("{size} bytes do not fit in memory"))?;
    mcp_warden_sandbox::MappedFile::map(file, len).map_err(|e| format!("mmap failed: {e}"))
}

/// The answer for the file's bytes.
pub fn parse(bytes: &[u8]) -> Answer<'_> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => return Answer::Failed(format!("not UTF-8: {e}")),
    };
    match serde_json::from_str::<Root<'_>>(text) {
        Ok(root) => Answer::Servers(root.sections),
        Err(e) => Answer::Failed(format!("not valid JSON: {e}")),
    }
}

/// A string of the file, borrowed unless it had escapes.
struct Text<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Text<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Text<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Text(Cow::Owned(v)))
            }
        }
        d.deserialize_str(V)
    }
}

/// The document: its top-level server map first, then each project's.
struct Root<'a> {
    sections: Vec<Section<'a>>,
}

impl<'de> Deserialize<'de> for Root<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Root<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut top: Option<Vec<Server<'de>>> = None;
                let mut projects: Option<Vec<Section<'de>>> = None;
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    match &*key {
                        "mcpServers" if top.is_some() => {
                            return Err(de::Error::duplicate_field("mcpServers"))
                        }
                        "mcpServers" => top = Some(map.next_value::<ServerMap<'de>>()?.0),
                        "projects" if projects.is_some() => {
                            return Err(de::Error::duplicate_field("projects"))
                        }
                        "projects" => projects = Some(map.next_value::<Projects<'de>>()?.0),
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                let mut sections = Vec::with_capacity(1 + projects.as_ref().map_or(0, Vec::len));
                if let Some(servers) = top.filter(|s| !s.is_empty()) {
                    sections.push(Section {
                        project: None,
                        servers,
                    });
                }
                sections.extend(projects.unwrap_or_default());
                Ok(Root { sections })
            }
        }
        d.deserialize_map(V)
    }
}

/// `projects`: each project's server map, projects without servers left out.
struct Projects<'a>(Vec<Section<'a>>);

impl<'de> Deserialize<'de> for Projects<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Projects<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of projects")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut sections = Vec::new();
                while let Some(Text(path)) = map.next_key::<Text<'de>>()? {
                    let servers = map.next_value::<Project<'de>>()?.0;
                    if !servers.is_empty() {
                        sections.push(Section {
                            project: Some(path),
                            servers,
                        });
                    }
                }
                Ok(Projects(sections))
            }
        }
        d.deserialize_map(V)
    }
}

/// One project: its `mcpServers`, everything else skipped.
struct Project<'a>(Vec<Server<'a>>);

impl<'de> Deserialize<'de> for Project<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Project<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a project object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut servers = None;
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    if key == "mcpServers" {
                        if servers.is_some() {
                            return Err(de::Error::duplicate_field("mcpServers"));
                        }
                        servers = Some(map.next_value::<ServerMap<'de>>()?.0);
                    } else {
                        map.next_value::<IgnoredAny>()?;
                    }
                }
                Ok(Project(servers.unwrap_or_default()))
            }
        }
        d.deserialize_map(V)
    }
}

/// A server map, in file order.
struct ServerMap<'a>(Vec<Server<'a>>);

impl<'de> Deserialize<'de> for ServerMap<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = ServerMap<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object of servers")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut servers = Vec::with_capacity(map.size_hint().unwrap_or(0).min(1024));
                while let Some(Text(name)) = map.next_key::<Text<'de>>()? {
                    let Entry(mut server) = map.next_value::<Entry<'de>>()?;
                    server.name = name;
                    servers.push(server);
                }
                Ok(ServerMap(servers))
            }
        }
        d.deserialize_map(V)
    }
}

/// One server entry: launch, env names, url, header names; other keys skipped.
struct Entry<'a>(Server<'a>);

impl<'de> Deserialize<'de> for Entry<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Entry<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a server object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut s = Server::default();
                while let Some(Text(key)) = map.next_key::<Text<'de>>()? {
                    match &*key {
                        "command" => s.command = Some(map.next_value::<Text<'de>>()?.0),
                        "args" => s.args = map.next_value::<Strings<'de>>()?.0,
                        "env" => s.env_keys = map.next_value::<Keys<'de>>()?.0,
                        "url" => s.url = Some(map.next_value::<Text<'de>>()?.0),
                        "headers" => s.header_names = map.next_value::<Keys<'de>>()?.0,
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(Entry(s))
            }
        }
        d.deserialize_map(V)
    }
}

/// An array of strings.
struct Strings<'a>(Vec<Cow<'a, str>>);

impl<'de> Deserialize<'de> for Strings<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Strings<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an array of strings")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
                while let Some(Text(s)) = seq.next_element::<Text<'de>>()? {
                    out.push(s);
                }
                Ok(Strings(out))
            }
        }
        d.deserialize_seq(V)
    }
}

/// The keys of an object (its values are skipped, never copied).
struct Keys<'a>(Vec<Cow<'a, str>>);

impl<'de> Deserialize<'de> for Keys<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Keys<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                let mut out = Vec::new();
                while let Some(Text(k)) = map.next_key::<Text<'de>>()? {
                    map.next_value::<IgnoredAny>()?;
                    out.push(k);
                }
                Ok(Keys(out))
            }
        }
        d.deserialize_map(V)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)] // a failed unwrap is the test failure report
mod tests {
    use super::*;

    fn sections(json: &str) -> Vec<Section<'_>> {
        match parse(json.as_bytes()) {
            Answer::Servers(s) => s,
            Answer::Failed(why) => panic!("{why}"),
        }
    }

    #[test]
    fn only_server_maps_are_kept_and_strings_borrow() {
        let s = sections(
            r#"{"history":[{"x":1}],"projects":{"/p":{"mcpServers":{"b":{"url":"u","headers":{"Authorization":"secret"}}},"allowedTools":[]},"/empty":{}},
                "mcpServers":{"a":{"command":"npx","args":["-y","p\u00401"],"env":{"TOKEN":"v"},"type":"stdio"}}}"#,
        );
        assert_eq!(s.len(), 2);
        assert!(s[0].project.is_none());
        let a = &s[0].servers[0];
        assert_eq!(a.name, "a");
        assert!(matches!(a.command, Some(Cow::Borrowed("npx"))));
        assert_eq!(a.args, ["-y", "p@1"]);
        assert!(matches!(a.args[1], Cow::Owned(_)));
        assert_eq!(a.env_keys, ["TOKEN"]);
        assert_eq!(s[1].project.as_deref(), Some("/p"));
        assert_eq!(s[1].servers[0].header_names, ["Authorization"]);
        assert_eq!(s[1].servers[0].url.as_deref(), Some("u"));
    }

    #[test]
    fn invalid_input_fails_the_file() {
        for bad in [
            &b"{\"mcpServers\":{\"a\":{\"command\":1}}}"[..],
            b"{\"history\":\"\xff\"}",
            b"{\"mcpServers\":{},\"mcpServers\":{}}",
            b"[",
        ] {
            assert!(matches!(parse(bad), Answer::Failed(_)), "{bad:?}");
        }
    }
}
