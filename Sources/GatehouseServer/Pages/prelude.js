// What the scripts of the sample app and the link pages share (each page's script is this file,
// then its own): the page's data block as `config`, `$`, one GraphQL request, and the server's
// error codes in the page's words (`config.text`, from text/*.json).
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
    case 1: case 125: case 200: case 201: case 202: case 203: case 204: case 205: case 206: case 209: case "network": case "unauthorized":
      return words("error." + error.code);
    default: return words("error.other", { code: error.code !== undefined ? "code " + error.code : "HTTP " + error.status });
  }
}
