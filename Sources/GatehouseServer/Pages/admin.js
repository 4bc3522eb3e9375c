// The operators' console (admin.html): the master key, kept in this tab's sessionStorage only and
// sent as X-Parse-Master-Key; the users search; a user's page and what an operator does to it.
// Every value from the server goes into the page as text (textContent), never as markup.

const keyItem = "gatehouse.admin.key";
let key = sessionStorage.getItem(keyItem);
let lastSearch = null;   // {where, after} of the results shown
let current = null;      // the user on its page

const sections = ["key", "search", "user"];
function show(id) {
  for (const section of sections) $(section).hidden = section !== id;
  window.scrollTo(0, 0);
}

// Marks the page busy while `work` runs (tests wait for it to end); errors go to `errorId`.
async function busy(errorId, work) {
  document.body.setAttribute("aria-busy", "true");
  const error = errorId ? $(errorId) : null;
  if (error) error.hidden = true;
  try {
    await work();
  } catch (e) {
    if (!error) throw e;
    error.textContent = describe(e);
    error.hidden = false;
  } finally {
    document.body.removeAttribute("aria-busy");
  }
}

function describe(error) {
  if (error.code === "network") return "The server cannot be reached.";
  if (error.message) return error.message;
  return "The request failed" + (error.status ? " (HTTP " + error.status + ")." : ".");
}

function api(query, variables) {
  return graphQL(query, variables, { "X-Parse-Master-Key": key });
}

