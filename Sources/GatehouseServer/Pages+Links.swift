import HTTPServer
import JSON
import Mail

/// The pages behind the links in mail (contract: accounts.md, "The pages behind the links"):
/// `/verify-email` and `/reset-password`, in the language of the request's `Accept-Language`
/// (English, Spanish, French, Korean; as the mail), with the app name of `GATEHOUSE_APP_NAME`.
///
/// `GET` changes nothing, since mail scanners fetch links: the verify page's script confirms by
/// itself, and without scripts its button posts the form back to `/verify-email` (the Router
/// answers with this page in the outcome's state); the reset page asks for the new password
/// twice and posts `confirmResetPassword`. An invalid or expired link offers a new one (the
/// script posts the mutation; without scripts the form posts to the page's path). The token is
/// only in the URL and the page: the script never stores it, the request log has no query
/// string, `Referrer-Policy: no-referrer` and `Cache-Control: no-store` keep it from others.
struct LinkPages: Sendable {
    enum Kind: Sendable {
        case verify, reset

        /// The kind whose page is at `path`.
        init?(path: String) {
            switch path {
            case "/verify-email": self = .verify
            case "/reset-password": self = .reset
            default: return nil
            }
        }

        var path: String { self == .verify ? "/verify-email" : "/reset-password" }
        /// The first part of the kind's ``PageText`` keys, and the page's `data-page`.
        var name: String { self == .verify ? "verify" : "reset" }
    }

    /// What the page shows when served.
    enum State: Sendable, Hashable {
        /// The link's page: the verify page confirms (its script at once), the reset page asks.
        case link
        /// The verify form was posted and the address is verified.
        case verified
        /// No token or username, or the server refused them as invalid or expired.
        case invalid
        /// A "send a new link" form was posted.
        case sent
        /// The verify form was posted and failed for another reason: the message's key.
        case verifyFailed(String)
        /// A "send a new link" form was posted and failed: the message's key.
        case sendFailed(String)
    }

    private struct Words: Sendable {
        let text: [String: String]
        let config: String
    }

    private let words: [MailLanguage: Words]
    private let appName: String

    init(appId: String?, passwordMinLength: Int, appName: String) {
        self.appName = appName
        var words: [MailLanguage: Words] = [:]
        for language in MailLanguage.allCases {
            let text = PageText.filled(language, appName: appName, passwordMinLength: passwordMinLength)
            var config: JSONObject = ["passwordMinLength": .int(passwordMinLength), "text": PageText.json(text)]
            config["appId"] = appId.map { .string($0) } ?? .null
            words[language] = Words(text: text, config: Pages.dataBlock(config))
        }
        self.words = words
    }

    /// `GET` of a link: the page, changing nothing.
    func page(for request: HTTPRequest) -> HTTPResponse? {
        guard let kind = Kind(path: request.path) else { return nil }
        let username = request.queryValue("username") ?? ""
        let token = request.queryValue("token") ?? ""
        return page(
            kind, state: username.isEmpty || token.isEmpty ? .invalid : .link, username: username, token: token,
            acceptLanguage: request.headers["Accept-Language"])
    }

    /// The page of `kind` showing `state`, for the link of `username` and `token`.
    func page(_ kind: Kind, state: State, username: String, token: String, acceptLanguage: String?) -> HTTPResponse {
        let language = MailLanguage(acceptLanguage: acceptLanguage)
        let words = self.words[language]!
        let t = { (key: String) in MailComposer.escape(words.text[key] ?? key) }
        let lead = { (key: String) in t(key).replacingOccurrences(of: "{username}", with: "<strong>\(MailComposer.escape(username))</strong>") }
        let hiddenUnless = { (shown: Bool) in shown ? "" : " hidden" }
        let onLink = switch state { case .link, .verifyFailed: true; default: false }
        let onInvalid = switch state { case .invalid, .sent, .sendFailed: true; default: false }

        let form: String
        switch kind {
        case .verify:
            let failure = if case .verifyFailed(let key) = state { t(key) } else { "" }
            form = """
                <h1>\(t("verify.title"))</h1>
                <p class="lead">\(lead("verify.lead"))</p>
                <p id="verify-working" class="notice" role="status" hidden>\(t("verify.working"))</p>
                <form id="verify-form" method="post" action="/verify-email">
                  <input type="hidden" name="username" value="\(MailComposer.escape(username))">
                  <input type="hidden" name="token" value="\(MailComposer.escape(token))">
                  <button id="verify-submit" type="submit">\(t("verify.button"))</button>
                </form>
                <p id="verify-error" class="error" role="alert"\(hiddenUnless(!failure.isEmpty))>\(failure)</p>
                """
        case .reset:
            form = """
                <h1>\(t("reset.title"))</h1>
                <p class="lead">\(lead("reset.lead"))</p>
                <noscript><p class="error">\(t("reset.noscript"))</p></noscript>
                <form id="reset-form" novalidate>
                  <input id="reset-username" type="hidden" autocomplete="username" value="\(MailComposer.escape(username))">
                  <input id="reset-token" type="hidden" value="\(MailComposer.escape(token))">
                  <label for="reset-password">\(t("reset.new"))</label>
                  <input id="reset-password" type="password" autocomplete="new-password">
                  <p class="hint">\(t("reset.hint"))</p>
                  <label for="reset-repeat">\(t("reset.repeat"))</label>
                  <input id="reset-repeat" type="password" autocomplete="new-password">
                  <p id="reset-error" class="error" role="alert" hidden></p>
                  <button id="reset-submit" type="submit">\(t("reset.button"))</button>
                </form>
                """
        }
        let sendFailure = if case .sendFailed(let key) = state { t(key) } else { "" }
        let body = """
            <main data-page="\(kind.name)" data-state="\(state == .link ? "link" : "answer")">
              <div class="brand"><span class="brand-mark" aria-hidden="true">\(MailComposer.escape(appName.prefix(1).uppercased()))</span>\(MailComposer.escape(appName))</div>
              <section id="link-form"\(hiddenUnless(onLink))>
              \(form)
              </section>
              <section id="link-done"\(hiddenUnless(state == .verified))>
                <h1>\(t(kind.name + ".done.title"))</h1>
                <p class="lead">\(t(kind.name + ".done.lead"))</p>
              <a class="button" href="/">\(t("back"))</a>
              </section>
              <section id="link-invalid"\(hiddenUnless(onInvalid))>
                <h1 id="invalid-title">\(t(kind.name + ".invalid.title"))</h1>
                <p id="invalid-lead" class="lead">\(t(kind.name + ".invalid.lead"))</p>
                <div id="resend-sent" class="notice" role="status"\(hiddenUnless(state == .sent))><p>\(t("resend.sent"))</p></div>
                <form id="resend-form" method="post" action="\(kind.path)" novalidate>
                  <label for="resend-email">\(t("resend.email"))</label>
                  <input id="resend-email" name="email" type="email" autocomplete="email">
                  <p id="resend-error" class="error" role="alert"\(hiddenUnless(!sendFailure.isEmpty))>\(sendFailure)</p>
                  <button id="resend-submit" type="submit">\(t("resend.button"))</button>
                </form>
              </section>
            </main>
            """
        return Pages.page(
            language: language.rawValue, title: "\(words.text[kind.name + ".title"]!) – \(appName)",
            style: AppPage.style, body: body, script: Self.script, config: words.config, formAction: "'self'",
            cacheControl: "no-store")
    }

