// The sample app at GET /: what a typical app built on Gatehouse does, in one page (app.html).
// Served after prelude.js and qr-code.js.
(() => {
  const SESSION_KEY = "gatehouse.session";
  const INSTALLATION_KEY = "gatehouse.installationId";
  const USER_FIELDS = "fragment UserFields on User { id objectId username email emailVerified createdAt updatedAt authData displayName photoURL }";
  const SCREENS = ["start", "register", "login", "second-factor", "forgot", "provider", "home", "account", "devices", "consent"];
  // On /oauth/authorize: the app asking, its scopes and the request's parameters (see signedIn).
  const AUTHORIZE = config.authorize || null;
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
    const first = [...$(screen).querySelectorAll("input:not([type=checkbox])")].find((input) => input.offsetParent !== null);
    if (first) first.focus();
  }

  // A guest: a user made by "Continue as guest", whose only way in is the anonymous id this
  // browser keeps (the server drops it once the guest has a password or another way in).
  function isGuest(user) { return !!(user && user.authData && user.authData.anonymous); }

  function showError(id, error, special) {
    const element = $(id);
    if (error) { element.textContent = explain(error, special); element.hidden = false; }
    else { element.textContent = ""; element.hidden = true; }
  }

  function showMailboxHint(container) {
    for (const hint of container.querySelectorAll(".mailbox-hint")) hint.hidden = !config.devMailbox;
  }

  // What the page calls the user: the display name, else the username; a guest without a display
  // name is "Guest" (its username is random, nothing to greet anyone by).
  function nameOf(user) {
    if (user.displayName) return user.displayName;
    if (isGuest(user)) return words("app.guest.name");
    return user.username || user.email || user.objectId;
  }

  // The user's photo in `image`, shown once it has loaded; until then, and when there is none or
  // it does not load, the first letter of the user's name in `initial` instead. The same photo
  // again (the user read anew) is left as it is, without a flicker.
  function showPhoto(image, initial, user) {
    initial.textContent = (Array.from(nameOf(user))[0] || "?").toUpperCase();
    const url = user.photoURL || "";
    if (image.dataset.url === url) return;
    image.dataset.url = url;
    const shown = (loaded) => { image.hidden = !loaded; initial.hidden = loaded; };
    shown(false);
    if (!url) { image.removeAttribute("src"); return; }
    image.onload = () => { if (image.dataset.url === url) shown(true); };
    image.onerror = () => { if (image.dataset.url === url) shown(false); };
    image.src = url;
  }

  function showHome(user) {
    $("welcome").textContent = words("app.welcome", { name: nameOf(user) });
    showPhoto($("avatar-photo"), $("avatar-initial"), user);
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
    signedIn(viewer.user);
  }

  // Where a signed-in user goes: home, or on the authorization page the app's consent.
  function signedIn(user) {
    if (AUTHORIZE) authorizeAs(user); else showHome(user);
  }

  // The authorization page's form: the request's parameters, the session and (when the page
  // decides by itself) the decision, posted to /oauth/authorize, which redirects to the app.
  function authorizeForm(sessionToken, decision) {
    const fields = $("consent-fields");
    fields.replaceChildren();
    const add = (name, value) => {
      const input = document.createElement("input");
      input.type = "hidden";
      input.name = name;
      input.value = value;
      fields.append(input);
    };
    for (const [name, value] of AUTHORIZE.params) add(name, value);
    add("session_token", sessionToken || "");
    if (decision) add("decision", decision);
    return $("consent-form");
  }

  // Signed in on the authorization page: the consent screen, unless the app is first-party or
  // the user consented to these scopes before (and prompt=consent does not ask again). Access
  // to a resource (another service, as the user) is asked for each time, as the server does.
  async function authorizeAs(user) {
    const session = loadSession();
    let consented = [];
    const asks = AUTHORIZE.prompt.includes("consent") || (!AUTHORIZE.firstParty && AUTHORIZE.resource !== null);
    if (!AUTHORIZE.firstParty && !asks) {
      try {
        const data = await gql("query Apps { viewer { authorizedApps { clientId scopes } } }", {}, session.sessionToken);
        const app = data.viewer.authorizedApps.find((candidate) => candidate.clientId === AUTHORIZE.clientId);
        if (app) consented = app.scopes;
      } catch (error) {
        if (error.code === 209) { clearSession(); showStart(explain(error)); return; }
      }
    }
    if (!asks && (AUTHORIZE.firstParty || AUTHORIZE.scopes.every((scope) => consented.includes(scope)))) {
      authorizeForm(session.sessionToken, "approve").submit();
      return;
    }
    const client = AUTHORIZE.clientName;
    $("consent-title").textContent = words("oauth.consent.title", { client });
    $("consent-lead").textContent = words("oauth.consent.lead", { client, name: nameOf(user) });
    // An app that registered itself chose its own name: say so, and where Allow sends the user.
    $("consent-unverified").textContent = words("oauth.consent.unverified", { client, host: AUTHORIZE.redirectHost });
    $("consent-unverified").hidden = !AUTHORIZE.registered;
    const list = $("consent-scopes");
    list.replaceChildren();
    for (const scope of AUTHORIZE.scopes) {
      const item = document.createElement("li");
      item.textContent = words("oauth.scope." + scope);
      list.append(item);
    }
    if (AUTHORIZE.resource !== null) {
      const item = document.createElement("li");
      item.textContent = words("oauth.consent.resource", { resource: AUTHORIZE.resource });
      list.append(item);
    }
    authorizeForm(session.sessionToken, null);
    show("consent");
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
    const token = $("second-factor-code").value.replace(/\s/g, "");
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

  // The second factor's refusals in words (141: a wrong, used or expired code from the app, or a
  // recovery code the user does not have, which the server tells apart by its message).
  function mfaError(error) {
    if (error.code === 141) return { text: words(error.message === "Invalid recovery code." ? "error.141.recovery" : "error.141") };
    return error;
  }

  // Passkeys: the server's options (WebAuthn JSON forms, binary fields in base64url) go to
  // navigator.credentials and the credential back as JSON; the browser's own converters when
  // it has them.
  //
  // A browser makes passkeys only for the relying party id of the server (config.passkeys.id) on
  // a page whose host is that domain or under it, never on an IP address, and the server accepts
  // them only from its origins: elsewhere the buttons are hidden and a note links to the address
  // where passkeys work (the server's public URL).
  function passkeyProblem() {
    const site = config.passkeys;
    const host = location.hostname;
    const ipAddress = /^\d{1,3}(\.\d{1,3}){3}$/.test(host) || host.includes(":");
    const inScope = !ipAddress && (host === site.id || host.endsWith("." + site.id));
    if (!inScope || !site.origins.includes(location.origin)) return "address";
    if (!window.PublicKeyCredential || !navigator.credentials) return "browser";
    return null;
  }
  const passkeyTrouble = passkeyProblem();
  const passkeysSupported = passkeyTrouble === null;
  for (const element of document.querySelectorAll(".passkey-only")) element.hidden = !passkeysSupported;
  for (const note of document.querySelectorAll(".passkey-note")) {
    if (passkeyTrouble === "address") {
      const url = config.passkeys.url.replace(/\/$/, "") + "/";
      const [before, after] = words("app.passkeys.elsewhere").split("{url}");
      const link = document.createElement("a");
      link.href = url;
      link.textContent = url;
      note.replaceChildren(before, link, after || "");
    } else if (passkeyTrouble === "browser") {
      note.textContent = words("app.passkeys.browser");
    }
    note.hidden = passkeysSupported;
  }

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

  // The account screen: a guest's username and password, email (and its verification), password,
  // deletion.
  function accountNotice(text) {
    $("account-notice-text").textContent = text || "";
    for (const hint of $("account-notice").querySelectorAll(".mailbox-hint")) hint.hidden = true;
    $("other-devices").hidden = true;
    $("account-notice").hidden = !text;
  }

  function showAccount(user) {
    showProfile(user, false);
    $("account-email").textContent = user.email
      ? `${user.email} · ${user.emailVerified ? "verified" : "not verified"}` : "No email address yet.";
    $("send-verification").hidden = !user.email || user.emailVerified;
    const guest = isGuest(user);
    for (const element of $("account").querySelectorAll(".guest-only")) element.hidden = !guest;
    for (const element of $("account").querySelectorAll(".member-only")) element.hidden = guest;
  }

  // The viewer read again, so that what changed elsewhere shows here (an address verified through
  // the link in another tab, a name changed on another device): when the tab comes back into view
  // and when the account screen opens. Only the screens that show the user are redrawn. The answer
  // is dropped when the stored session changed meanwhile (a log-out, or a change made on this
  // page, whose own answer is newer).
  let viewerRead = null;
  function readViewerAgain() {
    const stored = localStorage.getItem(SESSION_KEY);
    const session = loadSession();
    if (!session || !session.sessionToken || viewerRead) return viewerRead;
    viewerRead = gql(`query Viewer { viewer { user { ...UserFields } } } ${USER_FIELDS}`, {}, session.sessionToken)
      .then((data) => {
        if (localStorage.getItem(SESSION_KEY) !== stored) return;
        saveSession({ sessionToken: session.sessionToken, user: data.viewer.user });
        if (!$("home").hidden) showHome(data.viewer.user);
        if (!$("account").hidden) showAccount(data.viewer.user);
      })
      .catch((error) => {
        // Ended elsewhere: back to the start screen. Anything else waits for the next try.
        if (error.code === 209 && localStorage.getItem(SESSION_KEY) === stored) { clearSession(); showStart(explain(error)); }
      })
      .finally(() => { viewerRead = null; });
    return viewerRead;
  }
  document.addEventListener("visibilitychange", () => { if (document.visibilityState === "visible") readViewerAgain(); });
  window.addEventListener("focus", () => readViewerAgain());
  // Back to this page from the browser's cache (after following a link in the same tab).
  window.addEventListener("pageshow", (event) => { if (event.persisted) readViewerAgain(); });

  // The profile form with the user's display name and photo URL; a field the person has edited
  // keeps what they typed, unless `replace` (the values were just saved).
  function showProfile(user, replace) {
    for (const [id, value] of [["profile-name", user.displayName], ["profile-photo-url", user.photoURL]]) {
      const input = $(id);
      const edited = input.value !== input.defaultValue;
      input.defaultValue = value || "";
      if (replace || !edited) input.value = value || "";
    }
    showPhoto($("profile-photo"), $("profile-initial"), user);
  }

  // An empty field removes the value; the server's rule for a value it refuses (142) in its words.
  onSubmit("profile-form", "profile-error", async () => {
    accountNotice(null);
    const fields = { displayName: $("profile-name").value.trim() || null, photoURL: $("profile-photo-url").value.trim() || null };
    let user;
    try {
      user = await updateUser(fields);
    } catch (error) {
      if (error.code === 142) throw { text: error.message };
      throw error;
    }
    showProfile(user, true);
    accountNotice(words("app.profile.saved"));
  });

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
    const forms = ["profile-form", "guest-form", "email-form", "password-form", "delete-form", "totp-form", "totp-regenerate-form",
      "totp-disable-form"];
    for (const form of forms) $(form).reset();
    const errors = ["profile-error", "guest-error", "email-error", "password-error", "delete-error", "passkey-error", "totp-error",
      "totp-manage-error", "totp-disable-error", "apps-error"];
    for (const error of errors) showError(error, null);
    $("email-current-box").hidden = true;
    $("passkey-name").value = "";
    $("totp-recovery").hidden = true;
    accountNotice(null);
    showAccount(loadSession().user);
    showTOTP(null);
    show("account");
    // The screen fills in as the user, two-step status, passkeys and apps arrive, moving what is
    // below them: aria-busy says so until all are in (assistive technology waits, and so do tests).
    $("account").setAttribute("aria-busy", "true");
    Promise.allSettled([
      readViewerAgain(),
      run($("totp-start"), "totp-status-error", loadTOTP),
      run($("passkey-add"), "passkey-error", loadPasskeys),
      run($("app-list"), "apps-error", loadApps),
    ]).then(() => $("account").removeAttribute("aria-busy"));
  });

  // Without a recent log-in (206) the passkey and two-step settings want a fresh one; a session
  // made without the user's second factor may not add another ("Second factor required.").
  function freshLogIn(error, text) {
    if (error.code === 206 && error.message === "Second factor required.") return { text: words("error.206.second-factor") };
    if (error.code === 206) return { text: text || "For your security, log out and log in again, then try once more." };
    return mfaError(error);
  }

  // After a passkey or an authenticator app is added: with GATEHOUSE_MFA=required the server has
  // signed out the user's other devices, which the notice says; otherwise, when other devices
  // are signed in, it offers to sign them out (they were signed in without the new factor).
  async function afterEnrolment(notice) {
    if (config.mfa === "required") { accountNotice(`${notice} ${words("app.enrolled.signed-out")}`); return; }
    accountNotice(notice);
    let sessions;
    try {
      sessions = (await gql("query Sessions { viewer { sessions { current } } }", {}, loadSession().sessionToken)).viewer.sessions;
    } catch (error) {
      return;  // the factor is added; without the list there is just no offer
    }
    showError("other-devices-error", null);
    $("other-devices").hidden = !sessions.some((session) => !session.current);
  }

  $("other-devices-revoke").addEventListener("click", () => run($("other-devices-revoke"), "other-devices-error", async () => {
    const revoked = (await gql("mutation RevokeOtherSessions { revokeOtherSessions(input: {}) { revoked } }",
      {}, loadSession().sessionToken)).revokeOtherSessions.revoked;
    accountNotice(words(revoked === 1 ? "app.revoked.one" : "app.revoked", { count: revoked }));
  }));

  // A guest keeps the account by choosing a username and a password; the server needs no current
  // password from a guest's recent session (and a guest has none to give).
  onSubmit("guest-form", "guest-error", async () => {
    accountNotice(null);
    const username = $("guest-username").value.trim();
    if (!username) throw { code: 200 };
    if (!$("guest-password").value) throw { code: 201 };
    let user;
    try {
      user = await updateUser({ username, password: $("guest-password").value });
    } catch (error) {
      if (error.code === 206 && error.message === "Recent authentication required.") throw { text: words("app.guest.stale") };
      throw error;
    }
    localStorage.removeItem(ANONYMOUS_KEY);
    $("guest-form").reset();
    accountNotice(words("app.guest.done", { username: user.username }));
  });

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
    await loadPasskeys();
    await afterEnrolment(`The passkey ${passkey.name} has been added. You can log in with it now.`);
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
    showRecoveryCodes(response);
    await afterEnrolment("Two-step verification is on.");
  });

  onSubmit("totp-regenerate-form", "totp-manage-error", async () => {
    const token = $("totp-regenerate-code").value.replace(/\s/g, "");
    if (!token) throw { text: "Enter the code from your authenticator app." };
    const response = await updateMFA({ token, recovery: true });
    $("totp-regenerate-form").reset();
    accountNotice("You have new recovery codes; the old ones no longer work.");
    showRecoveryCodes(response);
  });

  onSubmit("totp-disable-form", "totp-disable-error", async () => {
    if (!$("totp-disable-confirm").checked) throw { text: words("app.totp.off.unconfirmed") };
    await updateMFA(null, "For your security, log out and log in again with a code from your app, then turn it off.");
    $("totp-disable-form").reset();
    $("totp-recovery").hidden = true;
    accountNotice("Two-step verification is off.");
  });

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

  // A guest has no password: its recent session is enough (an old one is told to continue as
  // guest again, which makes a new session of the same account).
  onSubmit("delete-form", "delete-error", async () => {
    const session = loadSession();
    const guest = isGuest(session.user);
    if (!guest && !$("delete-current").value) throw { code: 206 };
    if (!$("delete-confirm").checked) throw { text: "Tick the box to confirm that your account should be deleted." };
    const input = { id: session.user.objectId };
    if (!guest) input.currentPassword = $("delete-current").value;
    try {
      await gql("mutation DeleteUser($input: DeleteUserInput!) { deleteUser(input: $input) { user { objectId } } }",
        { input }, session.sessionToken);
    } catch (error) {
      if (guest && error.code === 206 && error.message === "Recent authentication required.") throw { text: words("app.guest.stale") };
      throw error;
    }
    if (guest) localStorage.removeItem(ANONYMOUS_KEY);
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

  // The Account screen's apps: those the user let sign them in, each with a Remove button.
  async function loadApps() {
    const apps = (await gql("query Apps { viewer { authorizedApps { clientId name scopes grantedAt } } }",
      {}, loadSession().sessionToken)).viewer.authorizedApps;
    const list = $("app-list");
    list.replaceChildren();
    $("apps-none").hidden = apps.length > 0;
    for (const app of apps) {
      const item = document.createElement("li");
      item.dataset.clientId = app.clientId;
      const name = document.createElement("strong");
      name.textContent = app.name;
      const detail = document.createElement("div");
      detail.className = "hint";
      detail.textContent = `${app.scopes.join(" · ")} · ${when(app.grantedAt)}`;
      const button = document.createElement("button");
      button.type = "button";
      button.className = "secondary remove";
      button.textContent = words("app.apps.remove");
      button.addEventListener("click", () => run(button, "apps-error", async () => {
        await gql("mutation RevokeApp($input: RevokeAuthorizedAppInput!) { revokeAuthorizedApp(input: $input) { ok } }",
          { input: { clientId: app.clientId } }, loadSession().sessionToken);
        accountNotice(words("app.apps.removed", { name: app.name }));
        await loadApps();
      }));
      item.append(name, detail, button);
      list.append(item);
    }
  }

  if (AUTHORIZE) {
    $("authorize-banner").textContent = words("oauth.banner", { client: AUTHORIZE.clientName });
    $("authorize-banner").hidden = false;
    $("consent-switch").addEventListener("click", () => { clearSession(); showStart(); });
  }

  // On load: the stored session at once, then the server's word on it. On the authorization
  // page, prompt=none decides at once with whatever session there is (the server answers
  // login_required or consent_required), and prompt=login signs in afresh.
  async function start() {
    if (AUTHORIZE && AUTHORIZE.prompt.includes("none")) {
      const stored = loadSession();
      authorizeForm(stored && stored.sessionToken, "approve").submit();
      return;
    }
    if (AUTHORIZE && AUTHORIZE.prompt.includes("login")) clearSession();
    const session = loadSession();
    if (!session || !session.sessionToken || !session.user) { showStart(); return; }
    if (!AUTHORIZE) showHome(session.user);
    try {
      const data = await gql(`query Viewer { viewer { sessionToken user { ...UserFields } } } ${USER_FIELDS}`, {}, session.sessionToken);
      saveSession({ sessionToken: session.sessionToken, user: data.viewer.user });
      await signedIn(data.viewer.user);
    } catch (error) {
      if (error.code === 209) { clearSession(); showStart(explain(error)); }
      else showError("home-error", error);
    }
  }
  start().finally(() => { document.body.dataset.ready = "true"; });
})();
