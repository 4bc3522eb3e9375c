import Foundation
import HTTPServer
import JSON
import Sodium

/// The two browser pages: the sample app at `GET /` and the GraphQL explorer at
/// `GET /graphql` (for `Accept: text/html` without a `query` parameter).
///
/// Each is one self-contained HTML document (no CDN, no build step) compiled into the binary.
/// The Content-Security-Policy allows exactly the page's own inline script and style by their
/// SHA-256 hashes, and network access only to this origin. Server settings the scripts need
/// (the app id, the password minimum) travel in a non-executable JSON data block, so the
/// hashes do not depend on them.
struct Pages: Sendable {
    /// `GET /`: start screen, register and log-in forms, home screen.
    let app: HTTPResponse
    /// `GET /graphql` from a browser: editors, headers, run, result, schema browser.
    let explorer: HTTPResponse

    init(appId: String? = nil, passwordMinLength: Int = 8) {
        var config: JSONObject = ["passwordMinLength": .int(passwordMinLength)]
        config["appId"] = appId.map { .string($0) } ?? .null
        // `<` escaped so the data block cannot be closed from inside a string.
        let json = JSON.object(config).serializedString().replacingOccurrences(of: "<", with: "\\u003c")
        app = Self.page(title: "Gatehouse", style: AppPage.style, body: AppPage.body, script: AppPage.script, config: json)
        explorer = Self.page(
            title: "Gatehouse GraphQL explorer", style: ExplorerPage.style, body: ExplorerPage.body,
            script: ExplorerPage.script, config: json)
    }

    /// Whether a request to `/graphql` is a browser asking for a page rather than a query.
    static func wantsExplorer(_ request: HTTPRequest) -> Bool {
        request.method == "GET" && request.queryValue("query") == nil
            && (request.headers["Accept"]?.lowercased().contains("text/html") ?? false)
    }