    /// Both link pages' script, after ``Pages/scriptPrelude``.
    static let script = Pages.scriptPrelude + #"""
(() => {
  const main = document.querySelector("main");
  const page = main.dataset.page;

  function show(id) {
    for (const section of document.querySelectorAll("main > section")) section.hidden = section.id !== id;
  }

  function showError(id, error) {
    const element = $(id);
    if (error) { element.textContent = explain(error); element.hidden = false; }
    else { element.textContent = ""; element.hidden = true; }
  }

  async function run(button, errorId, action) {
    showError(errorId, null);
    button.disabled = true;
    try { await action(); } catch (error) { showError(errorId, error); } finally { button.disabled = false; }
  }

  function showInvalid(titleKey, leadKey) {
    $("invalid-title").textContent = words(titleKey);
    $("invalid-lead").textContent = words(leadKey);
    show("link-invalid");
  }

  if (page === "verify") {
    const form = $("verify-form");
    const verify = () => run($("verify-submit"), "verify-error", async () => {
      $("verify-working").hidden = false;
      form.hidden = true;
      try {
        await graphQL("mutation VerifyEmail($input: VerifyEmailInput!) { verifyEmail(input: $input) { ok } }",
          { input: { username: form.elements.username.value, token: form.elements.token.value } });
        show("link-done");
      } catch (error) {
        if (error.code !== -1) throw error;
        show("link-invalid");
      } finally {
        $("verify-working").hidden = true;
        form.hidden = false;
      }
    });
    form.addEventListener("submit", (event) => { event.preventDefault(); verify(); });
    // Only the link's own page confirms by itself; an answer to the posted form already has.
    if (main.dataset.state === "link") verify();
  } else {
    $("reset-form").addEventListener("submit", (event) => {
      event.preventDefault();
      run($("reset-submit"), "reset-error", async () => {
        const password = $("reset-password").value;
        if (!password) throw { text: words("reset.empty") };
        if (password !== $("reset-repeat").value) throw { text: words("reset.mismatch") };
        try {
          await graphQL("mutation ConfirmResetPassword($input: ConfirmResetPasswordInput!) { confirmResetPassword(input: $input) { ok } }",
            { input: { username: $("reset-username").value, password, token: $("reset-token").value } });
        } catch (error) {
          if (error.code !== -1) throw error;
          if (error.message === "The password reset link has expired") showInvalid("reset.expired.title", "reset.expired.lead");
          else showInvalid("reset.invalid.title", "reset.invalid.lead");
          return;
        }
        $("reset-form").reset();
        show("link-done");
      });
    });
  }

  $("resend-form").addEventListener("submit", (event) => {
    event.preventDefault();
    run($("resend-submit"), "resend-error", async () => {
      $("resend-sent").hidden = true;
      const input = { email: $("resend-email").value.trim() };
      if (page === "verify") {
        await graphQL("mutation SendVerificationEmail($input: SendVerificationEmailInput!) { sendVerificationEmail(input: $input) { ok } }", { input });
      } else {
        await graphQL("mutation ResetPassword($input: ResetPasswordInput!) { resetPassword(input: $input) { ok } }", { input });
      }
      $("resend-sent").hidden = false;
    });
  });
  document.body.dataset.ready = "true";
})();
"""#
}
