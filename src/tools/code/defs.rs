//! The definitions of a parsed file, as `outline` lists them and the
//! repository map ranks them: functions, methods, classes, structs, enums,
//! traits and interfaces, impls, modules and namespaces, types, macros and
//! constants, each with its line, its nesting depth and a one-line signature.
//!
//! One table per grammar says which node kinds define what. Names are taken
//! from the grammar's own `name` fields (C's declarators are followed down to
//! the identifier), so a definition is where universal-ctags puts its tag
//! (tests/it/code.rs compares the two on real repositories).

use ast_grep_core::Node;
use ast_grep_core::tree_sitter::StrDoc;

use super::grammar::{Lang, Tree};

type N<'r> = Node<'r, StrDoc<Lang>>;

/// One definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Def {
    /// 1-based.
    pub line: u64,
    pub end_line: u64,
    /// 0 at the top of the file, one more inside each definition that holds it.
    pub depth: usize,
    pub kind: &'static str,
    pub name: String,
    /// What the name is defined in, when the syntax says, spelled to go before
    /// it: a Go method's receiver type (`Server.`), a C++ or Ruby qualifier
    /// (`ns::Class::`).
    pub scope: Option<String>,
    /// Parameters and result as written, whitespace collapsed, cut at
    /// [`SIGNATURE_CHARS`]; empty when the kind has none.
    pub signature: String,
}

/// The longest signature shown.
pub const SIGNATURE_CHARS: usize = 120;

/// A node that defines something: its kind's label, and how its name and
/// signature are found.
struct Rule {
    kind: &'static str,
    /// Inside a type, a function's label becomes this (`method`).
    nested: Option<&'static str>,
    name: NameFrom,
    /// Fields whose text, in order, makes the signature.
    signature: &'static [&'static str],
    /// Whether this definition holds others (a class's methods are nested in it).
    container: bool,
}

