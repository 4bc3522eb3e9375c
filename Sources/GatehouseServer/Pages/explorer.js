// The GraphQL explorer at GET /graphql (explorer.html): query and variables editors, headers, run,
// the JSON result, and a schema browser built from introspection.
"use strict";
(() => {
  const config = JSON.parse(document.getElementById("gatehouse-config").textContent);
  const $ = (id) => document.getElementById(id);
  const DEFAULT_QUERY = "# Write a query, then press Run.\n{\n  health\n}\n";
  const TYPE_REF = "fragment TypeRef on __Type { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } } } }";
  const INTROSPECTION = `query IntrospectionQuery { __schema { queryType { name } mutationType { name } subscriptionType { name }
    types { kind name description
      fields(includeDeprecated: true) { name description args { name description type { ...TypeRef } defaultValue } type { ...TypeRef } isDeprecated deprecationReason }
      inputFields { name description type { ...TypeRef } defaultValue }
      interfaces { ...TypeRef } enumValues(includeDeprecated: true) { name description isDeprecated } possibleTypes { ...TypeRef } } } } ${TYPE_REF}`;

  $("query").value = localStorage.getItem("gatehouse.explorer.query") || DEFAULT_QUERY;
  // Variables can hold passwords: they are never stored, and what an older page stored is removed.
  localStorage.removeItem("gatehouse.explorer.variables");
  $("app-id").value = localStorage.getItem("gatehouse.explorer.appId") || config.appId || "";
  // The sample app's session (same origin), when there is one.
  try {
    const session = JSON.parse(localStorage.getItem("gatehouse.session"));
    if (session && session.sessionToken) $("session-token").value = session.sessionToken;
  } catch (e) { /* none */ }

  function headers() {
    const result = { "Content-Type": "application/json", "Accept": "application/graphql-response+json, application/json" };
    const appId = $("app-id").value.trim();
    const token = $("session-token").value.trim();
    if (appId) result["X-Parse-Application-Id"] = appId;
    if (token) result["X-Parse-Session-Token"] = token;
    return result;
  }

  function setStatus(text, good) {
    $("status").textContent = text;
    $("status").className = good ? "good" : "bad";
  }

  async function run() {
    localStorage.setItem("gatehouse.explorer.query", $("query").value);
    localStorage.setItem("gatehouse.explorer.appId", $("app-id").value);
    let variables = {};
    const text = $("variables").value.trim();
    if (text) {
      try { variables = JSON.parse(text); } catch (e) {
        setStatus("Variables are not valid JSON", false);
        $("result").textContent = String(e.message);
        return;
      }
    }
    $("run").disabled = true;
    setStatus("Running…", true);
    const started = performance.now();
    try {
      const response = await fetch("/graphql", { method: "POST", headers: headers(),
        body: JSON.stringify({ query: $("query").value, variables }) });
      const body = await response.text();
      const ms = Math.round(performance.now() - started);
      let shown = body;
      let errors = false;
      try { const json = JSON.parse(body); shown = JSON.stringify(json, null, 2); errors = !!json.errors; } catch (e) { /* as text */ }
      $("result").textContent = shown;
      setStatus(`HTTP ${response.status} · ${ms} ms${errors ? " · errors" : ""}`, response.ok && !errors);
    } catch (e) {
      $("result").textContent = "";
      setStatus("Can't reach the server", false);
    } finally {
      $("run").disabled = false;
    }
  }

  $("run").addEventListener("click", run);
  for (const id of ["query", "variables"]) {
    $(id).addEventListener("keydown", (event) => {
      if (event.key === "Enter" && (event.ctrlKey || event.metaKey)) { event.preventDefault(); run(); }
      else if (event.key === "Tab") {
        event.preventDefault();
        const area = event.target, start = area.selectionStart;
        area.setRangeText("  ", start, area.selectionEnd, "end");
      }
    });
  }

  // The schema browser, from introspection.
  let types = new Map();
  let roots = [];

  function typeName(ref) {
    if (ref.kind === "NON_NULL") return typeName(ref.ofType) + "!";
    if (ref.kind === "LIST") return "[" + typeName(ref.ofType) + "]";
    return ref.name;
  }
  function namedType(ref) { return ref.ofType ? namedType(ref.ofType) : ref.name; }
  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function typeLink(ref, label) {
    const button = el("button", "type-link", label || typeName(ref));
    button.type = "button";
    button.addEventListener("click", () => showType(namedType(ref)));
    return button;
  }

  function showList() {
    const container = $("schema");
    container.replaceChildren();
    const filter = $("schema-search").value.trim().toLowerCase();
    const list = el("ul");
    const names = [...roots, ...[...types.keys()].filter((n) => !roots.includes(n) && !n.startsWith("__")).sort()];
    for (const name of names) {
      if (filter && !name.toLowerCase().includes(filter)) continue;
      const item = el("li");
      item.append(typeLink({ name }, name), el("span", "kind", roots.includes(name) ? "root" : types.get(name).kind.toLowerCase()));
      list.append(item);
    }
    container.append(list);
  }

  function showType(name) {
    const type = types.get(name);
    if (!type) return;
    const container = $("schema");
    container.replaceChildren();
    const back = el("button", "type-link crumb", "← All types");
    back.type = "button";
    back.addEventListener("click", showList);
    container.append(back, el("h3", null, name), el("div", "kind", type.kind.toLowerCase()));
    if (type.description) container.append(el("p", "desc", type.description));
    const list = el("ul");
    for (const field of type.fields || type.inputFields || []) {
      const item = el("li", "field");
      item.append(document.createTextNode(field.name));
      if (field.args && field.args.length) {
        item.append(document.createTextNode("("));
        field.args.forEach((arg, i) => {
          item.append(document.createTextNode((i ? ", " : "") + arg.name + ": "), typeLink(arg.type));
        });
        item.append(document.createTextNode(")"));
      }
      item.append(document.createTextNode(": "), typeLink(field.type));
      if (field.description) item.append(el("div", "desc", field.description));
      list.append(item);
    }
    for (const value of type.enumValues || []) list.append(el("li", "field", value.name));
    for (const possible of type.possibleTypes || []) { const item = el("li"); item.append(typeLink(possible)); list.append(item); }
    container.append(list);
  }

  async function loadSchema() {
    try {
      const response = await fetch("/graphql", { method: "POST", headers: headers(), body: JSON.stringify({ query: INTROSPECTION }) });
      const body = await response.json();
      if (!body.data) throw new Error(body.errors ? body.errors[0].message : `HTTP ${response.status}`);
      const schema = body.data.__schema;
      types = new Map(schema.types.map((t) => [t.name, t]));
      roots = [schema.queryType, schema.mutationType, schema.subscriptionType].filter(Boolean).map((t) => t.name);
      showList();
    } catch (e) {
      $("schema").textContent = "The schema could not be loaded: " + (e.message || e) + ". Check the app id.";
    }
  }
  $("schema-search").addEventListener("input", showList);
  $("app-id").addEventListener("change", loadSchema);
  loadSchema();
})();
