//! The catalog commands: `list`, `describe` and `schema` (what this invocation
//! exposes, as people and programs read it).

use std::process::ExitCode;

use clap::ArgMatches;
use serde_json::Value;

use super::command::summary;
use super::dispatch::*;
use super::error::{CliResult, UsageError};
use super::globals::*;
use super::output::Printer;
use crate::kernel::{ToolRegistry, no_such_tool_message};

pub(crate) fn list(
    registry: &ToolRegistry,
    globals: &Globals,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let names = selected_names(registry, globals)?;
    let rows: Vec<Value> = names
        .iter()
        .filter_map(|n| registry.get(n))
        .map(|t| catalog_entry(registry, t))
        .collect();
    if globals.json {
        printer.stdout_line(&Value::Array(rows).to_string());
    } else {
        let field = |r: &Value, k: &str| r[k].as_str().unwrap_or_default().to_string();
        let id_w = rows
            .iter()
            .map(|r| field(r, "name").len())
            .max()
            .unwrap_or(0);
        let title_w = rows
            .iter()
            .map(|r| field(r, "title").chars().count())
            .max()
            .unwrap_or(0);
        let mut out = String::new();
        for r in &rows {
            out.push_str(&format!(
                "{:<id_w$}  {:<title_w$}  {}\n",
                field(r, "name"),
                field(r, "title"),
                field(r, "summary")
            ));
        }
        printer.stdout_raw(&out);
    }
    Ok(ExitCode::SUCCESS)
}

/// A tool as the catalog lists it: `{name, title, summary, readOnly, profiles,
/// collections}` (a tool outside the catalog is titled by its name and summarised
/// by its description's first sentence).
pub(crate) fn catalog_entry(registry: &ToolRegistry, tool: &crate::kernel::DefinedTool) -> Value {
    let row = crate::deck::find_row(tool.name()).filter(|r| r.id == tool.name());
    serde_json::json!({
        "name": tool.name(),
        "title": row.map_or(tool.name(), |r| r.title),
        "summary": row.map_or(summary(tool.description()), |r| r.summary),
        "readOnly": row.is_some_and(|r| r.read_only),
        "profiles": row.map(|r| r.profile_names()).unwrap_or_default(),
        "collections": registry.collections_of(tool.name()),
    })
}

pub(crate) fn print_json(value: &Value, globals: &Globals, printer: &mut Printer) {
    let text = if globals.json {
        value.to_string()
    } else {
        serde_json::to_string_pretty(value).expect("JSON values serialize")
    };
    printer.stdout_line(&text);
}

pub(crate) fn describe(
    registry: &ToolRegistry,
    globals: &Globals,
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    let wanted = m.get_one::<String>("tool").expect("required");
    let Some(tool) = registry.resolve(wanted) else {
        printer
            .error_text(&crate::kernel::CapabilityError::UnknownTool(wanted.clone()).to_string());
        return Ok(ExitCode::from(1));
    };
    if !selected_names(registry, globals)?
        .iter()
        .any(|n| n == tool.name())
    {
        printer.error_text(&no_such_tool_message(wanted));
        return Ok(ExitCode::from(1));
    }
    let mut described = with_output_schema(
        serde_json::to_value(tool.descriptor()).expect("descriptors serialize"),
        tool.output_schema(),
    );
    if let (Value::Object(d), Value::Object(entry)) =
        (&mut described, catalog_entry(registry, tool))
    {
        for key in ["title", "summary", "readOnly", "profiles", "collections"] {
            d.insert(key.to_string(), entry[key].clone());
        }
    }
    print_json(&described, globals, printer);
    Ok(ExitCode::SUCCESS)
}

/// `schema [--for API]`: the exposed tools' descriptors, or their definitions in
/// the shape `API` takes (see `interop::tool_defs`).
pub(crate) fn schema(
    registry: &ToolRegistry,
    globals: &Globals,
    m: &ArgMatches,
    printer: &mut Printer,
) -> CliResult<ExitCode> {
    use crate::interop::tool_defs::{ToolApi, tool_definitions};
    let tool_box = selected_box(registry, globals)?;
    let descriptors = tool_box.descriptors();
    let value = match m.get_one::<String>("for") {
        None => Value::Array(
            descriptors
                .iter()
                .zip(tool_box.output_schemas())
                .map(|(d, (_, output))| {
                    with_output_schema(
                        serde_json::to_value(d).expect("descriptors serialize"),
                        output,
                    )
                })
                .collect(),
        ),
        Some(name) => {
            let api = ToolApi::from_name(name)
                .ok_or_else(|| UsageError(format!("schema --for {name}: no such API")))?;
            // MCP's list is what the server answers, output schemas included.
            #[cfg(feature = "mcp")]
            if api == ToolApi::Mcp {
                let value = crate::interop::mcp::served_tools_json(tool_box).map_err(|e| {
                    UsageError(format!(
                        "schema --for {name}: the tools/list result does not serialize: {e}"
                    ))
                })?;
                print_json(&value, globals, printer);
                return Ok(ExitCode::SUCCESS);
            }
            tool_definitions(api, &descriptors)
                .map_err(|e| UsageError(format!("schema --for {name}: {e}")))?
        }
    };
    print_json(&value, globals, printer);
    Ok(ExitCode::SUCCESS)
}

/// A descriptor object with `"outputSchema"` put right after `"parameters"`, when
/// the tool has one (see `Tool::output_schema`): the shape of what a successful
/// call gives a program, as docs/json.md describes it.
fn with_output_schema(descriptor: Value, output: Option<Value>) -> Value {
    let (Value::Object(fields), Some(output)) = (&descriptor, output) else {
        return descriptor;
    };
    let mut out = serde_json::Map::new();
    for (key, value) in fields {
        out.insert(key.clone(), value.clone());
        if key == "parameters" {
            out.insert("outputSchema".into(), output.clone());
        }
    }
    Value::Object(out)
}