#[derive(Clone, Copy)]
enum NameFrom {
    Field(&'static str),
    /// C and C++: follow `declarator` fields down to the name.
    Declarator,
    /// Rust's `impl Trait for Type`.
    RustImpl,
    /// A name the syntax implies (a TypeScript construct signature is `new`).
    Fixed(&'static str),
}

const fn rule(kind: &'static str, name: NameFrom, signature: &'static [&'static str]) -> Rule {
    Rule {
        kind,
        nested: None,
        name,
        signature,
        container: false,
    }
}

const fn container(kind: &'static str, name: NameFrom, signature: &'static [&'static str]) -> Rule {
    Rule {
        container: true,
        ..rule(kind, name, signature)
    }
}

const fn function(signature: &'static [&'static str]) -> Rule {
    Rule {
        nested: Some("method"),
        ..rule("function", NAME, signature)
    }
}

const NAME: NameFrom = NameFrom::Field("name");

fn rule_of(lang: Lang, kind: &str) -> Option<Rule> {
    match lang {
        Lang::Rust => rust(kind),
        Lang::Python => python(kind),
        Lang::JavaScript | Lang::TypeScript | Lang::Tsx => script(kind),
        Lang::Go => go(kind),
        Lang::C | Lang::Cpp => c_family(kind),
        Lang::Java => java(kind),
        Lang::Ruby => ruby(kind),
        _ => None,
    }
}

fn rust(kind: &str) -> Option<Rule> {
    Some(match kind {
        "function_item" | "function_signature_item" => {
            function(&["type_parameters", "parameters", "return_type"])
        }
        "struct_item" => container("struct", NAME, &[]),
        "enum_item" => container("enum", NAME, &[]),
        "union_item" => container("union", NAME, &[]),
        "trait_item" => container("trait", NAME, &[]),
        "impl_item" => container("impl", NameFrom::RustImpl, &[]),
        "mod_item" => container("module", NAME, &[]),
        "const_item" => rule("const", NAME, &["type"]),
        "static_item" => rule("static", NAME, &["type"]),
        "type_item" => rule("type", NAME, &[]),
        "macro_definition" => rule("macro", NAME, &[]),
        _ => return None,
    })
}

fn python(kind: &str) -> Option<Rule> {
    Some(match kind {
        "function_definition" => Rule {
            container: true,
            ..function(&["parameters", "return_type"])
        },
        "class_definition" => container("class", NAME, &["superclasses"]),
        _ => return None,
    })
}

fn script(kind: &str) -> Option<Rule> {
    Some(match kind {
        "function_declaration" | "generator_function_declaration" | "function_signature" => {
            function(&["type_parameters", "parameters", "return_type"])
        }
        "method_definition" | "method_signature" | "abstract_method_signature" => Rule {
            kind: "method",
            ..function(&["type_parameters", "parameters", "return_type"])
        },
        "construct_signature" => Rule {
            kind: "method",
            name: NameFrom::Fixed("new"),
            ..function(&["parameters", "return_type"])
        },
        "class_declaration" | "abstract_class_declaration" => container("class", NAME, &[]),
        "interface_declaration" => container("interface", NAME, &[]),
        "enum_declaration" => rule("enum", NAME, &[]),
        "type_alias_declaration" => rule("type", NAME, &[]),
        "internal_module" | "module" => container("namespace", NAME, &[]),
        _ => return None,
    })
}

fn go(kind: &str) -> Option<Rule> {
    Some(match kind {
        "function_declaration" => function(&["type_parameters", "parameters", "result"]),
        "method_declaration" => Rule {
            kind: "method",
            ..function(&["parameters", "result"])
        },
        "method_elem" | "method_spec" => Rule {
            kind: "method",
            ..function(&["parameters", "result"])
        },
        // A type_spec's kind is its type's (see `go_type_kind`).
        "type_spec" | "type_alias" => container("type", NAME, &[]),
        _ => return None,
    })
}

fn c_family(kind: &str) -> Option<Rule> {
    Some(match kind {
        "function_definition" => Rule {
            name: NameFrom::Declarator,
            ..function(&[])
        },
        "struct_specifier" => container("struct", NAME, &[]),
        "union_specifier" => container("union", NAME, &[]),
        "enum_specifier" => rule("enum", NAME, &[]),
        "class_specifier" => container("class", NAME, &[]),
        "namespace_definition" => container("namespace", NAME, &[]),
        "type_definition" => rule("typedef", NameFrom::Declarator, &[]),
        "alias_declaration" => rule("type", NAME, &[]),
        "preproc_def" => rule("macro", NAME, &[]),
        "preproc_function_def" => rule("macro", NAME, &["parameters"]),
        _ => return None,
    })
}

fn java(kind: &str) -> Option<Rule> {
    Some(match kind {
        "class_declaration" => container("class", NAME, &[]),
        "interface_declaration" => container("interface", NAME, &[]),
        "enum_declaration" => container("enum", NAME, &[]),
        "record_declaration" => container("record", NAME, &["parameters"]),
        "annotation_type_declaration" => container("annotation", NAME, &[]),
        "method_declaration" => Rule {
            kind: "method",
            ..function(&["type_parameters", "parameters"])
        },
        "constructor_declaration" => Rule {
            kind: "constructor",
            ..function(&["parameters"])
        },
        _ => return None,
    })
}

fn ruby(kind: &str) -> Option<Rule> {
    Some(match kind {
        "method" => Rule {
            kind: "method",
            container: true,
            ..function(&["parameters"])
        },
        "singleton_method" => Rule {
            kind: "class method",
            container: true,
            ..function(&["parameters"])
        },
        "class" => container("class", NAME, &["superclass"]),
        "module" => container("module", NAME, &[]),
        _ => return None,
    })
}

/// Every definition of `tree`, in source order.
pub fn definitions(tree: &Tree) -> Vec<Def> {
    let mut out = Vec::new();
    let lang = *tree.lang();
    walk(lang, &tree.root(), &mut out);
    out
}

/// The tree in source order with a stack of its own, not by recursion: a
/// generated or hostile file nests deep enough to overflow a walking thread's
/// stack (Go's own test data does). Each entry is a node with the definition
/// depth and whether it stands inside a type.
fn walk<'r>(lang: Lang, root: &N<'r>, out: &mut Vec<Def>) {
    fn named<'r>(n: &N<'r>) -> Vec<N<'r>> {
        n.children().filter(|c| c.is_named()).collect()
    }
    let mut stack: Vec<(N<'r>, usize, bool)> = named(root)
        .into_iter()
        .rev()
        .map(|c| (c, 0, false))
        .collect();
    while let Some((node, depth, in_type)) = stack.pop() {
        let kind = node.kind();
        let found = rule_of(lang, &kind)
            .and_then(|r| define(lang, &node, &r, depth, in_type).map(|d| (r, d)));
        let (child_depth, child_in_type) = match found {
            Some((rule, def)) => {
                // Functions inside a type are its methods; inside a module,
                // a namespace or another function they stay functions.
                let is_type = rule.container
                    && !matches!(
                        def.kind,
                        "function" | "method" | "class method" | "module" | "namespace"
                    );
                out.push(def);
                (depth + 1, is_type)
            }
            None if matches!(lang, Lang::JavaScript | Lang::TypeScript | Lang::Tsx) => {
                // `const f = () => …`, `exports.f = function …`,
                // `View.prototype.m = …`, `{ m: function … }`: functions by
                // any other name, whose bodies are walked as a function's.
                match script_member(&node, depth) {
                    Some(def) => {
                        out.push(def);
                        (depth + 1, false)
                    }
                    None => (depth, in_type),
                }
            }
            None => (depth, in_type),
        };
        for child in named(&node).into_iter().rev() {
            stack.push((child, child_depth, child_in_type));
        }
    }
}

fn define(lang: Lang, node: &N<'_>, rule: &Rule, depth: usize, in_type: bool) -> Option<Def> {
    // A C struct or enum without a body is a use (`struct x *p`), not a definition.
    if matches!(lang, Lang::C | Lang::Cpp)
        && node.kind().ends_with("_specifier")
        && node.field("body").is_none()
    {
        return None;
    }
    let (name, scope) = match rule.name {
        NameFrom::Field(f) => {
            let n = node.field(f)?;
            // A C++ specialization `struct S<int>` is named `S`.
            let n = match n.kind().as_ref() {
                "template_type" => n.field("name").unwrap_or(n),
                _ => n,
            };
            split_scope(lang, &n.text())
        }
        NameFrom::Declarator => split_scope(lang, &declarator_name(node)?.text()),
        NameFrom::Fixed(name) => (name.to_string(), None),
        NameFrom::RustImpl => {
            let ty = one_line(&node.field("type")?.text());
            match node.field("trait") {
                Some(t) => (format!("{} for {ty}", one_line(&t.text())), None),
                None => (ty, None),
            }
        }
    };
    let mut kind = match rule.nested {
        Some(nested) if in_type && rule.kind == "function" => nested,
        _ => rule.kind,
    };
    if matches!(lang, Lang::C | Lang::Cpp)
        && rule.kind == "function"
        && (in_type || scope.is_some())
    {
        kind = "method";
    }
    if lang == Lang::Go && kind == "type" {
        kind = go_type_kind(node);
    }
    let scope = if lang == Lang::Go && node.kind() == "method_declaration" {
        node.field("receiver")
            .and_then(|r| go_receiver(&r))
            .map(|t| format!("{t}."))
    } else {
        scope
    };
    let signature = signature(lang, node, rule);
    Some(Def {
        line: node.start_pos().line() as u64 + 1,
        end_line: node.end_pos().line() as u64 + 1,
        depth,
        kind,
        name,
        scope,
        signature,
    })
}

/// `a::b::c` → (`c`, Some(`a::b::`)) in C++ and Ruby; other names as they
/// are. Whitespace runs become one space and none is kept beside `::`: a
/// definition qualified over two lines (`resize_policy<_Tp>::` then the name,
/// as libstdc++ writes them) is still one row.
fn split_scope(lang: Lang, text: &str) -> (String, Option<String>) {
    let text = one_line(text).replace(":: ", "::").replace(" ::", "::");
    if matches!(lang, Lang::Cpp | Lang::Ruby)
        && let Some((scope, name)) = text.rsplit_once("::")
    {
        return (
            name.trim_start().to_string(),
            Some(format!("{}::", scope.trim_end())),
        );
    }
    (text, None)
}

/// `text` with each run of whitespace (newlines included) one space.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// C's name of a function or typedef: down `declarator` fields to the node
/// that has none (an identifier, a qualified or operator name).
fn declarator_name<'r>(node: &N<'r>) -> Option<N<'r>> {
    let mut at = node.field("declarator")?;
    for _ in 0..32 {
        match inner_declarator(&at) {
            Some(next) => at = next,
            None => return Some(at),
        }
    }
    None
}

