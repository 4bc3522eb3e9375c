import Foundation
import HTTPServer
import JSON
import Mail
import Sodium

/// The browser pages: the sample app at `GET /`, the GraphQL explorer at `GET /graphql` (for
/// `Accept: text/html` without a `query` parameter) and the pages behind the links in mail
/// (``LinkPages``).
///
/// Each is one self-contained HTML document (no CDN, no build step) compiled into the binary.
/// The Content-Security-Policy allows exactly the page's own inline script and style by their
/// SHA-256 hashes, and network access only to this origin. Server settings the scripts need
/// (the app id, the password minimum, the page's words) travel in a non-executable JSON data
/// block, so the hashes do not depend on them.
struct Pages: Sendable {
    /// `GET /`: start screen, register, log-in and forgotten-password forms, home, account and devices screens.
    let app: HTTPResponse
    /// `GET /graphql` from a browser: editors, headers, run, result, schema browser.
    let explorer: HTTPResponse
    /// `/verify-email` and `/reset-password`.
    let links: LinkPages

    /// `devMailbox`: whether this server shows its outbox at `/_dev/mailbox` (the sample app links to it).
    /// `providers`: the enabled `logInWith` providers; `anonymous` shows "Continue as guest", every
    /// other name a button that takes a pasted ID token.
    init(
        appId: String? = nil, passwordMinLength: Int = 8, appName: String = "Gatehouse", devMailbox: Bool = false,
        providers: [String] = ["anonymous"]
    ) {
        var config: JSONObject = ["passwordMinLength": .int(passwordMinLength)]
        config["appId"] = appId.map { .string($0) } ?? .null
        let explorerConfig = Self.dataBlock(config)
        config["devMailbox"] = .bool(devMailbox)
        config["providers"] = .array(providers.map { .string($0) })
        config["appName"] = .string(appName)
        config["text"] = PageText.json(PageText.filled(.english, appName: appName, passwordMinLength: passwordMinLength))
        app = Self.page(
            title: "Gatehouse", style: AppPage.style, body: AppPage.body, script: AppPage.script,
            config: Self.dataBlock(config))
        explorer = Self.page(
            title: "Gatehouse GraphQL explorer", style: ExplorerPage.style, body: ExplorerPage.body,
            script: ExplorerPage.script, config: explorerConfig)
        links = LinkPages(appId: appId, passwordMinLength: passwordMinLength, appName: appName)
    }

    /// Whether a request to `/graphql` is a browser asking for a page rather than a query.
    static func wantsExplorer(_ request: HTTPRequest) -> Bool {
        request.method == "GET" && request.queryValue("query") == nil
            && (request.headers["Accept"]?.lowercased().contains("text/html") ?? false)
    }

    /// The page's `Content-Security-Policy`: nothing but its own hashed script and style,
    /// `fetch` to this origin, no framing; forms go to `formAction` (default: nowhere, as the
    /// scripts handle the forms, so a password never ends up in a URL even if scripting fails).
    static func contentSecurityPolicy(script: String, style: String, formAction: String = "'none'") -> String {
        "default-src 'none'; script-src '\(hash(script))'; style-src '\(hash(style))'; connect-src 'self'; "
            + "img-src 'self' data:; base-uri 'none'; form-action \(formAction); frame-ancestors 'none'"
    }

    static func hash(_ text: String) -> String {
        "sha256-" + Data(SHA256.digest(text)).base64EncodedString()
    }

    /// `object` as the text of a `<script type="application/json">` block: `<` escaped, so that no
    /// string inside can close the block.
    static func dataBlock(_ object: JSONObject) -> String {
        JSON.object(object).serializedString().replacingOccurrences(of: "<", with: "\\u003c")
    }