function when(iso) {
  return iso ? iso.slice(0, 16).replace("T", " ") + " UTC" : "—";
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

// MARK: The key

$("key-form").addEventListener("submit", (event) => {
  event.preventDefault();
  busy("key-error", async () => {
    const entered = $("key-input").value.trim();
    if (!entered) throw { message: "Enter the master key." };
    key = entered;
    try {
      await api("query { users(first: 1) { count } }");
    } catch (e) {
      key = null;
      if (e.code === 119) throw { message: "That is not a master key of this server." };
      throw e;
    }
    sessionStorage.setItem(keyItem, key);
    $("key-input").value = "";
    await openSearch();
  });
});

$("forget-key").addEventListener("click", () => {
  sessionStorage.removeItem(keyItem);
  key = null;
  $("results").replaceChildren();
  show("key");
});

// MARK: Searching

function whereFromForm() {
  const where = {};
  const text = $("search-text").value.trim();
  const field = $("search-in").value;
  if (text) where[field] = field === "objectId" ? { equalTo: text } : { startsWith: text };
  const state = $("search-state").value;
  if (state) where.disabled = { equalTo: state === "disabled" };
  const verified = $("search-verified").value;
  if (verified) where.emailVerified = { equalTo: verified === "true" };
  const mfa = $("search-mfa").value;
  if (mfa) where.mfa = { equalTo: mfa === "true" };
  const provider = $("search-provider").value.trim();
  if (provider) where.authProvider = { equalTo: provider };
  const created = {};
  if ($("search-after").value) created.greaterThan = $("search-after").value + "T00:00:00.000Z";
  if ($("search-before").value) created.lessThan = $("search-before").value + "T00:00:00.000Z";
  if (created.greaterThan || created.lessThan) where.createdAt = created;
  return where;
}

// The count (a scan of every match) is asked for once per search, not for each further page.
const usersQuery = `query Users($where: UserWhereInput, $after: String, $withCount: Boolean!) {
  users(where: $where, first: 20, after: $after) {
    count @include(if: $withCount) pageInfo { hasNextPage endCursor }
    edges { node { objectId username email emailVerified disabled createdAt } }
  }
}`;

async function runSearch(where, after) {
  const data = await api(usersQuery, { where, after, withCount: !after });
  const users = data.users;
  if (!after) $("results").replaceChildren();
  for (const edge of users.edges) $("results").appendChild(resultRow(edge.node));
  if (!after) $("search-count").textContent = users.count === 1 ? "1 user" : users.count + " users";
  $("more").hidden = !users.pageInfo.hasNextPage;
  lastSearch = { where, after: users.pageInfo.endCursor };
}

function resultRow(user) {
  const item = element("li");
  const button = element("button");
  button.type = "button";
  button.dataset.id = user.objectId;
  button.appendChild(element("span", "name", user.username));
  button.appendChild(element("span", "email", user.email ? user.email + (user.emailVerified ? "" : " (not verified)") : "no email"));
  button.appendChild(element("span", "created", "Joined " + when(user.createdAt)));
  button.appendChild(element("span", user.disabled ? "state off" : "state ok", user.disabled ? "Disabled" : "Active"));
  button.addEventListener("click", () => busy("search-error", () => openUser(user.objectId)));
  item.appendChild(button);
  return item;
}

$("search-form").addEventListener("submit", (event) => {
  event.preventDefault();
  busy("search-error", () => runSearch(whereFromForm(), null));
});

$("more").addEventListener("click", () => {
  if (lastSearch) busy("search-error", () => runSearch(lastSearch.where, lastSearch.after));
});

async function openSearch() {
  show("search");
  await runSearch(whereFromForm(), null);
}

// MARK: A user

const userQuery = `query User($id: ID!) {
  user(id: $id) {
    objectId username email emailVerified displayName createdAt updatedAt disabled disabledReason authData
    sessions { objectId createdAt lastUsedAt expiresAt userAgent createdWith }
    passkeys { objectId name createdAt lastUsedAt }
  }
}`;

async function openUser(id) {
  const data = await api(userQuery, { id });
  current = data.user;
  renderUser(current);
  $("user-notice").hidden = true;
  $("user-error").hidden = true;
  show("user");
}

async function reloadUser(notice) {
  const data = await api(userQuery, { id: current.objectId });
  current = data.user;
  renderUser(current);
  $("user-notice").textContent = notice;
  $("user-notice").hidden = false;
}

function renderUser(user) {
  $("user-name").textContent = user.username;
  $("user-state").textContent = user.disabled
    ? "Disabled" + (user.disabledReason ? ": " + user.disabledReason : " (no reason given)")
    : "Active";
  $("user-id").textContent = user.objectId;
  $("user-email").textContent = user.email ? user.email + (user.emailVerified ? " · verified" : " · not verified") : "—";
  $("user-display-name").textContent = user.displayName || "—";
  $("user-created").textContent = when(user.createdAt);
  $("user-updated").textContent = when(user.updatedAt);
  const authData = user.authData || {};
  const providers = Object.keys(authData).filter((name) => name !== "mfa");
  $("user-providers").textContent = providers.length ? providers.join(", ") : "password only";
  $("user-mfa").textContent = authData.mfa ? "TOTP on" : "off";

  const passkeys = user.passkeys || [];
  $("user-passkeys").replaceChildren(...(passkeys.length ? passkeys.map((passkey) => {
    const item = element("li");
    item.appendChild(element("strong", null, passkey.name));
    item.appendChild(element("div", "hint", "Added " + when(passkey.createdAt) + " · "
      + (passkey.lastUsedAt ? "last used " + when(passkey.lastUsedAt) : "not used yet")));
    return item;
  }) : [element("li", "hint", "No passkeys.")]));

  const sessions = user.sessions || [];
  $("user-sessions").replaceChildren(...(sessions.length ? sessions.map((session) => {
    const item = element("li");
    item.dataset.id = session.objectId;
    item.appendChild(element("strong", null, session.userAgent || "Unknown device"));
    const how = session.createdWith || {};
    const kind = how.authProvider === "masterkey" ? "support session (log in as)" : (how.authProvider || "password");
    item.appendChild(element("div", "hint", "Signed in " + when(session.createdAt) + " with " + kind
      + " · last used " + when(session.lastUsedAt) + " · ends " + when(session.expiresAt)));
    return item;
  }) : [element("li", "hint", "No sessions.")]));
  $("end-sessions").hidden = sessions.length === 0;

  $("disable-box").hidden = user.disabled;
  $("enable").hidden = !user.disabled;
  $("resend").hidden = !user.email || user.emailVerified;
  $("delete-confirm").value = "";
  $("delete").disabled = true;
}

$("back").addEventListener("click", () => busy("search-error", openSearch));

$("end-sessions").addEventListener("click", () => busy("user-error", async () => {
  const data = await api("mutation R($id: ID!) { revokeUserSessions(input: {id: $id}) { revoked } }", { id: current.objectId });
  const count = data.revokeUserSessions.revoked;
  await reloadUser(count === 1 ? "Ended 1 session." : "Ended " + count + " sessions.");
}));

$("disable").addEventListener("click", () => busy("user-error", async () => {
  const reason = $("disable-reason").value.trim() || null;
  await api("mutation D($id: ID!, $reason: String) { disableUser(input: {id: $id, reason: $reason}) { user { disabled } } }",
    { id: current.objectId, reason });
  $("disable-reason").value = "";
  await reloadUser("The account is disabled: its sessions ended, and it cannot log in.");
}));

$("enable").addEventListener("click", () => busy("user-error", async () => {
  await api("mutation E($id: ID!) { enableUser(input: {id: $id}) { user { disabled } } }", { id: current.objectId });
  await reloadUser("The account is enabled again.");
}));

$("resend").addEventListener("click", () => busy("user-error", async () => {
  await api("mutation V($email: String!) { sendVerificationEmail(input: {email: $email}) { ok } }", { email: current.email });
  await reloadUser("A verification link is on its way to " + current.email + ".");
}));

$("delete-confirm").addEventListener("input", () => {
  $("delete").disabled = $("delete-confirm").value !== current.username;
});

$("delete").addEventListener("click", () => busy("user-error", async () => {
  if ($("delete-confirm").value !== current.username) throw { message: "Type the username to confirm." };
  await api("mutation X($id: ID!) { deleteUser(input: {id: $id}) { user { objectId } } }", { id: current.objectId });
  const name = current.username;
  current = null;
  await openSearch();
  $("search-count").textContent = "Deleted " + name + ". " + $("search-count").textContent;
}));

// MARK: Start

(async () => {
  if (key) {
    await busy("search-error", openSearch);
  } else {
    show("key");
  }
  document.body.dataset.ready = "true";
})();
