import HTTPServer
import JSON
import Mail

/// The pages behind the links in mail (docs/accounts.md):
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
///
/// A page is `Pages/link.html` around `verify-form.html` or `reset-form.html` (the username in
/// their lead as `username.html` shows it), in the words of `Pages/text/` (``PageText``), with
/// `app.css` and `prelude.js` + `links.js`.
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
        let hidden = { (shown: Bool) in shown ? "" : " hidden" }
        let onLink = switch state { case .link, .verifyFailed: true; default: false }
        let onInvalid = switch state { case .invalid, .sent, .sendFailed: true; default: false }
        let verifyError = if case .verifyFailed(let key) = state { words.text[key] ?? key } else { "" }
        let sendError = if case .sendFailed(let key) = state { words.text[key] ?? key } else { "" }
        // The lead's {username} as username.html shows it: the text is escaped first, then the name put in.
        let lead = MailComposer.escape(words.text[kind.name + ".lead"]!)
            .replacingOccurrences(of: "{username}", with: Self.username.render(["username": username]))
        let values: [String: String] = [
            "page": kind.name, "state": state == .link ? "link" : "answer", "path": kind.path,
            "appName": appName, "brandLetter": String(appName.prefix(1).uppercased()),
            "username": username, "token": token, "lead": lead,
            "verifyError": verifyError, "verifyErrorHidden": hidden(!verifyError.isEmpty),
            "sendError": sendError, "sendErrorHidden": hidden(!sendError.isEmpty),
            "formHidden": hidden(onLink), "doneHidden": hidden(state == .verified),
            "invalidHidden": hidden(onInvalid), "sentHidden": hidden(state == .sent),
        ]
        // `text.KEY` is the language's text for KEY; in link.html `text.page.…` is the kind's own.
        let value = { (name: String) -> String? in
            guard name.hasPrefix("text.") else { return values[name] }
            let key = name.dropFirst("text.".count)
            return words.text[key.hasPrefix("page.") ? kind.name + key.dropFirst("page".count) : String(key)]
        }
        let form = (kind == .verify ? Self.verifyForm : Self.resetForm).render(value)
        let body = Self.body.render { $0 == "form" ? form : value($0) }
        return Pages.page(
            language: language.rawValue, title: "\(words.text[kind.name + ".title"]!) – \(appName)",
            assets: Self.assets, body: body, config: words.config, cacheControl: "no-store")
    }

    static let body = Pages.template("link.html", PageFiles.linkHtml)
    static let verifyForm = Pages.template("verify-form.html", PageFiles.verifyFormHtml)
    static let resetForm = Pages.template("reset-form.html", PageFiles.resetFormHtml)
    static let username = Pages.template("username.html", PageFiles.usernameHtml)
    /// Both link pages' style (the sample app's) and script; their forms post to the page's path.
    static let assets = PageAssets(
        style: Pages.appStyle, script: Pages.script(PageFiles.preludeJs, PageFiles.linksJs), formAction: "'self'")
}
