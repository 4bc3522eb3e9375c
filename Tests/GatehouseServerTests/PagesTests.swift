import Foundation
@testable import GatehouseServer
import HTTPServer
import Sodium
import Signatures
import Testing

/// The pages made from the files in Sources/GatehouseServer/Pages: what the browser gets agrees
/// with the Content-Security-Policy it gets, and the templates and texts read as documented.
struct PagesTests {
    /// Checks that a served page runs under its own CSP: its one inline script and one inline
    /// style are exactly the ones whose hashes `script-src` and `style-src` allow (hashed here from
    /// the bytes served), and its markup has nothing the CSP would block (a `style` or `on…`
    /// attribute, a script from a URL). An edit to a page's .html, .css or .js file that breaks
    /// this fails here rather than silently in the browser.
    static func expectInlineCodeAllowed(html: String, csp: String?, _ comment: Comment? = nil) throws {
        let directives = Self.directives(try #require(csp, comment))
        let allowed = { (code: Substring) in "'sha256-" + Data(SHA256.digest(String(code))).base64EncodedString() + "'" }

        let styles = html.matches(of: #/<style>(.*?)</style>/#.dotMatchesNewlines())
        try #require(styles.count == 1, comment)
        #expect(directives["style-src"] == allowed(styles[0].output.1), comment)
        let scripts = html.matches(of: #/<script>(.*?)</script>/#.dotMatchesNewlines())
        try #require(scripts.count == 1, comment)
        #expect(directives["script-src"] == allowed(scripts[0].output.1), comment)
        #expect(html.matches(of: #/<script[ >]/#).count == 2, "the script and the JSON data block only; \(comment?.rawValue ?? "")")
        #expect(html.contains(#"<script type="application/json" id="gatehouse-config">"#), comment)

        let markup = html.replacing(#/<style>(.*?)</style>/#.dotMatchesNewlines(), with: "")
            .replacing(#/<script>(.*?)</script>/#.dotMatchesNewlines(), with: "")
        #expect(!markup.contains(#/\sstyle\s*=/#.ignoresCase()), "a style attribute; \(comment?.rawValue ?? "")")
        #expect(!markup.contains(#/\son[a-z]+\s*=/#.ignoresCase()), "an event handler attribute; \(comment?.rawValue ?? "")")
        #expect(!markup.contains(#/<script[^>]*\ssrc\s*=/#.ignoresCase()), comment)
    }

    /// A Content-Security-Policy's directives: each one's sources by its name.
    static func directives(_ csp: String) -> [String: String] {
        var directives: [String: String] = [:]
        for directive in csp.split(separator: ";") {
            let words = directive.split(separator: " ", maxSplits: 1)
            directives[String(words[0])] = words.count > 1 ? String(words[1]) : ""
        }
        return directives
    }

    static func expectInlineCodeAllowed(_ response: HTTPResponse, _ comment: Comment? = nil) throws {
        try expectInlineCodeAllowed(
            html: String(decoding: response.body, as: UTF8.self), csp: response.headers["Content-Security-Policy"], comment)
    }

    @Test func everyPageRunsUnderItsOwnPolicy() throws {
        let pages = Pages(appId: "app", passwordMinLength: 10, appName: "Acme", devMailbox: true, providers: ["anonymous", "google"])
        try Self.expectInlineCodeAllowed(pages.app, "app")
        try Self.expectInlineCodeAllowed(pages.explorer, "explorer")
        let states: [LinkPages.State] = [.link, .verified, .invalid, .sent, .verifyFailed("error.1"), .sendFailed("error.204")]
        for kind in [LinkPages.Kind.verify, .reset] {
            for language in ["en", "es", "fr", "ko"] {
                for state in states {
                    let page = pages.links.page(kind, state: state, username: "ann", token: "t", acceptLanguage: language)
                    try Self.expectInlineCodeAllowed(page, "\(kind) \(language) \(state)")
                }
            }
        }
    }

    /// A user's photo is at an https URL on another site: the sample app shows it, and allows
    /// images from there and nothing else; the other pages show no photo and allow none.
    @Test func onlyTheSampleAppShowsImagesFromOtherSitesAndOnlyOverHTTPS() throws {
        let pages = Pages()
        let linkPage = pages.links.page(.verify, state: .link, username: "ann", token: "t", acceptLanguage: "en")
        for (page, images) in [(pages.app, "'self' data: https:"), (pages.explorer, "'self' data:"), (linkPage, "'self' data:")] {
            let directives = Self.directives(try #require(page.headers["Content-Security-Policy"]))
            #expect(directives["img-src"] == images)
            #expect(directives["default-src"] == "'none'" && directives["connect-src"] == "'self'")
            #expect(Set(directives.keys) == [
                "default-src", "script-src", "style-src", "connect-src", "img-src", "base-uri", "form-action", "frame-ancestors",
            ])
        }
    }

    @Test func aPageFilesFinalLineBreakIsNotPartOfThePage() {
        #expect(Pages.template("t.html", "<p>{{a}}</p>\n").render(["a": "x"]) == "<p>x</p>")
        #expect(Pages.template("t.html", "<p>\n\n").render() == "<p>\n")
        #expect(Pages.script("one();\n", "two();") == "one();\ntwo();")
    }

    @Test(arguments: [
        (#"{"a": "x", "b": "y", "a": "z"}"#, #"Pages/text/xx.json: the key "a" is there twice."#),
        (#"{"a": "x", "b": 2}"#, #"Pages/text/xx.json: the value of "b" is not a string."#),
        (#"["a"]"#, "Pages/text/xx.json: not a JSON object of texts."),
    ])
    func aTextFileThatIsNotATableOfTextsSaysWhy(text: String, message: String) {
        do {
            _ = try PageText.parse(text, file: "text/xx.json")
            Issue.record("parsed: \(text)")
        } catch {
            #expect(error.description == message)
        }
    }

    @Test func aTextFileThatIsNotJSONSaysSo() {
        do {
            _ = try PageText.parse(#"{"a": "x",}"#, file: "text/xx.json")
            Issue.record("parsed")
        } catch {
            #expect(error.description.hasPrefix("Pages/text/xx.json: not JSON: "))
        }
        #expect((try? PageText.parse(#"{"a": "x", "b": "y"}"#, file: "text/xx.json")) == ["a": "x", "b": "y"])
    }
}
