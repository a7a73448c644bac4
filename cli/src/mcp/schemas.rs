//! The tools' output schemas (JSON Schema 2020-12). The records' are their own types' (the
//! `schemars` derive, as they serialize), with the record's `"type"` added and every object
//! closed (`additionalProperties: false`), so that a field a record gains is in its schema
//! too; `crawl_policy`'s is the library's record, whose shape is written beside the records
//! (`schema/policy.schema.json`, as `policy --json` writes it).

use std::sync::Arc;

use rmcp::model::JsonObject;
use schemars::generate::SchemaSettings;
use serde_json::{json, Map, Value};

use crate::schema::report::RobotsReport;
use crate::schema::{Check, Explain, Problem};

/// `crawl_policy`'s record, as the library serializes it.
const POLICY: &str = include_str!("../schema/policy.schema.json");

/// The records' definitions, each record's with its `"type"` first among its fields.
fn definitions() -> Map<String, Value> {
    let mut generator = SchemaSettings::draft2020_12()
        .for_serialize()
        .into_generator();
    let records = [
        (generator.subschema_for::<Check<'static>>(), "check"),
        (generator.subschema_for::<Explain<'static>>(), "explain"),
        (generator.subschema_for::<Problem<'static>>(), "problem"),
        (generator.subschema_for::<RobotsReport>(), "report"),
    ];
    let mut defs = generator.take_definitions(true);
    for (reference, kind) in records {
        let name = reference
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| r.strip_prefix("#/$defs/"))
            .unwrap_or_default()
            .to_owned();
        if let Some(Value::Object(def)) = defs.get_mut(&name) {
            typed(def, kind);
        }
    }
    for def in defs.values_mut() {
        close(def);
    }
    defs
}

/// Adds the record's `"type": kind`, first and required.
fn typed(def: &mut Map<String, Value>, kind: &str) {
    let mut properties = Map::new();
    properties.insert("type".into(), json!({"const": kind}));
    if let Some(Value::Object(p)) = def.remove("properties") {
        properties.extend(p);
    }
    def.insert("properties".into(), Value::Object(properties));
    match def.get_mut("required") {
        Some(Value::Array(required)) => required.insert(0, json!("type")),
        _ => {
            def.insert("required".into(), json!(["type"]));
        }
    }
}

/// Every object schema with named properties and no word on others: no others.
fn close(schema: &mut Value) {
    match schema {
        Value::Object(o) => {
            if o.contains_key("properties") && !o.contains_key("additionalProperties") {
                o.insert("additionalProperties".into(), Value::Bool(false));
            }
            for v in o.values_mut() {
                close(v);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(close),
        _ => {}
    }
}

/// The definition of the record `kind`, as a tool's root: an object schema with every
/// definition.
fn root(defs: &Map<String, Value>, kind: &str) -> Map<String, Value> {
    let mut root = match defs
        .values()
        .find(|v| v.pointer("/properties/type/const").and_then(Value::as_str) == Some(kind))
    {
        Some(Value::Object(def)) => def.clone(),
        _ => Map::new(),
    };
    root.insert("$defs".into(), Value::Object(defs.clone()));
    root
}

fn done(root: Map<String, Value>) -> Arc<JsonObject> {
    Arc::new(root)
}

/// The name a record's definition has (its type's).
fn named(defs: &Map<String, Value>, kind: &str) -> String {
    defs.iter()
        .find(|(_, v)| v.pointer("/properties/type/const").and_then(Value::as_str) == Some(kind))
        .map(|(k, _)| format!("#/$defs/{k}"))
        .unwrap_or_default()
}

/// `check_url`: the `check` record and its `answer`.
pub fn check_url() -> Arc<JsonObject> {
    let mut root = root(&definitions(), "check");
    if let Some(Value::Object(p)) = root.get_mut("properties") {
        p.insert(
            "answer".into(),
            json!({
                "description": "allowed, disallowed, or unreachable (the robots.txt could not be read: do not fetch)",
                "enum": ["allowed", "disallowed", "unreachable"]
            }),
        );
    }
    if let Some(Value::Array(r)) = root.get_mut("required") {
        r.push(json!("answer"));
    }
    done(root)
}

/// `explain_robots`: the `explain` record, the URL's `check` record, the file's problems.
pub fn explain_robots() -> Arc<JsonObject> {
    let defs = definitions();
    let mut root = Map::new();
    root.insert("type".into(), json!("object"));
    root.insert(
        "properties".into(),
        json!({
            "explain": {"$ref": named(&defs, "explain")},
            "check": {
                "description": "The URL's check, when it has a path; else null.",
                "anyOf": [{"$ref": named(&defs, "check")}, {"type": "null"}]
            },
            "problems": {"type": "array", "items": {"$ref": named(&defs, "problem")}}
        }),
    );
    root.insert("required".into(), json!(["explain", "check", "problems"]));
    root.insert("additionalProperties".into(), Value::Bool(false));
    root.insert("$defs".into(), Value::Object(defs));
    done(root)
}

/// `robots_report`: the `report` record.
pub fn robots_report() -> Arc<JsonObject> {
    done(root(&definitions(), "report"))
}

/// `crawl_policy`: the `policy` record.
pub fn crawl_policy() -> Arc<JsonObject> {
    match serde_json::from_str(POLICY) {
        Ok(Value::Object(schema)) => Arc::new(schema),
        // Written here, and parsed by a test: never taken.
        _ => Arc::new(Map::new()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_schema_is_a_closed_object() {
        for schema in [
            check_url(),
            explain_robots(),
            robots_report(),
            crawl_policy(),
        ] {
            assert_eq!(schema.get("type"), Some(&json!("object")), "{schema:?}");
            assert_eq!(
                schema.get("additionalProperties"),
                Some(&Value::Bool(false)),
                "{schema:?}"
            );
            let required = schema.get("required").and_then(Value::as_array);
            assert!(required.is_some_and(|r| !r.is_empty()), "{schema:?}");
        }
        let check = check_url();
        let required = check
            .get("required")
            .and_then(Value::as_array)
            .expect("required");
        assert_eq!(required.first(), Some(&json!("type")));
        assert_eq!(required.last(), Some(&json!("answer")));
    }
}
