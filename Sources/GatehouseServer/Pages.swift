import Auth
import Foundation
import HTTPServer
import JSON
import Mail
import Sodium
import Signatures

/// The browser pages: the sample app at `GET /`, the GraphQL explorer at `GET /graphql` (for
/// `Accept: text/html` without a `query` parameter) and the pages behind the links in mail
/// (``LinkPages``).
///
/// Each is one self-contained HTML document (no CDN, no build step) made from the files in
/// `Pages/` (HTML, CSS, JavaScript, the texts in four languages), which the EmbedText build
/// plugin compiles in as ``PageFiles``; this code only picks the page and language and fills in
/// values. The Content-Security-Policy allows exactly the page's own inline script and style by
/// their SHA-256 hashes (``PageAssets``), and network access only to this origin (but for the
/// sample app's images: a user's photo may be at any https URL). Server
/// settings the scripts need (the app id, the password minimum, where passkeys work, the page's
/// words) travel in a non-executable JSON data block, so the hashes do not depend on them.
struct Pages: Sendable {
    /// `GET /`: start screen, register, log-in and forgotten-password forms, home, account and devices screens.
    let app: HTTPResponse
    /// `GET /graphql` from a browser: editors, headers, run, result, schema browser.
    let explorer: HTTPResponse
    /// `/verify-email` and `/reset-password`.
    let links: LinkPages
    /// The sample app's data block without the words, which the authorization page sends in the
    /// request's language (``authorize(_:formTarget:acceptLanguage:)``).
    private let appConfig: JSONObject
    private let appName: String
    private let passwordMinLength: Int
    /// `GET /admin`: the operators' console (it asks for a master key); nil with `GATEHOUSE_ADMIN_CONSOLE=off`.
    let admin: HTTPResponse?

    /// Where passkeys work: the relying party id the server registers them under, the origins it
    /// accepts ceremonies from, and the address a browser elsewhere is sent to (the public URL).
    /// The sample app hides its passkey buttons on a page where they cannot work and links there.
    /// (``init(appId:passwordMinLength:appName:devMailbox:providers:passkeys:secondFactors:)``'s
    /// default, for pages made in tests, is a server at `http://localhost:1337`.)
    struct PasskeySite: Sendable {
        let relyingPartyId: String
        let origins: [String]
        let url: String

        var json: JSON {
            .object(["id": .string(relyingPartyId), "origins": .array(origins.map(JSON.string)), "url": .string(url)])
        }
    }

    /// `devMailbox`: whether this server shows its outbox at `/_dev/mailbox` (the sample app links to it).
    /// `providers`: the enabled `logInWith` providers; `anonymous` shows "Continue as guest", every
    /// other name a button that takes a pasted ID token. `secondFactors`: `GATEHOUSE_MFA`, which
    /// says whether enrolling a factor signs out the other devices by itself. `adminConsole`:
    /// whether `/admin` serves the operators' console.
    init(
        appId: String? = nil, passwordMinLength: Int = 8, appName: String = "Gatehouse", devMailbox: Bool = false,
        providers: [String] = ["anonymous"],
        passkeys: PasskeySite = PasskeySite(
            relyingPartyId: "localhost", origins: ["http://localhost:1337"], url: "http://localhost:1337"),
        secondFactors: SecondFactorMode = .optional, adminConsole: Bool = true
    ) {
        var config: JSONObject = ["passwordMinLength": .int(passwordMinLength)]
        config["appId"] = appId.map { .string($0) } ?? .null
        let explorerConfig = Self.dataBlock(config)
        config["devMailbox"] = .bool(devMailbox)
        config["providers"] = .array(providers.map { .string($0) })
        config["appName"] = .string(appName)
        config["passkeys"] = passkeys.json
        config["mfa"] = .string(secondFactors.rawValue)
        let text = PageText.filled(.english, appName: appName, passwordMinLength: passwordMinLength)
        config["text"] = PageText.json(text)
        // app.html's `{{text.KEY}}` is the English text of KEY (the sample app is in English).
        let body = Self.appBody.render { name in name.hasPrefix("text.") ? text[String(name.dropFirst("text.".count))] : nil }
        app = Self.page(title: "Gatehouse", assets: Self.appAssets, body: body, config: Self.dataBlock(config))
        explorer = Self.page(
            title: "Gatehouse GraphQL explorer", assets: Self.explorerAssets, body: Self.explorerBody.render(),
            config: explorerConfig)
        links = LinkPages(appId: appId, passwordMinLength: passwordMinLength, appName: appName)
        config["text"] = nil
        appConfig = config
        self.appName = appName
        self.passwordMinLength = passwordMinLength
        var adminConfig: JSONObject = ["appName": .string(appName)]
        adminConfig["appId"] = appId.map { .string($0) } ?? .null
        // The console shows users' data: no cache keeps it.
        admin = adminConsole
            ? Self.page(
                title: "\(appName) operators", assets: Self.adminAssets, body: Self.adminBody.render(["appName": appName]),
                config: Self.dataBlock(adminConfig), cacheControl: "no-store")
            : nil
    }

    /// `GET /oauth/authorize`: the sample app in the language of `Accept-Language`, with
    /// `authorize` (the app asking, its scopes, the request's parameters) in its data block, so
    /// that once signed in it asks for consent and posts the decision. Its form may go to this
    /// origin and to `formTarget` (the redirect URI's origin): browsers hold the redirect after
    /// a form's post to `form-action` too. Never cached: it carries the request's parameters.
    func authorize(_ details: JSONObject, formTarget: String, acceptLanguage: String?) -> HTTPResponse {
        let language = MailLanguage(acceptLanguage: acceptLanguage)
        let text = PageText.filled(language, appName: appName, passwordMinLength: passwordMinLength)
        var config = appConfig
        config["text"] = PageText.json(text)
        config["authorize"] = .object(details)
        let body = Self.appBody.render { name in name.hasPrefix("text.") ? text[String(name.dropFirst("text.".count))] : nil }
        var response = Self.page(
            language: language.rawValue, title: appName, assets: Self.appAssets, body: body, config: Self.dataBlock(config),
            cacheControl: "no-store")
        response.headers.replaceOrAdd(
            name: "Content-Security-Policy",
            value: Self.appAssets.contentSecurityPolicy.replacingOccurrences(
                of: "form-action 'none'", with: "form-action 'self' \(formTarget)"))
        return response
    }