    /// The page's `Content-Security-Policy`: nothing but its own hashed script and style,
    /// `fetch` to this origin, no framing, no form submission (the scripts handle the forms,
    /// so a password never ends up in a URL even if scripting fails).
    static func contentSecurityPolicy(script: String, style: String) -> String {
        "default-src 'none'; script-src '\(hash(script))'; style-src '\(hash(style))'; connect-src 'self'; "
            + "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    }

    static func hash(_ text: String) -> String {
        "sha256-" + Data(SHA256.digest(text)).base64EncodedString()
    }

    private static func page(title: String, style: String, body: String, script: String, config: String) -> HTTPResponse {
        let html = """
            <!doctype html>
            <html lang="en">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(title)</title>
            <style>\(style)</style>
            </head>
            <body>
            \(body)
            <script type="application/json" id="gatehouse-config">\(config)</script>
            <script>\(script)</script>
            </body>
            </html>

            """
        return HTTPResponse(
            status: 200,
            headers: [
                "Content-Type": "text/html; charset=utf-8",
                "Content-Security-Policy": contentSecurityPolicy(script: script, style: style),
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",
                "X-Frame-Options": "DENY",
                "Cache-Control": "no-cache",
            ],
            body: Array(html.utf8))
    }
}

/// The sample app: what a typical app built on Gatehouse does, in one page.
enum AppPage {
    static let style = #"""
:root { --ink: #1d2330; --muted: #5b6475; --line: #d9dee8; --accent: #3456d6; --accent-dark: #2540a8;
  --bad: #b42318; --bad-bg: #fef3f2; --ok-bg: #ecfdf3; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; color: var(--ink);
  background: linear-gradient(160deg, #eef2ff 0%, #f8fafc 55%, #eefbf4 100%); }
main { width: min(420px, calc(100vw - 32px)); background: #fff; border: 1px solid var(--line); border-radius: 16px;
  padding: 32px; box-shadow: 0 12px 40px rgba(29, 35, 48, .08); }
.brand { display: flex; align-items: center; gap: 10px; font-weight: 700; font-size: 20px; margin-bottom: 24px; }
.brand-mark { width: 32px; height: 32px; border-radius: 9px; background: var(--accent); color: #fff;
  display: grid; place-items: center; font-size: 18px; }
h1 { font-size: 24px; margin: 0 0 8px; }
p.lead { color: var(--muted); margin: 0 0 24px; line-height: 1.5; }
label { display: block; font-size: 14px; font-weight: 600; margin: 16px 0 6px; }
input { width: 100%; font: inherit; padding: 10px 12px; border: 1px solid var(--line); border-radius: 10px; }
input:focus { outline: 2px solid var(--accent); outline-offset: 1px; border-color: transparent; }
button { font: inherit; font-weight: 600; border-radius: 10px; padding: 11px 16px; cursor: pointer; width: 100%;
  border: 1px solid var(--accent); background: var(--accent); color: #fff; margin-top: 20px; }
button:hover { background: var(--accent-dark); }
button.secondary { background: #fff; color: var(--accent); margin-top: 12px; }
button.secondary:hover { background: #f3f5ff; }
button:disabled { opacity: .6; cursor: progress; }
.link { background: none; border: none; color: var(--muted); width: auto; padding: 0; margin-top: 18px; font-weight: 500; }
.link:hover { background: none; color: var(--ink); text-decoration: underline; }
.error { color: var(--bad); background: var(--bad-bg); border: 1px solid #fecdca; border-radius: 10px;
  padding: 10px 12px; margin: 16px 0 0; font-size: 14px; line-height: 1.4; }
.notice { background: var(--ok-bg); border: 1px solid #abefc6; border-radius: 10px; padding: 10px 12px; margin: 0 0 16px;
  font-size: 14px; }
.hint { color: var(--muted); font-size: 13px; margin: 6px 0 0; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 8px 16px; margin: 20px 0 0; font-size: 14px; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.avatar { width: 56px; height: 56px; border-radius: 50%; background: #e0e7ff; color: var(--accent-dark);
  display: grid; place-items: center; font-size: 24px; font-weight: 700; margin-bottom: 16px; }
footer { margin-top: 24px; font-size: 13px; color: var(--muted); text-align: center; }
footer a { color: var(--muted); }
"""#

    static let body = #"""
<main>
  <div class="brand"><span class="brand-mark" aria-hidden="true">G</span>Gatehouse</div>

  <section id="start" hidden>
    <p id="notice" class="notice" role="status" hidden></p>
    <h1>Welcome</h1>
    <p class="lead">Create an account or log in to continue.</p>
    <button id="go-register" type="button">Create account</button>
    <button id="go-login" type="button" class="secondary">Log in</button>
  </section>

  <section id="register" hidden>
    <h1>Create your account</h1>
    <form id="register-form" novalidate>
      <label for="register-username">Username</label>
      <input id="register-username" name="username" autocomplete="username" required>
      <label for="register-email">Email</label>
      <input id="register-email" name="email" type="email" autocomplete="email">
      <label for="register-password">Password</label>
      <input id="register-password" name="password" type="password" autocomplete="new-password" required>
      <p class="hint" id="password-hint"></p>
      <p id="register-error" class="error" role="alert" hidden></p>
      <button id="register-submit" type="submit">Create account</button>
    </form>
    <button type="button" class="link back">&larr; Back</button>
  </section>

  <section id="login" hidden>
    <h1>Log in</h1>
    <form id="login-form" novalidate>
      <label for="login-username">Username or email</label>
      <input id="login-username" name="username" autocomplete="username" required>
      <label for="login-password">Password</label>
      <input id="login-password" name="password" type="password" autocomplete="current-password" required>
      <p id="login-error" class="error" role="alert" hidden></p>
      <button id="login-submit" type="submit">Log in</button>
    </form>
    <button type="button" class="link back">&larr; Back</button>
  </section>

  <section id="home" hidden>
    <div class="avatar" id="avatar" aria-hidden="true"></div>
    <h1 id="welcome"></h1>
    <p class="lead">You are logged in.</p>
    <dl>
      <dt>Username</dt><dd id="home-username"></dd>
      <dt>Email</dt><dd id="home-email"></dd>
      <dt>User id</dt><dd id="home-objectid"></dd>
      <dt>Member since</dt><dd id="home-created"></dd>
    </dl>
    <p id="home-error" class="error" role="alert" hidden></p>
    <button id="logout" type="button" class="secondary">Log out</button>
  </section>

  <footer><a href="/graphql">GraphQL explorer</a></footer>
</main>
"""#

    static let script = #"""
"use strict";
(() => {
  const config = JSON.parse(document.getElementById("gatehouse-config").textContent);
  const SESSION_KEY = "gatehouse.session";
  const INSTALLATION_KEY = "gatehouse.installationId";
  const USER_FIELDS = "fragment UserFields on User { id objectId username email emailVerified createdAt updatedAt }";
  const $ = (id) => document.getElementById(id);

  function installationId() {
    let id = localStorage.getItem(INSTALLATION_KEY);
    if (!id) {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      bytes[6] = (bytes[6] & 0x0f) | 0x40;
      bytes[8] = (bytes[8] & 0x3f) | 0x80;
      const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      localStorage.setItem(INSTALLATION_KEY, id);
    }
    return id;
  }

  function loadSession() {
    try { return JSON.parse(localStorage.getItem(SESSION_KEY)); } catch (e) { return null; }
  }
  function saveSession(session) { localStorage.setItem(SESSION_KEY, JSON.stringify(session)); }
  function clearSession() { localStorage.removeItem(SESSION_KEY); }

  // One GraphQL request; a GraphQL error is thrown as {code, message}.
  async function gql(query, variables, token) {
    const headers = { "Content-Type": "application/json",
      "Accept": "application/graphql-response+json, application/json",
      "X-Parse-Installation-Id": installationId() };
    if (config.appId) headers["X-Parse-Application-Id"] = config.appId;
    if (token) headers["X-Parse-Session-Token"] = token;
    let response;
    try {
      response = await fetch("/graphql", { method: "POST", headers, body: JSON.stringify({ query, variables }) });
    } catch (e) {
      throw { code: "network" };
    }
    let body = null;
    try { body = await response.json(); } catch (e) { /* not JSON */ }
    if (response.status === 403 && body && body.error === "unauthorized") throw { code: "unauthorized" };
    if (body && body.errors && body.errors.length) {
      const first = body.errors[0];
      throw { code: first.extensions ? first.extensions.code : undefined, message: first.message,
        retryAfter: response.headers.get("Retry-After") };
    }
    if (!body || !body.data) throw { code: "http", status: response.status };
    return body.data;
  }

  // The server's codes (see the API contract) in plain words.
  function explain(error) {
    switch (error.code) {
      case 200: return "Please enter a username.";
      case 201: return "Please enter a password.";
      case 202: return "That username is already taken. Try another one.";
      case 203: return "An account already uses that email address. Log in instead?";
      case 125: return "That doesn't look like an email address. Check it and try again.";
      case 142:
        if (error.message === "Password is too common.") return `${error.message} Choose one that is harder to guess.`;
        return / is too long \(at most /.test(error.message || "")
          ? error.message.charAt(0).toUpperCase() + error.message.slice(1)
          : `That password is too weak. Use at least ${config.passwordMinLength} characters.`;
      case 101: {
        const locked = /locked.*?(\d+)\s*minute/i.exec(error.message || "");
        if (locked) return `Your account is locked after too many failed log-ins. Try again in ${locked[1]} minute${locked[1] === "1" ? "" : "s"}.`;
        return "The username or password is wrong.";
      }
      case 209: return "Your session has ended. Please log in again.";
      case 155: return error.retryAfter
        ? `Too many attempts. Wait ${error.retryAfter} seconds and try again.`
        : "Too many attempts. Wait a minute and try again.";
      case "network": return "Can't reach the server. Check your connection and try again.";
      case "unauthorized": return "The server did not accept this app's application id.";
      case 1: return "Something went wrong on the server. Please try again.";
      default: return `Something went wrong (${error.code !== undefined ? "code " + error.code : "HTTP " + error.status}). Please try again.`;
    }
  }

  function show(screen) {
    for (const id of ["start", "register", "login", "home"]) $(id).hidden = id !== screen;
    const first = $(screen).querySelector("input");
    if (first) first.focus();
  }

  function showError(id, error) {
    const element = $(id);
    if (error) { element.textContent = explain(error); element.hidden = false; }
    else { element.textContent = ""; element.hidden = true; }
  }

  function showHome(user) {
    const name = user.email || user.username || user.objectId;
    $("welcome").textContent = `Welcome ${name}`;
    $("avatar").textContent = (user.username || name || "?").slice(0, 1).toUpperCase();
    $("home-username").textContent = user.username || "—";
    $("home-email").textContent = user.email || "—";
    $("home-objectid").textContent = user.objectId;
    $("home-created").textContent = new Date(user.createdAt).toLocaleDateString(undefined, { dateStyle: "long" });
    showError("home-error", null);
    show("home");
  }

  function showStart(notice) {
    $("notice").textContent = notice || "";
    $("notice").hidden = !notice;
    show("start");
  }

  async function submit(form, errorId, action) {
    const button = form.querySelector("button[type=submit]");
    showError(errorId, null);
    button.disabled = true;
    try {
      const viewer = await action();
      saveSession({ sessionToken: viewer.sessionToken, user: viewer.user });
      form.reset();
      showHome(viewer.user);
    } catch (error) {
      showError(errorId, error);
    } finally {
      button.disabled = false;
    }
  }

  $("register-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const fields = { username: $("register-username").value, password: $("register-password").value };
    const email = $("register-email").value.trim();
    if (email) fields.email = email;
    submit(event.target, "register-error", async () => (await gql(
      `mutation SignUp($input: SignUpInput!) { signUp(input: $input) { viewer { sessionToken user { ...UserFields } } } } ${USER_FIELDS}`,
      { input: { fields } })).signUp.viewer);
  });

  $("login-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const input = { username: $("login-username").value.trim(), password: $("login-password").value };
    submit(event.target, "login-error", async () => (await gql(
      `mutation LogIn($input: LogInInput!) { logIn(input: $input) { viewer { sessionToken user { ...UserFields } } } } ${USER_FIELDS}`,
      { input })).logIn.viewer);
  });

  $("logout").addEventListener("click", async () => {
    const session = loadSession();
    $("logout").disabled = true;
    try {
      if (session) await gql("mutation LogOut { logOut(input: {}) { ok } }", {}, session.sessionToken);
    } catch (error) {
      // Signed out here anyway; the server forgets the session when it expires.
    } finally {
      $("logout").disabled = false;
    }
    clearSession();
    showStart("You have logged out.");
  });

  $("go-register").addEventListener("click", () => { showError("register-error", null); show("register"); });
  $("go-login").addEventListener("click", () => { showError("login-error", null); show("login"); });
  for (const back of document.querySelectorAll(".back")) back.addEventListener("click", () => showStart());
  $("password-hint").textContent = `At least ${config.passwordMinLength} characters.`;

  // On load: the stored session at once, then the server's word on it.
  async function start() {
    const session = loadSession();
    if (!session || !session.sessionToken || !session.user) { showStart(); return; }
    showHome(session.user);
    try {
      const data = await gql(`query Viewer { viewer { sessionToken user { ...UserFields } } } ${USER_FIELDS}`, {}, session.sessionToken);
      saveSession({ sessionToken: session.sessionToken, user: data.viewer.user });
      showHome(data.viewer.user);
    } catch (error) {
      if (error.code === 209) { clearSession(); showStart(explain(error)); }
      else showError("home-error", error);
    }
    document.body.dataset.ready = "true";
  }
  start().finally(() => { document.body.dataset.ready = "true"; });
})();
"""#
}

/// The GraphQL explorer: query and variables editors, headers, run, the JSON result, and a
/// schema browser built from introspection.
enum ExplorerPage {
    static let style = #"""
:root { --ink: #1f2430; --muted: #667085; --line: #e3e6ec; --panel: #fff; --bg: #f5f6f9; --accent: #3456d6;
  --code: ui-monospace, SFMono-Regular, Menlo, Consolas, "Liberation Mono", monospace;
  font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--ink); }
* { box-sizing: border-box; }
html, body { margin: 0; height: 100%; background: var(--bg); }
body { display: grid; grid-template-rows: auto 1fr; }
header { display: flex; align-items: center; gap: 16px; padding: 10px 16px; background: #1f2430; color: #fff; flex-wrap: wrap; }
header h1 { font-size: 16px; margin: 0 8px 0 0; font-weight: 650; }
header label { font-size: 12px; color: #c8cdd8; display: flex; align-items: center; gap: 6px; }
header input { font: 12px var(--code); padding: 6px 8px; border-radius: 6px; border: 1px solid #3a4152; background: #2a303e;
  color: #fff; width: 230px; }
#run { margin-left: auto; font: inherit; font-weight: 650; background: #22a06b; border: 0; color: #fff; border-radius: 8px;
  padding: 8px 18px; cursor: pointer; }
#run:hover { background: #1b8a5a; }
#run:disabled { opacity: .6; }
.layout { display: grid; grid-template-columns: minmax(300px, 1fr) minmax(300px, 1fr) 300px; gap: 12px; padding: 12px; min-height: 0; }
.panel { background: var(--panel); border: 1px solid var(--line); border-radius: 10px; display: flex; flex-direction: column; min-height: 0; overflow: hidden; }
.panel h2 { font-size: 11px; letter-spacing: .08em; text-transform: uppercase; color: var(--muted); margin: 0; padding: 10px 12px;
  border-bottom: 1px solid var(--line); display: flex; justify-content: space-between; }
textarea { font: 13px/1.5 var(--code); border: 0; resize: none; padding: 12px; flex: 1; outline: none; color: var(--ink); tab-size: 2; }
#query { min-height: 200px; }
#variables { flex: 0 0 110px; }
.panel h2 + textarea, .panel textarea + h2 { border-top: 1px solid var(--line); }
pre { margin: 0; padding: 12px; font: 13px/1.5 var(--code); overflow: auto; flex: 1; white-space: pre-wrap; overflow-wrap: anywhere; }
#status { font-weight: 500; text-transform: none; letter-spacing: 0; }
#status.bad { color: #b42318; }
#status.good { color: #067647; }
#schema-search { margin: 10px 12px 0; font: inherit; font-size: 13px; padding: 6px 8px; border: 1px solid var(--line); border-radius: 6px; }
#schema { overflow: auto; padding: 8px 12px 12px; font-size: 13px; flex: 1; }
#schema ul { list-style: none; margin: 0; padding: 0; }
#schema li { padding: 4px 0; }
#schema li.field { padding: 6px 0; border-bottom: 1px solid #f0f2f5; }
#schema .type-link { color: var(--accent); cursor: pointer; background: none; border: 0; padding: 0; font: inherit; }
#schema .type-link:hover { text-decoration: underline; }
#schema .kind { color: var(--muted); font-size: 11px; margin-left: 6px; }
#schema .field { font-family: var(--code); font-size: 12px; }
#schema .desc { color: var(--muted); margin: 2px 0 6px; font-size: 12px; line-height: 1.4; }
#schema .crumb { margin-bottom: 8px; }
#schema h3 { margin: 4px 0; font-size: 15px; }
"""#

    static let body = #"""
<header>
  <h1>Gatehouse GraphQL</h1>
  <label>App id <input id="app-id" placeholder="X-Parse-Application-Id" spellcheck="false"></label>
  <label>Session token <input id="session-token" placeholder="X-Parse-Session-Token" spellcheck="false"></label>
  <button id="run" type="button" title="Run (Ctrl+Enter)">&#9654; Run</button>
</header>
<div class="layout">
  <section class="panel">
    <h2>Query <span>Ctrl+Enter runs</span></h2>
    <textarea id="query" spellcheck="false" aria-label="Query"></textarea>
    <h2>Variables (JSON)</h2>
    <textarea id="variables" spellcheck="false" aria-label="Variables">{}</textarea>
  </section>
  <section class="panel">
    <h2>Result <span id="status"></span></h2>
    <pre id="result" aria-live="polite">Press Run to see the result.</pre>
  </section>
  <section class="panel">
    <h2>Schema</h2>
    <input id="schema-search" placeholder="Search types" aria-label="Search types">
    <div id="schema">Loading the schema…</div>
  </section>
</div>
"""#

    static let script = #"""
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
"""#
}
