/// A page's inline style and script, and the Content-Security-Policy that allows exactly them,
/// hashed once when made (not per request).
struct PageAssets: Sendable {
    let style: String
    let script: String
    /// Nothing but the hashed script and style, `fetch` to this origin, no framing; forms go to
    /// `formAction` (default: nowhere, as the scripts handle the forms, so a password never ends up
    /// in a URL even if scripting fails); images from this origin, `data:` URLs, and, with
    /// `photos`, any https URL (users' photos are on other sites).
    let contentSecurityPolicy: String

    init(style: String, script: String, formAction: String = "'none'", photos: Bool = false) {
        self.style = style
        self.script = script
        contentSecurityPolicy =
            "default-src 'none'; script-src '\(Pages.hash(script))'; style-src '\(Pages.hash(style))'; connect-src 'self'; "
            + "img-src 'self' data:\(photos ? " https:" : ""); base-uri 'none'; form-action \(formAction); frame-ancestors 'none'"
    }
}
