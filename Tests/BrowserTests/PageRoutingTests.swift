import ServerTestSupport
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Which requests get a page, and the headers pages are sent with.
struct PageRoutingTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let method: String
        let target: String
        let accept: String?
        let servesPage: String?  // the page's <title>, or nil for "not a page"
        var testDescription: String { "\(method) \(target) Accept: \(accept ?? "-")" }
    }

    static let cases: [Case] = [
        Case(method: "GET", target: "/", accept: "text/html", servesPage: "Gatehouse"),
        Case(method: "GET", target: "/", accept: nil, servesPage: "Gatehouse"),
        Case(method: "GET", target: "/graphql", accept: "text/html,application/xhtml+xml,*/*;q=0.8", servesPage: "Gatehouse GraphQL explorer"),
        Case(method: "GET", target: "/graphql?query=%7Bhealth%7D", accept: "text/html", servesPage: nil),
        Case(method: "GET", target: "/graphql", accept: "application/json", servesPage: nil),
        Case(method: "GET", target: "/graphql", accept: nil, servesPage: nil),
        Case(method: "POST", target: "/graphql", accept: "text/html", servesPage: nil),
        Case(method: "POST", target: "/", accept: "text/html", servesPage: nil),
        Case(method: "GET", target: "/index.html", accept: "text/html", servesPage: nil),
    ]

    @Test(arguments: cases)
    func routing(_ item: Case) async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        var request = URLRequest(url: URL(string: server.origin + item.target)!)
        request.httpMethod = item.method
        if let accept = item.accept { request.setValue(accept, forHTTPHeaderField: "Accept") }
        if item.method == "POST" {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            request.httpBody = Data(#"{"query":"{ health }"}"#.utf8)
        }
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = try #require(response as? HTTPURLResponse)
        let body = String(decoding: data, as: UTF8.self)
        let contentType = http.value(forHTTPHeaderField: "Content-Type") ?? ""
        if let title = item.servesPage {
            #expect(http.statusCode == 200)
            #expect(contentType == "text/html; charset=utf-8")
            #expect(body.contains("<title>\(title)</title>"))
            let csp = try #require(http.value(forHTTPHeaderField: "Content-Security-Policy"))
            #expect(csp.contains("default-src 'none'"))
            #expect(csp.contains("connect-src 'self'"))
            #expect(csp.contains("script-src 'sha256-"))
            #expect(!csp.contains("unsafe-inline") && !csp.contains("unsafe-eval"))
            #expect(http.value(forHTTPHeaderField: "X-Content-Type-Options") == "nosniff")
            // Self-contained: no external script, style or font.
            #expect(!body.contains("src=\"http") && !body.contains("href=\"http") && !body.contains("@import"))
        } else {
            #expect(!contentType.hasPrefix("text/html"))
            if item.target.hasPrefix("/graphql") {
                #expect(body.contains(#""health":true"#) || http.statusCode >= 400, "\(body)")
            }
        }
    }

    /// Browsers ask for /favicon.ico by themselves: it is the brand mark, an SVG image that may
    /// be cached, and every page names it.
    @Test func theFaviconIsServedAndNamedByThePages() async throws {
        let server = try InProcessServer()
        defer { server.stop() }
        let (data, response) = try await URLSession.shared.data(from: URL(string: server.origin + "/favicon.ico")!)
        let http = try #require(response as? HTTPURLResponse)
        #expect(http.statusCode == 200)
        #expect(http.value(forHTTPHeaderField: "Content-Type") == "image/svg+xml")
        #expect(http.value(forHTTPHeaderField: "Cache-Control") == "public, max-age=86400")
        #expect(http.value(forHTTPHeaderField: "X-Content-Type-Options") == "nosniff")
        #expect(http.value(forHTTPHeaderField: "Content-Security-Policy") == "default-src 'none'")
        let svg = String(decoding: data, as: UTF8.self)
        #expect(svg.hasPrefix(#"<svg xmlns="http://www.w3.org/2000/svg""#) && svg.hasSuffix("</svg>"))
        for path in ["/", "/graphql", "/verify-email"] {
            var request = URLRequest(url: URL(string: server.origin + path)!)
            request.setValue("text/html", forHTTPHeaderField: "Accept")
            let (page, _) = try await URLSession.shared.data(for: request)
            #expect(String(decoding: page, as: UTF8.self).contains(#"<link rel="icon" href="/favicon.ico" type="image/svg+xml">"#), "\(path)")
        }
    }

    /// The sample app learns where passkeys work (the relying party id, its origins, the public
    /// URL) and the second-factor mode from its data block.
    @Test func theSampleAppKnowsWherePasskeysWork() async throws {
        let server = try InProcessServer.onLocalhost { $0.mfa = .required }
        defer { server.stop() }
        let (data, _) = try await URLSession.shared.data(from: URL(string: server.origin + "/")!)
        let body = String(decoding: data, as: UTF8.self)
        let origin = server.localhostOrigin
        #expect(body.contains(#""passkeys":{"id":"localhost","origins":["\#(origin)"],"url":"\#(origin)"}"#))
        #expect(body.contains(#""mfa":"required""#))
    }

    @Test func pagesCarryTheServersAppIdAndPasswordMinimum() async throws {
        let server = try InProcessServer { settings in
            settings.appId = "demo</script><b>"
            settings.passwordMinLength = 12
        }
        defer { server.stop() }
        let (data, _) = try await URLSession.shared.data(from: URL(string: server.origin + "/")!)
        let body = String(decoding: data, as: UTF8.self)
        // The data block is escaped: the app id cannot close it.
        #expect(body.contains(#""appId":"demo\u003c/script>\u003cb>""#))
        #expect(body.contains(#""passwordMinLength":12"#))
        #expect(!body.contains("demo</script>"))
    }
}