    /// A bad authorization request (an unknown app, or a redirect URI not registered for it): a
    /// page that says so (HTTP 400), which never sends the browser on.
    func authorizeError(_ message: String, acceptLanguage: String?) -> HTTPResponse {
        let language = MailLanguage(acceptLanguage: acceptLanguage)
        let text = PageText.filled(language, appName: appName, passwordMinLength: passwordMinLength)
        let body = Self.authorizeErrorBody.render([
            "app": appName, "title": text["oauth.error.title"]!, "lead": text["oauth.error.lead"]!, "message": message,
        ])
        var response = Self.page(
            language: language.rawValue, title: text["oauth.error.title"]!, assets: Self.authorizeErrorAssets, body: body,
            config: "{}", cacheControl: "no-store")
        response.status = 400
        return response
    }

    /// `GET /favicon.ico`: the brand mark (`favicon.svg`), which every page also names in its
    /// `<link rel="icon">`; browsers ask for this path by themselves. It changes only with a new
    /// release, so browsers may keep it for a day. Its own policy lets nothing in it run or load.
    static let favicon = HTTPResponse(
        status: 200,
        headers: [
            "Content-Type": "image/svg+xml",
            "Cache-Control": "public, max-age=86400",
            "Content-Security-Policy": "default-src 'none'",
            "X-Content-Type-Options": "nosniff",
        ],
        body: Array(withoutFinalLineBreak(PageFiles.faviconSvg).utf8))

    /// Whether a request to `/graphql` is a browser asking for a page rather than a query.
    static func wantsExplorer(_ request: HTTPRequest) -> Bool {
        request.method == "GET" && request.queryValue("query") == nil
            && (request.headers["Accept"]?.lowercased().contains("text/html") ?? false)
    }

    static func hash(_ text: String) -> String {
        "sha256-" + Data(SHA256.digest(text)).base64EncodedString()
    }

    /// `object` as the text of a `<script type="application/json">` block: `<` escaped, so that no
    /// string inside can close the block.
    static func dataBlock(_ object: JSONObject) -> String {
        JSON.object(object).serializedString().replacingOccurrences(of: "<", with: "\\u003c")
    }

    /// One page: `page.html`, the skeleton every page shares, around `body`, with its headers.
    /// `cacheControl`: `no-store` for pages that carry a token.
    static func page(
        language: String = "en", title: String, assets: PageAssets, body: String, config: String,
        cacheControl: String = "no-cache"
    ) -> HTTPResponse {
        let html = skeleton.render([
            "language": language, "title": title, "style": assets.style, "body": body, "config": config,
            "script": assets.script,
        ])
        return HTTPResponse(
            status: 200,
            headers: [
                "Content-Type": "text/html; charset=utf-8",
                "Content-Security-Policy": assets.contentSecurityPolicy,
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "no-referrer",
                "X-Frame-Options": "DENY",
                "Cache-Control": cacheControl,
            ],
            body: Array(html.utf8))
    }

    /// A file's text without its final line break, if it has one.
    static func withoutFinalLineBreak(_ text: String) -> String {
        text.hasSuffix("\n") ? String(text.dropLast()) : text
    }

    /// Scripts joined into one, in order (`prelude.js` first where a page uses it).
    static func script(_ files: String...) -> String {
        files.map(withoutFinalLineBreak).joined(separator: "\n")
    }

    /// The compiled-in file `Pages/name` as a template, its final line break dropped (editors add
    /// one, and where a file is inserted should not depend on whether the editor did). A file that
    /// does not parse is a broken build, which stops the server; every test that makes pages finds it.
    static func template(_ name: String, _ text: String) -> HTMLTemplate {
        do { return try HTMLTemplate(file: "Pages/" + name, text: withoutFinalLineBreak(text)) } catch {
            preconditionFailure(error.description)
        }
    }

    static let skeleton = template("page.html", PageFiles.pageHtml)
    static let appBody = template("app.html", PageFiles.appHtml)
    static let explorerBody = template("explorer.html", PageFiles.explorerHtml)
    /// The sample app's style, which the link pages share.
    static let appStyle = withoutFinalLineBreak(PageFiles.appCss)
    /// The sample app's; it shows the user's photo, from wherever it is on the web.
    static let appAssets = PageAssets(
        style: appStyle, script: script(PageFiles.preludeJs, PageFiles.qrCodeJs, PageFiles.appJs), photos: true)
    static let authorizeErrorBody = template("authorize-error.html", PageFiles.authorizeErrorHtml)
    /// The authorization error page's: the sample app's style, no script.
    static let authorizeErrorAssets = PageAssets(style: appStyle, script: "")
    static let adminBody = template("admin.html", PageFiles.adminHtml)
    /// The console's: the sample app's style with its own after it; it loads no image from elsewhere.
    static let adminAssets = PageAssets(
        style: appStyle + "\n" + withoutFinalLineBreak(PageFiles.adminCss), script: script(PageFiles.preludeJs, PageFiles.adminJs))
    static let explorerAssets = PageAssets(
        style: withoutFinalLineBreak(PageFiles.explorerCss), script: script(PageFiles.explorerJs))
}
