@testable import GatehouseServer
import JSON
import Mail
import ServerTestSupport
import TestSupport
import Testing

/// The pages behind the links in mail, over plain HTTP: headers, words, languages, the form
/// posted without scripts. (BrowserLinkFlowTests drives them in Chromium.)
struct LinkPageTests {
    static let token = "tok_abcdefghijklmnopqrstuvwxyz012345"

    @Test(arguments: ["/verify-email", "/reset-password"])
    func pagesAreSelfContainedAndKeepTheTokenToThemselves(_ path: String) throws {
        let server = try InProcessServer { $0.appName = "Acme <Notes>" }
        defer { server.stop() }
        let response = try HTTPConnection.get("\(path)?token=\(Self.token)&username=ann%3Cb%3E", port: server.server.port)
        #expect(response.status == 200)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(response.header("Referrer-Policy") == "no-referrer")
        #expect(response.header("Cache-Control") == "no-store")
        #expect(response.header("X-Frame-Options") == "DENY")
        let csp = try #require(response.header("Content-Security-Policy"))
        #expect(csp.contains("default-src 'none'") && csp.contains("script-src 'sha256-") && csp.contains("connect-src 'self'"))
        #expect(csp.contains("form-action 'self'"))
        #expect(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"))
        let body = response.text
        #expect(body.contains(#"<html lang="en">"#))
        #expect(!body.contains("src=\"http") && !body.contains("href=\"http") && !body.contains("@import"))
        // The app name and the username are escaped wherever they appear.
        #expect(body.contains("– Acme &lt;Notes&gt;</title>"))
        #expect(body.contains("<strong>ann&lt;b&gt;</strong>"))
        #expect(!body.contains("ann<b>") && !body.contains("Acme <Notes>"))
        // The token is in the page for its script (and the no-script form), and nowhere else.
        #expect(body.contains(#"value="\#(Self.token)""#))
        #expect(body.components(separatedBy: Self.token).count == 2)
    }

    @Test func scriptsAndStylesMatchTheirHashes() throws {
        let pages = Pages(appId: "app", passwordMinLength: 10, appName: "Acme")
        for language in ["en", "ko"] {
            let response = pages.links.page(.reset, state: .link, username: "ann", token: "t", acceptLanguage: language)
            let body = String(decoding: response.body, as: UTF8.self)
            let csp = try #require(response.headers["Content-Security-Policy"])
            #expect(csp.contains(Pages.hash(LinkPages.assets.script)) && csp.contains(Pages.hash(Pages.appStyle)))
            #expect(body.contains("<script>\(LinkPages.assets.script)</script>"))
            #expect(body.contains(#""passwordMinLength":10"#))
        }
    }

    struct LanguageCase: Sendable, CustomTestStringConvertible {
        let acceptLanguage: String?
        let lang: String
        let verifyTitle: String
        let resetTitle: String
        var testDescription: String { acceptLanguage ?? "(none)" }
    }

    static let languages: [LanguageCase] = [
        LanguageCase(acceptLanguage: nil, lang: "en", verifyTitle: "Confirm your email address", resetTitle: "Choose a new password"),
        LanguageCase(acceptLanguage: "es-MX,es;q=0.9,en;q=0.5", lang: "es", verifyTitle: "Confirma tu dirección de correo", resetTitle: "Elige una contraseña nueva"),
        LanguageCase(acceptLanguage: "fr-CA, en;q=0.3", lang: "fr", verifyTitle: "Confirmez votre adresse e-mail", resetTitle: "Choisissez un nouveau mot de passe"),
        LanguageCase(acceptLanguage: "ko-KR,ko;q=0.9", lang: "ko", verifyTitle: "이메일 주소 확인", resetTitle: "새 비밀번호 설정"),
        LanguageCase(acceptLanguage: "de-DE,de;q=0.9", lang: "en", verifyTitle: "Confirm your email address", resetTitle: "Choose a new password"),
    ]

    @Test(arguments: languages)
    func pagesSpeakTheLanguageOfTheRequest(_ item: LanguageCase) throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let headers = item.acceptLanguage.map { [("Accept-Language", $0)] } ?? []
        for (path, title) in [("/verify-email", item.verifyTitle), ("/reset-password", item.resetTitle)] {
            let body = try HTTPConnection.get("\(path)?token=t&username=ann", port: server.server.port, headers: headers).text
            #expect(body.contains(#"<html lang="\#(item.lang)">"#), "\(path)")
            #expect(body.contains("<h1>\(title)</h1>"), "\(path)")
            #expect(body.contains("<title>\(title) – Gatehouse</title>"), "\(path)")
        }
    }

    @Test func everyLanguageHasEveryKeyWithTheSamePlaceholders() {
        let placeholders = { (text: String) in Set(text.matches(of: /\{\w+\}/).map { String($0.output) }) }
        for language in MailLanguage.allCases {
            let table = PageText.table(language)
            #expect(Set(table.keys) == Set(PageText.english.keys), "\(language)")
            for (key, text) in PageText.english {
                #expect(placeholders(table[key] ?? "") == placeholders(text), "\(language) \(key)")
            }
        }
    }

    @Test(arguments: ["/verify-email", "/reset-password", "/verify-email?token=t", "/reset-password?username=ann"])
    func aLinkWithoutTokenOrUsernameIsInvalid(_ target: String) throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let body = try HTTPConnection.get(target, port: server.server.port).text
        #expect(body.contains(#"<section id="link-form" hidden>"#))
        #expect(body.contains(#"<section id="link-invalid">"#))
        #expect(body.contains(#"<form id="resend-form" method="post""#))
    }

    @Test func otherMethodsAreNotFound() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let connection = try HTTPConnection(port: server.server.port)
        #expect(try connection.request("PUT", "/verify-email?token=t&username=ann").status == 404)
        #expect(try connection.request("DELETE", "/reset-password").status == 404)
    }

    /// The verify button without scripts: the form is posted, verifyEmail runs, the answer says
    /// so in words. A wrong token is an invalid link, which offers a new one; that form works
    /// without scripts too.
    @Test func theVerifyFormWorksWithoutScripts() throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let backdoor = Backdoor(server)
        let (token, link) = try backdoor.signUpAnn(askingFor: "sendVerificationEmail", kind: "verify_email")
        let query = try #require(link.split(separator: "?", maxSplits: 1).last)
        let connection = try HTTPConnection(port: server.server.port)
        let form = [("Content-Type", "application/x-www-form-urlencoded"), ("Accept-Language", "fr")]

        let wrong = try connection.request("POST", "/verify-email", headers: form, body: Array("username=ann&token=nope".utf8))
        #expect(wrong.status == 200)
        #expect(wrong.text.contains(#"<section id="link-invalid">"#))
        #expect(wrong.text.contains("Ce lien n’est pas valide ou a expiré"))
        #expect(try backdoor.emailVerified(token: token) == false)

        let answer = try connection.request("POST", "/verify-email", headers: form, body: Array(query.utf8))
        #expect(answer.text.contains(#"<section id="link-done">"#))
        #expect(answer.text.contains("Votre adresse e-mail est vérifiée"))
        #expect(try eventually { try backdoor.emailVerified(token: token) == true })  // the cache hears of the change by NOTIFY

        let resend = try connection.request("POST", "/verify-email", headers: form, body: Array("email=ann%40example.com".utf8))
        #expect(resend.text.contains(#"<div id="resend-sent" class="notice" role="status">"#))
        let empty = try connection.request("POST", "/reset-password", headers: form, body: Array("email=".utf8))
        #expect(empty.text.contains("Saisissez votre adresse e-mail."))
    }
}