    /// One page: the skeleton every page shares, with its headers. `formAction`: where the page's
    /// forms may post (CSP); `cacheControl`: `no-store` for pages that carry a token.
    static func page(
        language: String = "en", title: String, style: String, body: String, script: String, config: String,
        formAction: String = "'none'", cacheControl: String = "no-cache"
    ) -> HTTPResponse {
        let html = """
            <!doctype html>
            <html lang="\(language)">
            <head>
            <meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>\(MailComposer.escape(title))</title>
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
                "Content-Security-Policy": contentSecurityPolicy(script: script, style: style, formAction: formAction),
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",
                "X-Frame-Options": "DENY",
                "Cache-Control": cacheControl,
            ],
            body: Array(html.utf8))
    }

    /// What the scripts of the sample app and the link pages share: the data block as `config`,
    /// `$`, one GraphQL request, and the server's error codes in the page's words (`config.text`).
    static let scriptPrelude = #"""
"use strict";
const config = JSON.parse(document.getElementById("gatehouse-config").textContent);
const $ = (id) => document.getElementById(id);

// config.text[key] with {name} placeholders filled from `values`.
function words(key, values) {
  return config.text[key].replace(/\{(\w+)\}/g, (match, name) => values && name in values ? values[name] : match);
}

// One GraphQL request with extra `headers`; a GraphQL error is thrown as {code, message, retryAfter}.
async function graphQL(query, variables, headers) {
  const all = Object.assign({ "Content-Type": "application/json",
    "Accept": "application/graphql-response+json, application/json" }, headers || {});
  if (config.appId) all["X-Parse-Application-Id"] = config.appId;
  let response;
  try {
    response = await fetch("/graphql", { method: "POST", headers: all, body: JSON.stringify({ query, variables }) });
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

// The server's codes (see the API contract) in plain words; `special` maps a code to another key
// where a form means something else by it (101 on a form asking for the current password). A
// page's own check throws {text}.
function explain(error, special) {
  if (error.text) return error.text;
  if (special && special[error.code]) return words(special[error.code]);
  switch (error.code) {
    case 142: {
      const message = error.message || "";
      if (message === "Password is too common.") return words("error.142.common");
      const long = /^(\S+) is too long \(at most (\d+) /.exec(message);
      if (long && long[1] === "password") return words("error.142.long", { limit: long[2] });
      if (long) return message.charAt(0).toUpperCase() + message.slice(1);
      return words("error.142.short");
    }
    case 101: {
      const locked = /locked.*?(\d+)\s*minute/i.exec(error.message || "");
      if (locked) return locked[1] === "1" ? words("error.101.locked.one") : words("error.101.locked", { minutes: locked[1] });
      return words("error.101");
    }
    case 155: return error.retryAfter ? words("error.155", { seconds: error.retryAfter }) : words("error.155.unknown");
    case 1: case 125: case 200: case 201: case 202: case 203: case 204: case 206: case 209: case "network": case "unauthorized":
      return words("error." + error.code);
    default: return words("error.other", { code: error.code !== undefined ? "code " + error.code : "HTTP " + error.status });
  }
}

"""#
}

/// The sample app: what a typical app built on Gatehouse does, in one page. Its style is also
/// the link pages' (``LinkPages``).
enum AppPage {
    static let style = #"""
:root { --ink: #1d2330; --muted: #5b6475; --line: #d9dee8; --accent: #3456d6; --accent-dark: #2540a8;
  --bad: #b42318; --bad-bg: #fef3f2; --ok-bg: #ecfdf3; font-family: system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
body { margin: 0; min-height: 100vh; display: grid; place-items: center; color: var(--ink);
  background: linear-gradient(160deg, #eef2ff 0%, #f8fafc 55%, #eefbf4 100%); }
main { width: min(420px, calc(100vw - 32px)); background: #fff; border: 1px solid var(--line); border-radius: 16px;
  padding: 32px; box-shadow: 0 12px 40px rgba(29, 35, 48, .08); margin: 24px 0; }
.brand { display: flex; align-items: center; gap: 10px; font-weight: 700; font-size: 20px; margin-bottom: 24px; }
.brand-mark { width: 32px; height: 32px; border-radius: 9px; background: var(--accent); color: #fff;
  display: grid; place-items: center; font-size: 18px; }
h1 { font-size: 24px; margin: 0 0 8px; }
h2 { font-size: 16px; margin: 28px 0 4px; padding-top: 20px; border-top: 1px solid var(--line); }
p.lead { color: var(--muted); margin: 0 0 24px; line-height: 1.5; }
label { display: block; font-size: 14px; font-weight: 600; margin: 16px 0 6px; }
label.check { display: flex; gap: 8px; align-items: center; font-weight: 500; }
input { width: 100%; font: inherit; padding: 10px 12px; border: 1px solid var(--line); border-radius: 10px; }
input[type=checkbox] { width: auto; margin: 0; }
input:focus { outline: 2px solid var(--accent); outline-offset: 1px; border-color: transparent; }
button, a.button { display: block; text-align: center; text-decoration: none; font: inherit; font-weight: 600;
  border-radius: 10px; padding: 11px 16px; cursor: pointer; width: 100%;
  border: 1px solid var(--accent); background: var(--accent); color: #fff; margin-top: 20px; }
button:hover, a.button:hover { background: var(--accent-dark); }
button.secondary { background: #fff; color: var(--accent); margin-top: 12px; }
button.secondary:hover { background: #f3f5ff; }
button.danger { background: var(--bad); border-color: var(--bad); }
button.danger:hover { background: #912018; }
button:disabled { opacity: .6; cursor: progress; }
.link { background: none; border: none; color: var(--muted); width: auto; padding: 0; margin-top: 18px; font-weight: 500; }
.link:hover { background: none; color: var(--ink); text-decoration: underline; }
.error { color: var(--bad); background: var(--bad-bg); border: 1px solid #fecdca; border-radius: 10px;
  padding: 10px 12px; margin: 16px 0 0; font-size: 14px; line-height: 1.4; }
.notice { background: var(--ok-bg); border: 1px solid #abefc6; border-radius: 10px; padding: 10px 12px; margin: 0 0 16px;
  font-size: 14px; line-height: 1.4; }
.notice p { margin: 0; }
.notice p + p { margin-top: 6px; }
.hint { color: var(--muted); font-size: 13px; margin: 6px 0 0; line-height: 1.4; }
dl { display: grid; grid-template-columns: max-content 1fr; gap: 8px 16px; margin: 20px 0 0; font-size: 14px; }
dt { color: var(--muted); }
dd { margin: 0; overflow-wrap: anywhere; }
.avatar { width: 56px; height: 56px; border-radius: 50%; background: #e0e7ff; color: var(--accent-dark);
  display: grid; place-items: center; font-size: 24px; font-weight: 700; margin-bottom: 16px; }
ul.devices { list-style: none; margin: 16px 0 0; padding: 0; }
ul.devices li { border: 1px solid var(--line); border-radius: 10px; padding: 12px; margin-bottom: 10px; font-size: 14px; }
ul.devices li button { margin-top: 10px; padding: 7px 12px; }
.badge { font-size: 12px; font-weight: 600; color: #067647; background: var(--ok-bg); border-radius: 6px; padding: 2px 6px; margin-left: 6px; }
canvas.qr { display: block; margin: 16px auto 0; image-rendering: pixelated; }
code { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 13px; overflow-wrap: anywhere; }
ol.codes { columns: 2; font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; margin: 10px 0; padding-left: 28px; }
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
    <button id="passkey-login" type="button" class="secondary passkey-only" hidden>Log in with a passkey</button>
    <div id="provider-buttons"></div>
    <button id="go-guest" type="button" class="secondary" hidden>Continue as guest</button>
    <p id="start-error" class="error" role="alert" hidden></p>
  </section>

  <section id="provider" hidden>
    <h1 id="provider-title">Continue with a provider</h1>
    <p class="lead">Development mode: paste an ID token the provider issued for this app.</p>
    <form id="provider-form" novalidate>
      <label for="provider-token">ID token</label>
      <input id="provider-token" name="token" autocomplete="off" spellcheck="false" required>
      <p id="provider-error" class="error" role="alert" hidden></p>
      <button id="provider-submit" type="submit">Continue</button>
    </form>
    <button type="button" class="link back">&larr; Back</button>
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
      <p class="hint password-hint"></p>
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
    <button id="passkey-login-named" type="button" class="secondary passkey-only" hidden>Log in with a passkey</button>
    <button id="go-forgot" type="button" class="link">Forgot password?</button>
    <button type="button" class="link back">&larr; Back</button>
  </section>

  <section id="second-factor" hidden>
    <h1>Two-step verification</h1>
    <p class="lead">Enter the 6-digit code from your authenticator app, or one of your recovery codes.</p>
    <form id="second-factor-form" novalidate>
      <label for="second-factor-code">Code</label>
      <input id="second-factor-code" name="code" autocomplete="one-time-code" spellcheck="false" required>
      <p id="second-factor-error" class="error" role="alert" hidden></p>
      <button id="second-factor-submit" type="submit">Verify</button>
    </form>
    <button type="button" class="link back">&larr; Back</button>
  </section>

  <section id="forgot" hidden>
    <h1>Forgot your password?</h1>
    <p class="lead">Enter the email address of your account, and we will send you a link to choose a new password.</p>
    <div id="forgot-sent" class="notice" role="status" hidden>
      <p>If an account has this email, a link is on its way.</p>
      <p class="mailbox-hint" hidden>No mail server is set up: <a href="/_dev/mailbox">open the development mailbox</a>.</p>
    </div>
    <form id="forgot-form" novalidate>
      <label for="forgot-email">Email</label>
      <input id="forgot-email" name="email" type="email" autocomplete="email" required>
      <p id="forgot-error" class="error" role="alert" hidden></p>
      <button id="forgot-submit" type="submit">Send reset link</button>
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
    <button id="go-account" type="button">Account</button>
    <button id="go-devices" type="button" class="secondary">Signed-in devices</button>
    <button id="logout" type="button" class="secondary">Log out</button>
  </section>

  <section id="account" hidden>
    <h1>Account</h1>
    <div id="account-notice" class="notice" role="status" hidden>
      <p id="account-notice-text"></p>
      <p class="mailbox-hint" hidden>No mail server is set up: <a href="/_dev/mailbox">open the development mailbox</a>.</p>
    </div>
    <h2>Email</h2>
    <p class="hint" id="account-email"></p>
    <button id="send-verification" type="button" class="secondary" hidden>Send verification link</button>
    <form id="email-form" novalidate>
      <label for="email-new">New email</label>
      <input id="email-new" type="email" autocomplete="email">
      <div id="email-current-box" hidden>
        <label for="email-current">Current password</label>
        <input id="email-current" type="password" autocomplete="current-password">
      </div>
      <p id="email-error" class="error" role="alert" hidden></p>
      <button id="email-submit" type="submit">Change email</button>
    </form>
    <h2>Password</h2>
    <form id="password-form" novalidate>
      <label for="password-current">Current password</label>
      <input id="password-current" type="password" autocomplete="current-password">
      <label for="password-new">New password</label>
      <input id="password-new" type="password" autocomplete="new-password">
      <p class="hint password-hint"></p>
      <p id="password-error" class="error" role="alert" hidden></p>
      <button id="password-submit" type="submit">Change password</button>
    </form>
    <h2>Passkeys</h2>
    <p class="hint">Log in with your device's screen lock or a security key instead of a password.</p>
    <ul id="passkey-list" class="devices"></ul>
    <p id="passkey-unsupported" class="hint" hidden>This browser does not support passkeys.</p>
    <div class="passkey-only" hidden>
      <label for="passkey-name">Name of the new passkey</label>
      <input id="passkey-name" autocomplete="off" placeholder="Laptop">
      <p id="passkey-error" class="error" role="alert" hidden></p>
      <button id="passkey-add" type="button" class="secondary">Add a passkey</button>
    </div>
    <h2>Two-step verification</h2>
    <p class="hint" id="totp-status"></p>
    <p id="totp-status-error" class="error" role="alert" hidden></p>
    <button id="totp-start" type="button" class="secondary" hidden>Set up an authenticator app</button>
    <div id="totp-enrol" hidden>
      <p class="hint">Scan this QR code with your authenticator app, or enter the key by hand.</p>
      <canvas id="totp-qr" class="qr"></canvas>
      <p id="totp-qr-too-long" class="hint" hidden>The link is too long for a QR code: enter the key in your app by hand.</p>
      <dl>
        <dt>Key</dt><dd><code id="totp-secret"></code></dd>
        <dt>Link</dt><dd><code id="totp-uri"></code></dd>
      </dl>
      <form id="totp-form" novalidate>
        <label for="totp-code">Code from the app</label>
        <input id="totp-code" inputmode="numeric" autocomplete="one-time-code" spellcheck="false">
        <p id="totp-error" class="error" role="alert" hidden></p>
        <button id="totp-submit" type="submit">Turn on</button>
      </form>
      <button id="totp-cancel" type="button" class="link">Cancel</button>
    </div>
    <div id="totp-recovery" class="notice" hidden>
      <p><strong>Your recovery codes.</strong> Each works once in place of a code, if you lose your device.
        Save them now: they are not shown again.</p>
      <ol id="recovery-codes" class="codes"></ol>
      <p id="recovery-copied" role="status" hidden>Copied.</p>
      <button id="recovery-copy" type="button" class="secondary">Copy the codes</button>
      <button id="recovery-done" type="button" class="secondary">I have saved them</button>
    </div>
    <div id="totp-manage" hidden>
      <form id="totp-regenerate-form" novalidate>
        <label for="totp-regenerate-code">Code from the app</label>
        <input id="totp-regenerate-code" inputmode="numeric" autocomplete="one-time-code" spellcheck="false">
        <p id="totp-manage-error" class="error" role="alert" hidden></p>
        <button id="totp-regenerate" type="submit" class="secondary">New recovery codes</button>
      </form>
      <button id="totp-disable" type="button" class="danger">Turn off two-step verification</button>
    </div>
    <h2>Delete account</h2>
    <form id="delete-form" novalidate>
      <p class="hint">This deletes your account and signs out every device. It cannot be undone.</p>
      <label for="delete-current">Current password</label>
      <input id="delete-current" type="password" autocomplete="current-password">
      <label class="check"><input id="delete-confirm" type="checkbox"> Yes, delete my account</label>
      <p id="delete-error" class="error" role="alert" hidden></p>
      <button id="delete-submit" type="submit" class="danger">Delete account</button>
    </form>
    <button type="button" class="link to-home">&larr; Back</button>
  </section>

  <section id="devices" hidden>
    <h1>Signed-in devices</h1>
    <p class="lead">Everywhere you are logged in now. Sign out a device you don't recognise.</p>
    <p id="devices-notice" class="notice" role="status" hidden></p>
    <ul id="device-list" class="devices"></ul>
    <p id="devices-error" class="error" role="alert" hidden></p>
    <button id="revoke-others" type="button" class="secondary">Sign out all other devices</button>
    <button type="button" class="link to-home">&larr; Back</button>
  </section>

  <footer><a href="/graphql">GraphQL explorer</a></footer>
</main>
"""#

    /// The app's script, after ``Pages/scriptPrelude``.
    static let script = Pages.scriptPrelude + qrCode + #"""
(() => {
  const SESSION_KEY = "gatehouse.session";
  const INSTALLATION_KEY = "gatehouse.installationId";
  const USER_FIELDS = "fragment UserFields on User { id objectId username email emailVerified createdAt updatedAt }";
  const SCREENS = ["start", "register", "login", "second-factor", "forgot", "provider", "home", "account", "devices"];
  const ANONYMOUS_KEY = "gatehouse.anonymousId";
  // On the account forms 101 is about the current password.
  const CURRENT_PASSWORD = { 101: "error.101.current" };

  // A random UUID kept in localStorage under `key`: the installation id, and the guest's id (the
  // same guest comes back in this browser).
  function storedId(key) {
    let id = localStorage.getItem(key);
    if (!id) {
      const bytes = crypto.getRandomValues(new Uint8Array(16));
      bytes[6] = (bytes[6] & 0x0f) | 0x40;
      bytes[8] = (bytes[8] & 0x3f) | 0x80;
      const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      id = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
      localStorage.setItem(key, id);
    }
    return id;
  }
  function installationId() { return storedId(INSTALLATION_KEY); }

  function loadSession() {
    try { return JSON.parse(localStorage.getItem(SESSION_KEY)); } catch (e) { return null; }
  }
  function saveSession(session) { localStorage.setItem(SESSION_KEY, JSON.stringify(session)); }
  function clearSession() { localStorage.removeItem(SESSION_KEY); }

  // One GraphQL request as this installation, with the session's token when given.
  function gql(query, variables, token) {
    const headers = { "X-Parse-Installation-Id": installationId() };
    if (token) headers["X-Parse-Session-Token"] = token;
    return graphQL(query, variables, headers);
  }

  function show(screen) {
    for (const id of SCREENS) $(id).hidden = id !== screen;
    const first = $(screen).querySelector("input:not([type=checkbox])");
    if (first) first.focus();
  }

  function showError(id, error, special) {
    const element = $(id);
    if (error) { element.textContent = explain(error, special); element.hidden = false; }
    else { element.textContent = ""; element.hidden = true; }
  }

  function showMailboxHint(container) {
    for (const hint of container.querySelectorAll(".mailbox-hint")) hint.hidden = !config.devMailbox;
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
    showError("start-error", null);
    show("start");
  }

  // Runs `action` for a form: button disabled meanwhile, errors in words next to it. An ended
  // session goes back to the start screen.
  async function run(button, errorId, action, special) {
    showError(errorId, null);
    button.disabled = true;
    try {
      await action();
    } catch (error) {
      if (error.code === 209 && loadSession()) { clearSession(); showStart(explain(error)); }
      else showError(errorId, error, special);
    } finally {
      button.disabled = false;
    }
  }

  function onSubmit(id, errorId, action, special) {
    $(id).addEventListener("submit", (event) => {
      event.preventDefault();
      run(event.target.querySelector("button[type=submit]"), errorId, action, special);
    });
  }

  function logInWith(form, viewer) {
    saveSession({ sessionToken: viewer.sessionToken, user: viewer.user });
    form.reset();
    showHome(viewer.user);
  }

  onSubmit("register-form", "register-error", async () => {
    const fields = { username: $("register-username").value, password: $("register-password").value };
    const email = $("register-email").value.trim();
    if (email) fields.email = email;
    logInWith($("register-form"), (await gql(
      `mutation SignUp($input: SignUpInput!) { signUp(input: $input) { viewer { sessionToken user { ...UserFields } } } } ${USER_FIELDS}`,
      { input: { fields } })).signUp.viewer);
  });

  // A log-in of a user with two-step verification answers -1 without the code: the code prompt,
  // then the same log-in again with authData.mfa (a code or a recovery code). `attempt(mfa)`
  // logs in, with `mfa` when it is not null, and returns the viewer.
  let pendingLogIn = null;
  async function logInAskingForTheCode(form, attempt) {
    let viewer;
    try {
      viewer = await attempt(null);
    } catch (error) {
      if (error.code !== -1) throw error;
      pendingLogIn = { form, attempt };
      $("second-factor-form").reset();
      showError("second-factor-error", null);
      show("second-factor");
      return;
    }
    logInWith(form, viewer);
  }

  $("second-factor").querySelector(".back").addEventListener("click", () => { pendingLogIn = null; });
  onSubmit("second-factor-form", "second-factor-error", async () => {
    const token = $("second-factor-code").value.trim();
    if (!token) throw { text: "Enter the code from your authenticator app." };
    const { form, attempt } = pendingLogIn;
    const viewer = await attempt({ token }).catch((error) => { throw mfaError(error); });
    pendingLogIn = null;
    $("second-factor-form").reset();
    logInWith(form, viewer);
  });

  onSubmit("login-form", "login-error", () => {
    const input = { username: $("login-username").value.trim(), password: $("login-password").value };
    return logInAskingForTheCode($("login-form"), async (mfa) => (await gql(
      `mutation LogIn($input: LogInInput!) { logIn(input: $input) { viewer { sessionToken user { ...UserFields } } } } ${USER_FIELDS}`,
      { input: mfa ? Object.assign({ authData: { mfa } }, input) : input })).logIn.viewer);
  });

  // The second factor's refusals in words (141: a wrong, used or expired code).
  function mfaError(error) {
    if (error.code === 141) return { text: "That code is not right, or it has been used already. Try the next code from your app." };
    return error;
  }

  // Passkeys: the server's options (WebAuthn JSON forms, binary fields in base64url) go to
  // navigator.credentials and the credential back as JSON; the browser's own converters when
  // it has them.
  const passkeysSupported = !!(window.PublicKeyCredential && navigator.credentials);
  for (const element of document.querySelectorAll(".passkey-only")) element.hidden = !passkeysSupported;

  function fromBase64URL(text) {
    const binary = atob(text.replace(/-/g, "+").replace(/_/g, "/"));
    return Uint8Array.from(binary, (c) => c.charCodeAt(0)).buffer;
  }
  function toBase64URL(buffer) {
    return btoa(String.fromCharCode(...new Uint8Array(buffer))).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
  }
  function withIds(list) { return (list || []).map((item) => Object.assign({}, item, { id: fromBase64URL(item.id) })); }

  function creationOptions(json) {
    if (PublicKeyCredential.parseCreationOptionsFromJSON) return PublicKeyCredential.parseCreationOptionsFromJSON(json);
    return Object.assign({}, json, { challenge: fromBase64URL(json.challenge),
      user: Object.assign({}, json.user, { id: fromBase64URL(json.user.id) }), excludeCredentials: withIds(json.excludeCredentials) });
  }
  function requestOptions(json) {
    if (PublicKeyCredential.parseRequestOptionsFromJSON) return PublicKeyCredential.parseRequestOptionsFromJSON(json);
    return Object.assign({}, json, { challenge: fromBase64URL(json.challenge), allowCredentials: withIds(json.allowCredentials) });
  }
  function credentialJSON(credential) {
    if (credential.toJSON) return credential.toJSON();
    const r = credential.response;
    const response = { clientDataJSON: toBase64URL(r.clientDataJSON) };
    if (r.attestationObject) {
      response.attestationObject = toBase64URL(r.attestationObject);
      response.transports = r.getTransports ? r.getTransports() : [];
    } else {
      response.authenticatorData = toBase64URL(r.authenticatorData);
      response.signature = toBase64URL(r.signature);
      if (r.userHandle) response.userHandle = toBase64URL(r.userHandle);
    }
    return { id: credential.id, rawId: toBase64URL(credential.rawId), type: credential.type,
      authenticatorAttachment: credential.authenticatorAttachment || undefined,
      clientExtensionResults: credential.getClientExtensionResults(), response };
  }
  // navigator.credentials, with the browser's refusals in words.
  async function browserCredential(call, refused) {
    try {
      return await call();
    } catch (error) {
      if (error && error.name === "InvalidStateError") throw { text: "This device already has a passkey for this account." };
      if (error && error.name === "NotAllowedError") throw { text: refused };
      throw { text: `The browser refused: ${error && error.message ? error.message : error}` };
    }
  }

  // Log-in with a passkey: discoverable (the authenticator offers this site's passkeys) without
  // a username, or the passkeys of `username`.
  async function logInWithPasskey(form, username) {
    const input = username ? { username } : {};
    const options = (await gql("mutation PasskeyLoginOptions($input: PasskeyLoginOptionsInput!) { passkeyLoginOptions(input: $input) { options } }",
      { input })).passkeyLoginOptions.options;
    const credential = await browserCredential(() => navigator.credentials.get({ publicKey: requestOptions(options) }),
      "No passkey was used: it was cancelled, or this device has none for this site.");
    let viewer;
    try {
      viewer = (await gql(`mutation LogInWithPasskey($input: LogInWithPasskeyInput!) { logInWithPasskey(input: $input) { viewer { sessionToken user { ...UserFields } } } } ${USER_FIELDS}`,
        { input: { credential: credentialJSON(credential) } })).logInWithPasskey.viewer;
    } catch (error) {
      if (error.code === 101) throw { text: "That passkey was not accepted. It may have been removed from your account." };
      throw error;
    }
    logInWith(form, viewer);
  }
  $("passkey-login").addEventListener("click", () => run($("passkey-login"), "start-error", () =>
    logInWithPasskey($("login-form"), null)));
  $("passkey-login-named").addEventListener("click", () => run($("passkey-login-named"), "login-error", () =>
    logInWithPasskey($("login-form"), $("login-username").value.trim())));

  // logInWith one provider's authData (and the code prompt for a user with two-step
  // verification); the provider's refusals (252, 101) in the server's words, which name the provider.
  function logInWithProvider(form, name, data) {
    return logInAskingForTheCode(form, async (mfa) => {
      const authData = { [name]: data };
      if (mfa) authData.mfa = mfa;
      try {
        return (await gql(
          `mutation LogInWith($input: LogInWithInput!) { logInWith(input: $input) { viewer { sessionToken user { ...UserFields } } } } ${USER_FIELDS}`,
          { input: { authData } })).logInWith.viewer;
      } catch (error) {
        if (error.code === 252 || (error.code === 101 && /^Invalid authData/.test(error.message || ""))) throw { text: error.message };
        throw error;
      }
    });
  }

  // The `sub` claim of a JWT, read without checking the token (the server checks it and requires
  // authData.<name>.id to equal it).
  function tokenSubject(token) {
    const parts = token.split(".");
    try {
      const payload = JSON.parse(atob(parts[1].replace(/-/g, "+").replace(/_/g, "/")));
      if (parts.length === 3 && typeof payload.sub === "string" && payload.sub) return payload.sub;
    } catch (e) { /* not a JWT */ }
    throw { text: "That is not an ID token (a JWT with a sub claim)." };
  }

  let providerName = null;
  for (const name of config.providers) {
    if (name === "anonymous") { $("go-guest").hidden = false; continue; }
    const button = document.createElement("button");
    button.type = "button";
    button.className = "secondary";
    button.dataset.provider = name;
    button.textContent = `Continue with ${name.charAt(0).toUpperCase()}${name.slice(1)}`;
    button.addEventListener("click", () => {
      providerName = name;
      $("provider-title").textContent = button.textContent;
      $("provider-form").reset();
      showError("provider-error", null);
      show("provider");
    });
    $("provider-buttons").append(button);
  }

  $("go-guest").addEventListener("click", () => run($("go-guest"), "start-error", () =>
    logInWithProvider($("provider-form"), "anonymous", { id: storedId(ANONYMOUS_KEY) })));

  onSubmit("provider-form", "provider-error", async () => {
    const token = $("provider-token").value.trim();
    // Apple's token field is `token`; Google's and generic OpenID Connect providers' `id_token`.
    const data = { id: tokenSubject(token), [providerName === "apple" ? "token" : "id_token"]: token };
    await logInWithProvider($("provider-form"), providerName, data);
  });

  onSubmit("forgot-form", "forgot-error", async () => {
    $("forgot-sent").hidden = true;
    await gql("mutation ResetPassword($input: ResetPasswordInput!) { resetPassword(input: $input) { ok } }",
      { input: { email: $("forgot-email").value.trim() } });
    showMailboxHint($("forgot-sent"));
    $("forgot-sent").hidden = false;
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

  // The account screen: email (and its verification), password, deletion.
  function accountNotice(text) {
    $("account-notice-text").textContent = text || "";
    for (const hint of $("account-notice").querySelectorAll(".mailbox-hint")) hint.hidden = true;
    $("account-notice").hidden = !text;
  }

  function showAccount(user) {
    $("account-email").textContent = user.email
      ? `${user.email} · ${user.emailVerified ? "verified" : "not verified"}` : "No email address yet.";
    $("send-verification").hidden = !user.email || user.emailVerified;
  }

  async function updateUser(fields, currentPassword) {
    const session = loadSession();
    const input = { id: session.user.objectId, fields };
    if (currentPassword) input.currentPassword = currentPassword;
    const user = (await gql(
      `mutation UpdateUser($input: UpdateUserInput!) { updateUser(input: $input) { user { ...UserFields } } } ${USER_FIELDS}`,
      { input }, session.sessionToken)).updateUser.user;
    saveSession({ sessionToken: session.sessionToken, user });
    showAccount(user);
    return user;
  }

  $("go-account").addEventListener("click", () => {
    for (const form of ["email-form", "password-form", "delete-form", "totp-form", "totp-regenerate-form"]) $(form).reset();
    for (const error of ["email-error", "password-error", "delete-error", "passkey-error", "totp-error", "totp-manage-error"]) showError(error, null);
    $("email-current-box").hidden = true;
    $("passkey-name").value = "";
    $("totp-recovery").hidden = true;
    accountNotice(null);
    showAccount(loadSession().user);
    showTOTP(null);
    show("account");
    run($("totp-start"), "totp-status-error", loadTOTP);
    if (passkeysSupported) run($("passkey-add"), "passkey-error", loadPasskeys);
    else $("passkey-unsupported").hidden = false;
  });

  // Without a recent log-in (206) the passkey and two-step settings want a fresh one.
  function freshLogIn(error, text) {
    if (error.code === 206) return { text: text || "For your security, log out and log in again, then try once more." };
    return mfaError(error);
  }

  async function loadPasskeys() {
    const passkeys = (await gql("query Passkeys { viewer { passkeys { id name createdAt lastUsedAt } } }",
      {}, loadSession().sessionToken)).viewer.passkeys;
    const list = $("passkey-list");
    list.replaceChildren();
    for (const passkey of passkeys) {
      const item = document.createElement("li");
      item.dataset.id = passkey.id;
      const name = document.createElement("strong");
      name.textContent = passkey.name;
      const detail = document.createElement("div");
      detail.className = "hint";
      detail.textContent = `Added ${when(passkey.createdAt)} · ${passkey.lastUsedAt ? "last used " + when(passkey.lastUsedAt) : "not used yet"}`;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "secondary remove";
      button.textContent = "Remove";
      button.addEventListener("click", () => run(button, "passkey-error", async () => {
        try {
          await gql("mutation RemovePasskey($input: RemovePasskeyInput!) { removePasskey(input: $input) { ok } }",
            { input: { id: passkey.id } }, loadSession().sessionToken);
        } catch (error) {
          if (error.code === 142) throw { text: error.message };
          throw freshLogIn(error);
        }
        accountNotice(`The passkey ${passkey.name} has been removed.`);
        await loadPasskeys();
      }));
      item.append(name, detail, button);
      list.append(item);
    }
  }

  $("passkey-add").addEventListener("click", () => run($("passkey-add"), "passkey-error", async () => {
    accountNotice(null);
    const token = loadSession().sessionToken;
    let options;
    try {
      options = (await gql("mutation PasskeyRegistrationOptions { passkeyRegistrationOptions(input: {}) { options } }",
        {}, token)).passkeyRegistrationOptions.options;
    } catch (error) { throw freshLogIn(error); }
    const credential = await browserCredential(() => navigator.credentials.create({ publicKey: creationOptions(options) }),
      "No passkey was made: it was cancelled or timed out.");
    const input = { credential: credentialJSON(credential) };
    const name = $("passkey-name").value.trim();
    if (name) input.name = name;
    let passkey;
    try {
      passkey = (await gql("mutation RegisterPasskey($input: RegisterPasskeyInput!) { registerPasskey(input: $input) { passkey { id name } } }",
        { input }, token)).registerPasskey.passkey;
    } catch (error) {
      if (error.code === 142) throw { text: "The passkey could not be registered. Try again." };
      throw freshLogIn(error);
    }
    $("passkey-name").value = "";
    accountNotice(`The passkey ${passkey.name} has been added. You can log in with it now.`);
    await loadPasskeys();
  }));

  // Two-step verification (TOTP): the page makes the secret, shows it as an otpauth:// link
  // and its QR code, and turns it on with the first code from the app.
  // `user.authData` says whether it is on; `showTOTP(null)` while that is being read.
  function showTOTP(authData) {
    const known = authData !== null;
    const enabled = !!(authData && authData.mfa && authData.mfa.status === "enabled");
    $("totp-status").textContent = !known ? "Checking…" : enabled
      ? "On: logging in asks for a code from your authenticator app."
      : "Off: add a code from an authenticator app to your password.";
    $("totp-start").hidden = !known || enabled;
    $("totp-manage").hidden = !enabled;
    $("totp-enrol").hidden = true;
  }

  async function loadTOTP() {
    const user = (await gql("query AuthData { viewer { user { authData } } }", {}, loadSession().sessionToken)).viewer.user;
    showTOTP(user.authData || {});
  }

  // 160 random bits in base32 (RFC 4648, no padding): 32 characters.
  function newSecret() {
    const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    const bytes = crypto.getRandomValues(new Uint8Array(20));
    let bits = "";
    for (const byte of bytes) bits += byte.toString(2).padStart(8, "0");
    let secret = "";
    for (let i = 0; i < bits.length; i += 5) secret += alphabet[parseInt(bits.slice(i, i + 5), 2)];
    return secret;
  }

  // The QR code on the canvas: 4 pixels a module, with the four-module quiet zone.
  function drawQR(canvas, text) {
    const modules = qrCode(text);
    const scale = 4, quiet = 4, side = (modules.length + 2 * quiet) * scale;
    canvas.width = side;
    canvas.height = side;
    const context = canvas.getContext("2d");
    context.fillStyle = "#fff";
    context.fillRect(0, 0, side, side);
    context.fillStyle = "#000";
    modules.forEach((row, y) => row.forEach((dark, x) => {
      if (dark) context.fillRect((x + quiet) * scale, (y + quiet) * scale, scale, scale);
    }));
  }

  let enrolSecret = null;
  $("totp-start").addEventListener("click", () => {
    const user = loadSession().user;
    enrolSecret = newSecret();
    const issuer = encodeURIComponent(config.appName);
    const uri = `otpauth://totp/${issuer}:${encodeURIComponent(user.username || user.email || user.objectId)}?secret=${enrolSecret}&issuer=${issuer}`;
    $("totp-secret").textContent = enrolSecret.replace(/(.{4})(?=.)/g, "$1 ");
    $("totp-uri").textContent = uri;
    let drawn = true;
    try { drawQR($("totp-qr"), uri); } catch (e) { drawn = false; }
    $("totp-qr").hidden = !drawn;
    $("totp-qr-too-long").hidden = drawn;
    $("totp-form").reset();
    showError("totp-error", null);
    $("totp-start").hidden = true;
    $("totp-enrol").hidden = false;
    $("totp-code").focus();
  });
  $("totp-cancel").addEventListener("click", () => { enrolSecret = null; showTOTP({}); });

  // updateUser with authData.mfa; the answer's authDataResponse has the recovery codes. `stale`:
  // what to say when the session may not do this (206).
  async function updateMFA(mfa, stale) {
    const session = loadSession();
    const user = (await gql(
      "mutation UpdateUser($input: UpdateUserInput!) { updateUser(input: $input) { user { authData authDataResponse } } }",
      { input: { id: session.user.objectId, fields: { authData: { mfa } } } }, session.sessionToken).catch((error) => { throw freshLogIn(error, stale); }))
      .updateUser.user;
    showTOTP(user.authData || {});
    return user.authDataResponse;
  }

  function showRecoveryCodes(response) {
    const list = $("recovery-codes");
    list.replaceChildren();
    for (const code of response.mfa.recovery) {
      const item = document.createElement("li");
      item.textContent = code;
      list.append(item);
    }
    $("recovery-copied").hidden = true;
    $("totp-recovery").hidden = false;
  }

  onSubmit("totp-form", "totp-error", async () => {
    const token = $("totp-code").value.replace(/\s/g, "");
    if (!/^\d{6}$/.test(token)) throw { text: "Enter the 6-digit code your app shows." };
    const response = await updateMFA({ secret: enrolSecret, token });
    enrolSecret = null;
    accountNotice("Two-step verification is on.");
    showRecoveryCodes(response);
  });

  onSubmit("totp-regenerate-form", "totp-manage-error", async () => {
    const token = $("totp-regenerate-code").value.replace(/\s/g, "");
    if (!token) throw { text: "Enter the code from your authenticator app." };
    const response = await updateMFA({ token, recovery: true });
    $("totp-regenerate-form").reset();
    accountNotice("You have new recovery codes; the old ones no longer work.");
    showRecoveryCodes(response);
  });

  $("totp-disable").addEventListener("click", () => run($("totp-disable"), "totp-manage-error", async () => {
    await updateMFA(null, "For your security, log out and log in again with a code from your app, then turn it off.");
    $("totp-recovery").hidden = true;
    accountNotice("Two-step verification is off.");
  }));

  $("recovery-copy").addEventListener("click", () => run($("recovery-copy"), "totp-manage-error", async () => {
    const codes = [...$("recovery-codes").children].map((item) => item.textContent).join("\n");
    try { await navigator.clipboard.writeText(codes); } catch (e) {
      throw { text: "The browser did not allow copying: select the codes and copy them yourself." };
    }
    $("recovery-copied").hidden = false;
  }));
  $("recovery-done").addEventListener("click", () => { $("totp-recovery").hidden = true; });

  $("send-verification").addEventListener("click", () => run($("send-verification"), "email-error", async () => {
    const email = loadSession().user.email;
    await gql("mutation SendVerificationEmail($input: SendVerificationEmailInput!) { sendVerificationEmail(input: $input) { ok } }",
      { input: { email } });
    accountNotice(`A verification link is on its way to ${email}.`);
    showMailboxHint($("account-notice"));
  }));

  // Without a recent log-in the server wants the current password (206): ask for it.
  $("email-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const current = $("email-current-box").hidden ? null : $("email-current").value;
    run($("email-submit"), "email-error", async () => {
      accountNotice(null);
      try {
        const user = await updateUser({ email: $("email-new").value.trim() }, current);
        $("email-form").reset();
        $("email-current-box").hidden = true;
        accountNotice(`Your email is now ${user.email}.`);
      } catch (error) {
        if (error.code === 206) { $("email-current-box").hidden = false; $("email-current").focus(); }
        throw error;
      }
    }, Object.assign({ 203: "error.203.other" }, CURRENT_PASSWORD));
  });

  onSubmit("password-form", "password-error", async () => {
    accountNotice(null);
    if (!$("password-current").value) throw { code: 206 };
    await updateUser({ password: $("password-new").value }, $("password-current").value);
    $("password-form").reset();
    accountNotice("Your password has been changed. Your other devices have been signed out.");
  }, CURRENT_PASSWORD);

  onSubmit("delete-form", "delete-error", async () => {
    if (!$("delete-current").value) throw { code: 206 };
    if (!$("delete-confirm").checked) throw { text: "Tick the box to confirm that your account should be deleted." };
    const session = loadSession();
    await gql("mutation DeleteUser($input: DeleteUserInput!) { deleteUser(input: $input) { user { objectId } } }",
      { input: { id: session.user.objectId, currentPassword: $("delete-current").value } }, session.sessionToken);
    clearSession();
    showStart("Your account has been deleted.");
  }, CURRENT_PASSWORD);

  // Signed-in devices: the user's live sessions, newest first.
  function deviceName(userAgent) {
    if (!userAgent) return "Unknown device";
    const browser = [["Edg/", "Edge"], ["Firefox/", "Firefox"], ["Chrome/", "Chrome"], ["Safari/", "Safari"]]
      .find(([mark]) => userAgent.includes(mark));
    const system = [["Windows", "Windows"], ["Android", "Android"], ["iPhone", "iPhone"], ["iPad", "iPad"],
      ["Mac OS", "macOS"], ["Linux", "Linux"]].find(([mark]) => userAgent.includes(mark));
    if (browser && system) return `${browser[1]} on ${system[1]}`;
    return userAgent.length > 60 ? userAgent.slice(0, 60) + "…" : userAgent;
  }

  function when(date) {
    return new Date(date).toLocaleString(undefined, { dateStyle: "medium", timeStyle: "short" });
  }

  async function loadDevices() {
    const session = loadSession();
    const sessions = (await gql("query Sessions { viewer { sessions { id current createdAt lastUsedAt userAgent installationId } } }",
      {}, session.sessionToken)).viewer.sessions;
    const list = $("device-list");
    list.replaceChildren();
    for (const device of sessions) {
      const item = document.createElement("li");
      item.dataset.id = device.id;
      const name = document.createElement("strong");
      name.textContent = deviceName(device.userAgent);
      item.append(name);
      if (device.current) {
        const badge = document.createElement("span");
        badge.className = "badge";
        badge.textContent = "This device";
        item.append(badge);
      }
      const detail = document.createElement("div");
      detail.className = "hint";
      detail.textContent = `Signed in ${when(device.createdAt)} · last used ${when(device.lastUsedAt)}`;
      item.append(detail);
      if (!device.current) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "secondary revoke";
        button.textContent = "Sign out";
        button.addEventListener("click", () => run(button, "devices-error", async () => {
          await gql("mutation RevokeSession($input: RevokeSessionInput!) { revokeSession(input: $input) { ok } }",
            { input: { id: device.id } }, loadSession().sessionToken);
          devicesNotice(`Signed out ${deviceName(device.userAgent)}.`);
          await loadDevices();
        }));
        item.append(button);
      }
      list.append(item);
    }
    $("revoke-others").hidden = !sessions.some((device) => !device.current);
  }

  function devicesNotice(text) {
    $("devices-notice").textContent = text || "";
    $("devices-notice").hidden = !text;
  }

  $("go-devices").addEventListener("click", () => {
    devicesNotice(null);
    $("device-list").replaceChildren();
    show("devices");
    run($("go-devices"), "devices-error", loadDevices);
  });

  $("revoke-others").addEventListener("click", () => run($("revoke-others"), "devices-error", async () => {
    const revoked = (await gql("mutation RevokeOtherSessions { revokeOtherSessions(input: {}) { revoked } }",
      {}, loadSession().sessionToken)).revokeOtherSessions.revoked;
    devicesNotice(`Signed out ${revoked} other device${revoked === 1 ? "" : "s"}.`);
    await loadDevices();
  }));

  $("go-register").addEventListener("click", () => { showError("register-error", null); show("register"); });
  $("go-login").addEventListener("click", () => { showError("login-error", null); show("login"); });
  $("go-forgot").addEventListener("click", () => {
    showError("forgot-error", null);
    $("forgot-sent").hidden = true;
    $("forgot-email").value = $("login-username").value.includes("@") ? $("login-username").value.trim() : "";
    show("forgot");
  });
  for (const back of document.querySelectorAll(".back")) back.addEventListener("click", () => showStart());
  for (const back of document.querySelectorAll(".to-home")) back.addEventListener("click", () => showHome(loadSession().user));
  for (const hint of document.querySelectorAll(".password-hint")) hint.textContent = `At least ${config.passwordMinLength} characters.`;

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
