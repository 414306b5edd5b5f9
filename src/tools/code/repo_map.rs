//! The repository map (`outline --map`): every definition of the tree ranked
//! by how the rest of the tree refers to it, the most referred-to first, cut
//! to a byte budget, as aider's repository map does.
//!
//! The rank is PageRank over files: file A points at file B once for each
//! name A uses that B defines, weighted by how often A uses it (square root,
//! so one file's hundred calls do not drown ten files' one call each) and by
//! how telling the name is (a name defined in many files, or private by
//! convention, says little about which one is meant). Each definition then
//! gets the rank its referrers send along the edges that name it. Names are
//! matched as identifiers, not resolved: no language server is asked, so the
//! map is quick and never runs the project's code.

use std::collections::HashMap;

use super::defs::Def;

/// One file's part of the map: its definitions and how often it uses each
/// identifier.
pub struct FileFacts {
    pub path: String,
    pub defs: Vec<Def>,
    pub uses: HashMap<String, u32>,
}

/// A definition chosen for the map, with its rank.
pub struct Ranked<'a> {
    pub file: &'a FileFacts,
    pub def: &'a Def,
    pub rank: f64,
}

const DAMPING: f64 = 0.85;
/// The most files a name may be defined in and still count as a reference.
const MAX_OWNERS: usize = 32;
const ITERATIONS: usize = 40;

/// How much one use of `name` says about which definition it means.
fn name_weight(name: &str, defined_in: usize) -> f64 {
    let mut w = 1.0;
    let long = name.len() >= 8
        && (name.contains('_') || name.chars().skip(1).any(|c| c.is_ascii_uppercase()));
    if long {
        w *= 10.0;
    }
    if name.starts_with('_') {
        w *= 0.1;
    }
    if defined_in > 5 {
        w *= 0.1;
    }
    w / defined_in as f64
}

/// Every definition, ranked (highest first; ties in path and line order).
pub fn rank(files: &[FileFacts]) -> Vec<Ranked<'_>> {
    let mut defined: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, f) in files.iter().enumerate() {
        for d in &f.defs {
            if d.kind != "impl" {
                let at = defined.entry(d.name.as_str()).or_default();
                if at.last() != Some(&i) {
                    at.push(i);
                }
            }
        }
    }
    // edges[a] = (b, name, weight)
    let mut edges: Vec<Vec<(usize, &str, f64)>> = vec![Vec::new(); files.len()];
    for (a, f) in files.iter().enumerate() {
        for (name, count) in &f.uses {
            // A name defined in more than MAX_OWNERS files (`Error`, `new`,
            // `String` in a large tree) tells almost nothing about which file
            // is meant, and its edges would grow as files × owners.
            let Some(owners) = defined.get(name.as_str()).filter(|o| o.len() <= MAX_OWNERS) else {
                continue;
            };
            let w = name_weight(name, owners.len()) * f64::from(*count).sqrt();
            for &b in owners {
                if b != a {
                    edges[a].push((b, name.as_str(), w));
                }
            }
        }
        edges[a].sort_by(|x, y| x.0.cmp(&y.0).then(x.1.cmp(y.1)));
    }
    let out_weight: Vec<f64> = edges.iter().map(|e| e.iter().map(|x| x.2).sum()).collect();
    let pr = pagerank(&edges, &out_weight);
    let mut def_rank: HashMap<(usize, &str), f64> = HashMap::new();
    for (a, list) in edges.iter().enumerate() {
        for &(b, name, w) in list {
            *def_rank.entry((b, name)).or_default() += pr[a] * w / out_weight[a];
        }
    }
    let mut all: Vec<Ranked<'_>> = files
        .iter()
        .enumerate()
        .flat_map(|(i, f)| {
            let def_rank = &def_rank;
            f.defs.iter().map(move |d| Ranked {
                file: f,
                def: d,
                rank: def_rank.get(&(i, d.name.as_str())).copied().unwrap_or(0.0),
            })
        })
        .collect();
    all.sort_by(|x, y| {
        y.rank
            .total_cmp(&x.rank)
            .then_with(|| crate::tools::search::walk::path_order(&x.file.path, &y.file.path))
            .then(x.def.line.cmp(&y.def.line))
    });
    all
}

fn pagerank(edges: &[Vec<(usize, &str, f64)>], out_weight: &[f64]) -> Vec<f64> {
    let n = edges.len();
    if n == 0 {
        return Vec::new();
    }
    let base = 1.0 / n as f64;
    let mut pr = vec![base; n];
    for _ in 0..ITERATIONS {
        let mut next = vec![(1.0 - DAMPING) * base; n];
        let mut dangling = 0.0;
        for (a, list) in edges.iter().enumerate() {
            if out_weight[a] <= 0.0 {
                dangling += pr[a];
                continue;
            }
            for &(b, _, w) in list {
                next[b] += DAMPING * pr[a] * w / out_weight[a];
            }
        }
        for v in &mut next {
            *v += DAMPING * dangling * base;
        }
        pr = next;
    }
    pr
}

#[cfg(test)]
mod tests {
    use super::*;

    fn def(name: &str, line: u64) -> Def {
        Def {
            line,
            end_line: line,
            depth: 0,
            kind: "function",
            name: name.into(),
            scope: None,
            signature: "()".into(),
        }
    }

    fn facts(path: &str, defs: Vec<Def>, uses: &[(&str, u32)]) -> FileFacts {
        FileFacts {
            path: path.into(),
            defs,
            uses: uses.iter().map(|(k, v)| (k.to_string(), *v)).collect(),
        }
    }

    #[test]
    fn the_name_everyone_calls_ranks_first() {
        let files = vec![
            facts(
                "core.rs",
                vec![def("load_config", 1), def("unused_helper", 9)],
                &[],
            ),
            facts("a.rs", vec![def("main_a", 1)], &[("load_config", 3)]),
            facts(
                "b.rs",
                vec![def("main_b", 1)],
                &[("load_config", 1), ("main_a", 1)],
            ),
            facts("c.rs", vec![], &[("load_config", 1)]),
        ];
        let ranked = rank(&files);
        assert_eq!(ranked[0].def.name, "load_config");
        assert_eq!(ranked[1].def.name, "main_a");
        assert!(ranked[0].rank > ranked[1].rank);
        // Never referred to: last, in path order.
        let names: Vec<&str> = ranked.iter().map(|r| r.def.name.as_str()).collect();
        assert_eq!(&names[2..], ["main_b", "unused_helper"]);
    }
}