/// The declarator inside one: its `declarator` field, or for C++'s `&f(…)`
/// and C's `(*f)(…)` (whose inner declarator has no field name) its last
/// named child.
fn inner_declarator<'r>(at: &N<'r>) -> Option<N<'r>> {
    at.field("declarator").or_else(|| {
        matches!(
            &*at.kind(),
            "reference_declarator" | "parenthesized_declarator"
        )
        .then(|| at.named_children().last())
        .flatten()
    })
}

/// A C function's parameters: those of its function declarator.
fn c_parameters(node: &N<'_>) -> Option<String> {
    let mut at = node.field("declarator")?;
    for _ in 0..32 {
        if at.kind() == "function_declarator" {
            return at.field("parameters").map(|p| p.text().to_string());
        }
        at = inner_declarator(&at)?;
    }
    None
}

fn go_type_kind(node: &N<'_>) -> &'static str {
    match node.field("type").map(|t| t.kind().to_string()).as_deref() {
        Some("struct_type") => "struct",
        Some("interface_type") => "interface",
        _ => "type",
    }
}

/// `(s *Server)` → `Server`.
fn go_receiver(receiver: &N<'_>) -> Option<String> {
    let text = receiver.text();
    let inner = text.trim_start_matches('(').trim_end_matches(')');
    let ty = inner.split_whitespace().last()?;
    Some(ty.trim_start_matches('*').to_string())
}

fn signature(lang: Lang, node: &N<'_>, rule: &Rule) -> String {
    let mut parts: Vec<String> = Vec::new();
    if matches!(lang, Lang::C | Lang::Cpp) && rule.kind == "function" {
        parts.extend(c_parameters(node));
    }
    for field in rule.signature {
        if let Some(n) = node.field(field) {
            let text = n.text().to_string();
            let text = match (lang, *field) {
                (Lang::Rust | Lang::Python, "return_type") => format!(" -> {text}"),
                (Lang::Go, "result") => format!(" {text}"),
                (Lang::Rust, "type") => format!(": {text}"),
                (Lang::Ruby, "superclass") => format!(" {text}"),
                _ => text,
            };
            parts.push(text);
        }
    }
    lay_out(&parts.concat())
}

/// A signature as a row shows it: on one line, parameters laid out one a line
/// read `(a, b)`, not `( a, b, )`, cut at [`SIGNATURE_CHARS`].
fn lay_out(all: &str) -> String {
    let lead = if all.starts_with(' ') { " " } else { "" };
    let tidy = one_line(all)
        .replace("( ", "(")
        .replace(" )", ")")
        .replace(",)", ")");
    let joined = format!("{lead}{tidy}");
    match joined.char_indices().nth(SIGNATURE_CHARS) {
        Some((cut, _)) => format!("{}…", &joined[..cut]),
        None => joined,
    }
}

/// A function expression's parameters and return type, on one line.
fn value_signature(value: &N<'_>) -> String {
    let params = value
        .field("parameters")
        .or_else(|| value.field("parameter"))
        .map(|p| p.text().to_string())
        .unwrap_or_default();
    let params = if params.starts_with('(') {
        params
    } else {
        format!("({params})")
    };
    let ret = value
        .field("return_type")
        .map(|r| r.text().to_string())
        .unwrap_or_default();
    lay_out(&format!("{params}{ret}"))
}

/// A function given a name by where it is put, as CommonJS and older code
/// define most of theirs: assigned to a member (`exports.f = function …`,
/// `res.send = function send(…)`, `View.prototype.render = …`, `this.m = …`:
/// the last two are methods) or the value of an object literal's key
/// (`{ m: function … }`, a method); and a named function expression anywhere
/// else, by its own name. As universal-ctags reads them, a key's arrow
/// function (a callback or an option, mostly) and an object passed as a
/// call's argument are left out.
fn script_member(node: &N<'_>, depth: usize) -> Option<Def> {
    const FUNCTIONS: [&str; 3] = ["function_expression", "function", "generator_function"];
    let (name, scope, kind, value) = match &*node.kind() {
        // A named function expression anywhere else (`router.use(function
        // sawError(…) {…})`) is listed by its own name.
        k if FUNCTIONS.contains(&k) => {
            // Unless the place already named it (`exports.f = function f`).
            let named_by_place = node
                .parent()
                .is_some_and(|p| script_member(&p, depth).is_some());
            let name = node.field("name").filter(|_| !named_by_place)?;
            (name.text().to_string(), None, "function", node.clone())
        }
        "assignment_expression" => {
            let left = node.field("left")?;
            let value = node.field("right")?;
            if !FUNCTIONS.contains(&&*value.kind()) && value.kind() != "arrow_function" {
                return None;
            }
            let (object, name) = match &*left.kind() {
                "identifier" => {
                    return Some(script_def(
                        node,
                        depth,
                        left.text().into(),
                        None,
                        "function",
                        &value,
                    ));
                }
                "member_expression" => (
                    left.field("object")?,
                    left.field("property")?.text().to_string(),
                ),
                // `s.converters["script json"] = function …`
                "subscript_expression" => {
                    let index = left.field("index")?;
                    if index.kind() != "string" {
                        return None;
                    }
                    (
                        left.field("object")?,
                        index.text().trim_matches(['"', '\'']).to_string(),
                    )
                }
                _ => return None,
            };
            let object = one_line(&object.text());
            let method = object == "this" || object.ends_with(".prototype");
            let kind = if method { "method" } else { "function" };
            (name, Some(format!("{object}.")), kind, value)
        }
        // `var f = function …` anywhere; `const f = () => …` only at the top
        // of a module (inside a function, a local callback mostly).
        "variable_declarator" => {
            let value = node.field("value")?;
            let name = node.field("name")?;
            let arrow = value.kind() == "arrow_function" && depth == 0;
            if !(FUNCTIONS.contains(&&*value.kind()) || arrow) || name.kind() != "identifier" {
                return None;
            }
            (name.text().to_string(), None, "function", value)
        }
        "pair" => {
            let in_call = node
                .parent()
                .and_then(|o| o.parent())
                .is_some_and(|p| p.kind() == "arguments");
            let value = node.field("value")?;
            if in_call || !FUNCTIONS.contains(&&*value.kind()) {
                return None;
            }
            let key = node.field("key")?;
            let name = match &*key.kind() {
                "property_identifier" => key.text().to_string(),
                "string" => key.text().trim_matches(['"', '\'']).to_string(),
                _ => return None,
            };
            (name, None, "method", value)
        }
        _ => return None,
    };
    (!name.is_empty()).then(|| script_def(node, depth, name, scope, kind, &value))
}

fn script_def(
    node: &N<'_>,
    depth: usize,
    name: String,
    scope: Option<String>,
    kind: &'static str,
    value: &N<'_>,
) -> Def {
    Def {
        line: node.start_pos().line() as u64 + 1,
        end_line: node.end_pos().line() as u64 + 1,
        depth,
        kind,
        // A string key may run over lines (`"a\` then `b"`): one row still.
        name: one_line(&name),
        scope,
        signature: value_signature(value),
    }
}

/// Every identifier of `tree` that is not the name of one of its definitions'
/// own node: the references the repository map counts.
pub fn references(tree: &Tree, mut each: impl FnMut(&str)) {
    for node in tree.root().dfs() {
        if node.is_named_leaf() {
            let kind = node.kind();
            if kind.ends_with("identifier") || kind == "constant" {
                let text = node.text();
                if text.len() >= 2 {
                    each(&text);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::grammar::{by_name, parse};
    use super::*;

    fn rows(lang: &str, src: &str) -> Vec<String> {
        let tree = parse(by_name(lang).unwrap(), src);
        definitions(&tree)
            .iter()
            .map(|d| {
                let name = format!("{}{}", d.scope.as_deref().unwrap_or(""), d.name);
                format!(
                    "{}:{}{} {name}{}",
                    d.line,
                    "  ".repeat(d.depth),
                    d.kind,
                    d.signature
                )
            })
            .collect()
    }

    #[test]
    fn rust_items_nest_and_sign() {
        let src = "mod m {\n    pub struct S { x: u32 }\n    impl Tr for S {\n        fn f(&self, a: u32) -> bool { true }\n    }\n}\nconst C: usize = 3;\nmacro_rules! mac { () => {} }\n";
        assert_eq!(
            rows("rust", src),
            [
                "1:module m",
                "2:  struct S",
                "3:  impl Tr for S",
                "4:    method f(&self, a: u32) -> bool",
                "7:const C: usize",
                "8:macro mac",
            ]
        );
    }

    #[test]
    fn python_methods_and_nested_functions() {
        let src = "class A(B):\n    @staticmethod\n    def m(x: int) -> str:\n        def inner(): pass\n        return ''\n\ndef top(*a, **k): ...\n";
        assert_eq!(
            rows("python", src),
            [
                "1:class A(B)",
                "3:  method m(x: int) -> str",
                "4:    function inner()",
                "7:function top(*a, **k)",
            ]
        );
    }

    #[test]
    fn script_classes_interfaces_and_arrows() {
        let src = "export class K extends B {\n  run(a: number): void {}\n}\ninterface I { f(): void }\nexport const g = (x): number => x;\nfunction h() {}\n";
        assert_eq!(
            rows("typescript", src),
            [
                "1:class K",
                "2:  method run(a: number): void",
                "4:interface I",
                "4:  method f(): void",
                "5:function g(x): number",
                "6:function h()",
            ]
        );
    }

    #[test]
    fn a_name_qualified_over_two_lines_is_one_row() {
        // libstdc++'s layout: the qualifier on one line, the name on the next.
        let src = "template<typename T>\ninline T\nBox<T>::\n    get() const\n{ return v; }\n";
        let tree = parse(by_name("cpp").unwrap(), src);
        let defs = definitions(&tree);
        assert_eq!(defs.len(), 1);
        assert_eq!(defs[0].name, "get");
        assert_eq!(defs[0].scope.as_deref(), Some("Box<T>::"));
        assert_eq!(rows("cpp", src), ["2:method Box<T>::get()"]);
    }

    #[test]
    fn a_qualifier_over_three_lines_keeps_no_space() {
        let src = "void\na::\nb::\nc() {}\n";
        assert_eq!(rows("cpp", src), ["1:method a::b::c()"]);
    }

    #[test]
    fn script_functions_by_assignment_keep_their_bodies_and_one_row_each() {
        let src = concat!(
            "var Foo = function () {\n",
            "  this.bar = function () {};\n",
            "  var inner = function () {};\n",
            "}, other = function (x) {};\n",
            "app[k] = function named() {};\n",
            "foo({ m: function cb() {} });\n",
            "s[\"a\\\nb\"] = function () {};\n",
            "const top = (y) => y;\n",
            "function f() { const local = () => 1; }\n",
        );
        assert_eq!(
            rows("javascript", src),
            [
                "1:function Foo()",
                "2:  method this.bar()",
                "3:  function inner()",
                "4:function other(x)",
                "5:function named()",
                "6:function cb()",
                "7:function s.a\\ b()",
                "9:function top(y)",
                "10:function f()",
            ]
        );
    }

    #[test]
    fn a_deeply_nested_file_does_not_overflow_the_stack() {
        // 100,000 nested parentheses: recursion over the tree would overflow.
        let src = format!(
            "x = {}1{}\ndef f(): pass\n",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        let handle = std::thread::Builder::new()
            .stack_size(256 * 1024)
            .spawn(move || rows("python", &src))
            .unwrap();
        assert_eq!(handle.join().unwrap(), ["2:function f()"]);
    }

    #[test]
    fn go_c_java_ruby() {
        let go = "package p\ntype S struct{}\ntype I interface{ M() error }\nfunc (s *S) Run(x int) error { return nil }\nfunc F() {}\n";
        assert_eq!(
            rows("go", go),
            [
                "2:struct S",
                "3:interface I",
                "3:  method M() error",
                "4:method S.Run(x int) error",
                "5:function F()",
            ]
        );
        let c = "#define N 3\ntypedef struct pt { int x; } pt_t;\nstatic int *add(int a, int b) { return 0; }\nstruct pt *use;\n";
        assert_eq!(
            rows("c", c),
            [
                "1:macro N",
                "2:typedef pt_t",
                "2:  struct pt",
                "3:function add(int a, int b)"
            ]
        );
        let cpp = "namespace n { class K { void m(); }; }\nvoid n::K::m() {}\n";
        assert_eq!(
            rows("cpp", cpp),
            ["1:namespace n", "1:  class K", "2:method n::K::m()"]
        );
        let java = "class A { A() {} int f(int x) { return x; } }\n";
        assert_eq!(
            rows("java", java),
            ["1:class A", "1:  constructor A()", "1:  method f(int x)"]
        );
        let rb = "module M\n  class C < B\n    def go(a) end\n    def self.make; end\n  end\nend\n";
        assert_eq!(
            rows("ruby", rb),
            [
                "1:module M",
                "2:  class C < B",
                "3:    method go(a)",
                "4:    class method make"
            ]
        );
    }
}
